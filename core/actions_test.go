package core

import (
	"fmt"
	"slices"
	"strings"
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

// views is a task in every state, with and without repair rounds left, and paused for the
// reasons the table tells apart: a source collision after a review, one before any, another
// cause.
func views() []TaskView {
	var out []TaskView
	for _, s := range States {
		for _, rounds := range []int{0, MaxRepairRounds - 1, MaxRepairRounds} {
			v := TaskView{TaskID: "t-1", State: s, RepairRounds: rounds, ReviewTreeHash: "0123456789abcdef0123456789abcdef01234567"}
			out = append(out, v)
			if s == StatePaused {
				for _, p := range []string{PhaseSourceCollision, PhaseWorkerCrashed} {
					w := v
					w.Phase = p
					out = append(out, w)
					w.ReviewTreeHash = ""
					out = append(out, w)
				}
			}
		}
	}
	return out
}

// actions is every action a supervisor names: the control actions and resume.
func actions() []string {
	out := []string{ActionResume}
	for _, c := range Commands() {
		out = append(out, c.Action())
	}
	return out
}

// ActionsFor offers every action a supervisor has in some state, each at most once and none
// it does not know: a control action left out of it would be one the engine refuses always.
func TestActionsForCoversEveryAction(t *testing.T) {
	offered := map[string]bool{}
	for _, v := range views() {
		seen := map[string]bool{}
		for _, a := range ActionsFor(v) {
			if seen[a] {
				t.Errorf("%s (%s, %d rounds) offers %s twice", v.State, v.Phase, v.RepairRounds, a)
			}
			seen[a] = true
			offered[a] = true
		}
	}
	known := actions()
	for _, a := range known {
		if !offered[a] {
			t.Errorf("no state offers %s", a)
		}
	}
	for a := range offered {
		if !slices.Contains(known, a) {
			t.Errorf("ActionsFor offers %s, which is no action", a)
		}
	}
}

// Rebase and amend_checks are offered where the engine takes them: amending in review, a
// rebase in review or paused by a source collision after a review, while a round is left.
func TestActionsForRebaseAndAmend(t *testing.T) {
	const tree = "0123456789abcdef0123456789abcdef01234567"
	for _, c := range []struct {
		v             TaskView
		rebase, amend bool
	}{
		{TaskView{State: StateReviewRequired, ReviewTreeHash: tree}, true, true},
		{TaskView{State: StateReviewRequired, ReviewTreeHash: tree, RepairRounds: MaxRepairRounds}, false, true},
		{TaskView{State: StatePaused, Phase: PhaseSourceCollision, ReviewTreeHash: tree}, true, false},
		{TaskView{State: StatePaused, Phase: PhaseSourceCollision, ReviewTreeHash: tree, RepairRounds: MaxRepairRounds}, false, false},
		{TaskView{State: StatePaused, Phase: PhaseSourceCollision}, false, false},
		{TaskView{State: StatePaused, Phase: PhaseRebaseConflicts, ReviewTreeHash: tree}, false, false},
		{TaskView{State: StateRunning, ReviewTreeHash: tree}, false, false},
		{TaskView{State: StateVerifying, ReviewTreeHash: tree}, false, false},
		{TaskView{State: StateCompleted, ReviewTreeHash: tree}, false, false},
	} {
		if got := Allows(c.v, ActionRebase); got != c.rebase {
			t.Errorf("%s (%s, hash %t, %d rounds): rebase %v", c.v.State, c.v.Phase, c.v.ReviewTreeHash != "", c.v.RepairRounds, got)
		}
		if got := Allows(c.v, ActionAmendChecks); got != c.amend {
			t.Errorf("%s (%s, %d rounds): amend_checks %v", c.v.State, c.v.Phase, c.v.RepairRounds, got)
		}
	}
}

// WhyNot gives a reason exactly when ActionsFor leaves an action out, for every action a
// supervisor names in every view; OutOfRounds only when a round would have allowed it.
func TestWhyNotExactlyWhenNotAllowed(t *testing.T) {
	for _, s := range States {
		if !s.Terminal() && stateWords[s] == "" {
			t.Errorf("state %s has no words for WhyNot", s)
		}
	}
	for _, v := range views() {
		for _, a := range actions() {
			why, ok := WhyNot(v, a), Allows(v, a)
			if (why == "") != ok {
				t.Errorf("%s (%s) with %d rounds, %s: Allows %v but WhyNot %q", v.State, v.Phase, v.RepairRounds, a, ok, why)
			}
			fresh := v
			fresh.RepairRounds = 0
			if want := !ok && Allows(fresh, a); OutOfRounds(v, a) != want {
				t.Errorf("%s (%s) with %d rounds, %s: OutOfRounds %v", v.State, v.Phase, v.RepairRounds, a, !want)
			}
			if OutOfRounds(v, a) && !strings.Contains(why, "repair rounds") {
				t.Errorf("%s with %d rounds, %s: out of rounds, but WhyNot %q", v.State, v.RepairRounds, a, why)
			}
		}
	}
}

func TestWhyNotWording(t *testing.T) {
	const tree = "0123456789abcdef0123456789abcdef01234567"
	for _, c := range []struct {
		v      TaskView
		action string
		want   string
	}{
		{TaskView{TaskID: "docs-typo", State: StatePaused}, ActionSteer, "steer needs a running task or one in review; docs-typo is paused"},
		{TaskView{TaskID: "t", State: StateRunning}, ActionResume, "resume needs a paused task; t is running"},
		{TaskView{TaskID: "t", State: StateRunning}, ActionFinalize, "finalize needs a task in review; t is running"},
		{TaskView{TaskID: "t", State: StateVerifying}, ActionCancel, "t is being finalized: wait for the result"},
		{TaskView{TaskID: "t", State: StateRunning}, ActionRespond, "respond needs a task waiting for permission or one waiting for input; t is running"},
		{TaskView{TaskID: "old-task", State: StateCompleted}, ActionSteer, "old-task has ended (completed): nothing more to do"},
		{TaskView{TaskID: "login-fix", State: StateReviewRequired, RepairRounds: MaxRepairRounds}, ActionSteer,
			fmt.Sprintf("login-fix used its %d repair rounds: finalize it or close it", MaxRepairRounds)},
		{TaskView{TaskID: "t", State: StateRunning}, ActionAmendChecks, "amend_checks needs a task in review; t is running"},
		{TaskView{TaskID: "t", State: StatePaused, Phase: PhaseSourceCollision, ReviewTreeHash: tree}, ActionAmendChecks,
			"amend_checks needs a task in review; t is paused"},
		{TaskView{TaskID: "t", State: StateVerifying}, ActionAmendChecks, "t is being finalized: wait for the result"},
		{TaskView{TaskID: "t", State: StateRunning}, ActionRebase,
			"rebase needs a task in review or one paused by a source collision after a review; t is running"},
		{TaskView{TaskID: "t", State: StatePaused, Phase: PhaseRebaseConflicts, ReviewTreeHash: tree}, ActionRebase,
			"rebase needs a task in review or one paused by a source collision after a review; t is paused (rebase_conflicts)"},
		{TaskView{TaskID: "t", State: StatePaused, Phase: PhaseSourceCollision}, ActionRebase,
			"rebase needs a task in review or one paused by a source collision after a review; t is paused by a source collision before any review"},
		{TaskView{TaskID: "login-fix", State: StateReviewRequired, ReviewTreeHash: tree, RepairRounds: MaxRepairRounds}, ActionRebase,
			fmt.Sprintf("login-fix used its %d repair rounds, and a rebase needs one: close it and start a task from the current HEAD", MaxRepairRounds)},
		{TaskView{TaskID: "t", State: StatePaused, Phase: PhaseSourceCollision, ReviewTreeHash: tree, RepairRounds: MaxRepairRounds}, ActionRebase,
			fmt.Sprintf("t used its %d repair rounds, and a rebase needs one: close it and start a task from the current HEAD", MaxRepairRounds)},
		{TaskView{TaskID: "t", State: StateRunning}, "merge", "merge is not among the actions a task's state offers; t offers steer, cancel, close"},
	} {
		if got := WhyNot(c.v, c.action); got != c.want {
			t.Errorf("WhyNot(%s, %s) = %q, want %q", c.v.State, c.action, got, c.want)
		}
	}
}
