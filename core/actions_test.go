package core

import (
	"fmt"
	"testing"
)

// A steer from review starts the next repair round while one is left; elsewhere it starts none.
func TestRepairRound(t *testing.T) {
	for _, c := range []struct {
		v     TaskView
		round int
		ok    bool
	}{
		{TaskView{State: StateReviewRequired}, 1, true},
		{TaskView{State: StateReviewRequired, RepairRounds: MaxRepairRounds - 1}, MaxRepairRounds, true},
		{TaskView{State: StateReviewRequired, RepairRounds: MaxRepairRounds}, 0, false},
		{TaskView{State: StateRunning}, 0, false},
	} {
		if round, ok := RepairRound(c.v); round != c.round || ok != c.ok {
			t.Errorf("%+v: round %d ok %v", c.v, round, ok)
		}
	}
}

// WhyNot gives a reason exactly when ActionsFor leaves an action out, in every state, with and
// without repair rounds left, for every action a supervisor names.
func TestWhyNotExactlyWhenNotAllowed(t *testing.T) {
	actions := []string{ActionSteer, ActionRespond, ActionCancel, ActionFinalize, ActionClose, ActionAmendChecks, ActionRebase, ActionResume}
	for _, s := range States {
		if !s.Terminal() && stateWords[s] == "" {
			t.Errorf("state %s has no words for WhyNot", s)
		}
		for _, rounds := range []int{0, MaxRepairRounds - 1, MaxRepairRounds} {
			v := TaskView{TaskID: "t-1", State: s, RepairRounds: rounds}
			for _, a := range actions {
				why, ok := WhyNot(v, a), Allows(v, a)
				if (why == "") != ok {
					t.Errorf("%s with %d rounds, %s: Allows %v but WhyNot %q", s, rounds, a, ok, why)
				}
			}
		}
	}
}

func TestWhyNotWording(t *testing.T) {
	for _, c := range []struct {
		v      TaskView
		action string
		want   string
	}{
		{TaskView{TaskID: "docs-typo", State: StatePaused}, ActionSteer, "steer needs a running task or one in review; docs-typo is paused"},
		{TaskView{TaskID: "t", State: StateRunning}, ActionResume, "resume needs a paused task; t is running"},
		{TaskView{TaskID: "t", State: StateRunning}, ActionFinalize, "finalize needs a task in review; t is running"},
		{TaskView{TaskID: "t", State: StateVerifying}, ActionCancel, "cancel needs a task that is not verifying or ended; t is verifying"},
		{TaskView{TaskID: "t", State: StateRunning}, ActionRespond, "respond needs a task waiting for permission or one waiting for input; t is running"},
		{TaskView{TaskID: "old-task", State: StateCompleted}, ActionSteer, "old-task has ended (completed): nothing more to do"},
		{TaskView{TaskID: "login-fix", State: StateReviewRequired, RepairRounds: MaxRepairRounds}, ActionSteer,
			fmt.Sprintf("login-fix used its %d repair rounds: finalize it or close it", MaxRepairRounds)},
		{TaskView{TaskID: "t", State: StateReviewRequired}, ActionRebase, "rebase is not among the actions a task's state offers; t offers finalize, steer, cancel, close"},
		{TaskView{TaskID: "t", State: StateVerifying}, ActionAmendChecks, "amend_checks is not among the actions a task's state offers; t offers none"},
	} {
		if got := WhyNot(c.v, c.action); got != c.want {
			t.Errorf("WhyNot(%s, %s) = %q, want %q", c.v.State, c.action, got, c.want)
		}
	}
}
