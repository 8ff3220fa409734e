package jsonrpc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"time"
)

// askHandler answers "ask" with what the peer answers to the "question" it is sent in turn, and
// "askBriefly" the same way, but gives up on the question after the request's own timeout.
type askHandler struct{ outcome chan error }

func (h askHandler) Route(req *Request) (Serve, bool) {
	switch req.Method {
	case "ask", "askBriefly":
		return func(ctx context.Context, c *Conn) Reply {
			if req.Method == "askBriefly" {
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				go func() { <-h.outcome; cancel() }() // the test says when to give up
			}
			res, err := c.Call(ctx, "question", map[string]string{"q": "?"})
			if err != nil {
				var ce *CallError
				if errors.As(err, &ce) {
					return Reply{Result: map[string]any{"peerError": ce.Err.Code}}
				}
				return Reply{Result: map[string]any{"err": err.Error()}}
			}
			return Reply{Result: map[string]any{"peerSaid": res}}
		}, true
	}
	return nil, false
}

type callPeer struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan map[string]any
	done  chan error
}

func startCallPeer(t *testing.T, h Handler) *callPeer {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &callPeer{t: t, in: inW, lines: make(chan map[string]any, 16), done: make(chan error, 1)}
	go func() {
		p.done <- Run(context.Background(), inR, outW, h, Options{MaxMessageBytes: 1 << 16, MaxPending: 4, ShutdownGrace: 5 * time.Second})
		outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("not JSON: %q", sc.Text())
			}
			p.lines <- m
		}
		close(p.lines)
	}()
	return p
}

func (p *callPeer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

func (p *callPeer) next() map[string]any {
	p.t.Helper()
	select {
	case m, ok := <-p.lines:
		if !ok {
			p.t.Fatal("output closed")
		}
		return m
	case <-time.After(10 * time.Second):
		p.t.Fatal("nothing written")
	}
	return nil
}

// The server's own requests carry ids of their own; the peer's result and error responses reach
// the call they answer, and responses to ids never sent (or already answered) are dropped.
func TestCallRoutesResponses(t *testing.T) {
	p := startCallPeer(t, askHandler{})
	p.send(`{"jsonrpc":"2.0","id":"rx-1","method":"ask"}`) // a client id that looks like ours
	q := p.next()
	if q["method"] != "question" || q["id"] != "rx-1" {
		t.Fatalf("request %v", q)
	}
	p.send(`{"jsonrpc":"2.0","id":"rx-9","result":{"stray":true}}`)
	p.send(`{"jsonrpc":"2.0","id":1,"result":{"stray":true}}`)
	p.send(`{"jsonrpc":"2.0","id":"rx-1","result":{"yes":1}}`)
	if r := p.next(); r["id"] != "rx-1" || r["result"].(map[string]any)["peerSaid"].(map[string]any)["yes"] != 1.0 {
		t.Fatalf("answer %v", r)
	}
	p.send(`{"jsonrpc":"2.0","id":"rx-1","result":{"again":true}}`) // answered already: dropped
	p.send(`{"jsonrpc":"2.0","id":2,"method":"ask"}`)
	if q := p.next(); q["id"] != "rx-2" {
		t.Fatalf("second request %v", q)
	}
	p.send(`{"jsonrpc":"2.0","id":"rx-2","error":{"code":-1,"message":"no"}}`)
	if r := p.next(); r["id"] != 2.0 || r["result"].(map[string]any)["peerError"] != -1.0 {
		t.Fatalf("answer %v", r)
	}
	p.in.Close()
	if m, ok := <-p.lines; ok {
		t.Fatalf("unexpected output %v", m)
	}
	if err := <-p.done; err != nil {
		t.Fatal(err)
	}
}

// A call given up is withdrawn with notifications/cancelled; one still waiting when serving
// ends returns ErrClosed.
func TestCallCancelAndClose(t *testing.T) {
	giveUp := make(chan error)
	p := startCallPeer(t, askHandler{outcome: giveUp})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"askBriefly"}`)
	if q := p.next(); q["id"] != "rx-1" {
		t.Fatalf("request %v", q)
	}
	close(giveUp)
	n := p.next()
	if n["method"] != CancelMethod || n["params"].(map[string]any)["requestId"] != "rx-1" || n["id"] != nil {
		t.Fatalf("want the withdrawal of rx-1, got %v", n)
	}
	if r := p.next(); r["id"] != 1.0 || r["result"].(map[string]any)["err"] != context.Canceled.Error() {
		t.Fatalf("answer %v", r)
	}
	p.send(`{"jsonrpc":"2.0","id":"rx-1","result":{}}`) // late: dropped
	p.send(`{"jsonrpc":"2.0","id":2,"method":"ask"}`)
	if q := p.next(); q["id"] != "rx-2" {
		t.Fatalf("request %v", q)
	}
	p.in.Close()
	if r := p.next(); r["id"] != 2.0 || r["result"].(map[string]any)["err"] != ErrClosed.Error() {
		t.Fatalf("answer %v", r)
	}
	if err := <-p.done; err != nil {
		t.Fatal(err)
	}
}
