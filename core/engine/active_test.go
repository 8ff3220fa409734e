package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"reasonixctl/core"
	"reasonixctl/core/guard"
)

// hookInput is a Codex PreToolUse input as the guard reads it.
func hookInput(tool, command, cwd string) []byte {
	b, _ := json.Marshal(map[string]any{
		"session_id": "s", "turn_id": "1", "transcript_path": nil, "cwd": cwd, "hook_event_name": "PreToolUse",
		"model": "m", "permission_mode": "default", "tool_name": tool, "tool_use_id": "call_1",
		"tool_input": map[string]any{"command": command},
	})
	return b
}

const patchResult = "*** Begin Patch\n*** Update File: result.txt\n@@\n-a\n+b\n*** End Patch\n"

// The guard works beside a running owner: the engine holds the store and keeps the records; the
// hook decides from the records alone, until the task ends.
func TestActiveRecordsFollowTheTaskAndGuideTheGuard(t *testing.T) {
	h := newHarness(t, nil)
	if d := guard.Decide(h.state, hookInput("apply_patch", patchResult, h.repo)); !d.Allow {
		t.Fatalf("denied before any task: %s", d.Reason)
	}
	res, err := h.delegate("guarded")
	if err != nil {
		t.Fatal(err)
	}
	repos, err := guard.ReadActive(h.state)
	if err != nil || len(repos) != 1 {
		t.Fatalf("records %+v, %v", repos, err)
	}
	got := repos[0]
	if got.Root != h.repo || got.RepositoryID != res.RepositoryID || len(got.Tasks) != 1 {
		t.Fatalf("record %+v", got)
	}
	if tk := got.Tasks[0]; tk.TaskID != "guarded" ||
		strings.Join(tk.WriteScope, ",") != "result.txt" || tk.Worktree != res.Worktree || tk.Branch != res.Branch {
		t.Fatalf("task %+v", tk)
	}
	// The record follows the task's claim, not its steps: a repair round (review, running,
	// review again) leaves the file as it was.
	path := guard.ActivePath(h.state, res.RepositoryID)
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	msg := "Once more."
	if _, err := h.e.Control(t.Context(), core.Steer{TaskID: "guarded", Message: msg}); err != nil {
		t.Fatal(err)
	}
	// Back in review once a state change follows the steer (the tree is unchanged, so there is
	// no new review_ready).
	roundEnded := func() bool {
		steered := false
		for _, ev := range h.journal("guarded") {
			switch {
			case ev.Type == core.EventSteered:
				steered = true
			case steered && ev.Type == core.EventStateChanged:
				return true
			}
		}
		return false
	}
	if _, timedOut, err := h.e.waitFor(t.Context(), "guarded", 30*time.Second, func(r *taskRecord) bool {
		return r.State == core.StateReviewRequired && roundEnded()
	}); err != nil || timedOut {
		var types []string
		for _, ev := range h.journal("guarded") {
			types = append(types, ev.Type)
		}
		t.Fatalf("no second review: %v %v", err, types)
	}
	if after, err := os.Stat(path); err != nil || !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Fatalf("the record was rewritten for a repair round: %v", err)
	}
	d, err := h.e.Get(t.Context(), "guarded")
	if err != nil {
		t.Fatal(err)
	}
	res.TaskView = d.View

	if d := guard.Decide(h.state, hookInput("apply_patch", patchResult, h.repo)); d.Allow || !strings.Contains(d.Reason, "guarded") {
		t.Fatalf("in-scope patch: %+v", d)
	}
	if d := guard.Decide(h.state, hookInput("apply_patch", strings.ReplaceAll(patchResult, "result.txt", "README"), h.repo)); !d.Allow {
		t.Fatalf("patch outside the scope: %s", d.Reason)
	}
	if d := guard.Decide(h.state, hookInput("Bash", "git diff --stat", h.repo)); !d.Allow {
		t.Fatalf("read: %s", d.Reason)
	}
	if d := guard.Decide(h.state, hookInput("Bash", "touch result.txt", h.repo)); d.Allow {
		t.Fatal("write allowed")
	}

	if _, err := h.finalize(res.TaskView, "looks-right"); err != nil {
		t.Fatal(err)
	}
	if repos, err := guard.ReadActive(h.state); err != nil || len(repos) != 0 {
		t.Fatalf("records after the commit: %+v, %v", repos, err)
	}
	if d := guard.Decide(h.state, hookInput("Bash", "touch result.txt", h.repo)); !d.Allow {
		t.Fatalf("denied after the task ended: %s", d.Reason)
	}
}

// A restarted owner rewrites the records from the store: a lost record comes back and a stale
// one (its task ended while nobody kept the records) goes.
func TestOpenRebuildsActiveRecords(t *testing.T) {
	h := newHarness(t, nil)
	res, err := h.delegate("kept")
	if err != nil {
		t.Fatal(err)
	}
	h.e.Close()
	dir := guard.ActiveDir(h.state)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, "0123456789abcdef01234567.json")
	if err := os.WriteFile(stale, []byte(`{"version":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	e, err := Open(Config{StateDir: h.state, Mode: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatalf("stale record kept: %v", err)
	}
	repos, err := guard.ReadActive(h.state)
	if err != nil || len(repos) != 1 || repos[0].RepositoryID != res.RepositoryID || repos[0].Tasks[0].TaskID != "kept" {
		t.Fatalf("records %+v, %v", repos, err)
	}
	// Closing the task ends it: the record goes.
	if _, err := e.Control(context.Background(), core.Close{TaskID: "kept"}); err != nil {
		t.Fatal(err)
	}
	if repos, err := guard.ReadActive(h.state); err != nil || len(repos) != 0 {
		t.Fatalf("records after close: %+v, %v", repos, err)
	}
}
