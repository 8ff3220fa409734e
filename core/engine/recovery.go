package engine

import (
	"context"
	"time"

	"reasonixctl/core"
	"reasonixctl/core/gitx"
)

// recoveryGitBudget bounds the git work of recovering one task at start-up.
const recoveryGitBudget = 30 * time.Second

// recover brings back every task a previous owner left in flight; it runs before this owner
// starts anything. First the worker and verifier process groups the previous owner left are
// killed. Then, by state:
//   - provisioning: the worker never got a prompt, so the task is undone (worktree, branch still
//     at the base, record), exactly as when its worker cannot start; the same delegate can be
//     sent again;
//   - verifying: the finalize transaction is undone (a commit it made but never recorded is
//     rolled back, the index is reset) and the task returns to review to be finalized again;
//   - running or waiting: its worker is gone, so it pauses for the supervisor to resume;
//   - review_required and paused stay as they are.
//
// A task whose repair fails is paused (restart_recovery), which can always be cancelled.
func (e *Engine) recover() error {
	// Ending what a killed owner left is this start's job, not news: only a failure warns.
	if killed, err := e.procs.Reap(); err != nil {
		e.log.Warn("could not end every process group left by the previous owner", "groups", killed, "err", err)
	} else if len(killed) > 0 {
		e.log.Info("ended process groups left by the previous owner", "groups", killed)
	}
	recs, err := e.store.List()
	if err != nil {
		return core.Errorf(core.CodeInternalError, nil, "listing tasks: %w", err)
	}
	for _, rec := range recs {
		r, err := decodeRecord(rec.Data)
		if err != nil {
			e.log.Warn("skipping unreadable task at startup", "task", rec.TaskID, "err", err)
			continue
		}
		if r.RebaseIntent != nil {
			ctx, cancel := context.WithTimeout(context.Background(), recoveryGitBudget)
			moved, err := e.finishRebase(ctx, r.TaskID)
			cancel()
			switch {
			case err != nil:
				e.log.Warn("could not settle a rebase interrupted by a restart", "task", r.TaskID, "err", err)
			case moved:
				e.log.Info("recorded a rebase interrupted by a restart", "task", r.TaskID, "onto", r.RebaseIntent.Onto)
			}
		}
		if !r.State.Working() {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), recoveryGitBudget)
		err = e.recoverTask(ctx, r)
		cancel()
		if err != nil {
			return err
		}
	}
	return nil
}

func (e *Engine) recoverTask(ctx context.Context, r *taskRecord) error {
	why := "reasonixctl restarted while the task was " + string(r.State)
	switch r.State {
	case core.StateProvisioning:
		err := gitx.DiscardInterrupted(ctx, e.worktreeOf(r))
		if err == nil {
			if err = e.store.Delete(r.TaskID); err == nil {
				e.changed(r.TaskID)
				e.log.Info("undid a task whose delegate was interrupted", "task", r.TaskID)
				return nil
			}
		}
		e.log.Warn("could not undo an interrupted delegate", "task", r.TaskID, "err", err)
		why += "; undoing it failed: " + err.Error()
	case core.StateVerifying:
		// A finalize cut short while its checks ran left the .git link aside.
		if err := gitx.RestoreLink(e.worktreeOf(r)); err != nil {
			e.log.Warn("could not restore the worktree's .git link", "task", r.TaskID, "err", err)
		}
		rolledBack, err := gitx.RecoverCommit(ctx, e.worktreeOf(r), r.ReviewTreeHash)
		if err == nil {
			return e.recoverToReview(ctx, r, rolledBack)
		}
		e.log.Warn("could not undo an interrupted finalize", "task", r.TaskID, "err", err)
		why += "; undoing the finalize failed: " + err.Error()
	}
	_, err := e.update(r.TaskID, func(r *taskRecord) ([]newEvent, error) {
		evs := cancelInteractions(r, e.now())
		ev, err := setState(r, core.StatePaused, core.PhaseRestartRecovery, why)
		if err != nil {
			return nil, err
		}
		return append(evs, ev), nil
	})
	return err
}

// recoverToReview returns an interrupted finalize to review, re-capturing the tree as a failed
// finalize does: an unchanged worktree keeps its revision, so the same approval applies.
func (e *Engine) recoverToReview(ctx context.Context, r *taskRecord, rolledBack string) error {
	reason := core.PhaseRestartRecovery + ": reasonixctl restarted during finalize (" + r.Phase + "); finalize again"
	if rolledBack != "" {
		reason += "; the unrecorded commit " + rolledBack + " was rolled back"
	}
	apply := func(r *taskRecord) ([]newEvent, error) {
		ev, err := setState(r, core.StateReviewRequired, core.PhaseRepairRequired, reason)
		return []newEvent{ev}, err
	}
	rev, err := gitx.BuildReview(ctx, e.worktreeOf(r))
	if err != nil {
		_, err = e.update(r.TaskID, apply)
		return err
	}
	return e.saveReview(ctx, r.TaskID, rev, apply)
}
