package gitx_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"reasonixctl/core/gitx"
)

// staleLocks leaves the lock files a git killed mid-write leaves on the task's branch and index.
func staleLocks(t *testing.T, wt gitx.Worktree) []string {
	t.Helper()
	gitDir := strings.TrimSpace(sh(t, wt.Path, "rev-parse", "--absolute-git-dir"))
	locks := []string{filepath.Join(wt.CommonDir, "refs", "heads", "reasonix", wt.Task+".lock"),
		filepath.Join(gitDir, "index.lock"), filepath.Join(gitDir, "HEAD.lock")}
	for _, l := range locks {
		write(t, l, "", 0o644)
	}
	return locks
}

func assertGone(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", p, err)
		}
	}
}

// A commit that moved the branch but was never recorded is rolled back; the worktree keeps the
// reviewed files, so the same review can be committed again.
func TestRecoverCommitRollsBackAnUnrecordedCommit(t *testing.T) {
	f := newFixture(t)
	wt := f.task(t, "landed")
	edit(t, wt)
	r := reviewed(t, wt)
	res, err := gitx.Commit(ctx, request(wt, r))
	if err != nil {
		t.Fatal(err)
	}
	locks := staleLocks(t, wt)
	rolledBack, err := gitx.RecoverCommit(ctx, wt, r.Tree)
	if err != nil || rolledBack != res.Commit {
		t.Fatalf("RecoverCommit = %q, %v; want %s", rolledBack, err, res.Commit)
	}
	assertGone(t, locks...)
	assertUncommitted(t, wt)
	if again := reviewed(t, wt); again.Tree != r.Tree {
		t.Fatalf("the worktree no longer holds the reviewed tree: %s, reviewed %s", again.Tree, r.Tree)
	}
	if _, err := gitx.Commit(ctx, request(wt, r)); err != nil {
		t.Fatalf("committing the same review again: %v", err)
	}
}

// A commit interrupted after staging (the branch still at the base) only needs its index reset.
func TestRecoverCommitResetsAStagedIndex(t *testing.T) {
	f := newFixture(t)
	wt := f.task(t, "staged")
	edit(t, wt)
	r := reviewed(t, wt)
	sh(t, wt.Path, "read-tree", r.Tree)
	locks := staleLocks(t, wt)
	rolledBack, err := gitx.RecoverCommit(ctx, wt, r.Tree)
	if err != nil || rolledBack != "" {
		t.Fatalf("RecoverCommit = %q, %v", rolledBack, err)
	}
	assertGone(t, locks...)
	assertUncommitted(t, wt)
}

// A branch moved to anything but the reviewed tree on the base is not ours to move back.
func TestRecoverCommitLeavesAForeignCommit(t *testing.T) {
	f := newFixture(t)
	wt := f.task(t, "foreign")
	edit(t, wt)
	r := reviewed(t, wt)
	foreign := sh(t, wt.Path, "commit-tree", wt.Base+"^{tree}", "-p", wt.Base, "-m", "someone else")
	sh(t, wt.Path, "update-ref", wt.Ref(), foreign, wt.Base)
	_, err := gitx.RecoverCommit(ctx, wt, r.Tree)
	wantCode(t, err, gitx.CodeOwnershipAmbiguous, gitx.ReasonHeadMoved)
	if got := sh(t, wt.Path, "rev-parse", wt.Ref()); got != foreign {
		t.Fatalf("branch moved to %s", got)
	}
}

// An interrupted CreateWorktree is undone however far it got.
func TestDiscardInterruptedUndoesAnyPartOfCreateWorktree(t *testing.T) {
	f := newFixture(t)
	branches := func() string { return sh(t, f.src, "branch", "--list", "reasonix/*") }

	full := f.task(t, "full")
	locks := staleLocks(t, full)
	if err := gitx.DiscardInterrupted(ctx, full); err != nil {
		t.Fatal(err)
	}
	assertGone(t, append(locks, full.Path)...)

	branchOnly := f.task(t, "branch-only")
	sh(t, f.src, "worktree", "remove", "--force", branchOnly.Path)
	if err := gitx.DiscardInterrupted(ctx, branchOnly); err != nil {
		t.Fatal(err)
	}

	nothing := full
	nothing.Task, nothing.Path = "nothing", filepath.Join(filepath.Dir(full.Path), "nothing")
	if err := gitx.DiscardInterrupted(ctx, nothing); err != nil {
		t.Fatal(err)
	}
	if b := branches(); b != "" {
		t.Fatalf("branches left: %s", b)
	}

	moved := f.task(t, "moved")
	commit := sh(t, moved.Path, "commit-tree", moved.Base+"^{tree}", "-p", moved.Base, "-m", "work")
	sh(t, moved.Path, "update-ref", moved.Ref(), commit, moved.Base)
	wantCode(t, gitx.DiscardInterrupted(ctx, moved), gitx.CodeOwnershipAmbiguous, "")
	if got := sh(t, f.src, "rev-parse", moved.Ref()); got != commit {
		t.Fatalf("a moved branch was touched: %s", got)
	}
}
