package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
	"reasonixctl/core/engine"
)

func taskCmd(args []string, out, errb *bytes.Buffer) int {
	return run(append([]string{"task"}, args...), out, errb)
}

const taskTestContract = `{
  "schema_version": 1,
  "objective": "Create result.txt",
  "user_outcome": "result.txt holds ok",
  "write_scope": ["result.txt"],
  "acceptance_criteria": [
    {"id": "result", "requirement": "result.txt exists", "evidence": "automated"},
    {"id": "reviewed", "requirement": "the change reads well", "evidence": "review"}
  ],
  "verification": [{"id": "exists", "argv": ["test", "-f", "result.txt"], "proves": ["result"]}]
}`

// seedTasks fills a fresh state directory (used by the task commands through
// CODEX_REASONIX_STATE_DIR) with a completed task "done" and a task "halted" whose worker never
// finished, which the restart leaves paused. It returns the completed task's view.
func seedTasks(t *testing.T) core.TaskView {
	t.Helper()
	state := privateDir(t)
	t.Setenv("CODEX_REASONIX_STATE_DIR", state)
	repo := testRepo(t)
	var scn *acptest.Scenario
	e, err := engine.Open(engine.Config{StateDir: state, Mode: "test", Worker: engine.PipeWorker(func(ctx context.Context, r io.Reader, w io.Writer) error {
		return acptest.Serve(ctx, r, w, acptest.Options{Scenario: scn})
	})})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	delegate := func(id string, wait int) core.DelegateResult {
		res, err := e.Delegate(ctx, core.DelegateRequest{TaskID: id, Contract: json.RawMessage(taskTestContract),
			Authority: core.Authority{Cwd: repo, Writable: true}, WaitTimeoutSeconds: &wait})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := delegate("done", 60)
	rev := res.ReviewRevision
	v, err := e.Control(ctx, core.Finalize{TaskID: "done", ReviewSummary: "fine",
		ApprovedReviewCriteria: []string{"reviewed"}, ExpectedReviewRevision: &rev, ExpectedReviewTreeHash: res.ReviewTreeHash})
	if err != nil || v.State != core.StateCompleted {
		t.Fatalf("finalize: %v %+v", err, v)
	}
	scn = &acptest.Scenario{Turns: []acptest.Turn{{Steps: []acptest.Step{{Hang: true}}}}}
	delegate("halted", 0)
	return v
}

func TestTaskArchiveAndPrune(t *testing.T) {
	done := seedTasks(t)
	run := func(want int, args ...string) string {
		t.Helper()
		code, out, errOut := runCmd(taskCmd, args...)
		if code != want {
			t.Fatalf("task %v: exit %d, want %d\nstdout: %s\nstderr: %s", args, code, want, out, errOut)
		}
		return out + errOut
	}
	if out := run(0, "list"); !strings.HasPrefix(out, "halted\tpaused\tlive\treasonix/halted\t") || strings.Count(out, "\n") != 1 {
		t.Fatalf("list: %q", out)
	}
	if out := run(0, "list", "--all"); !strings.Contains(out, "done\tcompleted\tlive\treasonix/done\t") {
		t.Fatalf("list --all: %q", out)
	}

	if out := run(1, "archive", "halted", "--apply"); !strings.Contains(out, "invalid_state") || !strings.Contains(out, "paused") {
		t.Fatalf("archive of a paused task: %q", out)
	}
	run(1, "archive", "missing")

	out := run(0, "archive", "done")
	if !strings.HasPrefix(out, "Dry run, nothing was changed.") || !strings.Contains(out, "--apply") || !strings.Contains(out, done.Worktree) {
		t.Fatalf("dry run: %q", out)
	}
	if _, err := os.Stat(done.Worktree); err != nil {
		t.Fatalf("the dry run removed the worktree: %v", err)
	}
	out = run(0, "archive", "--apply", "done")
	if !strings.HasPrefix(out, "Archived task done (completed)") || !strings.Contains(out, "kept branch reasonix/done at "+done.CommitHash) {
		t.Fatalf("archive: %q", out)
	}
	if _, err := os.Stat(done.Worktree); !os.IsNotExist(err) {
		t.Fatalf("worktree still there: %v", err)
	}
	run(1, "archive", "done", "--apply")
	if out := run(0, "list", "--all"); !strings.Contains(out, "done\tcompleted\tarchived\treasonix/done\t") {
		t.Fatalf("list after archive: %q", out)
	}

	if out := run(0, "prune"); !strings.HasPrefix(out, "Dry run: no archived task is 30d old") {
		t.Fatalf("prune default age: %q", out)
	}
	if out := run(0, "prune", "--older-than", "0m"); !strings.HasPrefix(out, "Dry run, nothing was changed.") || !strings.Contains(out, "  done\tcompleted") {
		t.Fatalf("prune dry run: %q", out)
	}
	if out := run(0, "list", "--all"); !strings.Contains(out, "\tarchived\t") {
		t.Fatalf("the prune dry run changed the task: %q", out)
	}
	if out := run(0, "prune", "--apply", "--older-than", "0m"); !strings.HasPrefix(out, "Pruned 1 archived task(s)") {
		t.Fatalf("prune: %q", out)
	}
	if out := run(0, "prune", "--apply", "--older-than", "0m"); !strings.HasPrefix(out, "No archived task is 0m old") {
		t.Fatalf("second prune: %q", out)
	}

	var rows []map[string]any
	if err := json.Unmarshal([]byte(run(0, "list", "--all", "--json")), &rows); err != nil {
		t.Fatal(err)
	}
	storage := map[string]any{}
	for _, r := range rows {
		storage[r["task_id"].(string)] = r["storage"]
		if r["task_id"] == "done" && (r["pruned_at"] == nil || r["archived_at"] == nil || r["commit_hash"] != done.CommitHash) {
			t.Fatalf("tombstone row: %v", r)
		}
	}
	if storage["done"] != "tombstone" || storage["halted"] != "live" || len(rows) != 2 {
		t.Fatalf("rows: %v", rows)
	}
}

func TestTaskUsageErrors(t *testing.T) {
	t.Setenv("CODEX_REASONIX_STATE_DIR", privateDir(t))
	for _, args := range [][]string{
		nil,
		{"bogus"},
		{"list", "extra"},
		{"list", "--bogus"},
		{"archive"},
		{"archive", "a", "b"},
		{"archive", "../escape"}, // invalid_request from the engine
		{"prune", "extra"},
		{"prune", "--older-than", "30"},
		{"prune", "--older-than", "01d"},
		{"prune", "--older-than", "-1d"},
		{"prune", "--older-than", "1w"},
		{"prune", "--older-than", "1.5d"},
		{"prune", "--older-than", "99999999999999999999d"},
		{"prune", "--older-than", "200000d"},
	} {
		code, out, errOut := runCmd(taskCmd, args...)
		if code != 2 || out != "" || errOut == "" {
			t.Errorf("task %q: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}

func TestParseAge(t *testing.T) {
	for in, want := range map[string]time.Duration{"0d": 0, "30d": 30 * 24 * time.Hour, "12h": 12 * time.Hour, "90m": 90 * time.Minute} {
		if got, err := parseAge(in); err != nil || got != want {
			t.Errorf("%s: %v %v", in, got, err)
		}
	}
}
