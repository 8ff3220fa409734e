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
	Code       Code           `json:"code"`
	Message    string         `json:"message"`
	Retryable  bool           `json:"retryable"`
	NextAction NextAction     `json:"next_action"`
	Details    map[string]any `json:"details,omitempty"`
	// Issues, Stale and Check are the details front ends read, typed. Errorf sets them from
	// Details and decoding an Error from JSON sets them again, so they survive the owner's
	// socket; the JSON form is Details alone, as Codex has always seen it.
	Issues []Issue        `json:"-"`
	Stale  *StaleSnapshot `json:"-"`
	Check  *FailedCheck   `json:"-"`
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
	e := &Error{
		Code:       code,
		Message:    formatted.Error(),
		Retryable:  next == NextRetry,
		NextAction: next,
		Details:    details,
		Cause:      cause,
	}
	e.typeDetails()
	return e
}

// ReviewSnapshot names one review snapshot of a task.
type ReviewSnapshot struct {
	ReviewRevision int    `json:"review_revision"`
	ReviewTreeHash string `json:"review_tree_hash"`
}

// StaleSnapshot is why a finalize was refused as stale: the snapshot it approved and the one
// the task has now, found at Checkpoint.
type StaleSnapshot struct {
	Checkpoint string         `json:"checkpoint"`
	Expected   ReviewSnapshot `json:"expected"`
	Current    ReviewSnapshot `json:"current"`
}

// FailedCheck is the verification command a verification_failed error is about. LogPath is
// empty when the command could not run at all.
type FailedCheck struct {
	Verification string   `json:"verification"`
	Argv         []string `json:"argv,omitempty"`
	ExitCode     *int     `json:"exit_code,omitempty"`
	TimedOut     bool     `json:"timed_out,omitempty"`
	LogPath      string   `json:"log_path,omitempty"`
	LogTail      string   `json:"log_tail,omitempty"`
}

// The detail keys the typed details are read from: the wire form Codex knows.
const (
	detailIssues     = "issues"
	detailCheckpoint = "checkpoint"
	detailExpected   = "expected"
	detailCurrent    = "current"
)

var failedCheckKeys = []string{"verification", "argv", "exit_code", "timed_out", "log_path", "log_tail"}

// typeDetails sets the typed details from Details, whether they hold Go values (in the process
// that made the error) or their JSON decoding (after the socket). An issue list found decoded
// is put back into Details as []Issue, so it serialises again exactly as it was made.
func (e *Error) typeDetails() {
	d := e.Details
	if d == nil {
		return
	}
	if v, ok := d[detailIssues]; ok {
		if issues, ok := v.([]Issue); ok {
			e.Issues = issues
		} else if retype(v, &issues) {
			e.Issues = issues
			d[detailIssues] = issues
		}
	}
	if _, ok := d[detailCheckpoint]; ok && e.Code == CodeInvalidRequest {
		var s StaleSnapshot
		if retype(d, &s) && s.Checkpoint != "" {
			e.Stale = &s
		}
	}
	if _, ok := d["verification"]; ok && e.Code == CodeVerificationFailed {
		var c FailedCheck
		if retype(d, &c) && c.Verification != "" {
			e.Check = &c
		}
	}
}

// retype decodes v's JSON form into out.
func retype(v, out any) bool {
	b, err := json.Marshal(v)
	return err == nil && json.Unmarshal(b, out) == nil
}

// UnmarshalJSON decodes an Error and types its details again.
func (e *Error) UnmarshalJSON(b []byte) error {
	type plain Error // no methods: no recursion
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*e = Error(p)
	e.typeDetails()
	return nil
}

// OtherDetails is the sorted keys of the details that no typed field covers.
func (e *Error) OtherDetails() []string {
	covered := map[string]bool{}
	if e.Issues != nil {
		covered[detailIssues] = true
	}
	if e.Stale != nil {
		covered[detailCheckpoint], covered[detailExpected], covered[detailCurrent] = true, true, true
	}
	if e.Check != nil {
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
