package engine

import (
	"errors"
	"strings"

	"reasonixctl/core"
	"reasonixctl/core/gitx"
)

// gitCodes are the gitx codes that say something about the world a supervisor can act on, with
// the core code each one is reported as wherever the engine passes a gitx error on. gitx's
// invalid_request (the engine's own arguments to gitx, taken from its record) and
// internal_error name no such thing: they take the code of the step that failed (wrapError's
// fallback).
var gitCodes = map[string]core.Code{
	gitx.CodeNotGitRepository:   core.CodeNotGitRepository,
	gitx.CodeDirtyRepository:    core.CodeDirtyRepository,
	gitx.CodeOwnershipAmbiguous: core.CodeOwnershipAmbiguous,
	gitx.CodeCommitFailed:       core.CodeCommitFailed,
}

// wrapError is how the engine passes on an error from a step it took, saying what the step was
// ("comparing the worktree with the review"). Nothing typed is lost on the way:
//   - a *core.Error keeps its code, details, retryability and next action; only its message
//     gains the step;
//   - a *gitx.Error takes its own code when gitCodes has one, with its reason and paths as
//     details (and, for a worktree moved off its task branch or committed to, the hint of what
//     to do), else fallback;
//   - anything else is fallback.
//
// The error stays the result's Cause, for errors.Is and errors.As.
func wrapError(fallback core.Code, err error, what string) *core.Error {
	if err == nil {
		return nil
	}
	var ce *core.Error
	if errors.As(err, &ce) {
		out := *ce
		out.Message = what + ": " + ce.Message
		out.Cause = err
		return &out
	}
	var ge *gitx.Error
	if !errors.As(err, &ge) {
		return core.Errorf(fallback, nil, "%s: %w", what, err)
	}
	code, ok := gitCodes[ge.Code]
	if !ok {
		code = fallback
	}
	var details core.Detail
	if ge.Reason != "" || len(ge.Paths) > 0 {
		details = &core.GitRefusal{Reason: ge.Reason, Paths: ge.Paths}
	}
	msg := ge.Message
	if len(ge.Paths) > 0 {
		msg += ": " + strings.Join(ge.Paths, ", ")
	}
	if ge.Err != nil {
		msg += ": " + ge.Err.Error()
	}
	if code == core.CodeOwnershipAmbiguous {
		// gitx's head reasons are the refusal reasons of the same name (core.RefusedWrongBranch,
		// core.RefusedHeadMoved), whose hints say what to do.
		if hint := core.RefusalHint(ge.Reason); hint != "" {
			msg += " (" + ge.Reason + "). " + hint
		}
	}
	out := core.Errorf(code, details, "%s: %s", what, msg)
	out.Cause = err
	return out
}
