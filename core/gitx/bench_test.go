package gitx_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"reasonixctl/core/gitx"
)

// runTask is the task-equivalent sequence: open and check the source, resolve the author,
// create the worktree, let a "worker" edit, review, then commit the reviewed tree.
func runTask(t testing.TB, f fixture, id string) {
	src, err := gitx.OpenSource(ctx, f.src, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if err := src.CheckClean(ctx); err != nil {
		t.Fatal(err)
	}
	who, err := gitx.ResolveAuthor(ctx, src.Root)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := gitx.CreateWorktree(ctx, src, f.state, id)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(wt.Path, "a.txt"), "edited by "+id+"\n", 0o644)
	write(t, filepath.Join(wt.Path, "new", id+".txt"), id, 0o644)
	os.Remove(filepath.Join(wt.Path, "gone.txt"))
	r, err := gitx.BuildReview(ctx, wt)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gitx.Commit(ctx, gitx.CommitRequest{Worktree: wt, Tree: r.Tree, Files: r.Paths(),
		Message: id + ": edit", Author: who}); err != nil {
		t.Fatal(err)
	}
}

const execBudget = 15

func TestGitExecsPerTask(t *testing.T) {
	f := newFixture(t)
	before := gitx.Execs()
	runTask(t, f, "count")
	n := gitx.Execs() - before
	t.Logf("git execs per task (open, clean check, author, worktree, review, commit): %d", n)
	if n > execBudget {
		t.Fatalf("a task took %d git execs, budget %d", n, execBudget)
	}
}

func BenchmarkTask(b *testing.B) {
	f := newFixture(b)
	before := gitx.Execs()
	i := 0
	for b.Loop() {
		runTask(b, f, fmt.Sprintf("bench-%d", i))
		i++
	}
	b.ReportMetric(float64(gitx.Execs()-before)/float64(i), "git-execs/task")
}
