package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"reasonixctl/core"
	"reasonixctl/core/gitx"
	"reasonixctl/core/stats"
	"reasonixctl/store"
)

func newStatsCmd(stdout, stderr io.Writer) *cobra.Command {
	var since, repo string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "stats [--since 7d] [--repo DIR] [--json]",
		Short: "statistics from the task journals: outcomes, timings, permissions, verification, token usage and cost",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var from time.Time
			if since != "" {
				age, err := parseAge(since)
				if err != nil {
					return fmt.Errorf("--since %q: use a whole number of days, hours or minutes, such as 7d, 12h or 90m", since)
				}
				from = time.Now().Add(-age)
			}
			return done(runStats(from, repo, asJSON, stdout, stderr))
		},
	}
	cmd.Flags().StringVar(&since, "since", "", "only what happened in this last period (such as 7d, 12h, 90m); default: everything")
	cmd.Flags().StringVar(&repo, "repo", "", "only tasks of the git checkout containing DIR")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// runStats reads every task's journal with the engine and prints the report. It needs the
// store: while another process owns the state directory it says which one and fails.
func runStats(since time.Time, repoDir string, asJSON bool, stdout, stderr io.Writer) int {
	var repoID string
	if repoDir != "" {
		abs, err := filepath.Abs(repoDir)
		if err == nil {
			var src gitx.Source
			if src, err = gitx.OpenSource(context.Background(), abs, "HEAD"); err == nil {
				repoID = src.ID
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "reasonixctl: --repo %s: %v\n", repoDir, err)
			return 2
		}
	}
	dir, log, closeLog, code := stateAndLog(stderr, false)
	if code != 0 {
		return code
	}
	defer closeLog()
	e, err := core.Open(core.Config{StateDir: dir, Mode: "stats", Logger: log})
	if err != nil {
		var owned *store.OwnedError
		if errors.As(err, &owned) {
			fmt.Fprintf(stderr, "reasonixctl: %v.\nstats reads the task journals from the store, which that process holds; run it when the state directory is free.\n", owned)
			return 1
		}
		return failed(stderr, err)
	}
	defer e.Close()
	tasks, err := loadStatsTasks(context.Background(), e, repoID)
	if err != nil {
		return failed(stderr, err)
	}
	rep := stats.Compute(tasks, since, time.Local)
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return failed(stderr, err)
		}
		return 0
	}
	stats.WriteText(stdout, rep)
	return 0
}

// loadStatsTasks reads every stored task (live, archived and pruned) with its journal; with a
// repository id only that repository's tasks.
func loadStatsTasks(ctx context.Context, e *core.Engine, repoID string) ([]stats.Task, error) {
	stored, err := e.ListStored(ctx, core.ListFilter{All: true})
	if err != nil {
		return nil, err
	}
	out := make([]stats.Task, 0, len(stored))
	for _, st := range stored {
		if repoID != "" && !strings.EqualFold(st.View.RepositoryID, repoID) {
			continue
		}
		evs, err := e.Journal(ctx, st.View.TaskID)
		if err != nil {
			return nil, err
		}
		out = append(out, stats.Task{ID: st.View.TaskID, State: st.View.State, Lane: st.View.WorkerLane, Events: evs})
	}
	return out, nil
}
