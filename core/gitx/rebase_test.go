package gitx_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"reasonixctl/core/gitx"
)

// rebase plans and applies in one go, as the engine does with its record between the two.
func rebase(ctx context.Context, wt gitx.Worktree, reviewTree, onto string) (gitx.RebaseResult, error) {
	plan, err := gitx.PlanRebase(ctx, wt, reviewTree, onto)
	if err != nil {
		return gitx.RebaseResult{}, err
	}
	return gitx.ApplyRebase(ctx, wt, reviewTree, plan)
}

// rebaseRepo is a checkout whose config defines a filter and a merge driver that would leave a
// file behind if git ran them, and a task worktree on it.
func rebaseRepo(t *testing.T) (src, ran string, wt gitx.Worktree) {
	t.Helper()
	t.Setenv("GIT_AUTHOR_NAME", "Task Author")
	t.Setenv("GIT_AUTHOR_EMAIL", "author@example.com")
	root := t.TempDir()
	src, ran = filepath.Join(root, "src"), filepath.Join(root, "ran")
	sh(t, root, "init", "-q", "-b", "main", src)
	write(t, filepath.Join(src, "a.txt"), "one\ntwo\nthree\n", 0o644)
	write(t, filepath.Join(src, "b.txt"), "bee\n", 0o644)
	sh(t, src, "add", "-A")
	sh(t, src, "commit", "-q", "-m", "base")
	for _, kv := range [][2]string{{"filter.evil.clean", "touch " + ran + "; cat"}, {"filter.evil.smudge", "touch " + ran + "; cat"},
		{"merge.evil.driver", "touch " + ran + "; false"}} {
		sh(t, src, "config", kv[0], kv[1])
	}
	s, err := gitx.OpenSource(ctx, src, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if wt, err = gitx.CreateWorktree(ctx, s, filepath.Join(root, "state"), "rb"); err != nil {
		t.Fatal(err)
	}
	return src, ran, wt
}

// A reviewed change that conflicts with a commit made since on the source branch is merged onto
// it: the worktree's files get the merge with conflict markers, the branch and the index move to
// the new base, and the review on the new base holds only the task's change. No filter or merge
// driver the worker's attributes name runs, and the checkout is not written.
func TestRebaseWritesConflictMarkersAndMovesTheBase(t *testing.T) {
	src, ran, wt := rebaseRepo(t)
	write(t, filepath.Join(wt.Path, "a.txt"), "one\nTWO\nthree\n", 0o644)
	write(t, filepath.Join(wt.Path, ".gitattributes"), "* filter=evil merge=evil\n", 0o644)
	rev, err := gitx.BuildReview(ctx, wt)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(src, "a.txt"), "one\nzwei\nthree\n", 0o644)
	write(t, filepath.Join(src, "c.txt"), "sea\n", 0o644)
	sh(t, src, "add", "-A")
	sh(t, src, "commit", "-q", "-m", "conflicting")
	head := sh(t, src, "rev-parse", "HEAD")
	status := sh(t, src, "status", "--porcelain")

	res, err := rebase(ctx, wt, rev.Tree, head)
	if err != nil {
		t.Fatal(err)
	}
	if res.From != wt.Base || res.Onto != head || !slices.Equal(res.Conflicts, []string{"a.txt"}) {
		t.Fatalf("rebase: %+v", res)
	}
	a, _ := os.ReadFile(filepath.Join(wt.Path, "a.txt"))
	for _, want := range []string{"<<<<<<< ", "zwei\n", "=======\n", "TWO\n", ">>>>>>> "} {
		if !strings.Contains(string(a), want) {
			t.Fatalf("a.txt lacks %q:\n%s", want, a)
		}
	}
	if !gitx.HasConflictMarkers(a) || gitx.HasConflictMarkers([]byte("a\n=======\nb\n")) {
		t.Fatal("HasConflictMarkers")
	}
	if c, _ := os.ReadFile(filepath.Join(wt.Path, "c.txt")); string(c) != "sea\n" {
		t.Fatalf("c.txt of the new base: %q", c)
	}
	if _, err := os.Stat(ran); !os.IsNotExist(err) {
		t.Fatal("a filter or merge driver ran")
	}
	if sh(t, src, "rev-parse", "HEAD") != head || sh(t, src, "status", "--porcelain") != status {
		t.Fatal("the rebase changed the checkout")
	}
	moved := wt
	moved.Base = head
	if err := gitx.CheckHead(ctx, moved); err != nil {
		t.Fatalf("the worktree is not on the new base: %v", err)
	}
	after, err := gitx.BuildReview(ctx, moved)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(after.Paths(), []string{".gitattributes", "a.txt"}) {
		t.Fatalf("the review on the new base changes %v", after.Paths())
	}
	// The old base is gone from the worktree's point of view.
	if err := gitx.CheckHead(ctx, wt); err == nil {
		t.Fatal("the worktree still passes for the old base")
	}
}

// A worktree whose files no longer hold the reviewed tree is refused before anything moves.
func TestRebaseRefusesAWorktreeChangedSinceTheReview(t *testing.T) {
	src, _, wt := rebaseRepo(t)
	write(t, filepath.Join(wt.Path, "a.txt"), "one\nTWO\nthree\n", 0o644)
	rev, err := gitx.BuildReview(ctx, wt)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(src, "a.txt"), "one\nzwei\nthree\n", 0o644)
	sh(t, src, "commit", "-q", "-am", "conflicting")
	head := sh(t, src, "rev-parse", "HEAD")
	write(t, filepath.Join(wt.Path, "a.txt"), "one\nTWO, later\nthree\n", 0o644)

	_, err = rebase(ctx, wt, rev.Tree, head)
	wantCode(t, err, gitx.CodeOwnershipAmbiguous, gitx.ReasonTreeMoved)
	if b, _ := os.ReadFile(filepath.Join(wt.Path, "a.txt")); string(b) != "one\nTWO, later\nthree\n" {
		t.Fatalf("a.txt was overwritten: %q", b)
	}
	if err := gitx.CheckHead(ctx, wt); err != nil {
		t.Fatalf("the branch moved: %v", err)
	}
	// A commit that does not descend from the base is refused too.
	other := sh(t, src, "commit-tree", sh(t, src, "rev-parse", "HEAD^{tree}"), "-m", "unrelated")
	_, err = rebase(ctx, wt, rev.Tree, other)
	wantCode(t, err, gitx.CodeInvalidRequest, gitx.ReasonBadRef)
}

// The two halves of a rebase with a crash between them: FinishRebase says the branch has not
// moved before ApplyRebase, and after it that the branch moved (writing the index again, which
// a crash may have cut short); a branch moved anywhere else is head_moved.
func TestFinishRebaseTellsWhereTheBranchIs(t *testing.T) {
	src, _, wt := rebaseRepo(t)
	write(t, filepath.Join(wt.Path, "a.txt"), "one\nTWO\nthree\n", 0o644)
	rev, err := gitx.BuildReview(ctx, wt)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(src, "c.txt"), "sea\n", 0o644)
	sh(t, src, "add", "-A")
	sh(t, src, "commit", "-q", "-m", "more")
	head := sh(t, src, "rev-parse", "HEAD")
	plan, err := gitx.PlanRebase(ctx, wt, rev.Tree, head)
	if err != nil || plan.From != wt.Base || plan.Onto != head || len(plan.Conflicts) != 0 {
		t.Fatalf("plan: %+v %v", plan, err)
	}
	if moved, err := gitx.FinishRebase(ctx, wt, plan); err != nil || moved {
		t.Fatalf("before the apply: moved %v, %v", moved, err)
	}
	if _, err := gitx.ApplyRebase(ctx, wt, rev.Tree, plan); err != nil {
		t.Fatal(err)
	}
	// The index as a crash before its last step would have left it.
	sh(t, wt.Path, "read-tree", plan.From)
	if moved, err := gitx.FinishRebase(ctx, wt, plan); err != nil || !moved {
		t.Fatalf("after the apply: moved %v, %v", moved, err)
	}
	if st := sh(t, wt.Path, "status", "--porcelain"); st != "M a.txt" {
		t.Fatalf("status after FinishRebase: %q", st)
	}
	moved := wt
	moved.Base = head
	sh(t, wt.Path, "commit", "-q", "-am", "the worker's own commit")
	if _, err := gitx.FinishRebase(ctx, moved, plan); !strings.Contains(errString(err), gitx.ReasonHeadMoved) {
		t.Fatalf("a branch moved elsewhere: %v", err)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
