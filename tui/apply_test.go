package tui

import (
	"context"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
)

// applyingService is the fake with an apply to the checkout that records its calls.
type applyingService struct {
	*fakeService
	mu    sync.Mutex
	calls []bool // the apply flag of each call
	err   error
}

var _ core.Service = (*applyingService)(nil)

func (s *applyingService) ApplyToCheckout(ctx context.Context, id string, apply bool) (core.ApplyResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, apply)
	if s.err != nil {
		return core.ApplyResult{}, s.err
	}
	r := core.ApplyResult{TaskID: id, Checkout: "/src/app", Branch: "main", Head: "1111111111111111111111111111111111111111",
		Commit: "abc123", Command: "git cherry-pick abc123", Applied: apply}
	if apply {
		r.NewHead = "2222222222222222222222222222222222222222"
	}
	return r, nil
}

func applyHarness(t *testing.T, svc *applyingService) *harness {
	clk := &clock{t: epoch}
	m := newModel(context.Background(), svc, Options{StateDir: "/state", WorkerVersion: "1.38.11", Now: clk.Now, Dir: "/src/app"})
	h := &harness{t: t, m: m, svc: svc.fakeService, clk: clk}
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	h.run(m.Init())
	return h
}

// L on a completed task runs a dry run, asks, and applies only on y; a refusal is shown with
// its reason; L on a task that is not completed calls nothing.
func TestApplyKeyAsksThenApplies(t *testing.T) {
	svc := &applyingService{fakeService: scenario()}
	h := applyHarness(t, svc)
	h.press("L") // the selected task is in review
	h.requireView("only a completed task's commit can be applied")
	if len(svc.calls) != 0 {
		t.Fatalf("L on a task in review called apply: %v", svc.calls)
	}
	h.press("A", "j", "j") // all tasks; the completed one
	h.clk.advance(10 * time.Second)
	h.press("L")
	h.requireView("Apply old-task to its checkout?", "onto branch main of /src/app", "git cherry-pick abc123")
	if len(svc.calls) != 1 || svc.calls[0] {
		t.Fatalf("calls after L: %v (want one dry run)", svc.calls)
	}
	h.press("n")
	if len(svc.calls) != 1 {
		t.Fatalf("n applied: %v", svc.calls)
	}
	h.press("L", "y")
	if len(svc.calls) != 3 || !svc.calls[2] {
		t.Fatalf("calls after L y: %v", svc.calls)
	}
	h.requireView("applied old-task: main is now at 222222222222")

	svc.err = core.Errorf(core.CodeDirtyRepository, nil, "/src/app has uncommitted changes (wip.txt): commit or stash them and apply again")
	h.press("L")
	h.requireView("Cannot apply old-task to its checkout", "uncommitted changes (wip.txt)")
}

// The header names a background owner the way it was started.
func TestOwnerDescribesServe(t *testing.T) {
	if got := (Owner{PID: 4242, Mode: "serve"}).Describe(); got != "reasonixctl serve (pid 4242)" {
		t.Fatalf("Describe: %q", got)
	}
}
