package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"reasonixctl/core"
	"reasonixctl/core/engine"
)

// attachScenario runs a command the policy does not know, then writes the result.
const attachScenario = `{"name": "attach", "turns": [{"steps": [
  {"text": "Checking the lint first."},
  {"shell": {"command": "make lint", "output": "fine\n"}, "permission": "ask"},
  {"write": {"path": "result.txt", "content": "ok\n"}, "permission": "ask"},
  {"text": "Created result.txt containing ok."}
], "summary": "Created result.txt containing ok."}]}`

// startAttachOwner starts reasonixctl --mcp as the owner of a fresh state directory, with the
// attach scenario, and makes it open the directory (it does so after tools/list).
func startAttachOwner(t *testing.T, state string) *mcpSession {
	t.Helper()
	scenario := filepath.Join(t.TempDir(), "attach.json")
	if err := os.WriteFile(scenario, []byte(attachScenario), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startMCP(t, state, "FAKE_REASONIX_SCENARIO="+scenario, "CODEX_REASONIX_ENV_ALLOWLIST=FAKE_REASONIX_*")
	s.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "e2e", "version": "1"}})
	s.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	s.call("tools/list", map[string]any{})
	return s
}

// attachDashboard attaches the way the dashboard does, retrying while the owner opens.
func attachDashboard(t *testing.T, state string) *attachment {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		a, err := newAttachment(context.Background(), slog.New(slog.DiscardHandler), dialOwner(state, "dashboard"))
		if err == nil {
			t.Cleanup(a.Close)
			return a
		}
		if time.Now().After(deadline) {
			t.Fatalf("attaching: %v", err)
		}
		time.Sleep(20 * time.Millisecond) // polling for a socket another process creates
	}
}

// waitInteraction waits on the attachment's event stream for the task's next pending
// interaction.
func waitInteraction(t *testing.T, a core.Service, taskID string) core.Interaction {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sub, err := a.Subscribe(ctx, core.SubscribeOptions{TaskID: taskID, FromSeq: 1})
	if err != nil {
		t.Fatal(err)
	}
	for ev := range sub.C {
		if ev.Type == core.EventInteractionWaiting {
			var ia core.Interaction
			if err := json.Unmarshal(ev.Data, &ia); err != nil {
				t.Fatal(err)
			}
			if strings.Join(ia.Request.Argv, " ") == "make lint" {
				return ia
			}
		}
	}
	t.Fatalf("no interaction: %v", sub.Err())
	return core.Interaction{}
}

// The whole story: Codex delegates through reasonixctl --mcp, a person's dashboard attached
// through the socket is asked about the command the policy does not know, two dashboards answer
// and the first wins, `task list` works beside the owner, and Codex's finalize commits.
func TestDashboardSupervisesACodexDelegatedTask(t *testing.T) {
	repo := testRepo(t)
	base := gitIn(t, repo, "rev-parse", "HEAD")
	state := shortTempDir(t)
	s := startAttachOwner(t, state)
	first := attachDashboard(t, state)
	second := attachDashboard(t, state)
	if o, ok := first.Owner(); !ok || o.Mode != "mcp" || o.PID != s.cmd.Process.Pid {
		t.Fatalf("owner %+v %v, want the mcp process %d", o, ok, s.cmd.Process.Pid)
	}

	res := s.tool("reasonix_delegate", map[string]any{"task_id": "codex-1", "contract": e2eContract, "wait_mode": "background"}, codexMeta(repo, true))
	if res.IsError {
		t.Fatalf("delegate: %s", res.Content[0].Text)
	}
	ia := waitInteraction(t, first, "codex-1")

	// Codex sees the same waiting interaction.
	insp := s.tool("reasonix_inspect", map[string]any{"task_id": "codex-1", "include": []string{"status", "interactions"}}, nil)
	if insp.IsError || !strings.Contains(string(insp.StructuredContent), ia.ID) {
		t.Fatalf("inspect: %s", insp.StructuredContent)
	}

	// Both dashboards answer at once: exactly one answer counts.
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, a := range []*attachment{first, second} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = a.Control(context.Background(), core.Respond{TaskID: "codex-1", InteractionID: ia.ID, Decision: core.DecisionAllow})
		}()
	}
	wg.Wait()
	won, lost := 0, 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case core.AsError(err).Code == core.CodeInteractionNotFound:
			lost++
		default:
			t.Fatalf("respond: %v", err)
		}
	}
	if won != 1 || lost != 1 {
		t.Fatalf("answers: %v", errs)
	}

	// `task list` beside the owner goes through its socket.
	bin, _ := buildBinaries()
	list := exec.Command(filepath.Join(bin, "reasonixctl"), "task", "list")
	list.Env = append(os.Environ(), "CODEX_REASONIX_STATE_DIR="+state)
	out, err := list.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "codex-1") {
		t.Fatalf("task list beside the owner: %v\n%s", err, out)
	}

	// Codex waits for review and finalizes.
	var view struct {
		State                  string   `json:"state"`
		ReviewRevision         int      `json:"review_revision"`
		ReviewTreeHash         string   `json:"review_tree_hash"`
		RequiredReviewCriteria []string `json:"required_review_criteria"`
		CommitHash             string   `json:"commit_hash"`
	}
	res = s.tool("reasonix_delegate", map[string]any{"task_id": "codex-1", "contract": e2eContract}, codexMeta(repo, true))
	json.Unmarshal(res.StructuredContent, &view)
	if view.State != "review_required" {
		t.Fatalf("after the answer: %s", res.StructuredContent)
	}
	fin := s.tool("reasonix_control", map[string]any{
		"task_id": "codex-1", "action": "finalize", "review_summary": "checked from the dashboard", "approved_review_criteria": view.RequiredReviewCriteria,
		"expected_review_revision": view.ReviewRevision, "expected_review_tree_hash": view.ReviewTreeHash,
	}, codexMeta(repo, true))
	json.Unmarshal(fin.StructuredContent, &view)
	if fin.IsError || view.State != "completed" || gitIn(t, repo, "rev-parse", view.CommitHash+"^") != base {
		t.Fatalf("finalize: %s", fin.StructuredContent)
	}
	// The dashboard sees the same commit.
	d, err := first.Get(context.Background(), "codex-1")
	if err != nil || d.View.CommitHash != view.CommitHash {
		t.Fatalf("dashboard view: %v %+v", err, d.View)
	}
}

// An attached dashboard follows its owner being killed and a new one starting.
func TestDashboardFollowsTheOwnerAcrossARestart(t *testing.T) {
	state := shortTempDir(t)
	s := startAttachOwner(t, state)
	a := attachDashboard(t, state)
	if _, ok := a.Owner(); !ok {
		t.Fatal("not attached")
	}
	s.cmd.Process.Signal(syscall.SIGKILL)
	waitChange(t, a, false)
	if _, err := a.List(context.Background(), core.ListFilter{}); core.AsError(err).Code != core.CodeReasonixUnavailable {
		t.Fatalf("call while the owner is gone: %v", err)
	}
	next := startAttachOwner(t, state)
	waitChange(t, a, true)
	if o, _ := a.Owner(); o.PID != next.cmd.Process.Pid {
		t.Fatalf("owner %+v, want %d", o, next.cmd.Process.Pid)
	}
	if _, err := a.List(context.Background(), core.ListFilter{}); err != nil {
		t.Fatalf("list through the new owner: %v", err)
	}
}

// waitChange waits for the attachment to report the owner present or gone.
func waitChange(t *testing.T, a *attachment, present bool) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		if _, ok := a.Owner(); ok == present {
			return
		}
		select {
		case <-a.Changed():
		case <-deadline:
			t.Fatalf("owner present=%v never came", present)
		}
	}
}

// shortTempDir is a state directory whose socket path fits the 108 bytes a Unix socket
// address allows (test names make t.TempDir long).
func shortTempDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "rx")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// An MCP server that attached to a dashboard owning the directory takes the directory over when
// that dashboard quits, so Codex keeps its tools.
func TestMCPTakesTheDirectoryOverWhenTheDashboardQuits(t *testing.T) {
	state := shortTempDir(t)
	log := slog.New(slog.DiscardHandler)
	dash, err := engine.Open(engine.Config{StateDir: state, Mode: "tui"})
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := serveOwnerSocket(context.Background(), dash, state, "tui", log)
	if srv == nil {
		t.Fatal("the dashboard serves no socket")
	}
	a, err := newAttachment(context.Background(), log, ownOrDial(context.Background(), settings{}, state, log))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	if o, ok := a.Owner(); !ok || o.Mode != "tui" {
		t.Fatalf("owner %+v %v, want the dashboard", o, ok)
	}
	srv.Close()
	dash.Close()
	deadline := time.After(30 * time.Second)
	for {
		if o, ok := a.Owner(); ok && o.Mode == "mcp" && o.PID == os.Getpid() {
			break
		}
		select {
		case <-a.Changed():
		case <-deadline:
			o, ok := a.Owner()
			t.Fatalf("no take-over: owner %+v %v", o, ok)
		}
	}
	if _, err := a.List(context.Background(), core.ListFilter{}); err != nil {
		t.Fatalf("list after the take-over: %v", err)
	}
	// It serves the socket in turn: a dashboard can attach to it.
	d := attachDashboard(t, state)
	if o, ok := d.Owner(); !ok || o.Mode != "mcp" {
		t.Fatalf("dashboard attached to %+v %v", o, ok)
	}
}
