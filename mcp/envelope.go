package mcp

import (
	"encoding/json"
	"regexp"

	"github.com/mark3labs/mcp-go/mcp"

	"reasonixctl/core"
)

// secretPatterns are the credential shapes an error message or detail must never carry back to
// the model (BEHAVIOUR §9). The core redacts what it stores; this is the last line at the wire.
var secretPatterns = []*regexp.Regexp{
	regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----`),
	regexp.MustCompile(`\bAKIA[0-9A-Z]{16}\b`),
	regexp.MustCompile(`\b(?:sk|rk|pk)-(?:proj-)?[A-Za-z0-9_-]{16,}\b`),
	regexp.MustCompile(`\bgh[opusr]_[A-Za-z0-9]{20,}\b`),
	regexp.MustCompile(`(?i)\bBearer\s+[A-Za-z0-9._~+/-]+=*`),
}

// secretKey matches detail keys whose values are redacted whatever they look like.
var secretKey = regexp.MustCompile(`(?i)(?:^|[_-])(api[_-]?key|token|secret|password|passwd|credential|authorization|cookie|private[_-]?key)(?:$|[_-])`)

const redacted = "[REDACTED]"

func redactString(s string) string {
	for _, p := range secretPatterns {
		s = p.ReplaceAllString(s, redacted)
	}
	return s
}

// redactValue redacts every string inside a decoded JSON value.
func redactValue(v any) any {
	switch x := v.(type) {
	case string:
		return redactString(x)
	case []any:
		for i := range x {
			x[i] = redactValue(x[i])
		}
	case map[string]any:
		for k, val := range x {
			if secretKey.MatchString(k) {
				x[k] = redacted
				continue
			}
			x[k] = redactValue(val)
		}
	}
	return v
}

// redactDetails returns a redacted copy of error details. Issue lists keep their type so they
// serialise path-first as Codex has seen them; anything else is redacted in its JSON form.
func redactDetails(details map[string]any) map[string]any {
	out := make(map[string]any, len(details))
	for k, v := range details {
		if secretKey.MatchString(k) {
			out[k] = redacted
			continue
		}
		if issues, ok := v.([]core.Issue); ok {
			clean := make([]core.Issue, len(issues))
			for i, is := range issues {
				clean[i] = core.Issue{Path: redactString(is.Path), Message: redactString(is.Message)}
			}
			out[k] = clean
			continue
		}
		var generic any
		if b, err := json.Marshal(v); err == nil && json.Unmarshal(b, &generic) == nil {
			out[k] = redactValue(generic)
		}
	}
	return out
}

type envelope struct {
	Error *core.Error `json:"error"`
}

// errorResult renders any error as the envelope Codex knows: isError, one text block, no
// structuredContent. Errors that are not *core.Error become internal_error.
func errorResult(err error) *mcp.CallToolResult {
	e := *core.AsError(err)
	e.Message = redactString(e.Message)
	if e.Details != nil {
		e.Details = redactDetails(e.Details)
	}
	b, mErr := json.Marshal(envelope{&e})
	if mErr != nil {
		b = []byte(`{"error":{"code":"internal_error","message":"error could not be encoded","retryable":false,"next_action":"none"}}`)
	}
	return &mcp.CallToolResult{
		Content: []mcp.Content{mcp.TextContent{Type: "text", Text: string(b)}},
		IsError: true,
	}
}

// successResult carries the same JSON as text and as structuredContent.
func successResult(raw []byte) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content:           []mcp.Content{mcp.TextContent{Type: "text", Text: string(raw)}},
		StructuredContent: json.RawMessage(raw),
	}
}
