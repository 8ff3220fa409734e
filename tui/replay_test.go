package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"reasonixctl/core"
)

// replayScenario gives the finished old-task a journal: asked, answered, reviewed twice,
// committed.
func replayScenario() *fakeService {
	f := scenario()
	at := func(seq int, typ string, data any) core.Event {
		return core.Event{TaskID: "old-task", Seq: uint64(seq), Time: epoch.Add(time.Duration(seq) * 7 * time.Second), Type: typ, Data: mustJSON(data)}
	}
	ia := permissionIA("ia-7")
	answered := ia
	answered.Status, answered.Response = core.InteractionResolved, &core.InteractionResponse{Decision: core.DecisionAllow}
	f.journals["old-task"] = []core.Event{
		at(1, core.EventTaskCreated, core.TaskCreatedData{State: core.StateProvisioning, Repository: "/src/app", Objective: "Old."}),
		at(2, core.EventStateChanged, core.StateChangedData{From: core.StateProvisioning, To: core.StateRunning, Phase: "goal_running"}),
		at(3, core.EventAgentMessage, core.TextData{Text: "Linting first."}),
		at(4, core.EventInteractionWaiting, ia),
		at(5, core.EventStateChanged, core.StateChangedData{From: core.StateRunning, To: core.StateWaitingPermission, Phase: "permission"}),
		at(6, core.EventInteractionResolved, answered),
		at(7, core.EventStateChanged, core.StateChangedData{From: core.StateWaitingPermission, To: core.StateRunning, Phase: "goal_running"}),
		at(8, core.EventReviewReady, core.ReviewReadyData{ReviewRevision: 1, ReviewTreeHash: "1111111111111111", ChangedFiles: []string{"lint.go"},
			DiffStat: " lint.go | +3 -1\n 1 file changed, 3 insertions(+), 1 deletion(-)\n"}),
		at(9, core.EventStateChanged, core.StateChangedData{From: core.StateRunning, To: core.StateReviewRequired, Phase: "review"}),
		at(10, core.EventStateChanged, core.StateChangedData{From: core.StateReviewRequired, To: core.StateRunning, Phase: "repair_1"}),
		at(11, core.EventSteered, core.TextData{Text: "also fix the comment"}),
		at(12, core.EventReviewReady, core.ReviewReadyData{ReviewRevision: 2, ReviewTreeHash: "2222222222222222", ChangedFiles: []string{"lint.go", "lint_test.go"},
			DiffStat: " lint.go      | +4 -1\n lint_test.go | +12 -0\n 2 files changed, 16 insertions(+), 1 deletion(-)\n"}),
		at(13, core.EventStateChanged, core.StateChangedData{From: core.StateRunning, To: core.StateReviewRequired, Phase: "review"}),
		at(14, core.EventStateChanged, core.StateChangedData{From: core.StateReviewRequired, To: core.StateVerifying, Phase: "preflight"}),
		at(15, core.EventStateChanged, core.StateChangedData{From: core.StateVerifying, To: core.StateCompleted, Phase: "completed"}),
		at(16, core.EventCommitted, core.CommittedData{CommitHash: "abc123", Branch: "reasonix/old-task", IntegrationCommand: "git cherry-pick abc123"}),
	}
	return f
}

// Replay steps through a finished task's journal and shows it as it was at each point.
func TestReplayShowsTheTaskAsItWasAtEachEvent(t *testing.T) {
	h := newHarness(t, replayScenario(), 120, 40)
	h.press("A", "j", "j") // all tasks: the finished one
	if h.selected() != "old-task" {
		t.Fatalf("selected %q", h.selected())
	}
	h.press("p")
	h.requireView("Replay old-task · event 1 of 16 · seq 1 · 2026-11-30 09:00:07 · +0:00", "state provisioning", "waiting nothing",
		"diff no review yet", "task created in /src/app: Old.")
	h.press("l", "l", "l")
	h.requireView("event 4 of 16 · seq 4", "+0:21", "state running (goal_running)", "waiting permission ia-7:", "make lint")
	h.press("right")
	h.requireView("state waiting_permission (permission)", "waiting permission ia-7")
	h.press("l")
	h.requireView("event 6 of 16", "waiting nothing")
	h.press("pgdown")
	h.requireView("event 16 of 16", "state completed (completed)", "revision 2 · tree 222222222222 · repair rounds 1/2",
		"lint_test.go | +12 -0", "commit abc123 on reasonix/old-task")
	h.press("pgup")
	h.requireView("event 6 of 16")
	h.press("pgup")
	h.requireView("event 1 of 16")
	h.press("h")
	h.requireView("event 1 of 16")
	h.press("G", "left", "left", "left", "left", "left", "left")
	h.requireView("event 10 of 16 · seq 10", "state running (repair_1)", "revision 1 · tree 111111111111 · repair rounds 1/2",
		"lint.go | +3 -1", "1 file changed")
	if strings.Contains(h.view(), "lint_test.go") {
		t.Fatal("the diff stat of a later revision shows before it was reviewed")
	}
	h.press("g")
	h.requireView("event 1 of 16")
	h.press("esc")
	if h.replay() != nil || strings.Contains(h.view(), "Replay old-task") {
		t.Fatal("esc did not leave the replay")
	}
	h.requireView("Tasks (3)")
}

// The view at a sequence number is the reducer's state there, whichever way the replay got
// there: stepping on from the start or seeking back from the end through the snapshots.
func TestReplaySeekMatchesTheReducer(t *testing.T) {
	f := replayScenario()
	var evs []core.Event
	for i := 1; i <= 3*replayEvery+17; i++ {
		typ, data := core.EventAgentMessage, any(core.TextData{Text: fmt.Sprintf("chunk %d", i)})
		switch i % 97 {
		case 5:
			typ, data = core.EventReviewReady, core.ReviewReadyData{ReviewRevision: i, DiffStat: fmt.Sprintf(" f.go | +%d -0\n", i)}
		case 11:
			typ, data = core.EventStateChanged, core.StateChangedData{To: core.StateRunning, Phase: fmt.Sprintf("phase %d", i)}
		}
		evs = append(evs, core.Event{TaskID: "old-task", Seq: uint64(i), Time: epoch.Add(time.Duration(i) * time.Second), Type: typ, Data: mustJSON(data)})
	}
	f.journals["old-task"] = evs
	h := newHarness(t, f, 120, 40)
	h.press("A", "j", "j", "p", "G")
	rp := h.replay()
	for _, i := range []int{len(evs) - 1, 2*replayEvery + 3, replayEvery - 1, replayEvery, 0, 600} {
		rp.seek(i)
		got, want := rp.at(rp.cur), core.ReplayState(evs, evs[i].Seq)
		if got.Seq != want.Seq || got.State != want.State || got.Phase != want.Phase || got.DiffStat != want.DiffStat || got.Events != want.Events {
			t.Fatalf("at index %d: view %+v, reducer %+v", i, got, want)
		}
	}
}

func TestGoldenReplay(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			h := newHarness(t, replayScenario(), size[0], size[1])
			h.press("A", "j", "j", "p", "G", "h", "h", "h", "h", "h", "h")
			golden.RequireEqual(t, []byte(h.view()))
		})
	}
}
