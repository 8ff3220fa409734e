package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"reasonixctl/core"
)

// task apply through the owner's socket (an --mcp server owns the directory): a dry run
// changes nothing, --apply lands the commit on the checkout's branch, a dirty checkout is
// refused with what to do.
func TestTaskApplyThroughTheOwner(t *testing.T) {
	state := privateDir(t)
	finishedTaskServer(t, state, "land-1")
	t.Setenv("CODEX_REASONIX_STATE_DIR", state)

	code, out, errOut := runCmd(taskCmd, "apply", "land-1", "--json")
	var dry core.ApplyResult
	if err := json.Unmarshal([]byte(out), &dry); code != 0 || err != nil || dry.Applied || dry.Branch != "main" {
		t.Fatalf("dry run: %d %q %q %v", code, out, errOut, err)
	}
	repo := dry.Checkout
	head := gitIn(t, repo, "rev-parse", "HEAD")
	if _, err := os.Stat(filepath.Join(repo, "result.txt")); !os.IsNotExist(err) {
		t.Fatal("the dry run wrote to the checkout")
	}

	if err := os.WriteFile(filepath.Join(repo, "wip.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCmd(taskCmd, "apply", "land-1", "--apply"); code != 1 || !strings.Contains(errOut, "uncommitted changes (wip.txt)") || !strings.Contains(errOut, "commit or stash") {
		t.Fatalf("dirty: %d %q", code, errOut)
	}
	os.Remove(filepath.Join(repo, "wip.txt"))

	code, out, errOut = runCmd(taskCmd, "apply", "land-1", "--apply")
	if code != 0 || !strings.Contains(out, "Applied task land-1") || !strings.Contains(out, "Nothing was pushed") {
		t.Fatalf("apply: %d %q %q", code, out, errOut)
	}
	if got := gitIn(t, repo, "rev-parse", "HEAD^"); got != head {
		t.Fatalf("HEAD^ is %s, want %s", got, head)
	}
	if b, _ := os.ReadFile(filepath.Join(repo, "result.txt")); len(b) == 0 {
		t.Fatal("result.txt did not land in the checkout")
	}
	// Applied twice: the change is there already; the checkout stays as it is.
	now := gitIn(t, repo, "rev-parse", "HEAD")
	if code, _, errOut := runCmd(taskCmd, "apply", "land-1", "--apply"); code != 1 || !strings.Contains(errOut, "already on main") {
		t.Fatalf("a second apply: %d %q", code, errOut)
	}
	if gitIn(t, repo, "rev-parse", "HEAD") != now || gitIn(t, repo, "status", "--porcelain") != "" {
		t.Fatal("a second apply changed the checkout")
	}
	if code, _, errOut := runCmd(taskCmd, "apply"); code != 2 || !strings.Contains(errOut, "exactly one task id") {
		t.Fatalf("no id: %d %q", code, errOut)
	}
}
