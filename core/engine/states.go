package engine

import (
	"reasonixctl/core"

	"crypto/sha256"
	"encoding/hex"
)

// setState moves r to state `to` with phase and reason, returning the state_changed event, or
// an invalid_state error when the lifecycle forbids the move. A same-state move only changes
// the phase. Every pause bumps the pause revision and its reason hash.
func setState(r *taskRecord, to core.State, phase, reason string) (newEvent, error) {
	from := r.State
	if from != to && !core.CanTransition(from, to) {
		return newEvent{}, core.Errorf(core.CodeInvalidState, &core.ForbiddenTransition{State: from, Target: to},
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
	if to == core.StatePaused && from != core.StatePaused {
		r.PauseRevision++
		why := reason
		if why == "" {
			why = "unspecified"
		}
		sum := sha256.Sum256([]byte(why))
		r.PauseReasonHash = hex.EncodeToString(sum[:])
	}
	return event(core.EventStateChanged, core.StateChangedData{From: from, To: to, Phase: phase, Reason: reason}), nil
}
