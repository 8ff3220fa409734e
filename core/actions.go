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
	if v.State != StateReviewRequired || !Allows(v, ActionSteer) {
		return 0, false
	}
	return v.RepairRounds + 1, true
}

// ActionsFor lists what a supervisor may do with a task in the state v shows, in the order a
// front end offers them. It is the one place that says which actions a state allows: front ends
// draw their keys from it, and the engine refuses, with WhyNot's words, every action it leaves
// out. A task in review may be finalized, have its checks amended, take a repair round (a steer)
// and be rebased while a round is left, since a rebase's conflicts are resolved in one. A paused
// task may be resumed, and rebased when a source collision paused it after a review: its
// worktree then holds the reviewed change, which is what a rebase moves.
func ActionsFor(v TaskView) []string {
	roundLeft := v.RepairRounds < MaxRepairRounds
	switch v.State {
	case StateProvisioning:
		return []string{ActionCancel, ActionClose}
	case StateRunning:
		return []string{ActionSteer, ActionCancel, ActionClose}
	case StateWaitingPermission, StateWaitingInput:
		return []string{ActionRespond, ActionCancel, ActionClose}
	case StatePaused:
		if roundLeft && collidedAfterReview(v) {
			return []string{ActionResume, ActionRebase, ActionCancel, ActionClose}
		}
		return []string{ActionResume, ActionCancel, ActionClose}
	case StateReviewRequired:
		if roundLeft {
			return []string{ActionFinalize, ActionSteer, ActionAmendChecks, ActionRebase, ActionCancel, ActionClose}
		}
		return []string{ActionFinalize, ActionAmendChecks, ActionCancel, ActionClose}
	}
	// Verifying waits for its result; terminal states allow nothing.
	return nil
}

// collidedAfterReview reports whether v is paused because the source checkout moved under the
// write scope of a change already reviewed (a finalize's or a steer's collision check).
func collidedAfterReview(v TaskView) bool {
	return v.State == StatePaused && v.Phase == PhaseSourceCollision && v.ReviewTreeHash != ""
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

// OutOfRounds reports whether ActionsFor(v) leaves action out only because v used its repair
// rounds: the same task with a round left would be allowed it. A refusal for that reason is
// repair_limit_reached rather than invalid_state.
func OutOfRounds(v TaskView, action string) bool {
	if v.RepairRounds < MaxRepairRounds || Allows(v, action) {
		return false
	}
	fresh := v
	fresh.RepairRounds = 0
	return Allows(fresh, action)
}

// WhyNot says in a short sentence why ActionsFor(v) does not contain action, or "" when it
// does. The reason is read off ActionsFor itself: a task that has ended allows nothing, nor
// does one being finalized, a task that used its repair rounds no longer takes what needs one,
// and otherwise the action needs one of the states whose ActionsFor offers it.
func WhyNot(v TaskView, action string) string {
	if Allows(v, action) {
		return ""
	}
	switch {
	case v.State.Terminal():
		return fmt.Sprintf("%s has ended (%s): nothing more to do", v.TaskID, v.State)
	case v.State == StateVerifying:
		return fmt.Sprintf("%s is being finalized: wait for the result", v.TaskID)
	case OutOfRounds(v, action) && action == ActionRebase:
		return fmt.Sprintf("%s used its %d repair rounds, and a rebase needs one: close it and start a task from the current HEAD", v.TaskID, MaxRepairRounds)
	case OutOfRounds(v, action):
		return fmt.Sprintf("%s used its %d repair rounds: finalize it or close it", v.TaskID, MaxRepairRounds)
	}
	now := strings.ReplaceAll(string(v.State), "_", " ")
	if action == ActionRebase {
		// Which paused tasks may be rebased depends on why they paused, which the state
		// alone does not say.
		switch {
		case v.State == StatePaused && v.Phase == PhaseSourceCollision:
			now = "paused by a source collision before any review"
		case v.State == StatePaused && v.Phase != "":
			now += " (" + v.Phase + ")"
		}
		return fmt.Sprintf("rebase needs a task in review or one paused by a source collision after a review; %s is %s", v.TaskID, now)
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
