package mcp

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

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
// tools/list in process: the part of Codex's startup this package controls. The service never
// opens here, as in a real start where the store is still opening.
func BenchmarkInitializeToolsList(b *testing.B) {
	never := make(chan struct{})
	defer close(never)
	open := func(context.Context) (core.Service, error) { <-never; return nil, nil }
	ctx := context.Background()
	for b.Loop() {
		srv := NewServer(open, Options{Version: "bench"})
		c, err := client.NewInProcessClient(srv.MCPServer())
		if err != nil {
			b.Fatal(err)
		}
		if err := c.Start(ctx); err != nil {
			b.Fatal(err)
		}
		req := mcp.InitializeRequest{}
		req.Params.ProtocolVersion = "2025-06-18"
		req.Params.ClientInfo = mcp.Implementation{Name: "bench", Version: "0"}
		if _, err := c.Initialize(ctx, req); err != nil {
			b.Fatal(err)
		}
		res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
		if err != nil || len(res.Tools) != 3 {
			b.Fatalf("tools/list: %v", err)
		}
		c.Close()
	}
}

// BenchmarkToolsListWire measures only the tools/list round trip on a running server.
func BenchmarkToolsListWire(b *testing.B) {
	srv := NewServer(func(context.Context) (core.Service, error) { return &fakeService{}, nil }, Options{})
	ctx := context.Background()
	rpc(b, srv, ctx, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"0"}}}`)
	msg := []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	for b.Loop() {
		if _, err := json.Marshal(srv.MCPServer().HandleMessage(ctx, msg)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildTools is the once-per-process cost of building the advertised tools.
func BenchmarkBuildTools(b *testing.B) {
	for b.Loop() {
		buildTools()
	}
}

// BenchmarkCompileValidators is the once-per-process cost ServeStdio moves to the background.
func BenchmarkCompileValidators(b *testing.B) {
	for b.Loop() {
		for _, sp := range toolSpecs() {
			if _, err := compileSchema(sp.name, sp.in); err != nil {
				b.Fatal(err)
			}
			if _, err := compileSchema(sp.name, sp.out); err != nil {
				b.Fatal(err)
			}
		}
	}
}
