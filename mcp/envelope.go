package mcp

import (
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"

	"reasonixctl/core"
	"reasonixctl/core/redact"
)

// redactDetails returns a redacted copy of error details. Issue lists keep their type so they
// serialise path-first as Codex has seen them; anything else is redacted in its JSON form.
func redactDetails(details map[string]any) map[string]any {
	out := make(map[string]any, len(details))
	for k, v := range details {
		if redact.IsSecretKey(k) {
			out[k] = redact.Placeholder
			continue
		}
		if issues, ok := v.([]core.Issue); ok {
			clean := make([]core.Issue, len(issues))
			for i, is := range issues {
				clean[i] = core.Issue{Path: redact.String(is.Path), Message: redact.String(is.Message)}
			}
			out[k] = clean
			continue
		}
		var generic any
		if b, err := json.Marshal(v); err == nil && json.Unmarshal(b, &generic) == nil {
			out[k] = redact.Value(generic)
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
	e := *core.AsError(err) // a copy: redaction must not touch the caller's error
	// The core redacts what it records; this is the last line before the wire.
	e.Message = redact.String(e.Message)
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
