package tui

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"

	"reasonixctl/core"
)

// attentionScenario has a task in each group, listed newest first as the service lists them:
// the order the dashboard must not keep.
func attentionScenario() *fakeService {
	f := scenario() // docs-typo running, login-fix in review, old-task done
	at := func(d time.Duration) string { return epoch.Add(-d).Format(time.RFC3339Nano) }
	more := []core.TaskView{
		{TaskID: "lint-ci", State: core.StateWaitingPermission, Phase: core.PhaseInteractionWaiting, WorkerLane: core.LaneFast, RepositoryID: "3ce0f10f", UpdatedAt: at(2 * time.Minute)},
		{TaskID: "cache-ttl", State: core.StatePaused, Phase: core.PhaseWorkerCrashed, WorkerLane: core.LaneDeep, RepositoryID: "3ce0f10f",
			Reason: "the worker exited", UpdatedAt: at(20 * time.Minute)},
		{TaskID: "api-retry", State: core.StateReviewRequired, Phase: core.PhaseRepairRequired, WorkerLane: core.LaneFast, RepositoryID: "3ce0f10f",
			ReviewRevision: 1, Reason: "verification_failed: verification unit failed", UpdatedAt: at(30 * time.Minute)},
		{TaskID: "db-index", State: core.StateVerifying, WorkerLane: core.LaneFast, RepositoryID: "9ab01c2d", UpdatedAt: at(40 * time.Minute)},
		{TaskID: "readme", State: core.StateCommitFailed, WorkerLane: core.LaneFast, RepositoryID: "9ab01c2d",
			Reason: "commit_failed: the checkout moved", UpdatedAt: at(50 * time.Hour)},
	}
	// The service's order: docs-typo, old-task, login-fix, lint-ci, cache-ttl, api-retry, db-index, readme.
	f.tasks = []core.TaskView{f.tasks[1], f.tasks[2], f.tasks[0], more[0], more[1], more[2], more[3], more[4]}
	repos := map[string]string{"lint-ci": "/src/app", "cache-ttl": "/src/app", "api-retry": "/src/app", "db-index": "/src/docs", "readme": "/src/docs"}
	for i, tv := range more {
		d := core.TaskDetail{View: tv, Repository: repos[tv.TaskID], Objective: "Work on " + tv.TaskID + ".", CreatedAt: epoch.Add(-time.Duration(i+2) * 7 * time.Minute)}
		if tv.TaskID == "lint-ci" {
			d.Interactions = []core.Interaction{permissionIA("ia-lint")}
		}
		f.details[tv.TaskID] = d
	}
	return f
}

// order is the task ids as the list shows them.
func (h *harness) order() string {
	var ids []string
	for _, tv := range h.list().tasks {
		ids = append(ids, tv.TaskID)
	}
	return strings.Join(ids, " ")
}

// setState moves a task in the fake service and tells the dashboard, as the engine does.
func (h *harness) setState(id string, seq uint64, to core.State, phase string) {
	h.t.Helper()
	var from core.State
	h.svc.mu.Lock()
	for i := range h.svc.tasks {
		if h.svc.tasks[i].TaskID == id {
			from = h.svc.tasks[i].State
			h.svc.tasks[i].State, h.svc.tasks[i].Phase = to, phase
		}
	}
	h.svc.mu.Unlock()
	h.send(ev(id, seq, core.EventStateChanged, core.StateChangedData{From: from, To: to, Phase: phase}))
}

// deferPrompt puts aside the request that opened by itself, once its key grace is over.
func (h *harness) deferPrompt() {
	h.t.Helper()
	h.clk.advance(time.Second)
	h.press("esc")
	if !h.stack().empty() {
		h.t.Fatalf("the prompt stayed open:\n%s", h.view())
	}
}

func TestListInAttentionOrder(t *testing.T) {
	h := newHarness(t, attentionScenario(), 120, 40)
	// The selection starts on the most urgent task; its request opens by itself.
	if h.selected() != "lint-ci" {
		t.Fatalf("selected %q, want lint-ci", h.selected())
	}
	h.deferPrompt()
	if got, want := h.order(), "lint-ci cache-ttl api-retry login-fix docs-typo db-index"; got != want {
		t.Fatalf("active tasks in the order\n %s\nwant\n %s", got, want)
	}
	h.press("A")
	// Within a group the service's order stays: commit_failed is stuck, after the others.
	if got, want := h.order(), "lint-ci cache-ttl api-retry readme login-fix docs-typo db-index old-task"; got != want {
		t.Fatalf("all tasks in the order\n %s\nwant\n %s", got, want)
	}
	h.requireView("api-retry    REPAIR", "readme       CFAIL", "lint-ci      PERM")

	// A running task with a request waiting comes first, whatever its state says.
	h.send(ev("db-index", 5, core.EventInteractionWaiting, questionIA("q-db")))
	if got := strings.Fields(h.order())[:2]; got[0] != "lint-ci" || got[1] != "db-index" {
		t.Fatalf("a task with a request is not among the waiting: %s", h.order())
	}
	// Answered: back with the working tasks.
	h.send(ev("db-index", 6, core.EventInteractionResolved, core.Interaction{ID: "q-db", Status: core.InteractionResolved}))
	if got, want := h.order(), "lint-ci cache-ttl api-retry readme login-fix docs-typo db-index old-task"; got != want {
		t.Fatalf("after the answer\n %s\nwant\n %s", got, want)
	}
}

func TestAttentionOf(t *testing.T) {
	var r requests
	r.add("asked", permissionIA("ia-1"))
	cases := []struct {
		tv   core.TaskView
		want attention
	}{
		{core.TaskView{TaskID: "p", State: core.StateWaitingPermission}, attnWaiting},
		{core.TaskView{TaskID: "i", State: core.StateWaitingInput}, attnWaiting},
		{core.TaskView{TaskID: "asked", State: core.StateRunning}, attnWaiting},
		{core.TaskView{TaskID: "asked", State: core.StateCancelled}, attnDone}, // a stale request of an ended task
		{core.TaskView{TaskID: "r", State: core.StateReviewRequired, Phase: core.PhaseRepairRequired}, attnStuck},
		{core.TaskView{TaskID: "c", State: core.StateCommitFailed}, attnStuck},
		{core.TaskView{TaskID: "z", State: core.StatePaused}, attnStuck},
		{core.TaskView{TaskID: "v", State: core.StateReviewRequired, Phase: core.PhaseReview}, attnReady},
		{core.TaskView{TaskID: "a", State: core.StateProvisioning}, attnWorking},
		{core.TaskView{TaskID: "b", State: core.StateRunning}, attnWorking},
		{core.TaskView{TaskID: "d", State: core.StateVerifying}, attnWorking},
		{core.TaskView{TaskID: "e", State: core.StateCompleted}, attnDone},
		{core.TaskView{TaskID: "f", State: core.StateFailed}, attnDone},
		{core.TaskView{TaskID: "g", State: core.StateClosed}, attnDone},
	}
	for _, c := range cases {
		if got := attentionOf(c.tv, &r); got != c.want {
			t.Errorf("%s %s (%s): %s, want %s", c.tv.TaskID, c.tv.State, c.tv.Phase, attentionLabel[got], attentionLabel[c.want])
		}
	}
}

// The selection is a task: it stays on it when the task, or others, change places.
func TestSelectionFollowsItsTaskAcrossAReorder(t *testing.T) {
	h := newHarness(t, attentionScenario(), 80, 24)
	h.deferPrompt()
	h.press("j", "j", "j", "j") // lint-ci cache-ttl api-retry login-fix docs-typo
	if h.selected() != "docs-typo" {
		t.Fatalf("selected %q, want docs-typo", h.selected())
	}
	// Another task starts waiting and moves up: the selection stays on docs-typo.
	h.send(ev("db-index", 5, core.EventInteractionWaiting, questionIA("q-db")))
	if h.selected() != "docs-typo" || h.order() != "lint-ci db-index cache-ttl api-retry login-fix docs-typo" {
		t.Fatalf("selected %q in %s", h.selected(), h.order())
	}
	h.requireView("› docs-typo")
	// The selected task itself moves: to the review group, and the selection with it.
	h.setState("docs-typo", 20, core.StateReviewRequired, core.PhaseReview)
	if h.selected() != "docs-typo" || h.order() != "lint-ci db-index cache-ttl api-retry docs-typo login-fix" {
		t.Fatalf("selected %q in %s", h.selected(), h.order())
	}
	h.requireView("› docs-typo")
	// Keys move from where the task now is.
	h.press("j")
	if h.selected() != "login-fix" {
		t.Fatalf("j from docs-typo selected %q", h.selected())
	}
}

func TestHeaderCountsWhatNeedsThePersonFirst(t *testing.T) {
	h := newHarness(t, attentionScenario(), 80, 24)
	h.deferPrompt()
	h.press("A")
	line := strings.Split(h.view(), "\n")[1]
	if !strings.HasPrefix(line, " wait 1 · stuck 3 · review 1 · run 2 · done 1  │  today") {
		t.Fatalf("header %q", line)
	}
	if w := lipgloss.Width(line); w != 80 || !strings.HasSuffix(line, "all tasks ") {
		t.Fatalf("header is %d columns or lost its scope: %q", w, line)
	}
	if got := attentionCounts(nil, &requests{}); got != "no tasks" {
		t.Fatalf("empty list: %q", got)
	}
}

// notifyHarness is a dashboard that rings into out.
func notifyHarness(t *testing.T, f *fakeService, out *bytes.Buffer, focusMsgs ...tea.Msg) *harness {
	t.Helper()
	clk := &clock{t: epoch}
	m := newModel(t.Context(), f, Options{StateDir: "/state", Now: clk.Now, Dir: "/src/app", Notify: true, Output: out})
	h := &harness{t: t, m: m, svc: f, clk: clk}
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.send(focusMsgs...)
	h.run(m.Init())
	return h
}

const (
	ringWaiting = "\a\x1b]9;reasonixctl: docs-typo waits for you: make lint\x07"
	ringReady   = "\a\x1b]9;reasonixctl: docs-typo is ready to finalize\x07"
)

// A task that starts waiting or becomes ready rings, once per change, while the terminal is not
// focused; other changes do not ring.
func TestNotifyOnWaitingAndReady(t *testing.T) {
	for _, c := range []struct {
		name  string
		focus []tea.Msg
		rings bool
	}{
		{"focus never reported", nil, true},
		{"blurred", []tea.Msg{tea.BlurMsg{}}, true},
		{"focused", []tea.Msg{tea.FocusMsg{}}, false},
		{"focused again", []tea.Msg{tea.BlurMsg{}, tea.FocusMsg{}}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			h := notifyHarness(t, scenario(), &out, c.focus...)
			if out.Len() != 0 {
				t.Fatalf("rang at start for tasks already there: %q", out.String())
			}
			// running → waiting: a request arrives, then the state follows.
			h.send(ev("docs-typo", 7, core.EventInteractionWaiting, permissionIA("ia-1")))
			h.setState("docs-typo", 8, core.StateWaitingPermission, core.PhaseInteractionWaiting)
			h.send(ev("docs-typo", 7, core.EventInteractionWaiting, permissionIA("ia-1")))
			// waiting → running → review: ready.
			h.send(ev("docs-typo", 9, core.EventInteractionResolved, core.Interaction{ID: "ia-1", Status: core.InteractionResolved}))
			h.setState("docs-typo", 10, core.StateRunning, "")
			h.setState("docs-typo", 11, core.StateReviewRequired, core.PhaseReview)
			want := ""
			if c.rings {
				want = ringWaiting + ringReady
			}
			if got := out.String(); got != want {
				t.Fatalf("rang %q, want %q", got, want)
			}
		})
	}
}

func TestNoNotifyOnOtherChanges(t *testing.T) {
	var out bytes.Buffer
	h := notifyHarness(t, scenario(), &out, tea.BlurMsg{})
	h.press("A")
	h.setState("docs-typo", 7, core.StatePaused, core.PhaseWorkerCrashed) // running → paused
	h.setState("docs-typo", 8, core.StateRunning, "")                     // paused → running
	h.setState("login-fix", 11, core.StateVerifying, "")                  // finalize: review → verifying
	h.setState("login-fix", 12, core.StateReviewRequired, core.PhaseRepairRequired)
	h.setState("login-fix", 13, core.StateVerifying, "")
	h.setState("login-fix", 14, core.StateCompleted, "")
	h.setState("docs-typo", 9, core.StateCancelled, "")
	if out.Len() != 0 {
		t.Fatalf("rang %q", out.String())
	}
	// A ready task that stays ready (a repair's new revision) does not ring again.
	h.setState("old-task", 1, core.StateReviewRequired, core.PhaseReview)
	h.setState("old-task", 2, core.StateReviewRequired, core.PhaseReview)
	if got := out.String(); got != "\a\x1b]9;reasonixctl: old-task is ready to finalize\x07" {
		t.Fatalf("rang %q", got)
	}
}

// REASONIXCTL_NOTIFY=off is Options.Notify false: nothing rings, focused or not.
func TestNotifyOff(t *testing.T) {
	var out bytes.Buffer
	clk := &clock{t: epoch}
	m := newModel(context.Background(), scenario(), Options{StateDir: "/state", Now: clk.Now, Dir: "/src/app", Output: &out})
	h := &harness{t: t, m: m, svc: m.cmds.svc.(*fakeService), clk: clk}
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24}, tea.BlurMsg{})
	h.run(m.Init())
	h.send(ev("docs-typo", 7, core.EventInteractionWaiting, permissionIA("ia-1")))
	h.setState("docs-typo", 8, core.StateReviewRequired, core.PhaseReview)
	if out.Len() != 0 {
		t.Fatalf("rang %q", out.String())
	}
}

// TestGoldenAttention pins the list in attention order, a task in each group, at the two
// reference sizes. Regenerate with `go test ./tui -run TestGoldenAttention -update`.
func TestGoldenAttention(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		for _, sc := range []struct {
			name  string
			setup func(h *harness)
		}{
			{"active", func(h *harness) { h.deferPrompt() }},
			{"all", func(h *harness) { h.deferPrompt(); h.press("A", "j") }},
		} {
			t.Run(fmt.Sprintf("%s_%dx%d", sc.name, size[0], size[1]), func(t *testing.T) {
				h := newHarness(t, attentionScenario(), size[0], size[1])
				sc.setup(h)
				golden.RequireEqual(t, []byte(h.view()))
			})
		}
	}
}
