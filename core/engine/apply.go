package engine

import (
	"context"
	"fmt"
	"strings"

	"reasonixctl/core"
	"reasonixctl/core/gitx"
)

// ApplyToCheckout cherry-picks a completed task's commit onto its source checkout's current
// branch, or with apply false says whether it would. It refuses, saying why and what to do, a
// checkout with uncommitted changes, a detached HEAD, a branch also checked out in another
// worktree, and a change the merge preview says does not apply cleanly. Nothing is pushed. The
// result is journaled on the task.
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
		return core.ApplyResult{}, core.Errorf(core.CodeInvalidState, map[string]any{"state": r.State},
			"task %s is %s; only a completed task's commit can be applied: finalize it first", id, r.State)
	}
	res := core.ApplyResult{TaskID: id, Checkout: r.RepoRoot, Commit: r.CommitHash, Command: "git cherry-pick " + r.CommitHash}
	co, err := gitx.ReadCheckout(ctx, r.RepoRoot)
	if err != nil {
		return core.ApplyResult{}, gitError(err)
	}
	res.Branch, res.Head = co.Branch, co.Head
	switch {
	case co.Branch == "":
		return core.ApplyResult{}, core.Errorf(core.CodeInvalidState, map[string]any{"checkout": r.RepoRoot},
			"%s has a detached HEAD, so there is no branch to apply to: check out the branch you want it on (git switch BRANCH) and apply again", r.RepoRoot)
	case co.ElsewhereAt != "":
		return core.ApplyResult{}, core.Errorf(core.CodeInvalidState, map[string]any{"checkout": r.RepoRoot, "elsewhere": co.ElsewhereAt},
			"branch %s of %s is also checked out at %s, which a commit here would leave behind: apply from one of them only (switch the other to another branch) and apply again", co.Branch, r.RepoRoot, co.ElsewhereAt)
	case len(co.Dirty) > 0:
		return core.ApplyResult{}, core.Errorf(core.CodeDirtyRepository, map[string]any{"paths": co.Dirty},
			"%s has uncommitted changes (%s): commit or stash them and apply again", r.RepoRoot, strings.Join(co.Dirty, ", "))
	}
	p, err := gitx.PreviewApply(ctx, r.RepoRoot, r.BaseCommit, r.CommitHash)
	if err != nil {
		return core.ApplyResult{}, core.Errorf(core.CodeInternalError, nil, "merge preview: %w", err)
	}
	if !p.Clean {
		return core.ApplyResult{}, core.Errorf(core.CodeInvalidState, map[string]any{"conflicts": nonNil(p.Conflicts), "head": p.Head},
			"task %s's commit does not apply cleanly to %s (%s at %s): %s conflict; cherry-pick it by hand and resolve them (%s), or start a task from the current HEAD",
			id, r.RepoRoot, co.Branch, short12(p.Head), strings.Join(p.Conflicts, ", "), res.Command)
	}
	if done, err := gitx.AlreadyApplied(ctx, r.RepoRoot, r.CommitHash); err != nil {
		return core.ApplyResult{}, gitError(err)
	} else if done {
		return core.ApplyResult{}, core.Errorf(core.CodeInvalidState, map[string]any{"head": co.Head},
			"task %s's change is already on %s of %s: nothing to apply", id, co.Branch, r.RepoRoot)
	}
	if p.Head != co.Head {
		return core.ApplyResult{}, core.Errorf(core.CodeInvalidState, nil, "%s moved while it was checked: apply again", r.RepoRoot)
	}
	if !apply {
		return res, nil
	}
	who, err := gitx.ResolveAuthor(ctx, r.RepoRoot)
	if err != nil {
		return core.ApplyResult{}, gitError(err)
	}
	newHead, err := gitx.CherryPick(ctx, r.RepoRoot, r.CommitHash, co.Head, who)
	if err != nil {
		return core.ApplyResult{}, core.Errorf(core.CodeInvalidState, nil, "cherry-picking onto %s failed, and the checkout was left as it was: %v", r.RepoRoot, err)
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

func short12(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return fmt.Sprint(h)
}
