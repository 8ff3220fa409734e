package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"reasonixctl/core"
)

// `reasonixctl task apply` through the owner's socket, on the checkout the task came from:
// a file the person's .git/info/exclude hides where the commit writes, and a cherry-pick
// sequence of theirs under way, are each refused by the dry run and by --apply alike, with
// the path or the operation named, and the checkout keeps its bytes, its HEAD and its
// sequence. Before, --apply replaced the excluded file, and during the sequence ran
// `git cherry-pick --abort` (main moved back) while saying the checkout was left as it was.
func TestTaskApplyRefusesWhatWouldLoseThePersonsWork(t *testing.T) {
	state := privateDir(t)
	finishedTaskServer(t, state, "land-2")
	t.Setenv("CODEX_REASONIX_STATE_DIR", state)

	code, out, errOut := runCmd(taskCmd, "apply", "land-2", "--json")
	var dry core.ApplyResult
	if err := json.Unmarshal([]byte(out), &dry); code != 0 || err != nil {
		t.Fatalf("dry run on a clean checkout: %d %q %q %v", code, out, errOut, err)
	}
	repo := dry.Checkout
	head := gitIn(t, repo, "rev-parse", "HEAD")

	// An excluded file where the commit writes result.txt.
	exclude := filepath.Join(repo, ".git", "info", "exclude")
	if err := os.WriteFile(exclude, []byte("result.txt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "result.txt"), []byte("my feature notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"apply", "land-2"}, {"apply", "land-2", "--apply"}} {
		code, out, errOut := runCmd(taskCmd, args...)
		if code != 1 || !strings.Contains(errOut, "result.txt (ignored)") || !strings.Contains(errOut, "nothing was changed") || strings.Contains(out, "applies cleanly") {
			t.Fatalf("%v with an excluded result.txt: %d %q %q", args, code, out, errOut)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(repo, "result.txt")); string(b) != "my feature notes\n" {
		t.Fatalf("the excluded file now holds %q", b)
	}
	if gitIn(t, repo, "rev-parse", "HEAD") != head {
		t.Fatal("a refused apply moved HEAD")
	}
	os.Remove(filepath.Join(repo, "result.txt"))
	os.Remove(exclude)

	// A cherry-pick sequence of the person's, its first stop resolved and committed by hand:
	// the status is clean, and `git cherry-pick --continue` is still to come.
	gitIn(t, repo, "switch", "-q", "-c", "side")
	commitFile(t, repo, "README", "side one\n")
	commitFile(t, repo, "side2.txt", "two\n")
	gitIn(t, repo, "switch", "-q", "main")
	commitFile(t, repo, "README", "mine\n")
	pick := exec.Command("git", "cherry-pick", "side~1", "side")
	pick.Dir = repo
	pick.Env = append(os.Environ(), "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := pick.CombinedOutput(); err == nil {
		t.Fatalf("the sequence did not stop: %s", out)
	}
	if err := os.WriteFile(filepath.Join(repo, "README"), []byte("resolved\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, repo, "add", "README")
	gitIn(t, repo, "-c", "core.editor=true", "commit", "-q", "--no-edit")
	mine := gitIn(t, repo, "rev-parse", "HEAD")
	for _, args := range [][]string{{"apply", "land-2"}, {"apply", "land-2", "--apply"}} {
		code, out, errOut := runCmd(taskCmd, args...)
		if code != 1 || !strings.Contains(errOut, "in the middle of a cherry-pick") || !strings.Contains(errOut, "git cherry-pick --continue") {
			t.Fatalf("%v during a cherry-pick: %d %q %q", args, code, out, errOut)
		}
	}
	if got := gitIn(t, repo, "rev-parse", "HEAD"); got != mine {
		t.Fatalf("main moved from %s to %s", mine, got)
	}
	if _, err := os.Stat(filepath.Join(repo, ".git", "sequencer")); err != nil {
		t.Fatalf("the sequence is gone: %v", err)
	}
	gitIn(t, repo, "cherry-pick", "--continue")
	if code, out, errOut := runCmd(taskCmd, "apply", "land-2", "--apply"); code != 0 || !strings.Contains(out, "Applied task land-2") {
		t.Fatalf("apply once the sequence is done: %d %q %q", code, out, errOut)
	}
	if gitIn(t, repo, "rev-parse", "HEAD^") == mine || gitIn(t, repo, "status", "--porcelain") != "" {
		t.Fatal("the apply did not land on top of the finished sequence")
	}
}

func commitFile(t *testing.T, repo, path, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(repo, path), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, repo, "add", path)
	gitIn(t, repo, "commit", "-q", "-m", path)
}
