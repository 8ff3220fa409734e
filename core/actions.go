package core

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

// Rebasable reports whether a task in the state v shows may be moved onto its checkout's HEAD
// (ActionRebase): in review, or paused because a finalize or steer found the source moved.
func Rebasable(v TaskView) bool {
	return v.State == StateReviewRequired || (v.State == StatePaused && v.Phase == PhaseSourceCollision)
}
