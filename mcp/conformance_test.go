package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"reasonixctl/assets"
	"reasonixctl/core"
)

// conformanceStep is one part of the scripted session: lines sent together, and (for a call
// that must be running first) lines sent once a tool call has entered its handler.
type conformanceStep struct {
	name  string
	ids   []string // the ids its lines use, as JSON; answers with them belong to this step
	lines []string
	then  []string
}

const codexInitialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"codex-mcp-client","title":"Codex","version":"0.169.0"}}}`

func modernMeta(version string) string {
	return `"_meta":{"` + mcp.MetaKeyProtocolVersion + `":"` + version + `","` + mcp.MetaKeyClientCapabilities + `":{},"` +
		mcp.MetaKeyClientInfo + `":{"name":"codex-mcp-client","version":"0.169.0"}}`
}

func conformanceScript() []conformanceStep {
	req := func(id, method, params string) string {
		if params == "" {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q}`, id, method)
		}
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, method, params)
	}
	initialize := func(id, version string) string {
		return req(id, "initialize", `{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}`)
	}
	modern := modernMeta(mcp.ProtocolVersion20260728)
	steps := []conformanceStep{
		{name: "codex 0.169 initialize (2025-06-18)", ids: []string{"0"}, lines: []string{codexInitialize}},
		{name: "initialized notification", lines: []string{`{"jsonrpc":"2.0","method":"notifications/initialized"}`}},
	}
	for i, v := range []string{"2024-11-05", "2025-03-26", "2025-11-25", "2026-07-28", "1999-01-01"} {
		id := fmt.Sprint(100 + i)
		steps = append(steps, conformanceStep{name: "initialize " + v, ids: []string{id}, lines: []string{initialize(id, v)}})
	}
	steps = append(steps, []conformanceStep{
		{name: "initialize without protocolVersion", ids: []string{"110"}, lines: []string{req("110", "initialize", `{"capabilities":{},"clientInfo":{"name":"probe","version":"1"}}`)}},
		{name: "initialize at 2026-07-28 (_meta)", ids: []string{"111"}, lines: []string{req("111", "initialize", `{"protocolVersion":"2026-07-28",`+modern+`}`)}},
		{name: "server/discover without a revision", ids: []string{"120"}, lines: []string{req("120", "server/discover", "")}},
		{name: "server/discover at 2026-07-28", ids: []string{"121"}, lines: []string{req("121", "server/discover", `{`+modern+`}`)}},
		{name: "server/discover without client capabilities", ids: []string{"122"}, lines: []string{req("122", "server/discover", `{"_meta":{"`+mcp.MetaKeyProtocolVersion+`":"2026-07-28"}}`)}},
		{name: "server/discover at an unknown later revision", ids: []string{"123"}, lines: []string{req("123", "server/discover", `{`+modernMeta("2099-01-01")+`}`)}},
		{name: "ping", ids: []string{"130"}, lines: []string{req("130", "ping", "")}},
		{name: "ping at 2026-07-28", ids: []string{"131"}, lines: []string{req("131", "ping", `{`+modern+`}`)}},
		{name: "tools/list", ids: []string{"140"}, lines: []string{req("140", "tools/list", "")}},
		{name: "tools/list at 2026-07-28", ids: []string{"141"}, lines: []string{req("141", "tools/list", `{`+modern+`}`)}},
		{name: "tools/list with an empty cursor", ids: []string{"142"}, lines: []string{req("142", "tools/list", `{"cursor":""}`)}},
		{name: "tools/list with a cursor never issued", ids: []string{"143"}, lines: []string{req("143", "tools/list", `{"cursor":"cmVhc29uaXhfY29udHJvbA=="}`)}},
		{name: "tools/call of an unknown tool", ids: []string{"150"}, lines: []string{req("150", "tools/call", `{"name":"no_such_tool","arguments":{}}`)}},
		{name: "unknown method", ids: []string{"160"}, lines: []string{req("160", "resources/list", "")}},
		{name: "unknown notification", lines: []string{`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`}},
		{name: "string id", ids: []string{`"abc"`}, lines: []string{req(`"abc"`, "ping", "")}},
		{name: "negative id", ids: []string{"-3"}, lines: []string{req("-3", "ping", "")}},
		{name: "fractional id", ids: []string{"1.5"}, lines: []string{req("1.5", "ping", "")}},
		{name: "id beyond 2^53", ids: []string{"9007199254740993"}, lines: []string{req("9007199254740993", "ping", "")}},
		{name: "null id", lines: []string{req("null", "ping", "")}},
		{name: "object id", ids: []string{`{"x":1}`}, lines: []string{req(`{"x":1}`, "ping", "")}},
		{name: "array id", ids: []string{`[1]`}, lines: []string{req(`[1]`, "ping", "")}},
		{name: "boolean id", ids: []string{`true`}, lines: []string{req(`true`, "ping", "")}},
		{name: "jsonrpc 1.0", ids: []string{"170"}, lines: []string{`{"jsonrpc":"1.0","id":170,"method":"ping"}`}},
		{name: "request without method", ids: []string{"171"}, lines: []string{`{"jsonrpc":"2.0","id":171}`}},
		{name: "not JSON", lines: []string{`not json at all`}},
		{name: "truncated JSON", lines: []string{`{"jsonrpc":"2.0","id":172,"method":"ping"`}},
		{name: "empty line", lines: []string{``}},
		{name: "blank line", lines: []string{"  \t "}},
		{name: "line beyond 32 MB", ids: []string{"180"}, lines: []string{`{"jsonrpc":"2.0","id":180,"method":"ping","params":{"pad":"` + strings.Repeat("x", maxMessageBytes) + `"}}`}},
		{name: "batch", ids: []string{"190"}, lines: []string{`[{"jsonrpc":"2.0","id":190,"method":"ping"}]`}},
		{name: "empty batch", lines: []string{`[]`}},
		{name: "client result", ids: []string{"200"}, lines: []string{`{"jsonrpc":"2.0","id":200,"result":{}}`}},
		{name: "client error with an id", ids: []string{"201"}, lines: []string{`{"jsonrpc":"2.0","id":201,"error":{"code":-32601,"message":"no"}}`}},
		{name: "client error with a null id", lines: []string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`}},
		{
			name: "cancellation", ids: []string{`"slow"`},
			lines: []string{req(`"slow"`, "tools/call", `{"name":"reasonix_inspect","arguments":{"task_id":"t1"}}`)},
			then:  []string{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow","reason":"user"}}`},
		},
	}...)
	return steps
}

// conformanceDifferences are the steps where our loop answers otherwise than mcp-go v1.2.1, and
// why ours is right. Every other step must be answered identically.
var conformanceDifferences = map[string]string{
	"initialize without protocolVersion": "protocolVersion is required by every revision's schema; mcp-go assumes 2025-03-26 and hides a broken client",
	"tools/list with a cursor never issued": "the whole list is one page, so no cursor was issued: -32602 (as the spec asks for an invalid cursor); " +
		"mcp-go decodes any base64 cursor as a tool name and silently skips the tools before it",
	"id beyond 2^53": "ids are echoed as sent; mcp-go reads them as float64 and answers 9007199254740992, an id the client never used",
	"null id":        "a request with id null is invalid (-32600); mcp-go takes it for a notification and leaves the client waiting",
	"object id":      "ids must be strings or numbers (-32600, id null); mcp-go serves the request",
	"array id":       "ids must be strings or numbers (-32600, id null); mcp-go serves the request",
	"boolean id":     "ids must be strings or numbers (-32600, id null); mcp-go serves the request",
	"request without method": "a message with an id and neither method nor result/error is an invalid request (-32600); " +
		"mcp-go reports an unknown method named \"\"",
	"empty line": "newline-delimited framing: an empty line carries no message, so nothing is answered; " +
		"mcp-go answers -32700 with id null, which no request of the client's can match",
	"blank line":        "as empty line: JSON whitespace alone is no message",
	"line beyond 32 MB": "one line is bounded (-32600, id null, the line skipped); mcp-go buffers any length",
	"batch": "a batch is valid JSON but not a request object: -32600 Invalid Request (MCP has no batches since 2025-06-18); " +
		"mcp-go answers -32700 Parse error",
	"empty batch":             "as batch: -32600, not -32700",
	"client error with an id": "responses are never answered; mcp-go answers an error response whose id is not null with -32601",
	"cancellation":            "after notifications/cancelled no response is sent, as MCP asks; mcp-go still answers the cancelled call",

	"initialize 2025-03-26": "2025-03-26 is not offered (servers of that revision must accept batches, which this loop refuses): " +
		"the latest revision is offered instead, as the spec says for a revision not served; mcp-go accepts it",
	"server/discover at 2026-07-28": "supportedVersions leaves out 2025-03-26, which is not served; mcp-go lists it",
}

// wireAnswer is one answer as compared: its id, and its result or its error code. Error
// messages are not compared: each side words them its own way.
type wireAnswer struct {
	id     string
	result string // canonical JSON
	code   int
}

func (a wireAnswer) String() string {
	if a.result != "" {
		r := a.result
		if len(r) > 160 {
			r = r[:160] + "…"
		}
		return fmt.Sprintf("id %s result %s", a.id, r)
	}
	return fmt.Sprintf("id %s error %d", a.id, a.code)
}

// conformancePeer drives one server over pipes and hands out every line it writes.
type conformancePeer struct {
	in      *io.PipeWriter
	lines   chan []byte
	entered chan struct{}
	done    chan struct{}
}

func newConformancePeer() *conformancePeer {
	return &conformancePeer{lines: make(chan []byte, 256), entered: make(chan struct{}, 8), done: make(chan struct{})}
}

func (p *conformancePeer) start(t *testing.T, serve func(in io.Reader, out io.Writer)) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p.in = inW
	go func() { serve(inR, outW); outW.Close(); close(p.done) }()
	go func() {
		r := bufio.NewReaderSize(outR, 1<<20)
		defer close(p.lines)
		for {
			line, err := r.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				p.lines <- line
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { inW.Close() })
}

func ourConformanceServer(t *testing.T) *conformancePeer {
	p := newConformancePeer()
	fake := &fakeService{inspect: func(ctx context.Context, _ core.InspectRequest) (core.InspectResult, error) {
		p.entered <- struct{}{}
		<-ctx.Done()
		return core.InspectResult{}, ctx.Err()
	}}
	srv := NewServer(func(context.Context) (core.Service, error) { return fake, nil }, Options{Version: "conformance"})
	p.start(t, func(in io.Reader, out io.Writer) { _ = srv.ServeStdio(context.Background(), in, out) })
	return p
}

func mcpGoConformanceServer(t *testing.T) *conformancePeer {
	p := newConformancePeer()
	s := server.NewMCPServer(ServerName, "conformance",
		server.WithToolCapabilities(false),
		server.WithExperimental(map[string]any{sandboxMetaKey: map[string]any{}}),
		server.WithInstructions(assets.MCPInstructions()))
	for _, sp := range toolSpecs() {
		var in, out bytes.Buffer
		if err := sp.in.encode(&in); err != nil {
			t.Fatal(err)
		}
		if err := sp.out.encode(&out); err != nil {
			t.Fatal(err)
		}
		tool := mcp.Tool{Name: sp.name, Title: sp.title, Description: assets.MCPToolDescription(sp.name),
			RawInputSchema: in.Bytes(), RawOutputSchema: out.Bytes(), Annotations: sp.ann}
		s.AddTool(tool, func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			p.entered <- struct{}{}
			<-ctx.Done()
			return errorResult(ctx.Err()), nil
		})
	}
	p.start(t, func(in io.Reader, out io.Writer) {
		_ = server.NewStdioServer(s).Listen(context.Background(), in, out)
	})
	return p
}

// play sends the script and returns every answer, by step. An answer whose id a step declared
// belongs to it wherever it arrives; any other answer belongs to the step during which it
// arrived (each step ends with a ping the server answers after it).
func (p *conformancePeer) play(t *testing.T, steps []conformanceStep) map[string][]wireAnswer {
	owner := map[string]string{}
	for _, st := range steps {
		for _, id := range st.ids {
			owner[canonicalJSON(t, []byte(id))] = st.name
		}
	}
	answers := map[string][]wireAnswer{}
	file := func(current string, line []byte) string {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("%s: stdout carried %q", current, line)
		}
		a := wireAnswer{id: canonicalJSON(t, m.ID)}
		if m.Error != nil {
			a.code = m.Error.Code
		} else {
			a.result = canonicalJSON(t, m.Result)
		}
		step := current
		if o, ok := owner[a.id]; ok {
			step = o
		}
		answers[step] = append(answers[step], a)
		return a.id
	}
	deadline := time.After(180 * time.Second) // the 32 MB line takes most of a minute under -race on a loaded machine
	write := func(s string) {
		if _, err := io.WriteString(p.in, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	for i, st := range steps {
		for _, l := range st.lines {
			write(l)
		}
		if len(st.then) > 0 {
			select {
			case <-p.entered:
			case <-deadline:
				t.Fatalf("%s: the call never started", st.name)
			}
			for _, l := range st.then {
				write(l)
			}
		}
		barrier := fmt.Sprintf(`"barrier-%d"`, i)
		write(`{"jsonrpc":"2.0","id":` + barrier + `,"method":"ping"}`)
		for waiting := true; waiting; {
			select {
			case line, ok := <-p.lines:
				if !ok {
					t.Fatalf("%s: stdout closed", st.name)
				}
				if id := file(st.name, line); id == barrier {
					waiting = false
					answers[st.name] = answers[st.name][:len(answers[st.name])-1]
				}
			case <-deadline:
				t.Fatalf("%s: no answer to the step's ping", st.name)
			}
		}
	}
	p.in.Close()
	for line := range p.lines { // late answers: calls that end with the session
		file("after the script", line)
	}
	select {
	case <-p.done:
	case <-deadline:
		t.Fatal("the server did not end after stdin closed")
	}
	return answers
}

func canonicalJSON(t *testing.T, raw []byte) string {
	if len(raw) == 0 {
		return "null"
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("not JSON: %q", raw)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestConformanceWithMCPGo plays one scripted session against our loop and against mcp-go's
// stdio server with the same tools, and asserts identical answers except where listed.
func TestConformanceWithMCPGo(t *testing.T) {
	if testing.Short() {
		t.Skip("sends a 32 MB line to two servers")
	}
	steps := conformanceScript()
	ours := ourConformanceServer(t).play(t, steps)
	theirs := mcpGoConformanceServer(t).play(t, steps)
	names := map[string]bool{"after the script": true}
	for _, st := range steps {
		names[st.name] = true
	}
	for name := range conformanceDifferences {
		if !names[name] {
			t.Errorf("difference %q names no step", name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(names)) {
		a, b := ours[name], theirs[name]
		slices.SortFunc(a, compareAnswers)
		slices.SortFunc(b, compareAnswers)
		same := slices.Equal(a, b)
		reason, listed := conformanceDifferences[name]
		switch {
		case !same && !listed:
			t.Errorf("%s: ours %v, mcp-go %v", name, a, b)
		case same && listed:
			t.Errorf("%s: listed as a difference, yet both answer %v", name, a)
		case listed:
			t.Logf("difference %s: ours %v, mcp-go %v — %s", name, a, b, reason)
		}
	}
}

func compareAnswers(a, b wireAnswer) int {
	return strings.Compare(a.String(), b.String())
}
