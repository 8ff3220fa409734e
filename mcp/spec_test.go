package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

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
