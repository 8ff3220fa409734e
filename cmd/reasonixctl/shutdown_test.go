package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"reasonixctl/core"
)

// codexGrace is how long Codex waits between SIGTERM and SIGKILL when a session ends.
const codexGrace = 50 * time.Millisecond

// When a Codex session ends it sends SIGTERM and, about 50 ms later, SIGKILL. A server that
// has just finished a task must be gone cleanly before the SIGKILL: owner record released, no
// worker left, the store closed so the next start has no recovery to do.
func TestSigtermThenSigkillLikeCodexFindsTheServerGone(t *testing.T) {
	state := t.TempDir()
	s := finishedTaskServer(t, state, "grace-1")

	exited := make(chan error, 1)
	go func() { exited <- s.cmd.Wait() }()
	start := time.Now()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var waitErr error
	select {
	case waitErr = <-exited:
	case <-time.After(codexGrace):
		_ = s.cmd.Process.Signal(syscall.SIGKILL)
		<-exited
		t.Fatalf("still running %v after SIGTERM: Codex would have killed it", codexGrace)
	}
	took := time.Since(start)
	var ee *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &ee) {
		t.Fatal(waitErr)
	}
	if waitErr != nil {
		t.Fatalf("exit after SIGTERM: %v", waitErr)
	}
	t.Logf("exited %v after SIGTERM", took)
	if _, err := os.Stat(filepath.Join(state, "owner.json")); !os.IsNotExist(err) {
		t.Fatalf("owner.json left behind: %v", err)
	}
	if left := survivors(state); len(left) > 0 {
		t.Fatalf("processes left: %v", left)
	}
	// The next start finds a closed store: it opens at once and the task is as it was.
	openStart := time.Now()
	e, err := core.Open(core.Config{StateDir: state, Mode: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if d := time.Since(openStart); d > 2*time.Second {
		t.Fatalf("opening after a clean exit took %v", d)
	}
	d, err := e.Get(t.Context(), "grace-1")
	if err != nil || d.View.State != core.StateCompleted {
		t.Fatalf("task after restart: %+v %v", d.View, err)
	}
}

// finishedTaskServer starts reasonixctl --mcp and takes one task through delegate and finalize,
// as a Codex session does before it ends.
func finishedTaskServer(tb testing.TB, state, taskID string) *mcpSession {
	tb.Helper()
	repo := testRepo(tb)
	s := startMCP(tb, state)
	s.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "codex", "version": "0.169.0"}})
	s.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	s.call("tools/list", map[string]any{})
	res := s.tool("reasonix_delegate", map[string]any{"task_id": taskID, "contract": e2eContract}, codexMeta(repo, true))
	var view struct {
		State                  string   `json:"state"`
		ReviewRevision         int      `json:"review_revision"`
		ReviewTreeHash         string   `json:"review_tree_hash"`
		RequiredReviewCriteria []string `json:"required_review_criteria"`
	}
	if err := json.Unmarshal(res.StructuredContent, &view); err != nil || view.State != "review_required" {
		tb.Fatalf("delegate: %s", res.StructuredContent)
	}
	fin := s.tool("reasonix_control", map[string]any{
		"task_id": taskID, "action": "finalize", "review_summary": "ok", "approved_review_criteria": view.RequiredReviewCriteria,
		"expected_review_revision": view.ReviewRevision, "expected_review_tree_hash": view.ReviewTreeHash,
	}, codexMeta(repo, true))
	if fin.IsError {
		tb.Fatalf("finalize: %s", fin.Content[0].Text)
	}
	return s
}

// BenchmarkShutdownAfterTask measures what Codex's grace allows for: SIGTERM to exit of
// reasonixctl --mcp right after a finished task (target ≤ 30 ms; Codex kills at about 50 ms).
func BenchmarkShutdownAfterTask(b *testing.B) {
	var total time.Duration
	n := 0
	for b.Loop() {
		b.StopTimer()
		s := finishedTaskServer(b, b.TempDir(), "bench")
		exited := make(chan error, 1)
		go func() { exited <- s.cmd.Wait() }()
		b.StartTimer()
		start := time.Now()
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		if err := <-exited; err != nil {
			b.Fatalf("exit after SIGTERM: %v", err)
		}
		total += time.Since(start)
		n++
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(max(n, 1)), "ms-to-exit")
}
