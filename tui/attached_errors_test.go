package tui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/core/remote"
)

// A dashboard attached to another process's engine shows the issues of a refused finalize: the
// error's typed details cross the owner's socket and are read as such, not as decoded JSON.
func TestAttachedDashboardShowsFinalizeIssues(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	state := filepath.Join(t.TempDir(), "state")
	e := openEngine(t, state)
	t.Cleanup(func() { _ = e.Close() })
	srv, err := remote.Serve(ctx, e, state, remote.Info{Mode: "mcp", Version: "test", StartedAt: time.Now()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	c, err := remote.Dial(ctx, state, "dashboard")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })

	clk := &clock{t: epoch}
	m := newModel(ctx, c, Options{StateDir: state, WorkerVersion: "scripted", Now: clk.Now, Dir: t.TempDir()})
	h := &harness{t: t, m: m, clk: clk}
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	h.run(m.Init())

	rev := 1
	h.run(m.cmds.control(core.Finalize{
		TaskID: "attached", ReviewSummary: "checked",
		ExpectedReviewRevision: &rev, ExpectedReviewTreeHash: "not-a-tree",
	}))
	h.requireView("finalize attached failed", "invalid_request: reasonix_control input validation failed",
		"• expected_review_tree_hash: must be 40 lowercase hex digits")
	if v := h.view(); strings.Contains(flatten(v), "issues:") {
		t.Fatalf("the issues are shown as raw details:\n%s", v)
	}
}
