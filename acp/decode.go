package acp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
)

// Inbound JSON-RPC methods of the Reasonix worker.
const (
	methodSessionUpdate   = "session/update"
	methodStatusUpdate    = "_reasonix.io/session/status_update"
	methodStatus          = "_reasonix.io/session/status"
	methodSteer           = "_reasonix.io/session/steer"
	statusSchemaVersion   = 1
	maxProtocolExcerpt    = 200
	maxMergedChunkLetters = 64 << 10
)

type msgClass int

const (
	classNotification msgClass = iota + 1
	classRequest
	classResponse
)

// inbound is one decoded line from the worker. Notifications carry their event; requests and
// responses are left to the SDK connection.
type inbound struct {
	class  msgClass
	method string
	event  Event // notifications only; its Session() may be ""
}

type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// decodeLine classifies one line the worker wrote and turns a notification into its typed event.
// Anything that is not a JSON-RPC object is an ErrProtocol error; a well-formed notification we
// cannot interpret becomes an Unknown event rather than an error.
func decodeLine(line []byte) (inbound, error) {
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return inbound{}, protocolError("not a JSON object", trimmed)
	}
	if c, ok := decodeTextChunk(trimmed); ok {
		return inbound{class: classNotification, method: methodSessionUpdate, event: c}, nil
	}
	return decodeEnvelope(trimmed)
}

// decodeEnvelope is decodeLine of a trimmed line that starts an object, in steps: the envelope,
// then the notification's params, then (for a chunk) its content.
func decodeEnvelope(trimmed []byte) (inbound, error) {
	var env envelope
	if err := json.Unmarshal(trimmed, &env); err != nil {
		return inbound{}, protocolError(err.Error(), trimmed)
	}
	hasID := len(env.ID) > 0
	switch {
	case env.Method != "" && hasID:
		return inbound{class: classRequest, method: env.Method}, nil
	case env.Method != "":
		return inbound{class: classNotification, method: env.Method, event: decodeNotification(env.Method, env.Params)}, nil
	case hasID && (len(env.Result) > 0 || len(env.Error) > 0):
		return inbound{class: classResponse}, nil
	default:
		return inbound{}, protocolError("neither a request, a response nor a notification", trimmed)
	}
}

// textChunkLine is a session/update notification of a text chunk decoded in one pass, the line
// a streaming worker writes most: decodeEnvelope takes three (and copies the params and the
// content on the way). Every field the steps read is here with the type they give it, so a line
// that decodes without error here decodes without error there; the content is decoded as the
// block the chunk step reads instead of kept raw.
type textChunkLine struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		SessionID string `json:"sessionId"`
		Update    struct {
			wireUpdate
			Content *struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"update"`
	} `json:"params"`
}

// decodeTextChunk decodes a line that decodeEnvelope would make a text Chunk of, to the same
// Chunk, in one pass; ok is false for any other line, which decodeEnvelope then decodes.
func decodeTextChunk(line []byte) (c Chunk, ok bool) {
	if !bytes.Contains(line, []byte(`_chunk"`)) || !objectKeysOnce(line) {
		return Chunk{}, false
	}
	var n textChunkLine
	if json.Unmarshal(line, &n) != nil || len(n.ID) > 0 || n.Method != methodSessionUpdate {
		return Chunk{}, false
	}
	u := &n.Params.Update
	switch EventKind(u.Kind) {
	case KindAgentMessage, KindAgentThought, KindUserMessage:
	default:
		return Chunk{}, false
	}
	if n.Params.SessionID == "" || u.Content == nil || u.Content.Type != "text" {
		return Chunk{}, false
	}
	return Chunk{SessionID: n.Params.SessionID, Stream: EventKind(u.Kind), Text: u.Content.Text}, true
}

// objectKeysOnce reports that line names each of the objects textChunkLine decodes (params,
// update, content) at most once, as far as its bytes can tell: encoding/json decodes a repeated
// key into the struct it already filled, merging the two, where decodeEnvelope's raw steps keep
// the last. Every spelling encoding/json matches a key by counts: any case, the long s (ſ) that
// folds to the s of params (so "param is what counts for it), and \u escapes, of which one that
// spells a letter sends the line to decodeEnvelope. Occurrences inside strings count too, which
// only sends a few more lines there.
func objectKeysOnce(line []byte) bool {
	for i := bytes.Index(line, []byte(`\u`)); i >= 0; {
		if i+6 > len(line) {
			return false
		}
		r, err := strconv.ParseUint(string(line[i+2:i+6]), 16, 32)
		if err != nil || r < 0x80 && ('a' <= r|0x20 && r|0x20 <= 'z') || r == 0x17f || r == 0x212a || r == 0x130 || r == 0x131 {
			return false
		}
		j := bytes.Index(line[i+6:], []byte(`\u`))
		if j < 0 {
			break
		}
		i += 6 + j
	}
	for _, key := range []string{`"param`, `"update"`, `"content"`} {
		if countFold(line, key) > 1 {
			return false
		}
	}
	return true
}

// countFold counts the occurrences of key, which starts with a quote, in s, ASCII letters
// compared without case.
func countFold(s []byte, key string) int {
	n := 0
	for i := bytes.IndexByte(s, '"'); i >= 0 && i+len(key) <= len(s); {
		j := 1
		for j < len(key) && lowerASCII(s[i+j]) == key[j] {
			j++
		}
		if j == len(key) {
			n++
		}
		k := bytes.IndexByte(s[i+1:], '"')
		if k < 0 {
			break
		}
		i += 1 + k
	}
	return n
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func protocolError(reason string, line []byte) error {
	excerpt := string(line)
	if len(excerpt) > maxProtocolExcerpt {
		excerpt = excerpt[:maxProtocolExcerpt] + "…"
	}
	return fmt.Errorf("%w: %s: %q", ErrProtocol, reason, excerpt)
}

func decodeNotification(method string, params json.RawMessage) Event {
	switch method {
	case methodSessionUpdate:
		return decodeSessionUpdate(params)
	case methodStatusUpdate:
		return decodeStatusUpdate(params)
	default:
		return Unknown{SessionID: sessionIDOf(params), Method: method, Reason: "unknown method", Raw: params}
	}
}

func sessionIDOf(params json.RawMessage) string {
	var p struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(params, &p)
	return p.SessionID
}

type wireLocation struct {
	Path string `json:"path"`
}

type wireUpdate struct {
	Kind              string            `json:"sessionUpdate"`
	Content           json.RawMessage   `json:"content"`
	ToolCallID        string            `json:"toolCallId"`
	Title             *string           `json:"title"`
	ToolKind          *string           `json:"kind"`
	Status            *string           `json:"status"`
	RawInput          json.RawMessage   `json:"rawInput"`
	RawOutput         json.RawMessage   `json:"rawOutput"`
	Locations         []wireLocation    `json:"locations"`
	Entries           []PlanEntry       `json:"entries"`
	AvailableCommands []json.RawMessage `json:"availableCommands"`
	CurrentModeID     string            `json:"currentModeId"`
	ConfigOptions     json.RawMessage   `json:"configOptions"`
}

func decodeSessionUpdate(params json.RawMessage) Event {
	var n struct {
		SessionID string     `json:"sessionId"`
		Update    wireUpdate `json:"update"`
	}
	if err := json.Unmarshal(params, &n); err != nil {
		return Unknown{SessionID: sessionIDOf(params), Method: methodSessionUpdate, Reason: err.Error(), Raw: params}
	}
	u, sid := &n.Update, n.SessionID
	unknown := func(reason string) Event {
		return Unknown{SessionID: sid, Method: methodSessionUpdate, UpdateKind: u.Kind, Reason: reason, Raw: params}
	}
	if sid == "" {
		return unknown("no sessionId")
	}
	switch EventKind(u.Kind) {
	case KindAgentMessage, KindAgentThought, KindUserMessage:
		var block struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(u.Content, &block); err != nil || block.Type == "" {
			return unknown("content is not a content block")
		}
		c := Chunk{SessionID: sid, Stream: EventKind(u.Kind)}
		if block.Type == "text" {
			c.Text = block.Text
		} else {
			c.Content = u.Content
		}
		return c
	case KindToolCall:
		if u.ToolCallID == "" {
			return unknown("tool_call without toolCallId")
		}
		return ToolCall{SessionID: sid, ID: u.ToolCallID, Title: deref(u.Title), ToolKind: deref(u.ToolKind),
			Status: deref(u.Status), RawInput: nonNull(u.RawInput), Locations: paths(u.Locations), Content: nonEmptyArray(u.Content)}
	case KindToolCallUpdate:
		if u.ToolCallID == "" {
			return unknown("tool_call_update without toolCallId")
		}
		return ToolCallUpdate{SessionID: sid, ID: u.ToolCallID, Status: deref(u.Status), Title: deref(u.Title),
			Text: contentText(u.Content), Content: nonNull(u.Content), RawOutput: nonNull(u.RawOutput),
			Locations: paths(u.Locations), RawInput: nonNull(u.RawInput), ToolKind: deref(u.ToolKind)}
	case KindPlan:
		return Plan{SessionID: sid, Entries: u.Entries}
	case KindCommands:
		names := make([]string, 0, len(u.AvailableCommands))
		for _, raw := range u.AvailableCommands {
			var c struct {
				Name string `json:"name"`
			}
			if json.Unmarshal(raw, &c) == nil && c.Name != "" {
				names = append(names, c.Name)
			}
		}
		return CommandsUpdate{SessionID: sid, Commands: names}
	case KindMode:
		if u.CurrentModeID == "" {
			return unknown("current_mode_update without currentModeId")
		}
		return ModeUpdate{SessionID: sid, ModeID: u.CurrentModeID}
	case KindConfig:
		var opts []sdk.SessionConfigOption
		if err := json.Unmarshal(u.ConfigOptions, &opts); err != nil {
			return unknown("configOptions: " + err.Error())
		}
		return ConfigUpdate{SessionID: sid, Options: convertOptions(opts)}
	default:
		return unknown("unknown session update kind")
	}
}

func decodeStatusUpdate(params json.RawMessage) Event {
	var n struct {
		SchemaVersion int             `json:"schemaVersion"`
		Sequence      int64           `json:"sequence"`
		SessionID     string          `json:"sessionId"`
		Event         string          `json:"event"`
		Status        json.RawMessage `json:"status"`
	}
	if err := json.Unmarshal(params, &n); err != nil {
		return Unknown{SessionID: sessionIDOf(params), Method: methodStatusUpdate, Reason: err.Error(), Raw: params}
	}
	unknown := func(reason string) Event {
		return Unknown{SessionID: n.SessionID, Method: methodStatusUpdate, Reason: reason, Raw: params}
	}
	if n.SchemaVersion != statusSchemaVersion {
		return unknown(fmt.Sprintf("status_update schemaVersion %d", n.SchemaVersion))
	}
	st, err := parseStatus(n.Status)
	if err != nil {
		return unknown(err.Error())
	}
	if n.SessionID == "" || st.SessionID != n.SessionID {
		return unknown("status_update sessionId mismatch")
	}
	return StatusUpdate{SessionID: n.SessionID, Sequence: n.Sequence, Event: n.Event, Status: st}
}

// parseStatus decodes a status snapshot, requiring the fields the supervisor relies on.
func parseStatus(raw json.RawMessage) (Status, error) {
	var st Status
	if err := json.Unmarshal(raw, &st); err != nil {
		return Status{}, fmt.Errorf("status: %w", err)
	}
	var missing []string
	if st.SchemaVersion != statusSchemaVersion {
		missing = append(missing, fmt.Sprintf("schemaVersion 1 (got %d)", st.SchemaVersion))
	}
	for _, f := range [...]struct{ name, value string }{{"sessionId", st.SessionID}, {"state", st.State}, {"phase", st.Phase}} {
		if f.value == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return Status{}, fmt.Errorf("status: missing %s", strings.Join(missing, ", "))
	}
	st.Raw = append(json.RawMessage(nil), raw...)
	return st, nil
}

// contentText joins the text blocks of a tool call content array.
func contentText(raw json.RawMessage) string {
	var items []struct {
		Type    string `json:"type"`
		Content struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(raw, &items) != nil {
		return ""
	}
	var b strings.Builder
	for _, it := range items {
		if it.Type == "content" && it.Content.Type == "text" {
			b.WriteString(it.Content.Text)
		}
	}
	return b.String()
}

func convertOptions(in []sdk.SessionConfigOption) []ConfigOption {
	out := make([]ConfigOption, 0, len(in))
	for _, o := range in {
		switch {
		case o.Select != nil:
			s := o.Select
			c := ConfigOption{ID: string(s.Id), Name: s.Name, Type: "select", Current: string(s.CurrentValue)}
			if s.Category != nil {
				c.Category = string(*s.Category)
			}
			if s.Options.Ungrouped != nil {
				for _, v := range *s.Options.Ungrouped {
					c.Values = append(c.Values, string(v.Value))
				}
			}
			if s.Options.Grouped != nil {
				for _, g := range *s.Options.Grouped {
					for _, v := range g.Options {
						c.Values = append(c.Values, string(v.Value))
					}
				}
			}
			out = append(out, c)
		case o.Boolean != nil:
			b := o.Boolean
			c := ConfigOption{ID: string(b.Id), Name: b.Name, Type: "boolean", Current: fmt.Sprint(b.CurrentValue),
				Values: []string{"false", "true"}}
			if b.Category != nil {
				c.Category = string(*b.Category)
			}
			out = append(out, c)
		}
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// nonEmptyArray is raw unless it is null or an empty array.
func nonEmptyArray(raw json.RawMessage) json.RawMessage {
	if string(bytes.TrimSpace(raw)) == "[]" {
		return nil
	}
	return nonNull(raw)
}

func nonNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return raw
}

func paths(locs []wireLocation) []string {
	if len(locs) == 0 {
		return nil
	}
	out := make([]string, 0, len(locs))
	for _, l := range locs {
		out = append(out, l.Path)
	}
	return out
}
