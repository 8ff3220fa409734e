package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"reasonixctl/core"
)

// stdioPeer drives ServeStdio over pipes the way Codex drives the binary.
type stdioPeer struct {
	t      *testing.T
	in     *io.PipeWriter
	lines  chan string
	served chan error
}

func startStdio(t *testing.T, ctx context.Context, srv *Server) *stdioPeer {
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

// next returns the next message the server wrote; every line on stdout must be JSON-RPC.
func (p *stdioPeer) next() map[string]any {
	p.t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			p.t.Fatal("stdout closed")
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil || m["jsonrpc"] != "2.0" {
			p.t.Fatalf("stdout carried something other than JSON-RPC: %q", line)
		}
		return m
	case <-time.After(10 * time.Second):
		p.t.Fatal("no message from the server")
	}
	return nil
}

// response skips notifications until the response with the given id.
func (p *stdioPeer) response(id float64) map[string]any {
	p.t.Helper()
	for {
		m := p.next()
		if m["id"] == id {
			return m
		}
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

	select {
	case <-opened:
	case <-time.After(10 * time.Second):
		t.Fatal("the service is not opened at startup")
	}
	// The service is still opening; initialize and tools/list must not wait for it.
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	tools := p.response(2)["result"].(map[string]any)["tools"].([]any)
	if len(tools) != 3 {
		t.Fatalf("want 3 tools, got %d", len(tools))
	}
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

	// The server keeps serving after a cancelled call.
	p.send(`{"jsonrpc":"2.0","id":8,"method":"tools/list"}`)
	p.response(8)
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
