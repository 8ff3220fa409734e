package engine

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"reasonixctl/core"
	"reasonixctl/core/gitx"
)

// largeRepo is the checkout .ci/bench-large-repo.sh generates (100,000 files); the large
// repository benchmarks run only when REASONIXCTL_LARGE_REPO names one.
func largeRepo(b *testing.B) string {
	repo := os.Getenv("REASONIXCTL_LARGE_REPO")
	if repo == "" {
		b.Skip("set REASONIXCTL_LARGE_REPO to a generated repository (.ci/bench-large-repo.sh)")
	}
	b.Setenv("GIT_AUTHOR_NAME", "Bench")
	b.Setenv("GIT_AUTHOR_EMAIL", "bench@example.com")
	return repo
}

// bareWorktreeAdd times the yardstick: a bare `git worktree add -b` of the repository at HEAD,
// as delegate runs it; the worktree and branch are removed again (untimed).
func bareWorktreeAdd(b *testing.B, repo, dir string, i int) time.Duration {
	path := filepath.Join(dir, "bare-"+strconv.Itoa(i))
	branch := "bench-bare-" + strconv.Itoa(i) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	cmd := exec.Command("git", "-c", "core.hooksPath=/dev/null", "worktree", "add", "--quiet", "-b", branch, "--", path, "HEAD")
	cmd.Dir = repo
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("worktree add: %v %s", err, out)
	}
	took := time.Since(start)
	for _, args := range [][]string{{"worktree", "remove", "--force", path}, {"branch", "-D", branch}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %v %s", args, err, out)
		}
	}
	return took
}

// BenchmarkLargeRepoDelegate measures, on the large repository, a bare `git worktree add`
// (`ms-bare-worktree-add`) and, in the same iteration so that the disk's drift hits both
// alike, delegate until the worker's session has started (the task turns running:
// `ms-to-session`; `session/bare` is their ratio; `overhead/bare` compares what delegate does
// besides its own checkout with the bare checkout), then the worker's turn and the review snapshot (running to
// review_required: `ms-review`) and finalize (`ms-finalize`, the sandboxed verification
// included), and the git processes of the whole task. `ns/op` is the delegate call.
func BenchmarkLargeRepoDelegate(b *testing.B) {
	repo := largeRepo(b)
	e, err := Open(Config{StateDir: b.TempDir(), Mode: "bench", Worker: inProcessWorker(instantScenario())})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	var bare, toSession, checkout, review, finalize time.Duration
	var execs int64
	dir := b.TempDir()
	for i := range b.N {
		b.StopTimer()
		bare += bareWorktreeAdd(b, repo, dir, i)
		b.StartTimer()
		id := "large-" + strconv.Itoa(i) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
		ctx, cancel := context.WithCancel(context.Background())
		sub, err := e.Subscribe(ctx, core.SubscribeOptions{})
		if err != nil {
			b.Fatal(err)
		}
		// task_created is stored right before the checkout, starting_reasonix right after it.
		var created, checkedOut time.Time
		running := make(chan time.Time, 1)
		go func() {
			for ev := range sub.C {
				if ev.TaskID != id {
					continue
				}
				var d core.StateChangedData
				switch {
				case ev.Type == core.EventTaskCreated:
					created = time.Now()
				case ev.Type == core.EventStateChanged && json.Unmarshal(ev.Data, &d) == nil && d.Phase == "starting_reasonix":
					checkedOut = time.Now()
				case ev.Type == core.EventStateChanged && d.To == core.StateRunning:
					running <- time.Now()
					return
				}
			}
		}()
		before := gitx.Execs()
		start := time.Now()
		res, err := e.Delegate(context.Background(), core.DelegateRequest{TaskID: id, Contract: json.RawMessage(happyContract), Authority: core.Authority{Cwd: repo, Writable: true}})
		done := time.Now()
		cancel()
		if err != nil || res.State != core.StateReviewRequired {
			b.Fatalf("delegate: %v %+v", err, res.TaskView)
		}
		b.StopTimer()
		var at time.Time
		select {
		case at = <-running:
		case <-time.After(10 * time.Second):
			b.Fatal("no running event")
		}
		toSession += at.Sub(start)
		checkout += checkedOut.Sub(created)
		review += done.Sub(at)
		rev := res.ReviewRevision
		fstart := time.Now()
		v, err := e.Control(context.Background(), core.Finalize{TaskID: id, ReviewSummary: "ok",
			ApprovedReviewCriteria: []string{"looks-right"}, ExpectedReviewRevision: &rev, ExpectedReviewTreeHash: res.ReviewTreeHash})
		if err != nil || v.State != core.StateCompleted {
			b.Fatalf("finalize: %v %+v", err, v)
		}
		finalize += time.Since(fstart)
		execs += gitx.Execs() - before
		if _, err := e.Archive(context.Background(), id, true); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(bare.Milliseconds())/float64(b.N), "ms-bare-worktree-add")
	b.ReportMetric(float64(toSession.Milliseconds())/float64(b.N), "ms-to-session")
	b.ReportMetric(float64(toSession)/float64(bare), "session/bare")
	// What delegate adds to its own checkout (everything before and after it), against a bare
	// checkout: the disk's drift between two checkouts is larger than the difference.
	b.ReportMetric(float64(checkout.Milliseconds())/float64(b.N), "ms-checkout-in-delegate")
	b.ReportMetric(float64(toSession-checkout)/float64(bare), "overhead/bare")
	b.ReportMetric(float64(review.Milliseconds())/float64(b.N), "ms-review")
	b.ReportMetric(float64(finalize.Milliseconds())/float64(b.N), "ms-finalize")
	b.ReportMetric(float64(execs)/float64(b.N), "git-execs/task")
}

// BenchmarkLargeRepoScan compares one collision scan of the large repository over the whole
// checkout, limited to a one-file write scope, and the stamp that lets a checkpoint skip git.
func BenchmarkLargeRepoScan(b *testing.B) {
	repo := largeRepo(b)
	base := strings.TrimSpace(gitOut(b, repo, "rev-parse", "HEAD"))
	allowed := func(p string) bool { return p == "result.txt" }
	b.Run("whole", func(b *testing.B) {
		for b.Loop() {
			if c := gitx.ScanSource(context.Background(), repo, base, allowed); c.Collides() {
				b.Fatalf("%+v", c)
			}
		}
	})
	b.Run("scoped", func(b *testing.B) {
		for b.Loop() {
			if c := gitx.ScanSourceIn(context.Background(), repo, base, []string{"result.txt"}, allowed); c.Collides() {
				b.Fatalf("%+v", c)
			}
		}
	})
	b.Run("stamp", func(b *testing.B) {
		for b.Loop() {
			if _, ok := gitx.ReadStamp(repo, filepath.Join(repo, ".git"), []string{"result.txt"}); !ok {
				b.Fatal("no stamp")
			}
		}
	})
}

func gitOut(b *testing.B, dir string, args ...string) string {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		b.Fatal(err)
	}
	return string(out)
}
