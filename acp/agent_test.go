package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"
	"testing"
	"time"
)

// rawAgent is a scripted ACP agent speaking raw JSON lines, so tests control every byte the
// client sees (order, garbage, floods, early exit).
type rawAgent struct {
	t   testing.TB
	in  io.ReadCloser  // client → agent
	out io.WriteCloser // agent → client

	writeMu sync.Mutex
	mu      sync.Mutex
	nextID  int
	waiting map[string]chan rpcMsg
	got     []rpcMsg
	gotCh   chan rpcMsg
	handle  map[string]func(m rpcMsg)
	sid     string
}

type rpcMsg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

const (
	testInitResult = `{"protocolVersion":1,"agentCapabilities":{"loadSession":true,"sessionCapabilities":{"list":{},"resume":{},"close":{},"delete":{}},"_meta":{"_reasonix.io/session/status":{"schemaVersion":1},"_reasonix.io/session/status_update":{"schemaVersion":1},"reasonix.io":{"sessionSteer":{"method":"_reasonix.io/session/steer"}}}},"agentInfo":{"name":"reasonix","version":"v1.38.11"},"authMethods":[]}`
	testConfig     = `[{"id":"model","name":"Model","category":"model","type":"select","currentValue":"mock/mock-model","options":[{"value":"mock/mock-model","name":"mock/mock-model"},{"value":"mockr/mock-thinker","name":"mockr/mock-thinker"}]},{"id":"tool_approval","name":"Permissions","category":"tool_approval","type":"select","currentValue":"workspace-write","options":[{"value":"read-only","name":"Read only"},{"value":"workspace-write","name":"Workspace access"},{"value":"danger-full-access","name":"Full access"}]}]`
	testModes      = `{"currentModeId":"normal","availableModes":[{"id":"normal","name":"Normal"},{"id":"plan","name":"Plan"},{"id":"goal","name":"Goal"}]}`
)

func testStatus(sid string, seq int, state, phase string) string {
	return fmt.Sprintf(`{"schemaVersion":1,"sequence":%d,"sessionId":%q,"state":%q,"model":"mock/mock-model","effort":"auto","mode":"normal","workMode":"standard","plannerMode":"off","goal":{"status":"none"},"phase":%q,"turnOutcome":{"kind":"none"},"finalReadiness":{"readyForReview":false,"summary":"","risks":[]},"sandbox":{"mode":"enforce","engine":"bubblewrap","available":true,"workspaceRoot":"/w","writeRoots":["/w"],"networkEnabled":false},"usage":{"turn":{"totalTokens":3},"cumulative":{"totalTokens":7}},"futureField":{"x":1}}`,
		seq, sid, state, phase)
}

// newRawAgent starts an agent answering initialize, session/new (id sid), config, mode, status
// and close like Reasonix 1.38; tests override or add handlers.
func newRawAgent(t testing.TB, sid string) (*rawAgent, io.Reader, io.Writer) {
	cr, aw := io.Pipe() // agent → client
	ar, cw := io.Pipe() // client → agent
	a := &rawAgent{t: t, in: ar, out: aw, waiting: map[string]chan rpcMsg{}, gotCh: make(chan rpcMsg, 1024), sid: sid}
	a.handle = map[string]func(rpcMsg){
		"initialize": func(m rpcMsg) { a.reply(m, json.RawMessage(testInitResult)) },
		"session/new": func(m rpcMsg) {
			a.reply(m, json.RawMessage(fmt.Sprintf(`{"sessionId":%q,"modes":%s,"configOptions":%s}`, a.sid, testModes, testConfig)))
		},
		"session/set_config_option": func(m rpcMsg) { a.reply(m, json.RawMessage(`{"configOptions":`+testConfig+`}`)) },
		"session/set_mode":          func(m rpcMsg) { a.reply(m, json.RawMessage(`{}`)) },
		"session/close":             func(m rpcMsg) { a.reply(m, json.RawMessage(`{}`)) },
		methodStatus:                func(m rpcMsg) { a.reply(m, json.RawMessage(testStatus(a.sid, 0, "idle", "idle"))) },
	}
	t.Cleanup(func() { _ = a.out.Close(); _ = a.in.Close() })
	go a.run()
	return a, cr, cw
}

func (a *rawAgent) on(method string, h func(m rpcMsg)) {
	a.mu.Lock()
	a.handle[method] = h
	a.mu.Unlock()
}

func (a *rawAgent) run() {
	sc := bufio.NewScanner(a.in)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var m rpcMsg
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			a.t.Errorf("agent got bad JSON %q: %v", sc.Bytes(), err)
			continue
		}
		a.mu.Lock()
		if m.Method == "" {
			ch := a.waiting[string(m.ID)]
			delete(a.waiting, string(m.ID))
			a.mu.Unlock()
			if ch != nil {
				ch <- m
			}
			continue
		}
		a.got = append(a.got, m)
		h := a.handle[m.Method]
		a.mu.Unlock()
		select {
		case a.gotCh <- m:
		default:
		}
		if h != nil {
			go h(m)
		} else if m.ID != nil {
			a.replyErr(m, CodeMethodNotFound, "method not found: "+m.Method)
		}
	}
}

func (a *rawAgent) writeLine(line string) {
	a.writeMu.Lock()
	defer a.writeMu.Unlock()
	_, _ = io.WriteString(a.out, line+"\n")
}

func (a *rawAgent) send(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		a.t.Errorf("agent marshal: %v", err)
		return
	}
	a.writeLine(string(b))
}

func (a *rawAgent) reply(m rpcMsg, result any) {
	a.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
}

func (a *rawAgent) replyErr(m rpcMsg, code int, msg string) {
	a.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": code, "message": msg}})
}

func (a *rawAgent) notify(method string, params any) {
	a.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// update sends a session/update for the agent's session.
func (a *rawAgent) update(update string) {
	a.writeLine(fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":%q,"update":%s}}`, a.sid, update))
}

// request sends a request to the client and waits for its answer.
func (a *rawAgent) request(method string, params any) rpcMsg {
	a.mu.Lock()
	a.nextID++
	id := strconv.Itoa(a.nextID)
	ch := make(chan rpcMsg, 1)
	a.waiting[id] = ch
	a.mu.Unlock()
	a.send(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": method, "params": params})
	select {
	case m := <-ch:
		return m
	case <-time.After(10 * time.Second):
		a.t.Errorf("client did not answer %s", method)
		return rpcMsg{}
	}
}

// calls returns the client messages received so far with the given method.
func (a *rawAgent) calls(method string) []rpcMsg {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []rpcMsg
	for _, m := range a.got {
		if m.Method == method {
			out = append(out, m)
		}
	}
	return out
}

// waitCall waits until the client has sent method (a request or a notification).
func (a *rawAgent) waitCall(method string) rpcMsg {
	a.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		if c := a.calls(method); len(c) > 0 {
			return c[len(c)-1]
		}
		select {
		case <-a.gotCh:
		case <-deadline:
			a.t.Fatalf("client never sent %s", method)
		}
	}
}

func connectRaw(t testing.TB, sid string) (*rawAgent, *Worker) {
	t.Helper()
	a, r, w := newRawAgent(t, sid)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	wk, err := Connect(ctx, r, w, ConnectConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = wk.Close() })
	return a, wk
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// nextEvent waits for the next event of the given kind, skipping others.
func nextEvent(t testing.TB, ch <-chan Event, kind EventKind) Event {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case e, ok := <-ch:
			if !ok {
				t.Fatalf("event stream closed while waiting for %s", kind)
			}
			if e.Kind() == kind {
				return e
			}
		case <-deadline:
			t.Fatalf("no %s event", kind)
		}
	}
}
