package mcp

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
	"reasonixctl/core/engine"
)

// Over MCP: a task in review whose change conflicts with a commit made since on the source
// branch is rebased (reasonix_control rebase, no other field, no sandbox metadata), the worker
// resolves the conflict in the repair round, the next review is bound to a new revision, and
// finalize with it commits on the new HEAD.
func TestControlRebaseOverMCP(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	repo := riskRepo(t)
	scn := &acptest.Scenario{Turns: []acptest.Turn{
		{Steps: []acptest.Step{{Write: &acptest.WriteFile{Path: "result.txt", Content: "ok\n"}, Permission: "ask"}}},
		{Match: "These files conflict: result.txt", Steps: []acptest.Step{{Write: &acptest.WriteFile{Path: "result.txt", Content: "theirs\nok\n"}}}},
	}}
	e, err := engine.Open(engine.Config{StateDir: t.TempDir(), Mode: "test",
		Worker: engine.PipeWorker(func(ctx context.Context, r io.Reader, w io.Writer) error {
			return acptest.Serve(ctx, r, w, acptest.Options{Scenario: scn})
		})})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	h := newHarnessWith(t, Options{}, &fakeService{}, func(context.Context) (core.Service, error) { return e, nil })

	args := delegateArgs("rebase-1")
	args["wait_timeout_seconds"] = 60
	got := structuredOf(t, h.call(ToolDelegate, args, writableMeta(repo)))
	if got["state"] != string(core.StateReviewRequired) {
		t.Fatalf("delegate: %v", got)
	}
	gitIn := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if err := os.WriteFile(filepath.Join(repo, "result.txt"), []byte("theirs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn("add", "result.txt")
	gitIn("commit", "-q", "-m", "theirs")
	head := gitIn("rev-parse", "HEAD")

	if env := envelopeOf(t, h.callUnchecked(ToolControl, map[string]any{"task_id": "rebase-1", "action": "rebase", "message": "m"}, nil)); env.Code != core.CodeInvalidRequest {
		t.Fatalf("rebase with a message: %+v", env)
	}
	v := structuredOf(t, h.call(ToolControl, map[string]any{"task_id": "rebase-1", "action": "rebase"}, nil))
	if v["state"] != string(core.StateRunning) || v["repair_rounds"] != float64(1) {
		t.Fatalf("rebase: %v", v)
	}
	ins := structuredOf(t, h.call(ToolInspect, map[string]any{"task_id": "rebase-1", "include": []any{"status"},
		"wait_until": "review_required", "wait_ms": 30000}, nil))
	st, _ := ins["sections"].(map[string]any)["status"].(map[string]any)
	if st["state"] != string(core.StateReviewRequired) || st["review_revision"] != float64(2) || st["review_tree_hash"] == got["review_tree_hash"] {
		t.Fatalf("status after the rebase round: %v", st)
	}
	out := structuredOf(t, h.call(ToolControl, map[string]any{
		"task_id": "rebase-1", "action": "finalize", "review_summary": "both lines kept",
		"approved_review_criteria": []any{"a1"}, "expected_review_revision": st["review_revision"],
		"expected_review_tree_hash": st["review_tree_hash"], "wait_timeout_seconds": 60,
	}, writableMeta(repo)))
	if out["state"] != string(core.StateCompleted) {
		t.Fatalf("finalize: %v", out)
	}
	commit := out["commit_hash"].(string)
	if parent := gitIn("rev-parse", commit+"^"); parent != head {
		t.Fatalf("the commit's parent is %s, want the new HEAD %s", parent, head)
	}
	if body := gitIn("show", commit+":result.txt"); body != "theirs\nok" {
		t.Fatalf("committed result.txt = %q", body)
	}
}
