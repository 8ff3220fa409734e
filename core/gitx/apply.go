package gitx

import (
	"context"
	"path/filepath"
	"strings"
)

// Checkout is what applying a commit to the person's checkout needs to know of it.
type Checkout struct {
	Head   string   // HEAD commit; empty when unborn
	Branch string   // the checked-out branch; empty when HEAD is detached
	Dirty  []string // uncommitted changes, staged, unstaged or untracked (up to 50)
	// ElsewhereAt is another worktree of the repository that has Branch checked out too.
	ElsewhereAt string
}

// ReadCheckout reads root's HEAD, branch and status, and whether its branch is also checked
// out in another worktree of the repository. It writes nothing.
func ReadCheckout(ctx context.Context, root string) (Checkout, error) {
	st, err := sourceStatus(ctx, root, true)
	if err != nil {
		return Checkout{}, wrap(CodeInternal, ReasonGitFailed, err)
	}
	c := Checkout{Head: st.head, Branch: st.branch, Dirty: limitPaths(st.paths(nil))}
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
// committer (the commit keeps its author), provided HEAD is still expectHead. It returns the
// new HEAD. A cherry-pick that stops (a conflict the preview did not foresee) is aborted, so
// the checkout is left as it was.
func CherryPick(ctx context.Context, root, commit, expectHead string, who Identity) (string, error) {
	for _, h := range []string{commit, expectHead} {
		if !hex40.MatchString(h) {
			return "", badInput("CherryPick: %q is not a 40-hex object name", h)
		}
	}
	head, err := git(ctx, CodeNotGitRepository, ReasonBadRef, inCheckout(root), "rev-parse", "--verify", "-q", "HEAD^{commit}")
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(string(head)) != expectHead {
		return "", newErr(CodeInvalidRequest, ReasonHeadMoved, "the checkout's HEAD moved from %s since it was checked", expectHead[:12])
	}
	env := []string{"GIT_COMMITTER_NAME=" + who.Name, "GIT_COMMITTER_EMAIL=" + who.Email}
	if _, err := (gitCmd{at: inCheckout(root), args: []string{"cherry-pick", "--no-rerere-autoupdate", commit}, env: env}).run(ctx); err != nil {
		_, _ = gitCmd{at: inCheckout(root), args: []string{"cherry-pick", "--abort"}}.run(ctx)
		return "", wrap(CodeCommitFailed, ReasonGitFailed, err)
	}
	out, err := git(ctx, CodeInternal, ReasonGitFailed, inCheckout(root), "rev-parse", "--verify", "-q", "HEAD^{commit}")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

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
