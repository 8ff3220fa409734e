package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkMCPStartupAttachedToServe is BenchmarkMCPStartup with CODEX_REASONIX_OWNER=serve
// and a `reasonixctl serve` already running: launch → tools/list, then the first tool call,
// which attaches to the serve.
func BenchmarkMCPStartupAttachedToServe(b *testing.B) {
	bin, err := buildBinaries()
	if err != nil {
		b.Fatal(err)
	}
	state := privateDir(b)
	serve := exec.Command(filepath.Join(bin, "reasonixctl"), "serve")
	serve.Env = append(os.Environ(), "CODEX_REASONIX_STATE_DIR="+state)
	if err := serve.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { serve.Process.Signal(os.Interrupt); serve.Wait() }()
	waitServe(b, state)
	var firstCall time.Duration
	for b.Loop() {
		cmd := exec.Command(filepath.Join(bin, "reasonixctl"), "--mcp")
		cmd.Env = append(os.Environ(), "CODEX_REASONIX_STATE_DIR="+state, "CODEX_REASONIX_OWNER=serve")
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		send := func(id int, method string, params any) {
			m, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
			in.Write(append(m, '\n'))
			for sc.Scan() {
				var r struct {
					ID int `json:"id"`
				}
				if json.Unmarshal(sc.Bytes(), &r) == nil && r.ID == id {
					return
				}
			}
			b.Fatalf("no answer to %s", method)
		}
		send(1, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "bench", "version": "1"}})
		send(2, "tools/list", map[string]any{})
		elapsed := time.Since(start)
		b.StopTimer()
		t0 := time.Now()
		send(3, "tools/call", map[string]any{"name": "reasonix_inspect", "arguments": map[string]any{"task_id": "none"}})
		firstCall = time.Since(t0)
		in.Close()
		cmd.Wait()
		b.ReportMetric(float64(elapsed.Microseconds())/1000, "ms-to-tools/list")
		b.StartTimer()
	}
	b.ReportMetric(float64(firstCall.Microseconds())/1000, "ms-first-call-attached")
}
