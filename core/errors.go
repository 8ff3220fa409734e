package core

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
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
	Code       Code       `json:"code"`
	Message    string     `json:"message"`
	Retryable  bool       `json:"retryable"`
	NextAction NextAction `json:"next_action"`
	// Details is the wire form of Detail, derived from it by Errorf and SocketError: Codex has
	// always seen details as this object. An Error decoded from that form alone (the MCP
	// envelope) has Details and no Detail, since the form does not say which type it was.
	Details map[string]any `json:"details,omitempty"`
	// Detail is what the error says beyond its message, typed; nil for nothing.
	Detail Detail `json:"-"`
	// Cause is the error this one reports, for errors.Is and errors.As in the process that
	// made it; it never crosses the wire.
	Cause error `json:"-"`
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Message) }

// Unwrap returns the cause, so callers can test for the underlying failure.
func (e *Error) Unwrap() error { return e.Cause }

// Errorf builds an Error whose next action and retryability follow from its code, with detail
// (nil for none) as its details. A %w verb in format makes the wrapped error its Cause, as with
// fmt.Errorf.
func Errorf(code Code, detail Detail, format string, args ...any) *Error {
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
	details := detailMap(detail)
	if len(details) == 0 {
		// A typed nil, or a detail whose every key is left out when empty, says nothing: the
		// wire has no details, and the socket brings back no detail.
		detail, details = nil, nil
	}
	return &Error{
		Code:       code,
		Message:    formatted.Error(),
		Retryable:  next == NextRetry,
		NextAction: next,
		Details:    details,
		Detail:     detail,
		Cause:      cause,
	}
}

// Issues is the issue list the details carry, if any.
func (e *Error) Issues() []Issue {
	switch d := e.Detail.(type) {
	case *IssueList:
		return d.Issues
	case *UnfinishedDraft:
		return d.Issues
	}
	return nil
}

// Stale is why a finalize was refused as stale, if it was.
func (e *Error) Stale() *StaleSnapshot {
	s, _ := e.Detail.(*StaleSnapshot)
	return s
}

// Check is the verification command a verification_failed error is about, if it is about
// one: all of it for a command that failed, only its id (and log) for one that could not run
// or whose failure cannot be excused.
func (e *Error) Check() *FailedCheck {
	switch d := e.Detail.(type) {
	case *FailedCheck:
		return d
	case *CheckNotRun:
		return &FailedCheck{Verification: d.Verification}
	case *NotExcusable:
		return &FailedCheck{Verification: d.Verification, LogPath: d.LogPath}
	}
	return nil
}

// failedCheckKeys are the keys of a FailedCheck's own fields, which Check covers.
var failedCheckKeys = []string{"verification", "argv", "exit_code", "timed_out", "log_path", "log_tail"}

// OtherDetails is the sorted keys of the details that Issues, Stale and Check do not cover.
func (e *Error) OtherDetails() []string {
	covered := map[string]bool{}
	if e.Issues() != nil {
		covered["issues"] = true
	}
	if e.Stale() != nil {
		covered["checkpoint"], covered["expected"], covered["current"] = true, true, true
	}
	if e.Check() != nil {
		for _, k := range failedCheckKeys {
			covered[k] = true
		}
	}
	keys := make([]string, 0, len(e.Details))
	for k := range e.Details {
		if !covered[k] {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// SocketError is an Error as the owner's socket carries it: the Error's JSON with, beside it,
// detail_kind naming its detail's type, so that the other side decodes the detail into that
// type again. The MCP envelope has no such field: Codex reads details as a plain object.
type SocketError struct {
	Err *Error
}

// plainError is Error without its methods, to encode and decode its fields.
type plainError Error

func (s SocketError) MarshalJSON() ([]byte, error) {
	if s.Err == nil {
		return []byte("null"), nil
	}
	return json.Marshal(struct {
		plainError
		DetailKind string `json:"detail_kind,omitempty"`
	}{plainError(*s.Err), DetailKind(s.Err.Detail)})
}

// UnmarshalJSON decodes the details as the type detail_kind names. A kind this build does not
// know (an owner of another version) leaves Detail nil and the details as plain JSON values.
func (s *SocketError) UnmarshalJSON(b []byte) error {
	var w struct {
		plainError
		Details    json.RawMessage `json:"details"`
		DetailKind string          `json:"detail_kind"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	e := Error(w.plainError)
	if len(w.Details) > 0 && string(w.Details) != "null" {
		if d := NewDetail(w.DetailKind); d != nil && json.Unmarshal(w.Details, d) == nil {
			e.Detail, e.Details = d, detailMap(d)
		} else if err := json.Unmarshal(w.Details, &e.Details); err != nil {
			return err
		}
	}
	s.Err = &e
	return nil
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

// Refusal reasons: why a changed path cannot enter a commit. They travel as the reason text of
// a paused task and in the details of scope_violation, secret_detected and verification_failed
// (the error codes stay the closed set), each with a hint.
const (
	RefusedOutsideScope     = "outside_write_scope"
	RefusedForbidden        = "forbidden_path"
	RefusedSensitive        = "sensitive_path"
	RefusedGitControl       = "git_control_path"
	RefusedRuntimeMetadata  = "runtime_metadata"
	RefusedSymlinkEscape    = "symlink_escape"
	RefusedSymlinkDangling  = "symlink_dangling"
	RefusedSymlinkScope     = "symlink_target_outside_scope"
	RefusedSymlinkSensitive = "symlink_to_sensitive_path"
	RefusedUnderSymlink     = "under_symlinked_directory"
	RefusedNestedRepository = "nested_repository"
	RefusedTooLarge         = "file_too_large"
	RefusedUnscannable      = "unscannable"
	RefusedSecret           = "secret"
	RefusedHardLink         = "hard_link"    // a regular file with another name somewhere else
	RefusedBadName          = "invalid_name" // a path that is not valid UTF-8
	RefusedHeadMoved        = "head_moved"   // the task branch has commits since the base
	RefusedWrongBranch      = "wrong_branch" // the worktree left the task branch
)

// RefusalOrder is the order reasons are reported in: the most serious first.
var RefusalOrder = []string{
	RefusedSecret, RefusedUnscannable, RefusedSensitive, RefusedSymlinkSensitive, RefusedGitControl,
	RefusedBadName, RefusedHardLink, RefusedNestedRepository, RefusedSymlinkEscape, RefusedUnderSymlink, RefusedSymlinkDangling,
	RefusedSymlinkScope, RefusedForbidden, RefusedOutsideScope, RefusedRuntimeMetadata, RefusedTooLarge,
}

var refusalHints = map[string]string{
	RefusedOutsideScope:     "Revert the change to this path, or create a new task whose write_scope includes it.",
	RefusedForbidden:        "The contract forbids this path: revert the change to it.",
	RefusedSensitive:        "Credential files are never committed: delete the file from the worktree and keep secrets out of the repository.",
	RefusedGitControl:       "Git control files belong to the supervisor: remove the change.",
	RefusedRuntimeMetadata:  ".reasonix holds runtime metadata and is never part of the result: revert the tracked change there.",
	RefusedSymlinkEscape:    "Links that leave the repository are never committed: replace the symlink with a regular file inside the write scope.",
	RefusedSymlinkDangling:  "Remove the symlink, or point it at a file the change contains.",
	RefusedSymlinkScope:     "A symlink may only lead to a path in the write scope: replace it with a regular file, or point it inside the scope.",
	RefusedSymlinkSensitive: "Remove the symlink: it leads to a credential, .git or .reasonix path.",
	RefusedUnderSymlink:     "Paths reached through a symlinked directory are never committed: keep a real directory there.",
	RefusedNestedRepository: "Nested repositories, gitlinks and submodules are never committed: remove the nested .git, or add the files as plain files.",
	RefusedTooLarge:         "Files over 10 MiB are never committed: shrink the file or keep it out of the repository.",
	RefusedUnscannable:      "The secret scan could not read this content, so it is refused: check the file and review again.",
	RefusedSecret:           "Remove the secret from the file (read it from the environment or use a placeholder) and review again.",
	RefusedHardLink:         "A file linked to another name (possibly outside the worktree) is never committed: replace it with a plain copy (cp --remove-destination) and review again.",
	RefusedBadName:          "Path names must be valid UTF-8, so that every name the review shows is the one committed: rename the file and review again.",
	RefusedHeadMoved:        "Only the supervisor commits: reset the task branch to its base keeping the changes (git reset --soft <base>) and review again, or create a new task.",
	RefusedWrongBranch:      "Switch the worktree back to its task branch and review again, or create a new task.",
}

// RefusalHint is the hint for a refusal reason.
func RefusalHint(reason string) string { return refusalHints[reason] }
