package core

import "reasonixctl/core/gitx"

import (
	"crypto/sha256"
	"encoding/hex"
)

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

func canTransition(from, to State) bool {
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
	// PhaseWorktreeTampered: the worktree's .git is not the link made at its creation, so
	// nothing in it can be trusted to be the task's repository (see gitx.CheckLink).
	PhaseWorktreeTampered = gitx.ReasonTampered
)

// setState moves r to state `to` with phase and reason, returning the state_changed event, or
// an invalid_state error when the lifecycle forbids the move. A same-state move only changes
// the phase. Every pause bumps the pause revision and its reason hash.
func setState(r *taskRecord, to State, phase, reason string) (newEvent, error) {
	from := r.State
	if from != to && !canTransition(from, to) {
		return newEvent{}, Errorf(CodeInvalidState, map[string]any{"state": from, "target": to},
			"task %s cannot move from %s to %s", r.TaskID, from, to)
	}
	if from != to {
		r.StatusSequence++
		r.Reason = ""
	}
	if reason != "" {
		r.Reason = reason
	}
	r.State, r.Phase = to, phase
	if to == StatePaused && from != StatePaused {
		r.PauseRevision++
		why := reason
		if why == "" {
			why = "unspecified"
		}
		sum := sha256.Sum256([]byte(why))
		r.PauseReasonHash = hex.EncodeToString(sum[:])
	}
	return event(EventStateChanged, StateChangedData{From: from, To: to, Phase: phase, Reason: reason}), nil
}
