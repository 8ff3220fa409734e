package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"reasonixctl/core"
)

// fuzzSentinel is a ping sent after the fuzzed line: the stdio loop handles lines in order, so
// its answer means every answer given at once to the fuzzed line has been written.
const fuzzSentinel = `{"jsonrpc":"2.0","id":"fuzz-sentinel-7f3a","method":"ping"}`

// FuzzStdioLine sends one arbitrary line to the stdio server, the way Codex's stdout reaches it,
// and checks the answer against JSON-RPC 2.0: a request gets exactly one well-formed response
// with its own id; a notification, a response or a blank line gets none; anything else gets one
// error with a null id or its own. Tool calls reach the service only with arguments the input
// schema accepts, and never end in internal_error (a panic recovered in callTool would).
func FuzzStdioLine(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"codex","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":"a","method":"ping"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"reasonix_inspect","arguments":{"task_id":"t1","include":["events"],"max_bytes":4096}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"reasonix_control","arguments":{"task_id":"t1","action":"status"}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"reasonix_control","arguments":{"task_id":"t1","action":"steer","message":"x"},"_meta":{"progressToken":7}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"reasonix_delegate","arguments":{"task_id":"t1","cwd":"/r","contract":{}}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"reasonix_inspect","arguments":{"task_id":1e400,"max_bytes":-0.5}}}`,
		`{"id":11,"jsonrpc":"2.0","method":"tools/call","params":{"_meta":{"codex/sandbox-state-meta":{"permissionProfile":{"file_system":{"entries":[{"access":"read","path":{"type":"special","value":{"kind":"root"}}},{"access":"write","path":{"type":"special","value":{"kind":"project_roots"}}}],"type":"restricted"},"network":"restricted","type":"managed"},"sandboxCwd":"file:///repo/sub"}},"arguments":{"contract":{"acceptance_criteria":[{"evidence":"review","id":"a1","requirement":"file exists"}],"objective":"Create result.txt","schema_version":1,"user_outcome":"result.txt exists","verification":[],"write_scope":["result.txt"]},"task_id":"t1"},"name":"reasonix_delegate"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":99,"result":{}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"x"}}`,
		`{"jsonrpc":"1.0","id":4,"method":"ping"}`,
		`[{"jsonrpc":"2.0","id":3,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":5}`,
		`{"jsonrpc":"2.0","id":-1.5e3,"method":"resources/list"}`,
		`{"jsonrpc":"2.0","id":"seven","method":"tools/call","params":{"name":"no_such_tool"}}`,
		`{"jsonrpc":"2.0","id":8,"method":"initialize","params":{"protocolVersion":9}}`,
		"not json", "", "  \t", `"x"`, `{`, `{"id":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		line = bytes.ReplaceAll(line, []byte("\n"), []byte(" ")) // one line, as the loop reads it
		if bytes.Contains(line, []byte("fuzz-sentinel")) {
			return
		}
		want := expectAnswer(line)
		fake := &fakeService{}
		srv := NewServer(func(context.Context) (core.Service, error) { return fake, nil }, Options{ProgressInterval: time.Hour})
		p := startStdio(t, context.Background(), srv)
		p.send(string(line))
		p.send(fuzzSentinel)

		var answers []map[string]any
		collect := func(raw []byte) (sentinel bool) {
			var m map[string]any
			d := json.NewDecoder(bytes.NewReader(raw))
			d.UseNumber()
			if err := d.Decode(&m); err != nil {
				t.Fatalf("undecodable line %q", raw)
			}
			if m["id"] == "fuzz-sentinel-7f3a" {
				return true
			}
			if m["method"] != nil {
				checkProgress(t, m, line)
				return false
			}
			answers = append(answers, m)
			return false
		}
		for !collect(p.nextRaw()) {
		}
		// A tool call is answered from its own goroutine, possibly after the sentinel.
		for want.kind == answerRequest && len(answers) == 0 {
			collect(p.nextRaw())
		}
		p.in.Close()
		if err := p.waitServed(10 * time.Second); err != nil {
			t.Fatalf("serving ended with %v", err)
		}
		for raw := range p.lines {
			collect([]byte(raw))
		}

		switch {
		case want.kind == answerNone && len(answers) != 0:
			t.Fatalf("%q needs no answer, got %v", line, answers)
		case want.kind != answerNone && len(answers) != 1:
			t.Fatalf("%q needs one answer, got %d: %v", line, len(answers), answers)
		}
		if len(answers) == 1 {
			checkAnswer(t, line, want, answers[0])
		}
		checkSchemaGate(t, line, want, fake, answers)
	})
}

type answerKind int

const (
	answerNone    answerKind = iota
	answerError              // an error response, id null or the message's own
	answerRequest            // exactly one response with the request's id
)

type expectation struct {
	kind   answerKind
	code   int             // answerError: the error code, 0 if any
	id     json.RawMessage // the id to echo; nil for null
	method string
}

// expectAnswer says what JSON-RPC 2.0 (with MCP's ban on batches) asks of a server for line.
func expectAnswer(line []byte) expectation {
	trimmed := bytes.Trim(line, " \t\r")
	if len(trimmed) == 0 {
		return expectation{kind: answerNone}
	}
	if !json.Valid(trimmed) {
		return expectation{kind: answerError, code: codeParseError}
	}
	var m incoming
	if json.Unmarshal(trimmed, &m) != nil {
		return expectation{kind: answerError, code: codeInvalidRequest}
	}
	id := m.ID
	validID := len(id) > 0 && (id[0] == '"' || id[0] == '-' || (id[0] >= '0' && id[0] <= '9'))
	if !validID {
		id = nil
	}
	switch {
	case m.Method == "" && (m.Result != nil || m.Error != nil):
		return expectation{kind: answerNone} // a response, whatever its id: never answered
	case m.JSONRPC != "2.0":
		return expectation{kind: answerError, code: codeInvalidRequest, id: id}
	case m.ID == nil && m.Method != "":
		return expectation{kind: answerNone} // a notification
	case !validID:
		return expectation{kind: answerError, code: codeInvalidRequest}
	case m.Method == "":
		return expectation{kind: answerError, code: codeInvalidRequest, id: id}
	}
	return expectation{kind: answerRequest, id: id, method: m.Method}
}

func checkAnswer(t *testing.T, line []byte, want expectation, a map[string]any) {
	t.Helper()
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range a {
			if !yield(k) {
				return
			}
		}
	})
	if a["jsonrpc"] != "2.0" || (!slices.Equal(keys, []string{"error", "id", "jsonrpc"}) && !slices.Equal(keys, []string{"id", "jsonrpc", "result"})) {
		t.Fatalf("%q: malformed response %v", line, a)
	}
	wantID := any(nil)
	if want.id != nil {
		d := json.NewDecoder(bytes.NewReader(want.id))
		d.UseNumber()
		if err := d.Decode(&wantID); err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(a["id"], wantID) {
		t.Fatalf("%q: answered with id %#v, want %#v", line, a["id"], wantID)
	}
	code := 0
	if e, ok := a["error"].(map[string]any); ok {
		n, isNum := e["code"].(json.Number)
		c, err := n.Int64()
		msg, _ := e["message"].(string)
		if !isNum || err != nil || msg == "" || len(e) != 2 {
			t.Fatalf("%q: malformed error %v", line, e)
		}
		code = int(c)
	} else if a["error"] != nil {
		t.Fatalf("%q: error is not an object: %v", line, a)
	}
	switch want.kind {
	case answerError:
		if code == 0 || (want.code != 0 && code != want.code) {
			t.Fatalf("%q: got %v, want error %d", line, a, want.code)
		}
	case answerRequest:
		// A request naming a protocol revision in params._meta may be refused for it: an
		// unknown revision, missing client capabilities, or a method of the other era.
		eraCode := bytes.Contains(line, []byte(`"_meta"`)) &&
			(code == codeInvalidParams || code == codeMethodNotFound || code == codeUnsupportedProtocolVersion)
		switch want.method {
		case "ping":
			if code != 0 && !eraCode {
				t.Fatalf("%q: got %v", line, a)
			}
		case "tools/list", "initialize", "tools/call":
			if code != 0 && code != codeInvalidParams && !eraCode {
				t.Fatalf("%q: got %v", line, a)
			}
		case "server/discover":
			if code != 0 && code != codeMethodNotFound && !eraCode {
				t.Fatalf("%q: got %v", line, a)
			}
			if code == 0 && want.method == "tools/call" {
				checkToolResult(t, line, a["result"])
			}
		default:
			if code != codeMethodNotFound {
				t.Fatalf("%q: got %v, want method not found", line, a)
			}
		}
	}
}

// checkToolResult: a tool result is one text block; an error carries the envelope and is never
// internal_error, a success carries the same JSON as structuredContent.
func checkToolResult(t *testing.T, line []byte, result any) {
	t.Helper()
	r, _ := result.(map[string]any)
	content, _ := r["content"].([]any)
	if len(content) != 1 {
		t.Fatalf("%q: tool result %v", line, result)
	}
	block, _ := content[0].(map[string]any)
	text, _ := block["text"].(string)
	if block["type"] != "text" {
		t.Fatalf("%q: content block %v", line, block)
	}
	if r["isError"] == true {
		var env struct {
			Error *core.Error `json:"error"`
		}
		if err := json.Unmarshal([]byte(text), &env); err != nil || env.Error == nil || env.Error.Code == "" || env.Error.Message == "" {
			t.Fatalf("%q: error result %q", line, text)
		}
		if env.Error.Code == core.CodeInternalError {
			t.Fatalf("%q: internal_error %q", line, text)
		}
		return
	}
	if r["structuredContent"] == nil || !json.Valid([]byte(text)) {
		t.Fatalf("%q: success result without its JSON: %v", line, result)
	}
}

func checkProgress(t *testing.T, m map[string]any, line []byte) {
	t.Helper()
	params, _ := m["params"].(map[string]any)
	if m["method"] != "notifications/progress" || m["id"] != nil || params["progressToken"] == nil ||
		!strings.Contains(string(line), "tools/call") {
		t.Fatalf("%q: unexpected message %v", line, m)
	}
}

// checkSchemaGate: a tool call whose arguments the input schema refuses is answered with
// invalid_request and never reaches the service.
func checkSchemaGate(t *testing.T, line []byte, want expectation, fake *fakeService, answers []map[string]any) {
	t.Helper()
	d, c, i := fake.calls()
	reached := len(d) + len(c) + len(i)
	if want.kind != answerRequest || want.method != "tools/call" {
		if reached > 0 {
			t.Fatalf("%q reached the service", line)
		}
		return
	}
	var m incoming
	var p callParams
	if json.Unmarshal(bytes.Trim(line, " \t\r"), &m) != nil || unmarshalParams(m.Params, &p) != nil {
		return
	}
	rules, err := inputRules()
	if err != nil {
		t.Fatal(err)
	}
	r := rules[p.Name]
	if r == nil {
		return
	}
	args := []byte(p.Arguments)
	if len(args) == 0 || string(args) == "null" {
		args = []byte("{}")
	}
	issues := validateInput(r, args)
	if len(issues) == 0 {
		return
	}
	if reached > 0 {
		t.Fatalf("%q reached the service although the schema refuses it: %v", line, issues)
	}
	res, _ := answers[0]["result"].(map[string]any)
	content, _ := res["content"].([]any)
	if res["isError"] != true || len(content) != 1 || !strings.Contains(fmt.Sprint(content[0]), `"code":"invalid_request"`) {
		t.Fatalf("%q: schema issues %v, answered %v", line, issues, answers[0])
	}
}
