package gitx

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// The functions here repair what a process killed in the middle of CreateWorktree or Commit
// left behind. They assume that nothing else works on the task: the caller owns the state
// directory, and every git process of the killed owner died with it (see exec.go), so a lock
// file of the task's index or branch is stale.

// removeStaleLocks deletes the lock files a killed git leaves on the task's branch and, when the
// worktree exists, on its index and its HEAD (moving the branch checked out there locks HEAD too).
func removeStaleLocks(wt Worktree) error {
	locks := []string{filepath.Join(wt.CommonDir, filepath.FromSlash(wt.Ref())+".lock")}
	if gitDir, err := wt.adminDir(); err == nil {
		locks = append(locks, filepath.Join(gitDir, "index.lock"), filepath.Join(gitDir, "HEAD.lock"))
	}
	for _, l := range locks {
		if err := os.Remove(l); err != nil && !errors.Is(err, os.ErrNotExist) {
			return &Error{Code: CodeInternal, Reason: ReasonGitFailed, Message: "cannot remove the stale lock " + l, Err: err}
		}
	}
	return nil
}

// branchAt returns the commit the task branch points at, or "" when it does not exist.
func branchAt(ctx context.Context, wt Worktree) (string, error) {
	out, err := gitCmd{at: inRepository(wt.CommonDir), args: []string{"for-each-ref", "--format=%(objectname)", wt.Ref()}}.run(ctx)
	if err != nil {
		return "", wrap(CodeInternal, ReasonGitFailed, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// DiscardInterrupted undoes a CreateWorktree that may not have finished: the worktree goes if
// it exists, and the branch goes if it exists and still points at the base.
func DiscardInterrupted(ctx context.Context, wt Worktree) error {
	if !filepath.IsAbs(wt.Path) || !filepath.IsAbs(wt.CommonDir) || !hex40.MatchString(wt.Base) {
		return badInput("DiscardInterrupted needs absolute Path and CommonDir and a resolved base")
	}
	if err := removeStaleLocks(wt); err != nil {
		return err
	}
	if err := RemoveWorktree(ctx, wt); err != nil {
		return err
	}
	at, err := branchAt(ctx, wt)
	if err != nil || at == "" {
		return err
	}
	if at != wt.Base {
		return newErr(CodeOwnershipAmbiguous, ReasonHeadMoved, "branch %s moved to %s; it is kept", BranchPrefix+wt.Task, at)
	}
	_, err = git(ctx, CodeInternal, ReasonGitFailed, inRepository(wt.CommonDir), "update-ref", "-d", wt.Ref(), wt.Base)
	return err
}

// RecoverCommit undoes a Commit that may not have finished: stale locks go, a branch already
// moved to a commit of the reviewed tree on the base is swapped back to the base (the record
// never learnt of that commit), and the index is reset to HEAD. It returns the commit it rolled
// back, if any. A branch anywhere else is ownership_ambiguous and left alone.
func RecoverCommit(ctx context.Context, wt Worktree, reviewedTree string) (string, error) {
	if !filepath.IsAbs(wt.Path) || !filepath.IsAbs(wt.CommonDir) || !hex40.MatchString(wt.Base) {
		return "", badInput("RecoverCommit needs absolute Path and CommonDir and a resolved base")
	}
	if err := removeStaleLocks(wt); err != nil {
		return "", err
	}
	at, err := branchAt(ctx, wt)
	if err != nil {
		return "", err
	}
	rolledBack := ""
	switch at {
	case wt.Base:
	case "":
		return "", newErr(CodeOwnershipAmbiguous, ReasonWrongBranch, "branch %s is gone", BranchPrefix+wt.Task)
	default:
		out, err := git(ctx, CodeInternal, ReasonGitFailed, inRepository(wt.CommonDir), "show", "-s", "--format=%T %P", at)
		if err != nil {
			return "", err
		}
		if strings.TrimSpace(string(out)) != reviewedTree+" "+wt.Base {
			return "", newErr(CodeOwnershipAmbiguous, ReasonHeadMoved, "branch %s moved to %s, which is not the reviewed tree on the base", BranchPrefix+wt.Task, at)
		}
		if _, err := git(ctx, CodeCommitFailed, ReasonGitFailed, inRepository(wt.CommonDir), "update-ref", "-m", "reasonixctl: roll back an unrecorded commit", wt.Ref(), wt.Base, at); err != nil {
			return "", err
		}
		rolledBack = at
	}
	admin, err := wt.adminDir()
	if err != nil {
		return rolledBack, err
	}
	// The branch is at the base now: the index goes back to it, read by the repository's side.
	if _, err := git(ctx, CodeInternal, ReasonGitFailed, inAdminDir(admin), "read-tree", wt.Base); err != nil {
		return rolledBack, err
	}
	return rolledBack, nil
}
