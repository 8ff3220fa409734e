package mockllm

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// Dialect is a model API the mock speaks. All of them are served on the one listener, told apart
// by the request's path, and all answer from the same Script.
type Dialect string

const (
	// ChatCompletions is OpenAI's POST /v1/chat/completions: Reasonix, Qwen Code, opencode.
	ChatCompletions Dialect = "openai-chat"
	// Responses is OpenAI's POST /v1/responses: Codex.
	Responses Dialect = "openai-responses"
	// AnthropicMessages is Anthropic's POST /v1/messages: Claude Code (claude-agent-acp).
	AnthropicMessages Dialect = "anthropic-messages"
	// Gemini is Google's POST /v1beta/models/{model}:streamGenerateContent and :generateContent:
	// Gemini CLI.
	Gemini Dialect = "gemini"
)

type operation int

const (
	opNone     operation = iota
	opGenerate           // a model round, streamed when the body says so
	opStream             // a Gemini model round whose path asks for a stream
	opCount              // a token count
	opModels             // a model listing
	opProbe              // a plain GET or HEAD of "/"
)

type route struct {
	dialect Dialect
	op      operation
	model   string // Gemini names the model in the path
}

// routeOf tells the dialect and the operation from the path alone, ignoring any prefix before the
// API's own part so a base URL with extra segments still works.
func routeOf(r *http.Request) route {
	p := r.URL.Path
	if r.Method == http.MethodPost {
		switch {
		case strings.HasSuffix(p, "/chat/completions"):
			return route{dialect: ChatCompletions, op: opGenerate}
		case strings.HasSuffix(p, "/responses"):
			return route{dialect: Responses, op: opGenerate}
		case strings.HasSuffix(p, "/messages/count_tokens"):
			return route{dialect: AnthropicMessages, op: opCount}
		case strings.HasSuffix(p, "/messages"):
			return route{dialect: AnthropicMessages, op: opGenerate}
		}
		if i := strings.LastIndex(p, "/models/"); i >= 0 {
			model, verb, ok := strings.Cut(p[i+len("/models/"):], ":")
			if ok && model != "" && !strings.Contains(model, "/") {
				switch verb {
				case "streamGenerateContent":
					return route{dialect: Gemini, op: opStream, model: model}
				case "generateContent":
					return route{dialect: Gemini, op: opGenerate, model: model}
				case "countTokens":
					return route{dialect: Gemini, op: opCount, model: model}
				}
			}
		}
		return route{}
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return route{}
	}
	switch {
	case p == "/" || p == "":
		return route{op: opProbe}
	case !strings.HasSuffix(p, "/models"):
		return route{}
	case strings.Contains(p, "/v1beta/"):
		return route{dialect: Gemini, op: opModels}
	case r.Header.Get("anthropic-version") != "":
		return route{dialect: AnthropicMessages, op: opModels}
	}
	return route{dialect: ChatCompletions, op: opModels}
}

// conversation is what the mock reads from a request body, whatever the dialect.
type conversation struct {
	messages  []Message
	tools     []string
	wantsJSON bool // the request asks for a JSON answer (structured output)
}

func decodeConversation(d Dialect, body map[string]any) conversation {
	switch d {
	case Responses:
		return decodeResponses(body)
	case AnthropicMessages:
		return decodeAnthropic(body)
	case Gemini:
		return decodeGemini(body)
	}
	return decodeChat(body)
}

// The models a listing names: the ones the agents ask for by default, so a client that checks
// its model against the list finds it.
const (
	claudeListedModel = "claude-sonnet-4-6"
	geminiListedModel = "gemini-2.5-flash"
)

// modelList answers a model listing in the dialect's shape, naming the models the homes
// configure.
func modelList(d Dialect) any {
	switch d {
	case Gemini:
		methods := []string{"generateContent", "streamGenerateContent", "countTokens"}
		return map[string]any{"models": []any{
			map[string]any{"name": "models/" + geminiListedModel, "displayName": "Mock", "supportedGenerationMethods": methods},
		}}
	case AnthropicMessages:
		return map[string]any{"data": []any{
			map[string]any{"type": "model", "id": claudeListedModel, "display_name": "Mock", "created_at": "2025-01-01T00:00:00Z"},
		}, "has_more": false, "first_id": claudeListedModel, "last_id": claudeListedModel}
	}
	return map[string]any{"object": "list",
		"data": []any{map[string]any{"id": "mock-model", "object": "model", "owned_by": "mock"}}}
}

// errorBody is a scripted failure in the shape the dialect's clients parse, so an agent reports
// the scripted message rather than a decoding error.
func errorBody(d Dialect, status int, msg string) any {
	switch d {
	case AnthropicMessages:
		kind := map[int]string{400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
			404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error", 529: "overloaded_error"}[status]
		if kind == "" {
			kind = "api_error"
		}
		return map[string]any{"type": "error", "error": map[string]any{"type": kind, "message": msg}}
	case Gemini:
		st := map[int]string{400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
			429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED"}[status]
		if st == "" {
			st = "UNKNOWN"
		}
		return map[string]any{"error": map[string]any{"code": status, "message": msg, "status": st}}
	}
	return map[string]any{"error": map[string]any{"message": msg, "type": "mock"}}
}

// reply is a Step made ready for any dialect: split into pieces, tool calls given ids and their
// arguments encoded, token counts estimated.
type reply struct {
	seq       int
	model     string
	created   int64
	text      string
	reasoning string
	textParts []string
	reasParts []string
	calls     []replyCall
	// input and output are token estimates: a quarter of the bytes, as good as any for a mock.
	input, output int
}

type replyCall struct {
	id   string
	name string
	// args is JSON text, or the raw input of a custom tool.
	args string
	// custom marks a Responses custom (freeform) tool, such as Codex's apply_patch.
	custom bool
}

func newReply(seq int, req Request, bodyLen int, st Step) *reply {
	n := st.Chunks
	if n == 0 {
		n = 4
	}
	model := req.Model
	if model == "" {
		model = "mock-model"
	}
	rp := &reply{seq: seq, model: model, created: time.Now().Unix(), text: st.Text, reasoning: st.Reasoning,
		textParts: splitN(st.Text, n), reasParts: splitN(st.Reasoning, n)}
	custom := map[string]bool{}
	if req.Dialect == Responses {
		custom = customTools(req.Body)
	}
	out := len(st.Text) + len(st.Reasoning)
	for i, tc := range st.ToolCalls {
		args, _ := tc.argumentsJSON() // validated by Start
		id := tc.ID
		if id == "" {
			id = defaultCallID(req.Dialect, seq, i)
		}
		rp.calls = append(rp.calls, replyCall{id: id, name: tc.Name, args: args, custom: custom[tc.Name]})
		out += len(tc.Name) + len(args)
	}
	rp.input, rp.output = max(1, bodyLen>>2), max(1, out>>2)
	return rp
}

// defaultCallID follows each API's own id shape; Gemini's API sends none and its clients make
// their own.
func defaultCallID(d Dialect, seq, i int) string {
	switch d {
	case AnthropicMessages:
		return fmt.Sprintf("toolu_mock_%d_%d", seq, i)
	case Gemini:
		return ""
	}
	return fmt.Sprintf("call_mock_%d_%d", seq, i)
}

// whole is the non-streamed answer.
func (rp *reply) whole(req Request) any {
	switch req.Dialect {
	case Responses:
		return rp.responsesObject("completed", rp.responsesItems())
	case AnthropicMessages:
		return rp.anthropicMessage()
	case Gemini:
		return rp.geminiWhole()
	}
	return rp.chatWhole(req)
}

// stream sends the streamed answer through emit; false means it was cut short.
func (rp *reply) stream(req Request, emit emitFunc) bool {
	switch req.Dialect {
	case Responses:
		return rp.responsesStream(emit)
	case AnthropicMessages:
		return rp.anthropicStream(emit)
	case Gemini:
		return rp.geminiStream(emit)
	}
	opts, _ := req.Body["stream_options"].(map[string]any)
	return rp.chatStream(opts["include_usage"] == true, emit)
}

// halves cuts s in two at a rune boundary, so argument deltas arrive in more than one piece as
// they do from a real model.
func halves(s string) (string, string) {
	half := len(s) / 2
	for half < len(s) && !utf8.RuneStart(s[half]) {
		half++
	}
	return s[:half], s[half:]
}

// jsonValue embeds JSON text as it is, and anything else as a string, so a scripted argument that
// is not JSON still reaches the client for it to complain about.
func jsonValue(s string) any {
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	return s
}
