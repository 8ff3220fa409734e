package engine

import (
	"context"
	"encoding/json"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
	"reasonixctl/core/gitx"
)

// instantScenario is a worker that writes the file at once and asks for review.
func instantScenario() *acptest.Scenario {
	return writeTurn(acptest.Step{Write: &acptest.WriteFile{Path: "result.txt", Content: "ok\n"}, Permission: "ask"})
}

// BenchmarkTaskBridgeTime measures what the bridge itself costs per task with a worker that
// answers instantly: delegate to review, then finalize to a commit, including the sandboxed
// verification. It also reports the median task (`ms-median`) and the git processes a task
// needed.
func BenchmarkTaskBridgeTime(b *testing.B) {
	h := benchHarness(b)
	// The repositories are made before the clock starts, as a person's checkout exists before
	// they delegate: a checkout written within the last 100 ms is scanned with git at every
	// checkpoint, because its files' timestamps cannot yet tell a later change apart.
	repos := make([]string, b.N)
	for i := range repos {
		repos[i] = newRepo(b)
	}
	b.ResetTimer()
	var execs int64
	syncs := h.e.store.Syncs()
	took := make([]time.Duration, 0, b.N)
	for i := range b.N {
		repo := repos[i]
		before := gitx.Execs()
		start := time.Now()
		id := "bench-" + strconv.Itoa(i)
		res, err := h.e.Delegate(context.Background(), core.DelegateRequest{TaskID: id, Contract: json.RawMessage(happyContract), Authority: core.Authority{Cwd: repo, Writable: true}})
		if err != nil || res.State != core.StateReviewRequired {
			b.Fatalf("delegate: %v %+v", err, res.TaskView)
		}
		rev := res.ReviewRevision
		v, err := h.e.Control(context.Background(), core.Finalize{TaskID: id, ReviewSummary: "ok",
			ApprovedReviewCriteria: []string{"looks-right"}, ExpectedReviewRevision: &rev, ExpectedReviewTreeHash: res.ReviewTreeHash})
		if err != nil || v.State != core.StateCompleted {
			b.Fatalf("finalize: %v %+v", err, v)
		}
		took = append(took, time.Since(start))
		execs += gitx.Execs() - before
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "ms-median")
	b.ReportMetric(float64(execs)/float64(b.N), "git-execs/task")
	b.ReportMetric(float64(h.e.store.Syncs()-syncs)/float64(b.N), "store-flushes/task")
}

// BenchmarkParallelTasks32 runs 32 tasks on 32 repositories at once, each delegated and
// finalized; one iteration is the whole batch.
func BenchmarkParallelTasks32(b *testing.B) { benchParallel(b, 32, benchHarness(b).e) }

// BenchmarkParallelTasks100 is the same with 100 tasks through the engine API, and checks that
// an engine opened, used for a batch and closed leaves no file descriptor and no goroutine
// behind: both are counted before Open and after Close, and reported.
func BenchmarkParallelTasks100(b *testing.B) {
	b.Setenv("GIT_AUTHOR_NAME", "Bench")
	b.Setenv("GIT_AUTHOR_EMAIL", "bench@example.com")
	state := b.TempDir()
	fdsBefore, grBefore := openFDs(b), runtime.NumGoroutine()
	e, err := Open(Config{StateDir: state, Mode: "bench", Worker: inProcessWorker(instantScenario())})
	if err != nil {
		b.Fatal(err)
	}
	benchParallel(b, 100, e)
	b.StopTimer()
	fdsDuring, grDuring := openFDs(b), runtime.NumGoroutine()
	if err := e.Close(); err != nil {
		b.Fatal(err)
	}
	// Goroutines that finish after Close returns (an exec.Cmd's copier, a timer) get until a
	// deadline to go; anything still there then was left behind.
	fdsAfter, grAfter := settle(b, fdsBefore, grBefore)
	b.ReportMetric(float64(fdsBefore), "fds-before")
	b.ReportMetric(float64(fdsDuring), "fds-open")
	b.ReportMetric(float64(fdsAfter), "fds-after-close")
	b.ReportMetric(float64(grBefore), "goroutines-before")
	b.ReportMetric(float64(grDuring), "goroutines-open")
	b.ReportMetric(float64(grAfter), "goroutines-after-close")
	if fdsAfter > fdsBefore || grAfter > grBefore {
		b.Fatalf("left behind after Close: %d file descriptors (%d before), %d goroutines (%d before)\n%s",
			fdsAfter, fdsBefore, grAfter, grBefore, goroutineDump())
	}
}

func benchParallel(b *testing.B, n int, e *Engine) {
	for i := range b.N {
		b.StopTimer()
		repos := make([]string, n)
		for j := range repos {
			repos[j] = newRepo(b)
		}
		b.StartTimer()
		var wg sync.WaitGroup
		var mu sync.Mutex
		var failed []string
		for j, repo := range repos {
			wg.Add(1)
			go func() {
				defer wg.Done()
				id := "p" + strconv.Itoa(i) + "-" + strconv.Itoa(j)
				res, err := e.Delegate(context.Background(), core.DelegateRequest{TaskID: id, Contract: json.RawMessage(happyContract), Authority: core.Authority{Cwd: repo, Writable: true}})
				if err == nil {
					rev := res.ReviewRevision
					_, err = e.Control(context.Background(), core.Finalize{TaskID: id, ReviewSummary: "ok",
						ApprovedReviewCriteria: []string{"looks-right"}, ExpectedReviewRevision: &rev, ExpectedReviewTreeHash: res.ReviewTreeHash})
				}
				if err != nil {
					mu.Lock()
					failed = append(failed, id+": "+err.Error())
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if len(failed) > 0 {
			b.Fatalf("%d of %d tasks failed: %v", len(failed), n, failed)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N)/float64(n), "ms/task")
}

func openFDs(b *testing.B) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		b.Skip("no /proc/self/fd: ", err)
	}
	return len(ents) - 1 // the directory being read
}

// settle waits up to five seconds for the counts to come back to the given ones and returns
// what it last saw.
func settle(b *testing.B, fds, goroutines int) (int, int) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		f, g := openFDs(b), runtime.NumGoroutine()
		if (f <= fds && g <= goroutines) || time.Now().After(deadline) {
			return f, g
		}
		runtime.Gosched()
		time.Sleep(10 * time.Millisecond)
	}
}

func goroutineDump() string {
	buf := make([]byte, 1<<20)
	return string(buf[:runtime.Stack(buf, true)])
}

type benchH struct{ e *Engine }

func benchHarness(b *testing.B) *benchH {
	b.Setenv("GIT_AUTHOR_NAME", "Bench")
	b.Setenv("GIT_AUTHOR_EMAIL", "bench@example.com")
	e, err := Open(Config{StateDir: b.TempDir(), Mode: "bench", Worker: inProcessWorker(instantScenario())})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	return &benchH{e: e}
}
