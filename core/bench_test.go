package core

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"testing"

	"reasonixctl/acp/acptest"
	"reasonixctl/core/gitx"
)

// instantScenario is a worker that writes the file at once and asks for review.
func instantScenario() *acptest.Scenario {
	return writeTurn(acptest.Step{Write: &acptest.WriteFile{Path: "result.txt", Content: "ok\n"}, Permission: "ask"})
}

// BenchmarkTaskBridgeTime measures what the bridge itself costs per task with a worker that
// answers instantly: delegate to review, then finalize to a commit, including the sandboxed
// verification. It also reports the git processes the task needed.
func BenchmarkTaskBridgeTime(b *testing.B) {
	h := benchHarness(b)
	b.ResetTimer()
	var execs int64
	for i := range b.N {
		b.StopTimer()
		repo := newRepo(b)
		b.StartTimer()
		before := gitx.Execs()
		id := "bench-" + strconv.Itoa(i)
		res, err := h.e.Delegate(context.Background(), DelegateRequest{TaskID: id, Contract: json.RawMessage(happyContract), Authority: Authority{Cwd: repo, Writable: true}})
		if err != nil || res.State != StateReviewRequired {
			b.Fatalf("delegate: %v %+v", err, res.TaskView)
		}
		rev := res.ReviewRevision
		v, err := h.e.Control(context.Background(), ControlRequest{TaskID: id, Action: ActionFinalize, ReviewSummary: "ok",
			ApprovedReviewCriteria: []string{"looks-right"}, ExpectedReviewRevision: &rev, ExpectedReviewTreeHash: res.ReviewTreeHash})
		if err != nil || v.State != StateCompleted {
			b.Fatalf("finalize: %v %+v", err, v)
		}
		execs += gitx.Execs() - before
	}
	b.ReportMetric(float64(execs)/float64(b.N), "git-execs/task")
}

// BenchmarkParallelTasks32 runs 32 tasks on 32 repositories at once, each delegated and
// finalized; one iteration is the whole batch.
func BenchmarkParallelTasks32(b *testing.B) {
	h := benchHarness(b)
	for i := range b.N {
		b.StopTimer()
		repos := make([]string, 32)
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
				res, err := h.e.Delegate(context.Background(), DelegateRequest{TaskID: id, Contract: json.RawMessage(happyContract), Authority: Authority{Cwd: repo, Writable: true}})
				if err == nil {
					rev := res.ReviewRevision
					_, err = h.e.Control(context.Background(), ControlRequest{TaskID: id, Action: ActionFinalize, ReviewSummary: "ok",
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
			b.Fatalf("%d of 32 tasks failed: %v", len(failed), failed)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N)/32, "ms/task")
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
