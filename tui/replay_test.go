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

// p replays the selected task over the body, with its keys in the footer; its keys step
// through the journal, and esc leaves it. The replay's own behaviour is tested in tui/replay.
func TestReplayOpensOverTheBodyAndLeaves(t *testing.T) {
	h := newHarness(t, replayScenario(), 120, 40)
	h.press("A", "j", "j") // all tasks: the finished one
	if h.selected() != "old-task" {
		t.Fatalf("selected %q", h.selected())
	}
	h.press("p")
	h.requireView("Replay old-task · event 1 of 16 · seq 1", "task created in /src/app: Old.",
		"←/→ step · pgup/pgdn ten · g/G first/last · esc leave replay · ? help")
	h.press("l", "l", "l")
	h.requireView("event 4 of 16 · seq 4", "waiting permission ia-7:")
	h.press("h", "h", "h", "h")
	h.requireView("event 1 of 16", "the first event: nothing before it")
	// Help and quit are the dashboard's, over the replay.
	h.press("?")
	h.requireView("toggle active / all tasks", "esc/? close")
	h.press("esc")
	if h.replay() == nil {
		t.Fatal("closing the help left the replay")
	}
	h.press("esc")
	if h.replay() != nil || strings.Contains(h.view(), "Replay old-task") {
		t.Fatal("esc did not leave the replay")
	}
	h.requireView("Tasks (3)")
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
