package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"reasonixctl/core/engine"
)

// Codex's sequence (SIGTERM, SIGKILL about 50 ms later) while a worker is in the middle of a
// turn, the slowest state to shut down: whether or not the process got to exit on its own, no
// owner record is left behind, and the next start opens the directory and recovers the task.
func TestSigtermWhileAWorkerRunsLeavesNoOwnerRecord(t *testing.T) {
	state := t.TempDir()
	scenario := filepath.Join(t.TempDir(), "hang.json")
	if err := os.WriteFile(scenario, []byte(`{"name": "hang", "turns": [{"steps": [{"text": "Working."}, {"hang": true}]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	repo := testRepo(t)
	s := startMCP(t, state, "FAKE_REASONIX_SCENARIO="+scenario, "CODEX_REASONIX_ENV_ALLOWLIST=FAKE_REASONIX_*")
	s.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "codex", "version": "0.169.0"}})
	s.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	s.call("tools/list", map[string]any{})
	res := s.tool("reasonix_delegate", map[string]any{"task_id": "busy", "contract": e2eContract, "wait_mode": "background"}, codexMeta(repo, true))
	if res.IsError {
		t.Fatalf("delegate: %s", res.Content[0].Text)
	}
	if _, err := os.Stat(filepath.Join(state, "owner.json")); err != nil {
		t.Fatalf("no owner record while serving: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- s.cmd.Wait() }()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(codexGrace):
		_ = s.cmd.Process.Signal(syscall.SIGKILL)
		<-exited
		t.Logf("killed %v after SIGTERM, as Codex would", codexGrace)
	}
	if _, err := os.Stat(filepath.Join(state, "owner.json")); !os.IsNotExist(err) {
		t.Fatalf("owner.json left behind: %v", err)
	}
	e, err := engine.Open(engine.Config{StateDir: state, Mode: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	d, err := e.Get(t.Context(), "busy")
	if err != nil || d.View.State.Terminal() {
		t.Fatalf("task after restart: %+v %v", d.View, err)
	}
}
