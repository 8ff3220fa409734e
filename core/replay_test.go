package core

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

func replayEvent(seq uint64, typ string, data any) Event {
	b, _ := json.Marshal(data)
	return Event{TaskID: "t", Seq: seq, Time: time.Unix(int64(seq), 0).UTC(), Type: typ, Data: b}
}

func replayJournal() []Event {
	exit1, exit0 := 1, 0
	ia := Interaction{ID: "ia-1", Kind: InteractionPermission, Status: InteractionPending, Request: InteractionRequest{Title: "make lint"}}
	resolved := ia
	resolved.Status = InteractionResolved
	return []Event{
		replayEvent(1, EventTaskCreated, TaskCreatedData{State: StateProvisioning, Repository: "/src/app", Objective: "fix login"}),
		replayEvent(2, EventStateChanged, StateChangedData{From: StateProvisioning, To: StateRunning, Phase: "goal_running"}),
		replayEvent(3, EventInteractionWaiting, ia),
		replayEvent(4, EventStateChanged, StateChangedData{From: StateRunning, To: StateWaitingPermission, Phase: "permission"}),
		replayEvent(5, EventInteractionResolved, resolved),
		replayEvent(6, EventStateChanged, StateChangedData{From: StateWaitingPermission, To: StateRunning, Phase: "goal_running"}),
		replayEvent(7, EventReviewReady, ReviewReadyData{ReviewRevision: 1, ReviewTreeHash: "aaa", ChangedFiles: []string{"a.go"}, DiffStat: " a.go | +1 -0\n 1 file changed\n"}),
		replayEvent(8, EventStateChanged, StateChangedData{From: StateRunning, To: StateReviewRequired, Phase: "review"}),
		replayEvent(9, EventStateChanged, StateChangedData{From: StateReviewRequired, To: StateVerifying, Phase: "preflight"}),
		replayEvent(10, EventVerification, VerificationResult{ID: "unit", ExitCode: &exit1}),
		replayEvent(11, EventStateChanged, StateChangedData{From: StateVerifying, To: StateReviewRequired, Phase: "repair_required", Reason: "verification_failed: unit"}),
		replayEvent(12, EventStateChanged, StateChangedData{From: StateReviewRequired, To: StateRunning, Phase: "repair_1"}),
		replayEvent(13, EventSteered, TextData{Text: "fix the test"}),
		replayEvent(14, EventReviewReady, ReviewReadyData{ReviewRevision: 2, ReviewTreeHash: "bbb", ChangedFiles: []string{"a.go", "a_test.go"}, DiffStat: " a.go | +1 -0\n a_test.go | +9 -0\n 2 files changed\n"}),
		replayEvent(15, EventStateChanged, StateChangedData{From: StateRunning, To: StateReviewRequired, Phase: "review"}),
		replayEvent(16, EventStateChanged, StateChangedData{From: StateReviewRequired, To: StateVerifying, Phase: "preflight"}),
		replayEvent(17, EventVerification, VerificationResult{ID: "unit", ExitCode: &exit0, Passed: true}),
		replayEvent(18, EventStateChanged, StateChangedData{From: StateVerifying, To: StateCompleted, Phase: "completed"}),
		replayEvent(19, EventCommitted, CommittedData{CommitHash: "c0ffee", Branch: "reasonix/t"}),
	}
}

func TestReplayStateAtASequenceNumber(t *testing.T) {
	evs := replayJournal()
	for _, tc := range []struct {
		seq      uint64
		state    State
		phase    string
		pending  []string
		revision int
		stat     string
		checks   int
		passed   bool
		rounds   int
		commit   string
	}{
		{0, "", "", nil, 0, "", 0, false, 0, ""},
		{1, StateProvisioning, "", nil, 0, "", 0, false, 0, ""},
		{3, StateRunning, "goal_running", []string{"ia-1"}, 0, "", 0, false, 0, ""},
		{4, StateWaitingPermission, "permission", []string{"ia-1"}, 0, "", 0, false, 0, ""},
		{5, StateWaitingPermission, "permission", nil, 0, "", 0, false, 0, ""},
		{8, StateReviewRequired, "review", nil, 1, " a.go | +1 -0\n 1 file changed\n", 0, false, 0, ""},
		{11, StateReviewRequired, "repair_required", nil, 1, " a.go | +1 -0\n 1 file changed\n", 1, false, 0, ""},
		{12, StateRunning, "repair_1", nil, 1, " a.go | +1 -0\n 1 file changed\n", 1, false, 1, ""},
		{16, StateVerifying, "preflight", nil, 2, " a.go | +1 -0\n a_test.go | +9 -0\n 2 files changed\n", 0, false, 1, ""},
		{17, StateVerifying, "preflight", nil, 2, " a.go | +1 -0\n a_test.go | +9 -0\n 2 files changed\n", 1, true, 1, ""},
		{^uint64(0), StateCompleted, "completed", nil, 2, " a.go | +1 -0\n a_test.go | +9 -0\n 2 files changed\n", 1, true, 1, "c0ffee"},
	} {
		s := ReplayState(evs, tc.seq)
		var pending []string
		for _, p := range s.Pending {
			pending = append(pending, p.ID)
		}
		if s.State != tc.state || s.Phase != tc.phase || !reflect.DeepEqual(pending, tc.pending) ||
			s.ReviewRevision != tc.revision || s.DiffStat != tc.stat || len(s.Verification) != tc.checks ||
			(tc.checks > 0 && s.Verification[0].Passed != tc.passed) || s.RepairRounds != tc.rounds || s.CommitHash != tc.commit {
			t.Fatalf("at seq %d: %+v", tc.seq, s)
		}
		if want := min(tc.seq, 19); s.Seq != want || s.Events != int(want) {
			t.Fatalf("at seq %d: seq %d after %d events", tc.seq, s.Seq, s.Events)
		}
	}
	if s := ReplayState(evs, 4); s.Repository != "/src/app" || s.Objective != "fix login" || !s.Time.Equal(time.Unix(4, 0)) {
		t.Fatalf("at seq 4: %+v", s)
	}
}

// A snapshot copied as a checkpoint does not change when the replay goes on from it.
func TestReplayCheckpointsAreIndependent(t *testing.T) {
	evs := replayJournal()
	s := ReplayState(evs, 3)
	checkpoint := s
	for _, ev := range evs[3:] {
		s.Apply(ev)
	}
	if len(checkpoint.Pending) != 1 || checkpoint.Pending[0].ID != "ia-1" || checkpoint.State != StateRunning {
		t.Fatalf("the checkpoint moved: %+v", checkpoint)
	}
	again := checkpoint
	for _, ev := range evs[3:] {
		again.Apply(ev)
	}
	if !reflect.DeepEqual(again, s) || !reflect.DeepEqual(s, ReplayState(evs, ^uint64(0))) {
		t.Fatal("replaying from a checkpoint differs from replaying from the start")
	}
}
