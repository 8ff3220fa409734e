package gitx

import (
	"fmt"
	"strings"
)

// Error codes, from the specification's closed set.
const (
	CodeInvalidRequest     = "invalid_request"
	CodeNotGitRepository   = "not_git_repository"
	CodeDirtyRepository    = "dirty_repository"
	CodeOwnershipAmbiguous = "ownership_ambiguous"
	CodeCommitFailed       = "commit_failed"
	CodeInternal           = "internal_error"
)

// Reasons refine a code so that callers can react without parsing messages.
const (
	ReasonBadInput        = "bad_input"
	ReasonBadRef          = "bad_ref"
	ReasonMissingIdentity = "missing_identity"
	ReasonPathExists      = "path_exists"
	ReasonBranchExists    = "branch_exists"
	ReasonTreeMoved       = "tree_moved"      // the worktree differs from the reviewed tree
	ReasonHeadMoved       = "head_moved"      // the worktree's HEAD is no longer the base
	ReasonWrongBranch     = "wrong_branch"    // the worktree's HEAD is not the task branch
	ReasonStagedMismatch  = "staged_mismatch" // the reviewed tree does not change exactly the listed files
	ReasonHookFailed      = "hook_failed"
	ReasonHookMutated     = "hook_mutated"
	ReasonRefMoved        = "ref_moved" // the compare-and-swap of the branch lost
	ReasonAborted         = "aborted"   // the caller's last check refused the commit
	ReasonPostcondition   = "postcondition"
	ReasonGitFailed       = "git_failed"
	ReasonInProgress      = "in_progress"      // a merge, rebase, cherry-pick, … of the person's is under way
	ReasonPathsInTheWay   = "paths_in_the_way" // untracked or ignored files or symlinks where an apply writes
	ReasonRestored        = "restored"         // an apply failed and the checkout was verified to be as before
	ReasonNotRestored     = "not_restored"     // an apply failed and the checkout still differs (Paths say how)
)

// Error is every error this package returns.
type Error struct {
	Code    string
	Reason  string
	Message string
	Paths   []string // dirty or moved paths (at most 50), missing identity fields, …
	Err     error
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %s", e.Code, e.Reason, e.Message)
	if len(e.Paths) > 0 {
		fmt.Fprintf(&b, ": %s", strings.Join(e.Paths, ", "))
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

func newErr(code, reason, format string, args ...any) *Error {
	return &Error{Code: code, Reason: reason, Message: fmt.Sprintf(format, args...)}
}

func badInput(format string, args ...any) *Error {
	return newErr(CodeInvalidRequest, ReasonBadInput, format, args...)
}

// GitError is a git process that failed; it is wrapped in an *Error.
type GitError struct {
	Args     []string
	ExitCode int
	Stderr   string
}

func (e *GitError) Error() string {
	return fmt.Sprintf("git %s: exit %d: %s", strings.Join(e.Args, " "), e.ExitCode, e.Stderr)
}

// limitPaths keeps the first 50 paths, as the dirty_repository report does.
func limitPaths(paths []string) []string {
	if len(paths) > 50 {
		return paths[:50]
	}
	return paths
}
