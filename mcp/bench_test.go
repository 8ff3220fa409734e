package mcp

import (
	"context"
	"testing"

	"reasonixctl/core"
)

// BenchmarkToolsListBytes reports the size of the tools/list result Codex receives at startup
// (the earlier bridge's was about 23 KB).
func BenchmarkToolsListBytes(b *testing.B) {
	var n int
	for b.Loop() {
		n = len(toolsListJSON(b))
	}
	b.ReportMetric(float64(n), "bytes")
}

// BenchmarkInitializeToolsList measures building the server and answering initialize and
// tools/list over ServeStdio: the part of Codex's startup this package controls. The service
// never opens here, as in a real start where the store is still opening.
func BenchmarkInitializeToolsList(b *testing.B) {
	never := make(chan struct{})
	defer close(never)
	open := func(context.Context) (core.Service, error) { <-never; return nil, nil }
	for b.Loop() {
		p := startStdio(b, context.Background(), NewServer(open, Options{Version: "bench"}))
		p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}`)
		p.rawResponse(1)
		p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		p.rawResponse(2)
		p.close()
	}
}

// BenchmarkToolsListWire measures only the tools/list round trip on a running server.
func BenchmarkToolsListWire(b *testing.B) {
	srv := NewServer(func(context.Context) (core.Service, error) { return &fakeService{}, nil }, Options{})
	p := startStdio(b, context.Background(), srv)
	defer p.close()
	for b.Loop() {
		p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		p.rawResponse(2)
	}
}

// BenchmarkBuildTools is the once-per-process cost of encoding the advertised tools.
func BenchmarkBuildTools(b *testing.B) {
	for b.Loop() {
		if _, err := encodeToolsList(toolSpecs()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileInputRules is the once-per-process cost the first tool call pays.
func BenchmarkCompileInputRules(b *testing.B) {
	for b.Loop() {
		for _, sp := range toolSpecs() {
			if _, err := compileInput(sp.in); err != nil {
				b.Fatal(err)
			}
		}
	}
}
