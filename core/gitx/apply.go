package gitx

import (
	"context"
	"path/filepath"
	"strings"
	"time"
)

// Checkout is what applying a commit to the person's checkout needs to know of it.
type Checkout struct {
	Head   string   // HEAD commit; empty when unborn
	Branch string   // the checked-out branch; empty when HEAD is detached
	Dirty  []string // uncommitted changes, staged, unstaged or untracked (up to 50)
	// ElsewhereAt is another worktree of the repository that has Branch checked out too.
	ElsewhereAt string
	// InProgress names an operation of the person's under way in the checkout (merge, rebase,
	// am, cherry-pick, revert, bisect; see ContinueCommand); empty when none is.
	InProgress string
}

// ReadCheckout reads root's HEAD, branch and status, the operation under way in it, and
// whether its branch is also checked out in another worktree of the repository. It writes
// nothing.
func ReadCheckout(ctx context.Context, root string) (Checkout, error) {
	st, err := sourceStatus(ctx, root, true)
	if err != nil {
		return Checkout{}, wrap(CodeInternal, ReasonGitFailed, err)
	}
	c := Checkout{Head: st.head, Branch: st.branch, Dirty: limitPaths(st.paths(nil))}
	if c.InProgress, err = inProgress(ctx, root); err != nil {
		return Checkout{}, err
	}
	if c.Branch == "" {
		return c, nil
	}
	out, err := gitCmd{at: inCheckout(root), args: []string{"worktree", "list", "--porcelain", "-z"}}.run(ctx)
	if err != nil {
		return Checkout{}, wrap(CodeInternal, ReasonGitFailed, err)
	}
	self, _ := filepath.EvalSymlinks(root)
	var at string
	for _, f := range strings.Split(string(out), "\x00") {
		switch {
		case strings.HasPrefix(f, "worktree "):
			at = strings.TrimPrefix(f, "worktree ")
		case f == "branch refs/heads/"+c.Branch:
			real, err := filepath.EvalSymlinks(at)
			if err != nil {
				real = at
			}
			if real != self {
				c.ElsewhereAt = at
			}
		}
	}
	return c, nil
}

// CherryPick applies commit onto root's current branch with `git cherry-pick`, as who as the
// committer (the commit keeps its author), following plan (PlanApply's, for this commit). It
// starts only while the checkout is still as planned — HEAD at plan.Head, clean, no operation
// under way, nothing in the way of the paths it writes — and otherwise refuses, having changed
// nothing. It returns the new HEAD.
//
// A pick that fails once started is undone (restoreAfterPick) and the checkout read again: the
// error's Reason is ReasonRestored only when it is then as it was, and ReasonNotRestored, with
// what differs in Paths, otherwise. Nothing of the person's is aborted: a cherry-pick of theirs
// cannot be under way, since the pick would not have started.
func CherryPick(ctx context.Context, root, commit string, plan ApplyPlan, who Identity) (string, error) {
	for _, h := range []string{commit, plan.Head} {
		if !hex40.MatchString(h) {
			return "", badInput("CherryPick: %q is not a 40-hex object name", h)
		}
	}
	before, err := readCheckoutState(ctx, root)
	if err != nil {
		return "", err
	}
	switch {
	case before.head != plan.Head:
		return "", newErr(CodeInvalidRequest, ReasonHeadMoved, "the checkout's HEAD moved from %s since it was checked", plan.Head[:12])
	case before.op != "":
		return "", newErr(CodeInvalidRequest, ReasonInProgress, "a %s is under way in the checkout", before.op)
	case before.branch == "":
		return "", newErr(CodeInvalidRequest, ReasonBadRef, "the checkout's HEAD is detached")
	case len(before.entries) > 0:
		return "", &Error{Code: CodeDirtyRepository, Reason: ReasonBadInput, Message: "the checkout has uncommitted changes", Paths: limitPaths(before.status().paths(nil))}
	}
	// The last look before writing: the person may have put something in the way since.
	obs, _, err := obstaclesAt(ctx, root, plan.Added, plan.Changed)
	if err != nil {
		return "", err
	}
	if len(obs) > 0 {
		paths := make([]string, len(obs))
		for i, o := range obs {
			paths[i] = o.Path
		}
		return "", &Error{Code: CodeOwnershipAmbiguous, Reason: ReasonPathsInTheWay, Message: "files of the checkout are in the way", Paths: limitPaths(paths)}
	}
	env := []string{"GIT_COMMITTER_NAME=" + who.Name, "GIT_COMMITTER_EMAIL=" + who.Email}
	if _, err := (gitCmd{at: inCheckout(root), args: []string{"cherry-pick", "--no-rerere-autoupdate", commit}, env: env}).run(ctx); err != nil {
		// The caller's context may be what ended the pick; restoring must run regardless.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), restoreTimeout)
		defer cancel()
		if differs := restoreAfterPick(rctx, root, commit, before, plan); len(differs) > 0 {
			return "", &Error{Code: CodeCommitFailed, Reason: ReasonNotRestored, Message: "the cherry-pick failed and the checkout could not be restored", Paths: differs, Err: err}
		}
		return "", &Error{Code: CodeCommitFailed, Reason: ReasonRestored, Message: "the cherry-pick failed; the checkout was restored", Err: err}
	}
	out, err := git(ctx, CodeInternal, ReasonGitFailed, inCheckout(root), "rev-parse", "--verify", "-q", "HEAD^{commit}")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// restoreTimeout bounds undoing a failed pick.
const restoreTimeout = 30 * time.Second

// AlreadyApplied reports whether root's HEAD already has commit, or a commit with the same
// change (by patch id, as `git cherry` compares them), commit's parent being where it started.
func AlreadyApplied(ctx context.Context, root, commit string) (bool, error) {
	if !hex40.MatchString(commit) {
		return false, badInput("AlreadyApplied: %q is not a 40-hex object name", commit)
	}
	// The very commit may be on the branch (a cherry-pick in the same second by the same
	// committer makes the identical commit).
	if _, err := (gitCmd{at: inCheckout(root), args: []string{"merge-base", "--is-ancestor", commit, "HEAD"}}).run(ctx); err == nil {
		return true, nil
	} else if exitCode(err) != 1 {
		return false, wrap(CodeInternal, ReasonGitFailed, err)
	}
	out, err := git(ctx, CodeInternal, ReasonGitFailed, inCheckout(root), "cherry", "HEAD", commit, commit+"^")
	if err != nil {
		return false, err
	}
	return strings.HasPrefix(strings.TrimSpace(string(out)), "- "), nil
}
