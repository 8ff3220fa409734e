package core

import (
	"fmt"
	"strings"
)

// ActionResume continues a paused task. Over MCP it is reasonix_delegate with the task's current
// pause_revision and pause_reason_hash; the dashboard sends the same request.
const ActionResume = "resume"

// MaxRepairRounds is how many repair rounds (steers from review) a task may use.
const MaxRepairRounds = 2

// RepairRound is the repair round a steer sent now would start: a steer from review is one, and
// counts against MaxRepairRounds. ok is false when the task is not in review (a steer there
// reaches the running turn) or has no round left.
func RepairRound(v TaskView) (round int, ok bool) {
	if v.State != StateReviewRequired || v.RepairRounds >= MaxRepairRounds {
		return 0, false
	}
	return v.RepairRounds + 1, true
}

// ActionsFor lists what a supervisor may do with a task in the state v shows, in the order a
// front end offers them. It is the one place that says which actions a state allows, so front
// ends draw their keys from it instead of re-coding the lifecycle.
func ActionsFor(v TaskView) []string {
	switch v.State {
	case StateProvisioning:
		return []string{ActionCancel, ActionClose}
	case StateRunning:
		return []string{ActionSteer, ActionCancel, ActionClose}
	case StateWaitingPermission, StateWaitingInput:
		return []string{ActionRespond, ActionCancel, ActionClose}
	case StatePaused:
		return []string{ActionResume, ActionCancel, ActionClose}
	case StateReviewRequired:
		if v.RepairRounds < MaxRepairRounds {
			return []string{ActionFinalize, ActionSteer, ActionCancel, ActionClose}
		}
		return []string{ActionFinalize, ActionCancel, ActionClose}
	}
	// Verifying waits for its result; terminal states allow nothing.
	return nil
}

// Allows reports whether ActionsFor(v) contains action.
func Allows(v TaskView, action string) bool {
	for _, a := range ActionsFor(v) {
		if a == action {
			return true
		}
	}
	return false
}

// WhyNot says in a short sentence why ActionsFor(v) does not contain action, or "" when it
// does. The reason is read off ActionsFor itself: a task that has ended allows nothing, a task
// in review that used its repair rounds no longer takes a steer, and otherwise the action needs
// one of the states whose ActionsFor offers it.
func WhyNot(v TaskView, action string) string {
	if Allows(v, action) {
		return ""
	}
	if v.State.Terminal() {
		return fmt.Sprintf("%s has ended (%s): nothing more to do", v.TaskID, v.State)
	}
	if fresh := v; fresh.RepairRounds > 0 {
		fresh.RepairRounds = 0
		if Allows(fresh, action) {
			return fmt.Sprintf("%s used its %d repair rounds: finalize it or close it", v.TaskID, MaxRepairRounds)
		}
	}
	var in, out []string // the live states that offer action, and those that do not
	for _, s := range States {
		switch {
		case s.Terminal():
		case Allows(TaskView{State: s}, action):
			in = append(in, stateWords[s])
		default:
			out = append(out, stateWords[s])
		}
	}
	now := strings.ReplaceAll(string(v.State), "_", " ")
	switch {
	case len(in) == 0:
		offered := "none"
		if a := ActionsFor(v); len(a) > 0 {
			offered = strings.Join(a, ", ")
		}
		return fmt.Sprintf("%s is not among the actions a task's state offers; %s offers %s", action, v.TaskID, offered)
	case len(out) < len(in):
		return fmt.Sprintf("%s needs a task that is not %s or ended; %s is %s", action, strings.Join(out, ", "), v.TaskID, now)
	}
	need := "a task " + in[0]
	if !strings.Contains(in[0], " ") {
		need = "a " + in[0] + " task"
	}
	for _, w := range in[1:] {
		need += " or one " + w
	}
	return fmt.Sprintf("%s needs %s; %s is %s", action, need, v.TaskID, now)
}

// stateWords says what a task in a live state is, after "a task" or "one".
var stateWords = map[State]string{
	StateProvisioning:      "provisioning",
	StateRunning:           "running",
	StateWaitingPermission: "waiting for permission",
	StateWaitingInput:      "waiting for input",
	StatePaused:            "paused",
	StateReviewRequired:    "in review",
	StateVerifying:         "verifying",
}

// Rebasable reports whether a task in the state v shows may be moved onto its checkout's HEAD
// (ActionRebase): in review, or paused because a finalize or steer found the source moved.
func Rebasable(v TaskView) bool {
	return v.State == StateReviewRequired || (v.State == StatePaused && v.Phase == PhaseSourceCollision)
}
