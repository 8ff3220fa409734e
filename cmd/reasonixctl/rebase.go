package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"reasonixctl/core"
	"reasonixctl/core/engine"
)

// newTaskRebaseCmd is `task rebase ID [--json]`: move a task in review whose change no longer
// applies onto its checkout's current HEAD, with a repair round for the conflicts.
func newTaskRebaseCmd(stdout, stderr io.Writer) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "rebase ID [--json]",
		Short: "move a task in review whose change no longer applies onto its checkout's current HEAD, the worker resolving the conflicts",
		Long: `rebase merges a task's reviewed change onto the current HEAD of the checkout it was started
from, writes the result into the task's worktree with conflict markers where the merge could not
settle, makes that HEAD the task's base and starts a repair round asking the worker to resolve
the conflicts. Its review is then a new revision, and finalize commits on the new base. Only a
task in review whose change conflicts with the HEAD is rebased; the worker needs a running owner
of the state directory (the dashboard, reasonixctl serve or --mcp).`,
		Args:              exactArgs(1, "exactly one task id"),
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, args []string) error {
			return done(taskRebase(args[0], asJSON, stdout, stderr))
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the task as JSON")
	return cmd
}

func taskRebase(id string, asJSON bool, stdout, stderr io.Writer) int {
	return withEngine("task rebase", stderr, func(e retention) int {
		if _, local := e.(*engine.Engine); local {
			// The repair round's worker would end with this process.
			return failed(stderr, core.Errorf(core.CodeInvalidState, nil,
				"no reasonixctl owns the state directory, and the repair round a rebase starts needs one: start the dashboard or `reasonixctl serve` and rebase again"))
		}
		v, err := e.Control(context.Background(), core.Rebase{TaskID: id})
		if err != nil {
			return failed(stderr, err)
		}
		if asJSON {
			return printJSON(stdout, stderr, v)
		}
		fmt.Fprintf(stdout, "Rebased task %s onto its checkout's current HEAD; repair round %d/%d asks the worker to resolve the conflicts (%s, %s).\n",
			v.TaskID, v.RepairRounds, core.MaxRepairRounds, v.State, v.Phase)
		return 0
	})
}
