package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"reasonixctl/core"
)

// stdioPeer drives ServeStdio over pipes the way Codex drives the binary.
type stdioPeer struct {
	t      testing.TB
	in     *io.PipeWriter
	lines  chan string
	served chan error
}

func startStdio(t testing.TB, ctx context.Context, srv *Server) *stdioPeer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &stdioPeer{t: t, in: inW, lines: make(chan string, 100), served: make(chan error, 1)}
	go func() {
		p.served <- srv.ServeStdio(ctx, inR, outW)
		outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	t.Cleanup(func() { inW.Close() })
	return p
}

func (p *stdioPeer) send(msg string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, msg+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

// nextRaw returns the next line the server wrote; every line on stdout must be JSON-RPC.
func (p *stdioPeer) nextRaw() []byte {
	p.t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			p.t.Fatal("stdout closed")
		}
		var m map[string]any
		d := json.NewDecoder(strings.NewReader(line))
		d.UseNumber() // an id may be any JSON number, also one beyond float64
		if err := d.Decode(&m); err != nil || d.More() || m["jsonrpc"] != "2.0" {
			p.t.Fatalf("stdout carried something other than JSON-RPC: %q", line)
		}
		return []byte(line)
	case <-time.After(10 * time.Second):
		p.t.Fatal("no message from the server")
	}
	return nil
}

// next returns the next message the server wrote, decoded.
func (p *stdioPeer) next() map[string]any {
	p.t.Helper()
	var m map[string]any
	if err := json.Unmarshal(p.nextRaw(), &m); err != nil {
		p.t.Fatal(err)
	}
	return m
}

// rawResponse skips notifications and other responses until the response with the given id.
func (p *stdioPeer) rawResponse(id float64) []byte {
	p.t.Helper()
	for {
		line := p.nextRaw()
		var m struct {
			ID any `json:"id"`
		}
		if err := json.Unmarshal(line, &m); err != nil {
			p.t.Fatal(err)
		}
		if m.ID == id {
			return line
		}
	}
}

// response is rawResponse decoded.
func (p *stdioPeer) response(id float64) map[string]any {
	p.t.Helper()
	var m map[string]any
	if err := json.Unmarshal(p.rawResponse(id), &m); err != nil {
		p.t.Fatal(err)
	}
	return m
}

// close closes the server's stdin and waits for ServeStdio to return cleanly.
func (p *stdioPeer) close() {
	p.t.Helper()
	p.in.Close()
	if err := p.waitServed(10 * time.Second); err != nil {
		p.t.Fatalf("ServeStdio: %v", err)
	}
}

func (p *stdioPeer) initialize() {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"codex","version":"0"}}}`)
	res := p.response(1)["result"].(map[string]any)
	caps := res["capabilities"].(map[string]any)
	if _, ok := caps["experimental"].(map[string]any)[sandboxMetaKey]; !ok {
		p.t.Fatalf("capability %s not advertised: %v", sandboxMetaKey, caps)
	}
	if info := res["serverInfo"].(map[string]any); info["name"] != ServerName {
		p.t.Fatalf("serverInfo = %v", info)
	}
	if ins, _ := res["instructions"].(string); !strings.Contains(ins, "reasonix_delegate") {
		p.t.Fatalf("instructions missing: %q", ins)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

func (p *stdioPeer) waitServed(within time.Duration) error {
	p.t.Helper()
	select {
	case err := <-p.served:
		return err
	case <-time.After(within):
		p.t.Fatal("ServeStdio did not return")
	}
	return nil
}

func TestStdioListsToolsAndEndsWithStdin(t *testing.T) {
	opened := make(chan struct{})
	blockOpen := make(chan struct{})
	defer close(blockOpen)
	srv := NewServer(func(ctx context.Context) (core.Service, error) {
		close(opened)
		<-blockOpen
		return &fakeService{}, nil
	}, Options{Version: "1.2.3"})
	p := startStdio(t, context.Background(), srv)

	// Initialize and tools/list are answered first; opening the service starts only after
	// tools/list, and they never wait for it.
	p.initialize()
	select {
	case <-opened:
		t.Fatal("the service was opened before tools/list was answered")
	default:
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	tools := p.response(2)["result"].(map[string]any)["tools"].([]any)
	if len(tools) != 3 {
		t.Fatalf("want 3 tools, got %d", len(tools))
	}
	select {
	case <-opened:
	case <-time.After(10 * time.Second):
		t.Fatal("the service is not opened after tools/list")
	}
	// A second tools/list is answered while the service is still opening.
	p.send(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	p.response(3)
	p.in.Close()
	if err := p.waitServed(10 * time.Second); err != nil {
		t.Fatalf("closing stdin should end serving cleanly, got %v", err)
	}
}

func TestStdioCancelledRequestEndsWaitOnly(t *testing.T) {
	fake := &fakeService{}
	waiting := make(chan struct{})
	ended := make(chan error, 1)
	fake.delegate = func(ctx context.Context, req core.DelegateRequest) (core.DelegateResult, error) {
		close(waiting)
		<-ctx.Done()
		ended <- ctx.Err()
		return core.DelegateResult{}, ctx.Err()
	}
	srv := NewServer(func(context.Context) (core.Service, error) { return fake, nil }, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := startStdio(t, ctx, srv)
	p.initialize()

	args, _ := json.Marshal(delegateArgs("w1"))
	meta, _ := json.Marshal(writableMeta("/repo"))
	p.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"reasonix_delegate","arguments":` +
		string(args) + `,"_meta":` + string(meta) + `}}`)
	select {
	case <-waiting:
	case <-time.After(10 * time.Second):
		t.Fatal("delegate never reached the service")
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user interrupt"}}`)
	select {
	case err := <-ended:
		if err == nil {
			t.Fatal("the wait ended without a context error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("notifications/cancelled did not end the wait")
	}
	if _, c, _ := fake.calls(); len(c) != 0 {
		t.Fatalf("cancelling the request must not cancel the task, got control calls %+v", c)
	}

	// The server keeps serving after a cancelled call, and sends no response for it.
	p.send(`{"jsonrpc":"2.0","id":8,"method":"tools/list"}`)
	if m := p.next(); m["id"] != 8.0 {
		t.Fatalf("want the tools/list response next, got %v", m)
	}
	cancel()
	if err := p.waitServed(10 * time.Second); err != nil {
		t.Fatalf("cancelling the context should end serving cleanly, got %v", err)
	}
}

func TestStdioContextCancelEndsInFlightWaits(t *testing.T) {
	fake := &fakeService{}
	waiting := make(chan struct{})
	fake.delegate = func(ctx context.Context, req core.DelegateRequest) (core.DelegateResult, error) {
		close(waiting)
		<-ctx.Done()
		return core.DelegateResult{}, ctx.Err()
	}
	srv := NewServer(func(context.Context) (core.Service, error) { return fake, nil }, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	p := startStdio(t, ctx, srv)
	p.initialize()
	args, _ := json.Marshal(delegateArgs("w2"))
	meta, _ := json.Marshal(writableMeta("/repo"))
	p.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"reasonix_delegate","arguments":` +
		string(args) + `,"_meta":` + string(meta) + `}}`)
	select {
	case <-waiting:
	case <-time.After(10 * time.Second):
		t.Fatal("delegate never reached the service")
	}
	cancel()
	if err := p.waitServed(shutdownGrace + 5*time.Second); err != nil {
		t.Fatalf("got %v", err)
	}
}

func TestStdioShutdownIsBoundedWhenTheServiceHangs(t *testing.T) {
	fake := &fakeService{}
	waiting := make(chan struct{})
	stuck := make(chan struct{})
	defer close(stuck)
	fake.delegate = func(context.Context, core.DelegateRequest) (core.DelegateResult, error) {
		close(waiting)
		<-stuck // ignores its context, as a wedged service would
		return core.DelegateResult{}, errors.New("released")
	}
	srv := NewServer(func(context.Context) (core.Service, error) { return fake, nil }, Options{})
	srv.shutdownGrace = 50 * time.Millisecond
	p := startStdio(t, context.Background(), srv)
	p.initialize()
	args, _ := json.Marshal(delegateArgs("w3"))
	meta, _ := json.Marshal(writableMeta("/repo"))
	p.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"reasonix_delegate","arguments":` +
		string(args) + `,"_meta":` + string(meta) + `}}`)
	select {
	case <-waiting:
	case <-time.After(10 * time.Second):
		t.Fatal("delegate never reached the service")
	}
	p.in.Close()
	if err := p.waitServed(5 * time.Second); err != nil {
		t.Fatalf("got %v", err)
	}
}

func TestStdioProtocolErrorsKeepServing(t *testing.T) {
	srv := NewServer(func(context.Context) (core.Service, error) { return &fakeService{}, nil }, Options{})
	p := startStdio(t, context.Background(), srv)
	p.initialize()
	for _, tc := range []struct {
		send string
		id   any
		code float64
	}{
		{`{"jsonrpc":"2.0","id":2,"method":"tools/list"`, nil, codeParseError},
		{`not json at all`, nil, codeParseError},
		{`[{"jsonrpc":"2.0","id":3,"method":"ping"}]`, nil, codeInvalidRequest},
		{`{"jsonrpc":"1.0","id":4,"method":"ping"}`, 4.0, codeInvalidRequest},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, nil, codeInvalidRequest},
		{`{"jsonrpc":"2.0","id":5}`, 5.0, codeInvalidRequest},
		{`{"jsonrpc":"2.0","id":6,"method":"resources/list"}`, 6.0, codeMethodNotFound},
		{`{"jsonrpc":"2.0","id":"seven","method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`, "seven", codeInvalidParams},
		{`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":5}`, 8.0, codeInvalidParams},
		{`{"jsonrpc":"2.0","id":9,"method":"initialize","params":{"protocolVersion":9}}`, 9.0, codeInvalidParams},
	} {
		p.send(tc.send)
		m := p.next()
		e, _ := m["error"].(map[string]any)
		if m["id"] != tc.id || e == nil || e["code"] != tc.code || e["message"] == "" {
			t.Errorf("%s: got %v, want error %v for id %v", tc.send, m, tc.code, tc.id)
		}
	}
	// Unknown notifications and responses need no answer; the next request is answered.
	p.send(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
	p.send(`{"jsonrpc":"2.0","id":99,"result":{}}`)
	p.send(``)
	p.send(`{"jsonrpc":"2.0","id":10,"method":"ping"}`)
	if m := p.next(); m["id"] != 10.0 || m["error"] != nil {
		t.Fatalf("ping after bad input: %v", m)
	}
	p.close()
}

func TestStdioNegotiatesProtocolVersion(t *testing.T) {
	srv := NewServer(func(context.Context) (core.Service, error) { return &fakeService{}, nil }, Options{Version: "9.9"})
	p := startStdio(t, context.Background(), srv)
	for i, tc := range []struct{ asked, want string }{
		// 2025-03-26 requires servers to accept JSON-RPC batches, which this loop refuses:
		// it is not offered, and such a client is offered the latest revision instead.
		{"2025-03-26", mcp.LATEST_LEGACY_PROTOCOL_VERSION},
		{"2025-06-18", "2025-06-18"},
		{"2025-11-25", "2025-11-25"},
		{"2024-11-05", "2024-11-05"},
		{"1999-01-01", mcp.LATEST_LEGACY_PROTOCOL_VERSION},
		{"2026-07-28", mcp.LATEST_LEGACY_PROTOCOL_VERSION}, // has no initialize
		{"", mcp.LATEST_LEGACY_PROTOCOL_VERSION},           // names none: the server's preference
	} {
		id := float64(i + 1)
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"c","version":"0"}}}`, i+1, tc.asked))
		res := p.response(id)["result"].(map[string]any)
		if res["protocolVersion"] != tc.want {
			t.Errorf("asked %q, got %v, want %q", tc.asked, res["protocolVersion"], tc.want)
		}
		caps, _ := json.Marshal(res["capabilities"])
		if string(caps) != `{"experimental":{"codex/sandbox-state-meta":{}},"tools":{}}` {
			t.Errorf("capabilities = %s", caps)
		}
		if info := res["serverInfo"].(map[string]any); info["name"] != ServerName || info["version"] != "9.9" {
			t.Errorf("serverInfo = %v", info)
		}
	}
	p.close()
}

// A call that waits must not hold up other calls or requests.
func TestStdioCallsRunConcurrently(t *testing.T) {
	fake := &fakeService{}
	release := make(chan struct{})
	fake.delegate = func(ctx context.Context, req core.DelegateRequest) (core.DelegateResult, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return core.DelegateResult{TaskView: sampleView(req.TaskID)}, nil
	}
	fake.inspect = func(_ context.Context, req core.InspectRequest) (core.InspectResult, error) {
		return core.InspectResult{TaskID: req.TaskID, Sections: map[string]json.RawMessage{}, UpdatedAt: "now"}, nil
	}
	srv := NewServer(func(context.Context) (core.Service, error) { return fake, nil }, Options{})
	p := startStdio(t, context.Background(), srv)
	p.initialize()
	args, _ := json.Marshal(delegateArgs("c1"))
	meta, _ := json.Marshal(writableMeta("/repo"))
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"reasonix_delegate","arguments":` +
		string(args) + `,"_meta":` + string(meta) + `}}`)
	p.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"reasonix_inspect","arguments":{"task_id":"c1"}}}`)
	if m := p.next(); m["id"] != 3.0 || m["result"].(map[string]any)["isError"] == true {
		t.Fatalf("inspect while delegate waits: %v", m)
	}
	close(release)
	if m := p.next(); m["id"] != 2.0 || m["result"].(map[string]any)["isError"] == true {
		t.Fatalf("delegate after release: %v", m)
	}
	p.close()
}

// A request id still in flight cannot be reused; the first call is unaffected.
func TestStdioDuplicateRequestID(t *testing.T) {
	fake := &fakeService{}
	release := make(chan struct{})
	fake.control = func(ctx context.Context, req core.Command) (core.TaskView, error) {
		<-release
		return sampleView(req.Task()), nil
	}
	srv := NewServer(func(context.Context) (core.Service, error) { return fake, nil }, Options{})
	p := startStdio(t, context.Background(), srv)
	call := `{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"reasonix_control","arguments":{"task_id":"t","action":"cancel"}}}`
	p.send(call)
	p.send(call)
	if m := p.next(); m["id"] != "x" || m["error"].(map[string]any)["code"] != float64(codeInvalidRequest) {
		t.Fatalf("duplicate id: %v", m)
	}
	close(release)
	if m := p.next(); m["id"] != "x" || m["result"] == nil {
		t.Fatalf("first call: %v", m)
	}
	p.close()
}

// A line longer than the limit is refused, and the lines after it are still read.
func TestStdioOverlongLine(t *testing.T) {
	srv := NewServer(func(context.Context) (core.Service, error) { return &fakeService{}, nil }, Options{})
	p := startStdio(t, context.Background(), srv)
	go func() {
		io.WriteString(p.in, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"`+strings.Repeat("x", maxMessageBytes)+"\"}}\n")
		io.WriteString(p.in, `{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n")
	}()
	if m := p.next(); m["id"] != nil || m["error"].(map[string]any)["code"] != float64(codeInvalidRequest) {
		t.Fatalf("overlong line: %v", m)
	}
	if m := p.next(); m["id"] != 2.0 || m["result"] == nil {
		t.Fatalf("after the overlong line: %v", m)
	}
	p.close()
}

// The server answers what it has read even when stdin closes right after the requests.
func TestStdioAnswersBeforeEOF(t *testing.T) {
	srv := NewServer(func(context.Context) (core.Service, error) { return &fakeService{}, nil }, Options{})
	var out strings.Builder
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if err := srv.ServeStdio(context.Background(), in, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], `{"jsonrpc":"2.0","id":1,"result":{}`) ||
		!strings.Contains(lines[1], `"id":2,"result":{"tools":[`) {
		t.Fatalf("got %q", out.String())
	}
}

// At most toolWorkers calls run at once; the next one starts when one finishes.
func TestStdioBoundsRunningCalls(t *testing.T) {
	fake := &fakeService{}
	entered := make(chan string, toolWorkers+1)
	release := make(chan struct{}, toolWorkers+1)
	fake.control = func(ctx context.Context, req core.Command) (core.TaskView, error) {
		entered <- req.Task()
		select {
		case <-release:
		case <-ctx.Done():
		}
		return sampleView(req.Task()), nil
	}
	srv := NewServer(func(context.Context) (core.Service, error) { return fake, nil }, Options{})
	p := startStdio(t, context.Background(), srv)
	for i := range toolWorkers + 1 {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"reasonix_control","arguments":{"task_id":"t%d","action":"cancel"}}}`, i+1, i+1))
	}
	for range toolWorkers {
		select {
		case <-entered:
		case <-time.After(10 * time.Second):
			t.Fatal("fewer calls than the bound are running")
		}
	}
	// Every request before the ping has been dispatched once the ping is answered.
	p.send(`{"jsonrpc":"2.0","id":1000,"method":"ping"}`)
	if m := p.next(); m["id"] != 1000.0 {
		t.Fatalf("want the ping response, got %v", m)
	}
	select {
	case id := <-entered:
		t.Fatalf("call %s started beyond the bound of %d", id, toolWorkers)
	default:
	}
	release <- struct{}{}
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the queued call did not start when a running one finished")
	}
	for range toolWorkers {
		release <- struct{}{}
	}
	for range toolWorkers + 1 {
		if m := p.next(); m["result"] == nil {
			t.Fatalf("want a call result, got %v", m)
		}
	}
	p.close()
}

// The answers issue 16 asked for: responses are never answered, a cursor never issued and an
// initialize without protocolVersion are invalid params, and 2026-07-28 is served beside
// Codex's 2025-06-18.
func TestStdioRevisionsAndProbes(t *testing.T) {
	srv := NewServer(func(context.Context) (core.Service, error) { return &fakeService{}, nil }, Options{Version: "v"})
	p := startStdio(t, context.Background(), srv)
	p.send(codexInitialize)
	if m := p.next(); m["result"].(map[string]any)["protocolVersion"] != "2025-06-18" {
		t.Fatalf("codex initialize: %v", m)
	}
	p.send(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"bm9wZQ=="}}`)
	if m := p.next(); m["id"] != 1.0 || m["error"].(map[string]any)["code"] != float64(codeInvalidParams) {
		t.Fatalf("cursor never issued (or the null-id response was answered): %v", m)
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"capabilities":{}}}`)
	if m := p.next(); m["id"] != 2.0 || m["error"].(map[string]any)["code"] != float64(codeInvalidParams) {
		t.Fatalf("initialize without protocolVersion: %v", m)
	}
	p.send(`{"jsonrpc":"2.0","id":3,"method":"server/discover","params":{` + modernMeta("2026-07-28") + `}}`)
	m := p.next()
	r, _ := m["result"].(map[string]any)
	if r == nil || r["resultType"] != "complete" || r["ttlMs"] != 0.0 || r["cacheScope"] != "private" ||
		fmt.Sprint(r["supportedVersions"]) != "[2026-07-28 2025-11-25 2025-06-18 2024-11-05]" {
		t.Fatalf("server/discover: %v", m)
	}
	p.send(`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{` + modernMeta("2026-07-28") + `}}`)
	r, _ = p.next()["result"].(map[string]any)
	info, _ := r["_meta"].(map[string]any)[mcp.MetaKeyServerInfo].(map[string]any)
	if len(r["tools"].([]any)) != 3 || r["resultType"] != "complete" || info["name"] != ServerName || info["version"] != "v" {
		t.Fatalf("tools/list at 2026-07-28: %v", r)
	}
	p.send(`{"jsonrpc":"2.0","id":5,"method":"ping","params":{` + modernMeta("2026-07-28") + `}}`)
	if m := p.next(); m["error"].(map[string]any)["code"] != float64(codeMethodNotFound) {
		t.Fatalf("ping at 2026-07-28: %v", m)
	}
	p.send(`{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{` + modernMeta("2099-01-01") + `}}`)
	if m := p.next(); m["error"].(map[string]any)["code"] != float64(codeUnsupportedProtocolVersion) {
		t.Fatalf("unknown later revision: %v", m)
	}
	p.close()
}
