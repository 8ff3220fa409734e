package core

import (
	"errors"
	"fmt"
)

// Code is a stable error code from the closed set Codex knows.
type Code string

// NextAction tells the supervisor what to do about an error.
type NextAction string

// The closed set of error codes.
const (
	CodeInvalidContract        Code = "invalid_contract"
	CodeInvalidRequest         Code = "invalid_request"
	CodeReadOnlySandbox        Code = "read_only_sandbox"
	CodeNotGitRepository       Code = "not_git_repository"
	CodeDirtyRepository        Code = "dirty_repository"
	CodeMissingSandboxMetadata Code = "missing_sandbox_metadata"
	CodeUnsupportedPlatform    Code = "unsupported_platform"
	CodeReasonixIncompatible   Code = "reasonix_incompatible"
	CodeSandboxUnavailable     Code = "sandbox_unavailable"
	CodeTaskConflict           Code = "task_conflict"
	CodeTaskNotFound           Code = "task_not_found"
	CodeInvalidState           Code = "invalid_state"
	CodeInteractionNotFound    Code = "interaction_not_found"
	CodeOutputLimitExceeded    Code = "output_limit_exceeded"
	CodeScopeViolation         Code = "scope_violation"
	CodeOwnershipAmbiguous     Code = "ownership_ambiguous"
	CodeRepairLimitReached     Code = "repair_limit_reached"
	CodeVerificationFailed     Code = "verification_failed"
	CodeSecretDetected         Code = "secret_detected"
	CodeCommitFailed           Code = "commit_failed"
	CodeReasonixUnavailable    Code = "reasonix_unavailable"
	CodeLeaseConflict          Code = "lease_conflict"
	CodeInternalError          Code = "internal_error"
)

// The closed set of next actions. respond_to_interaction and resume_task exist in the enum
// Codex knows but no code maps to them.
const (
	NextFixRequest             NextAction = "fix_request"
	NextInstallOrUpgrade       NextAction = "install_or_upgrade"
	NextCreateNewTask          NextAction = "create_new_task"
	NextInspectTask            NextAction = "inspect_task"
	NextResolveSourceCollision NextAction = "resolve_source_collision"
	NextRepairAndFinalize      NextAction = "repair_and_finalize"
	NextRetry                  NextAction = "retry"
	NextNone                   NextAction = "none"
	NextRespondToInteraction   NextAction = "respond_to_interaction"
	NextResumeTask             NextAction = "resume_task"
)

var nextActions = map[Code]NextAction{
	CodeInvalidContract:        NextFixRequest,
	CodeInvalidRequest:         NextFixRequest,
	CodeReadOnlySandbox:        NextFixRequest,
	CodeNotGitRepository:       NextFixRequest,
	CodeDirtyRepository:        NextFixRequest,
	CodeMissingSandboxMetadata: NextInstallOrUpgrade,
	CodeUnsupportedPlatform:    NextInstallOrUpgrade,
	CodeReasonixIncompatible:   NextInstallOrUpgrade,
	CodeSandboxUnavailable:     NextInstallOrUpgrade,
	CodeTaskConflict:           NextCreateNewTask,
	CodeTaskNotFound:           NextCreateNewTask,
	CodeInvalidState:           NextInspectTask,
	CodeInteractionNotFound:    NextInspectTask,
	CodeOutputLimitExceeded:    NextInspectTask,
	CodeScopeViolation:         NextResolveSourceCollision,
	CodeOwnershipAmbiguous:     NextResolveSourceCollision,
	CodeRepairLimitReached:     NextRepairAndFinalize,
	CodeVerificationFailed:     NextRepairAndFinalize,
	CodeSecretDetected:         NextRepairAndFinalize,
	CodeCommitFailed:           NextRepairAndFinalize,
	CodeReasonixUnavailable:    NextRetry,
	CodeLeaseConflict:          NextRetry,
	CodeInternalError:          NextNone,
}

// Error is the typed error every Service method returns. Front ends render it: mcp as the
// error envelope, tui as a readable line.
type Error struct {
	Code       Code           `json:"code"`
	Message    string         `json:"message"`
	Retryable  bool           `json:"retryable"`
	NextAction NextAction     `json:"next_action"`
	Details    map[string]any `json:"details,omitempty"`
	// Cause is the error this one reports, for errors.Is and errors.As in the process that
	// made it; it never crosses the wire.
	Cause error `json:"-"`
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Message) }

// Unwrap returns the cause, so callers can test for the underlying failure.
func (e *Error) Unwrap() error { return e.Cause }

// Errorf builds an Error whose next action and retryability follow from its code. A %w verb
// in format makes the wrapped error its Cause, as with fmt.Errorf.
func Errorf(code Code, details map[string]any, format string, args ...any) *Error {
	next, ok := nextActions[code]
	if !ok {
		code, next = CodeInternalError, NextNone
	}
	formatted := fmt.Errorf(format, args...)
	var cause error
	switch u := formatted.(type) {
	case interface{ Unwrap() error }:
		cause = u.Unwrap()
	case interface{ Unwrap() []error }:
		cause = formatted // several %w: keep them all reachable
	}
	return &Error{
		Code:       code,
		Message:    formatted.Error(),
		Retryable:  next == NextRetry,
		NextAction: next,
		Details:    details,
		Cause:      cause,
	}
}

// AsError returns err as an *Error; anything that is not one becomes internal_error.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return Errorf(CodeInternalError, nil, "%w", err)
}

// Issue is one validation problem at a JSON path.
type Issue struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}
