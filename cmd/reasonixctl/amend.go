package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"reasonixctl/core"
)

// newTaskAmendCmd is `task amend ID [--drop ID]... [--add-json CHECK]... [--json]`: drop or add
// verification commands of a task in review, as reasonix_control action amend_checks does.
func newTaskAmendCmd(stdout, stderr io.Writer) *cobra.Command {
	var drop, add []string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "amend ID [--drop CHECK]... [--add-json JSON]... [--json]",
		Short: "drop or add verification commands of a task in review (a new contract revision)",
		Long: `amend changes the verification commands of a task in review_required, as the dashboard's D
key and reasonix_control action amend_checks do: --drop names a verification id of the
task's contract, --add-json adds a command as {"id": ..., "argv": [...], "cwd": ..., "timeout_seconds": ...}
(cwd and timeout_seconds optional); an added check proves a new criterion "<id>-passes", and a
criterion no check proves any more is left to review at finalize. The contract gets a new
revision and hash, journaled, and the worker is told at its next prompt.`,
		Example:           `  reasonixctl task amend fix-login --drop go-vet --add-json '{"id":"unit","argv":["go","test","./auth/..."]}'`,
		Args:              exactArgs(1, "exactly one task id"),
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(drop) == 0 && len(add) == 0 {
				return fmt.Errorf("amend needs --drop or --add-json")
			}
			checks := make([]core.AddedCheck, len(add))
			for i, raw := range add {
				d := json.NewDecoder(bytes.NewReader([]byte(raw)))
				d.DisallowUnknownFields()
				if err := d.Decode(&checks[i]); err != nil {
					return fmt.Errorf("--add-json %s: %w", raw, err)
				}
				if d.More() {
					return fmt.Errorf("--add-json %s: one JSON object per flag", raw)
				}
			}
			return done(taskAmend(core.AmendChecks{TaskID: args[0], DropChecks: drop, AddChecks: checks}, asJSON, stdout, stderr))
		},
	}
	cmd.Flags().StringArrayVar(&drop, "drop", nil, "a verification id to drop (repeatable)")
	cmd.Flags().StringArrayVar(&add, "add-json", nil, `a check to add, as JSON {"id","argv","cwd","timeout_seconds"} (repeatable)`)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the task's view as JSON")
	return cmd
}

func taskAmend(req core.AmendChecks, asJSON bool, stdout, stderr io.Writer) int {
	return withEngine("task amend", stderr, func(e retention) int {
		v, err := e.Control(context.Background(), req)
		if err != nil {
			return failed(stderr, err)
		}
		if asJSON {
			return printJSON(stdout, stderr, v)
		}
		var what []string
		if len(req.DropChecks) > 0 {
			what = append(what, "dropped "+strings.Join(req.DropChecks, ", "))
		}
		for _, a := range req.AddChecks {
			what = append(what, fmt.Sprintf("added %s (proves %s%s)", a.ID, a.ID, core.AddedCheckSuffix))
		}
		fmt.Fprintf(stdout, "Amended task %s's checks: %s. Contract hash %s; the worker is told at its next prompt.\n",
			v.TaskID, strings.Join(what, "; "), v.ContractHash)
		return 0
	})
}
