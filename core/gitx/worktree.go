package gitx

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// BranchPrefix is the namespace of task branches.
const BranchPrefix = "reasonix/"

// Worktree is a task's isolated checkout on branch reasonix/<Task>. Every field is plain data so
// that a caller can store it and rebuild the value after a restart.
type Worktree struct {
	Path      string // real path of the worktree
	Task      string
	Base      string // the commit the branch starts at
	RepoRoot  string // the source checkout's top level
	CommonDir string // the shared git directory
	// AdminDir is the worktree's private git directory inside the repository
	// (<CommonDir>/worktrees/<name>) and GitLink the exact bytes of the worktree's .git file,
	// both as they were at creation: git is pointed at the repository by them, never by the
	// worktree's .git, which the worker can rewrite. Empty in records made before they were
	// kept; then they are found from the repository's side (adminDir).
	AdminDir string
	GitLink  string
}

// Ref is the full name of the task branch.
func (w Worktree) Ref() string { return "refs/heads/" + BranchPrefix + w.Task }

// The task id rule, here because a task id names a branch and a directory; core exports it
// to the front ends. ValidTaskID adds what the expression says badly: '..', a trailing '.' or
// '.lock', which git refuses in a ref.
const (
	TaskIDPattern = `^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`
	MaxTaskIDLen  = 64
)

// taskID is compiled on first use: at start-up it cost about 1 ms of every process.
var taskID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(TaskIDPattern) })

// ValidTaskID accepts ids that are both one path component and one ref component.
func ValidTaskID(id string) error {
	if !taskID().MatchString(id) || strings.Contains(id, "..") || strings.HasSuffix(id, ".") || strings.HasSuffix(id, ".lock") {
		return badInput("task id %q must be 1-%d of [A-Za-z0-9._-], start alphanumeric, without '..' or a trailing '.' or '.lock'", id, MaxTaskIDLen)
	}
	return nil
}

// CreateWorktree creates branch reasonix/<task> at src.Base and its worktree at
// <root>/<src.ID>/<task>. An existing path or branch is ownership_ambiguous (reason
// path_exists or branch_exists): a task never adopts what it did not create.
func CreateWorktree(ctx context.Context, src Source, root, task string) (Worktree, error) {
	if err := ValidTaskID(task); err != nil {
		return Worktree{}, err
	}
	if !filepath.IsAbs(root) || !hex40.MatchString(src.Base) || src.ID == "" || src.Root == "" {
		return Worktree{}, badInput("CreateWorktree needs an absolute root and a resolved Source")
	}
	parent := filepath.Join(root, src.ID)
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return Worktree{}, &Error{Code: CodeInternal, Reason: ReasonBadInput, Message: "cannot create " + parent, Err: err}
	}
	realParent, err := filepath.EvalSymlinks(parent)
	if err != nil {
		return Worktree{}, &Error{Code: CodeInternal, Reason: ReasonBadInput, Message: "cannot resolve " + parent, Err: err}
	}
	path := filepath.Join(realParent, task)
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		return Worktree{}, newErr(CodeOwnershipAmbiguous, ReasonPathExists, "worktree path %s already exists", path)
	}
	wt := Worktree{Path: path, Task: task, Base: src.Base, RepoRoot: src.Root, CommonDir: src.CommonDir}
	_, err = gitCmd{at: inCheckout(src.Root), args: []string{"worktree", "add", "--quiet", "-b", BranchPrefix + task, "--", path, src.Base}}.run(ctx)
	if err == nil {
		// No worker has run yet: the link git just wrote is the one to hold the worktree to.
		if wt.AdminDir, err = wt.adminDir(); err != nil {
			return wt, err
		}
		if wt.GitLink, err = wt.gitLink(); err != nil {
			return wt, err
		}
		if err := CheckLink(wt); err != nil {
			return wt, err
		}
		rememberCreatedIndex(wt)
		return wt, nil
	}
	if ctx.Err() != nil {
		return Worktree{}, ctx.Err()
	}
	// Tell the two refusals apart by asking git, not by reading its messages.
	if _, e := (gitCmd{at: inCheckout(src.Root), args: []string{"rev-parse", "--verify", "-q", wt.Ref()}}).run(ctx); e == nil {
		return Worktree{}, &Error{Code: CodeOwnershipAmbiguous, Reason: ReasonBranchExists, Message: "branch " + BranchPrefix + task + " already exists", Err: err}
	}
	if _, e := os.Lstat(path); e == nil {
		return Worktree{}, &Error{Code: CodeOwnershipAmbiguous, Reason: ReasonPathExists, Message: "worktree path " + path + " already exists", Err: err}
	}
	return Worktree{}, wrap(CodeInternal, ReasonGitFailed, err)
}

// RemoveWorktree deletes the worktree and its administrative files; the branch and its commits
// stay. A worktree whose folder is already gone is pruned.
func RemoveWorktree(ctx context.Context, wt Worktree) error {
	if !filepath.IsAbs(wt.Path) || !filepath.IsAbs(wt.CommonDir) {
		return badInput("RemoveWorktree needs absolute Path and CommonDir")
	}
	forgetCreatedIndex(wt.Path)
	repo := inRepository(wt.CommonDir)
	if _, err := os.Lstat(wt.Path); errors.Is(err, os.ErrNotExist) {
		_, err := git(ctx, CodeInternal, ReasonGitFailed, repo, "worktree", "prune")
		return err
	}
	if CheckLink(wt) != nil {
		// git would follow the rewritten .git to validate the worktree, and refuse it: the
		// folder goes without git, then the repository forgets it.
		if err := os.RemoveAll(wt.Path); err != nil {
			return &Error{Code: CodeInternal, Reason: ReasonGitFailed, Message: "cannot remove the worktree " + wt.Path, Err: err}
		}
		_, err := git(ctx, CodeInternal, ReasonGitFailed, repo, "worktree", "prune")
		return err
	}
	_, err := git(ctx, CodeInternal, ReasonGitFailed, repo, "worktree", "remove", "--force", "--force", "--", wt.Path)
	return err
}

// DiscardWorktree undoes CreateWorktree for a task that never started: the worktree goes and
// so does its branch, but only while the branch still points at the base (a compare-and-swap
// delete), so nothing a task produced is ever lost.
func DiscardWorktree(ctx context.Context, wt Worktree) error {
	if err := RemoveWorktree(ctx, wt); err != nil {
		return err
	}
	if !hex40.MatchString(wt.Base) {
		return badInput("DiscardWorktree needs a resolved base")
	}
	_, err := git(ctx, CodeInternal, ReasonGitFailed, inRepository(wt.CommonDir), "update-ref", "-d", wt.Ref(), wt.Base)
	return err
}
