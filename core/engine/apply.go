package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"reasonixctl/core"
	"reasonixctl/core/gitx"
)

// ApplyToCheckout cherry-picks a completed task's commit onto its source checkout's current
// branch, or with apply false says whether it would. Both run the same checks (planApply), so a
// dry run that says it applies is followed by an apply that does, unless the checkout changes
// in between. It refuses, saying why and what to do, a checkout in the middle of a merge,
// rebase, am, cherry-pick, revert or bisect, a detached HEAD, a branch also checked out in
// another worktree, a change the merge preview says does not apply cleanly, paths the commit
// writes that hold something git does not track (ignored or untracked) or a symlink, a checkout
// with uncommitted changes and a change already on the branch. Nothing is pushed. The result is
// journaled on the task.
func (e *Engine) ApplyToCheckout(ctx context.Context, id string, apply bool) (core.ApplyResult, error) {
	if !core.ValidTaskID(id) {
		return core.ApplyResult{}, core.Errorf(core.CodeInvalidRequest, nil, "task id %q is malformed", id)
	}
	unlock := e.lockTask(id)
	defer unlock()
	r, err := e.load(id)
	if err != nil {
		return core.ApplyResult{}, err
	}
	if r.State != core.StateCompleted || r.CommitHash == "" {
		return core.ApplyResult{}, core.Errorf(core.CodeInvalidState, &core.WrongState{State: r.State},
			"task %s is %s; only a completed task's commit can be applied: finalize it first", id, r.State)
	}
	pl, err := planApply(ctx, r)
	if err != nil || !apply {
		return pl.res, err
	}
	res := pl.res
	newHead, err := gitx.CherryPick(ctx, r.RepoRoot, r.CommitHash, pl.plan, pl.who)
	if err != nil {
		return core.ApplyResult{}, pickFailed(ctx, r, res, err)
	}
	res.Applied, res.NewHead = true, newHead
	if _, err := e.update(id, func(r *taskRecord) ([]newEvent, error) {
		return []newEvent{event(core.EventAppliedToCheckout, core.AppliedData{Checkout: res.Checkout, Branch: res.Branch, Commit: res.Commit,
			Before: res.Head, Applied: newHead, Command: res.Command})}, nil
	}); err != nil {
		return res, core.Errorf(core.CodeInternalError, nil, "applied as %s, but journaling it failed: %w", newHead, err)
	}
	return res, nil
}

// applyPlan is what planApply found: the answer of a dry run, and what the apply needs.
type applyPlan struct {
	res  core.ApplyResult
	plan gitx.ApplyPlan
	who  gitx.Identity
}

// planApply is every check of an apply, in the order a person would fix them: the dry run is
// this and nothing else, and the apply is this followed by the pick. It writes nothing.
func planApply(ctx context.Context, r *taskRecord) (applyPlan, error) {
	id, root := r.TaskID, r.RepoRoot
	res := core.ApplyResult{TaskID: id, Checkout: root, Commit: r.CommitHash, Command: "git cherry-pick " + r.CommitHash}
	co, err := gitx.ReadCheckout(ctx, root)
	if err != nil {
		return applyPlan{}, gitError(err)
	}
	res.Branch, res.Head = co.Branch, co.Head
	switch {
	case co.InProgress != "":
		// First: during a rebase HEAD is detached and the files are the rebase's, and a pick
		// of ours would mix its commit into the person's sequence.
		return applyPlan{}, core.Errorf(core.CodeInvalidState, &core.CheckoutBusy{Checkout: root, Reason: "operation_in_progress", Operation: co.InProgress},
			"%s is in the middle of a %s: finish or abandon it first (%s), then apply again; nothing was changed", root, co.InProgress, gitx.ContinueCommand(co.InProgress))
	case co.Branch == "":
		return applyPlan{}, core.Errorf(core.CodeInvalidState, &core.CheckoutRef{Checkout: root},
			"%s has a detached HEAD, so there is no branch to apply to: check out the branch you want it on (git switch BRANCH) and apply again", root)
	case co.ElsewhereAt != "":
		return applyPlan{}, core.Errorf(core.CodeInvalidState, &core.BranchElsewhere{Checkout: root, Elsewhere: co.ElsewhereAt},
			"branch %s of %s is also checked out at %s, which a commit here would leave behind: apply from one of them only (switch the other to another branch) and apply again", co.Branch, root, co.ElsewhereAt)
	}
	p, err := gitx.PlanApply(ctx, root, r.BaseCommit, r.CommitHash)
	if err != nil {
		return applyPlan{}, wrapError(core.CodeInternalError, err, "merge preview")
	}
	switch {
	case !p.Clean:
		return applyPlan{}, core.Errorf(core.CodeInvalidState, &core.ApplyConflicts{Conflicts: nonNil(p.Conflicts), Head: p.Head},
			"task %s's commit does not apply cleanly to %s (%s at %s): %s conflict; cherry-pick it by hand and resolve them (%s), or start a task from the current HEAD",
			id, root, co.Branch, short12(p.Head), strings.Join(p.Conflicts, ", "), res.Command)
	case len(p.Obstacles) > 0:
		// Before the dirty check: an untracked file here needs moving, not committing, and
		// `git stash` would leave it where it is.
		return applyPlan{}, obstaclesError(id, root, p.Obstacles)
	case len(co.Dirty) > 0:
		return applyPlan{}, core.Errorf(core.CodeDirtyRepository, &core.GitRefusal{Paths: co.Dirty},
			"%s has uncommitted changes (%s): commit or stash them and apply again", root, strings.Join(co.Dirty, ", "))
	}
	if done, err := gitx.AlreadyApplied(ctx, root, r.CommitHash); err != nil {
		return applyPlan{}, gitError(err)
	} else if done {
		return applyPlan{}, core.Errorf(core.CodeInvalidState, &core.HeadRef{Head: co.Head},
			"task %s's change is already on %s of %s: nothing to apply", id, co.Branch, root)
	}
	if p.Head != co.Head {
		return applyPlan{}, core.Errorf(core.CodeInvalidState, nil, "%s moved while it was checked: apply again", root)
	}
	// The committer is part of the decision too: a dry run must not promise an apply that
	// would then fail for want of a name.
	who, err := gitx.ResolveAuthor(ctx, root)
	if err != nil {
		return applyPlan{}, gitError(err)
	}
	return applyPlan{res: res, plan: p, who: who}, nil
}

// obstaclesError refuses an apply whose commit writes where the checkout holds something git
// does not track, or a symlink: cherry-pick would replace an ignored file without a word.
func obstaclesError(id, root string, obs []gitx.Obstacle) error {
	var paths, ignored, untracked, links, named []string
	for _, o := range obs {
		paths = append(paths, o.Path)
		named = append(named, o.Path+" ("+o.Kind+")")
		switch o.Kind {
		case gitx.ObstacleIgnored:
			ignored = append(ignored, o.Path)
		case gitx.ObstacleUntracked:
			untracked = append(untracked, o.Path)
		case gitx.ObstacleSymlink:
			links = append(links, o.Path)
		}
	}
	const most = 50
	if len(named) > most {
		named = append(named[:most], fmt.Sprintf("and %d more", len(obs)-most))
	}
	return core.Errorf(core.CodeOwnershipAmbiguous, &core.PathsInTheWay{
		Checkout: root, Reason: "paths_in_the_way", Paths: capPaths(paths, most),
		Ignored: nonNil(capPaths(ignored, most)), Untracked: nonNil(capPaths(untracked, most)), Symlinks: nonNil(capPaths(links, most)),
	}, "task %s's commit writes where %s holds files of yours that git does not track, or symlinks: %s; applying would replace them (or write through the links). Move them out of the way (or commit them), then apply again; nothing was changed",
		id, root, strings.Join(named, ", "))
}

func capPaths(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// pickFailed reports a pick that did not happen. One refused before it started means the
// checkout changed since planApply: planning again names what changed. One that failed once
// started was undone, and the message says the checkout is as it was only when it was read
// again and found so.
func pickFailed(ctx context.Context, r *taskRecord, res core.ApplyResult, err error) error {
	var ge *gitx.Error
	if !errors.As(err, &ge) || (ge.Reason != gitx.ReasonRestored && ge.Reason != gitx.ReasonNotRestored) {
		if _, again := planApply(ctx, r); again != nil {
			return again
		}
		return core.Errorf(core.CodeInvalidState, &core.CheckoutRef{Checkout: r.RepoRoot},
			"%s changed while it was checked (%v): apply again; nothing was changed", r.RepoRoot, err)
	}
	why := "git failed"
	if ge.Err != nil {
		why = pickReason(ge.Err.Error())
	}
	if ge.Reason == gitx.ReasonRestored {
		return core.Errorf(core.CodeInvalidState, &core.CherryPickFailed{Checkout: r.RepoRoot, Restored: true, Head: res.Head},
			"cherry-picking task %s's commit onto %s failed (%s); nothing of it remains: %s is as it was (branch %s at %s, clean), read again after undoing it", r.TaskID, r.RepoRoot, why, r.RepoRoot, res.Branch, short12(res.Head))
	}
	return core.Errorf(core.CodeInvalidState, &core.CherryPickFailed{Checkout: r.RepoRoot, Restored: false, Head: res.Head, Differs: ge.Paths},
		"cherry-picking task %s's commit onto %s failed (%s), and undoing it did not bring the checkout back: %s. Before the apply, branch %s was at %s and the checkout was clean; look at git status there before doing anything else",
		r.TaskID, r.RepoRoot, why, strings.Join(ge.Paths, "; "), res.Branch, short12(res.Head))
}

// pickReason is the line of git's output that says why a pick failed: the first fatal one
// but "fatal: cherry-pick failed", which says nothing, else the first error.
func pickReason(s string) string {
	var firstErr string
	for _, l := range strings.Split(s, "\n") {
		if i := strings.Index(l, "fatal: "); i >= 0 && !strings.HasSuffix(l, "fatal: cherry-pick failed") {
			return l[i:]
		}
		if i := strings.Index(l, "error: "); i >= 0 && firstErr == "" {
			firstErr = l[i:]
		}
	}
	if firstErr != "" {
		return firstErr
	}
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}

func short12(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return fmt.Sprint(h)
}
