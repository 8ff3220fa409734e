package core

import "reasonixctl/core/gitx"

// transitions lists, for each state, the states a task may move to.
var transitions = map[State][]State{
	StateProvisioning:      {StateRunning, StatePaused, StateFailed, StateCancelled, StateClosed},
	StateRunning:           {StateWaitingPermission, StateWaitingInput, StatePaused, StateReviewRequired, StateFailed, StateCancelled, StateClosed},
	StateWaitingPermission: {StateRunning, StatePaused, StateFailed, StateCancelled, StateClosed},
	StateWaitingInput:      {StateRunning, StatePaused, StateFailed, StateCancelled, StateClosed},
	StatePaused:            {StateRunning, StateFailed, StateCancelled, StateClosed},
	StateReviewRequired:    {StateRunning, StatePaused, StateVerifying, StateFailed, StateCancelled, StateClosed},
	StateVerifying:         {StatePaused, StateReviewRequired, StateCompleted, StateCommitFailed, StateFailed, StateCancelled},
}

// CanTransition says whether a task may move from one state to another.
func CanTransition(from, to State) bool {
	for _, s := range transitions[from] {
		if s == to {
			return true
		}
	}
	return false
}

// Paused phases.
const (
	PhaseSourceCollision    = "source_collision"
	PhaseWorkerCrashed      = "worker_crashed"
	PhaseRestartRecovery    = "restart_recovery"
	PhaseCommandTimeout     = "command_timeout"
	PhasePostflightFailed   = "command_postflight_failed"
	PhaseRepeatedDenial     = "repeated_policy_denial"
	PhaseIndexRecovery      = "index_recovery_failed"
	PhaseTurnEnded          = "turn_ended"
	PhaseReview             = "codex_review"
	PhaseRepairRequired     = "verification_repair_required"
	PhaseInteractionWaiting = "interaction_waiting"
	// PhasePermissionRefused: the worker ended its turn itself after a permission was refused
	// (Codex ends the whole turn on a rejection): a denial, not a cancellation.
	PhasePermissionRefused = "permission_refused"
	// PhaseWorktreeTampered: the worktree's .git is not the link made at its creation, so
	// nothing in it can be trusted to be the task's repository (see gitx.CheckLink).
	PhaseWorktreeTampered = gitx.ReasonTampered
)
