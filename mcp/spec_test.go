package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"reasonixctl/core"
)

// No elicitation/create goes out before the client's notifications/initialized: until then a
// command the policy does not know is denied as if nobody could be asked; after it, the next
// task asks.
func TestNoFormBeforeInitialized(t *testing.T) {
	repo := elicitRepo(t)
	e := askEngine(t, time.Hour)
	srv := NewServer(func(context.Context) (core.Service, error) { return e, nil }, Options{AskUser: true})
	p := startStdio(t, context.Background(), srv)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":` + capsCodex + `,"clientInfo":{"name":"codex","version":"0.169"}}}`)
	p.response(1)
	p.send(delegateCall(2, "early", repo))
	res := p.exchange(2, func(m serverMessage) { t.Fatalf("the server sent %s before notifications/initialized", m.raw) })
	if s := stateOf(t, res); s != string(core.StateReviewRequired) {
		t.Fatalf("state %s: the task waited for a form that could not be sent", s)
	}
	d, err := e.Get(context.Background(), "early")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Interactions) != 0 {
		t.Fatalf("interactions %+v", d.Interactions)
	}

	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(delegateCall(3, "later", repo))
	var forms int
	onMessage := func(m serverMessage) {
		id, _ := checkElicitation(t, m)
		forms++
		p.answerElicitation(id, `{"action":"accept","content":{"decision":"allow_once"}}`)
	}
	if s := stateOf(t, p.exchange(3, onMessage)); s != string(core.StateReviewRequired) {
		p.followToReview(t, e, "later", onMessage)
	}
	if forms != 1 {
		t.Fatalf("%d forms after initialized, want 1", forms)
	}
	p.close()
}

// A progressToken is a string or an integer; anything else is refused with -32602 before the
// call runs, and null counts as none.
func TestProgressTokenMustBeStringOrInteger(t *testing.T) {
	fake := &fakeService{}
	srv := NewServer(func(context.Context) (core.Service, error) { return fake, nil }, Options{Version: "v"})
	p := startStdio(t, context.Background(), srv)
	p.initialize()
	call := func(id int, token string) map[string]any {
		p.send(`{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"tools/call","params":{"name":"reasonix_inspect","arguments":{"task_id":"t1"},"_meta":{"progressToken":` + token + `}}}`)
		for {
			m := p.next()
			if m["id"] == float64(id) {
				return m
			}
		}
	}
	for i, tok := range []string{`1.5`, `1e3`, `true`, `{"a":1}`, `[1]`, `-0.0`} {
		m := call(10+i, tok)
		e, _ := m["error"].(map[string]any)
		if e == nil || e["code"] != float64(codeInvalidParams) || !strings.Contains(e["message"].(string), "progressToken") {
			t.Errorf("token %s: %v", tok, m)
		}
	}
	for i, tok := range []string{`"abc"`, `7`, `-3`, `0`, `null`, `12345678901234567890`} {
		if m := call(30+i, tok); m["error"] != nil || m["result"] == nil {
			t.Errorf("token %s refused: %v", tok, m)
		}
	}
	_, _, inspects := fake.calls()
	if len(inspects) != 6 {
		t.Fatalf("%d inspect calls ran, want the 6 with a valid token", len(inspects))
	}
	p.close()
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// A reasonix_delegate call whose task waits on an interaction this session's client is being
// asked about through a form waits for the person's answer, then returns what follows it,
// instead of returning at once with waiting_permission.
func TestDelegateWaitsForTheFormItsClientShows(t *testing.T) {
	svc := &askerService{installs: make(chan core.Asker, 4)}
	var answered atomic.Bool
	first := make(chan struct{})
	var early atomic.Bool
	svc.delegate = func(ctx context.Context, req core.DelegateRequest) (core.DelegateResult, error) {
		v := sampleView(req.TaskID)
		svc.mu.Lock()
		n := len(svc.delegates)
		svc.mu.Unlock()
		if n == 1 {
			close(first)
			v.State = core.StateWaitingPermission
			ia := question(time.Minute).Interaction
			return core.DelegateResult{TaskView: v, ReviewBundle: &core.ReviewBundle{ActiveInteraction: &ia}}, nil
		}
		if !answered.Load() {
			early.Store(true)
		}
		return core.DelegateResult{TaskView: v}, nil
	}
	srv := NewServer(func(context.Context) (core.Service, error) { return svc, nil }, Options{AskUser: true})
	p := startStdio(t, context.Background(), srv)
	p.initializeWith(capsLegacy)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	p.response(2)
	var ask core.Asker
	select {
	case ask = <-svc.installs:
	case <-time.After(10 * time.Second):
		t.Fatal("no asker installed")
	}
	asked := make(chan error, 1)
	go func() {
		_, err := ask(context.Background(), question(time.Minute))
		asked <- err
	}()
	formID, _ := checkElicitation(t, p.nextMessage())
	p.send(delegateCall(3, "t-9", "/repo"))
	select {
	case <-first:
	case <-time.After(10 * time.Second):
		t.Fatal("the delegate call did not reach the service")
	}
	answered.Store(true)
	p.answerElicitation(formID, `{"action":"accept","content":{"decision":"allow_once"}}`)
	res := p.exchange(3, func(m serverMessage) { t.Fatalf("unexpected %s", m.raw) })
	if s := stateOf(t, res); s != string(core.StateReviewRequired) {
		d, _, _ := svc.calls()
		t.Fatalf("state %s, want the review that follows the answer (%d calls, early %v)", s, len(d), early.Load())
	}
	if early.Load() {
		t.Fatal("the delegate call resumed the task before the form was answered")
	}
	if d, _, _ := svc.calls(); len(d) != 2 {
		t.Fatalf("%d delegate calls reached the service, want 2", len(d))
	}
	if err := <-asked; err != nil {
		t.Fatal(err)
	}
	p.close()
}

// reasonix_control respond is recorded as the client's answer, named by its clientInfo; no
// other action names an answerer (only core.Respond has one).
func TestRespondIsCodexsAnswer(t *testing.T) {
	h := newHarness(t, Options{})
	h.call(ToolControl, map[string]any{"task_id": "t-1", "action": "respond", "interaction_id": "permission-1", "decision": "deny"}, nil)
	h.call(ToolControl, map[string]any{"task_id": "t-1", "action": "steer", "message": "go on"}, nil)
	_, controls, _ := h.fake.calls()
	if len(controls) != 2 {
		t.Fatalf("controls %+v", controls)
	}
	r, ok := controls[0].(core.Respond)
	if !ok || r.AnsweredBy != core.ByCodex || r.Outcome != "" {
		t.Fatalf("respond %#v", controls[0])
	}
	if _, ok := controls[1].(core.Steer); !ok {
		t.Fatalf("steer %#v", controls[1])
	}
	if r.Client != "codex-test 0" {
		t.Fatalf("respond is recorded as through %q, want the clientInfo of the harness's initialize", r.Client)
	}
}

// A client's name is recorded as one bounded line of inert text, whatever it sends.
func TestClientLabelIsInertAndBounded(t *testing.T) {
	got := clientLabel(mcpgo.Implementation{Name: "codex\x1b]0;pwned\x07\n\u202E" + strings.Repeat("é", 200), Version: "1"})
	if len(got) > core.MaxClientNameLen || strings.ContainsAny(got, "\x1b\x07\n\u202E") || !utf8.ValidString(got) {
		t.Fatalf("client label %q", got)
	}
	if got := clientLabel(mcpgo.Implementation{Name: "codex-mcp-client", Version: "0.169.0"}); got != "codex-mcp-client 0.169.0" {
		t.Fatalf("client label %q", got)
	}
}
