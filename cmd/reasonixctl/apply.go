package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"reasonixctl/core"
)

// newTaskApplyCmd is `task apply ID [--apply] [--json]`: cherry-pick a completed task's commit
// onto its source checkout's current branch; a dry run without --apply. Nothing is pushed.
func newTaskApplyCmd(stdout, stderr io.Writer) *cobra.Command {
	var apply, asJSON bool
	cmd := &cobra.Command{
		Use:   "apply ID [--apply] [--json]",
		Short: "cherry-pick a completed task's commit onto its checkout's current branch (a dry run without --apply)",
		Long: `apply cherry-picks a completed task's commit onto the current branch of the checkout the task
was started from, when that checkout is clean, has no merge, rebase, am, cherry-pick, revert or
bisect under way, is on a branch (not a detached HEAD) checked out nowhere else, the merge
preview says the commit applies without conflicts, and no path it writes holds an ignored or
untracked file or is (or lies under) a symlink. Without --apply it only says what would happen,
from the same checks. A cherry-pick that fails once started is undone, and says whether the
checkout is as it was only after reading it again. Nothing is ever pushed; the result is
journaled on the task.`,
		Args:              exactArgs(1, "exactly one task id"),
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, args []string) error {
			return done(taskApply(args[0], apply, asJSON, stdout, stderr))
		},
	}
	cmd.Flags().BoolVar(&apply, "apply", false, "cherry-pick (without it, only say what would happen)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

func taskApply(id string, apply, asJSON bool, stdout, stderr io.Writer) int {
	return withEngine("task apply", stderr, func(e retention) int {
		res, err := e.ApplyToCheckout(context.Background(), id, apply)
		if err != nil {
			return failed(stderr, err)
		}
		if asJSON {
			return printJSON(stdout, stderr, res)
		}
		if !res.Applied {
			fmt.Fprintf(stdout, "Dry run, nothing was changed. Task %s's commit %s applies cleanly to %s (branch %s at %s).\n",
				res.TaskID, short(res.Commit), res.Checkout, res.Branch, short(res.Head))
			fmt.Fprintf(stdout, "It would run: %s\nRun again with --apply to apply it (nothing is pushed).\n", res.Command)
			return 0
		}
		fmt.Fprintf(stdout, "Applied task %s's commit %s to %s: branch %s is now at %s (was %s). Nothing was pushed.\n",
			res.TaskID, short(res.Commit), res.Checkout, res.Branch, short(res.NewHead), short(res.Head))
		return 0
	})
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// ApplyToCheckout forwards to the owner (an engine, or a socket client).
func (a *attachment) ApplyToCheckout(ctx context.Context, taskID string, apply bool) (core.ApplyResult, error) {
	return through(a, func(s core.Service) (core.ApplyResult, error) {
		return s.ApplyToCheckout(ctx, taskID, apply)
	})
}
