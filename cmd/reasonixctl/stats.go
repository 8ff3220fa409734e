package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"reasonixctl/core"
	"reasonixctl/core/engine"
	"reasonixctl/core/gitx"
	"reasonixctl/core/remote"
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

// runStats reads every task's journal and prints the report: with the engine when the state
// directory is free, else through its owner's socket.
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
	var src journals
	e, err := engine.Open(engine.Config{StateDir: dir, Mode: "stats", Logger: log})
	var owned *store.OwnedError
	switch {
	case errors.As(err, &owned):
		// The owner reads the journals for us, through its socket.
		c, derr := remote.Dial(context.Background(), dir, remote.RoleCLI)
		if derr != nil {
			fmt.Fprintf(stderr, "reasonixctl: %v, and its socket does not answer: %v\n", owned, derr)
			return 1
		}
		defer c.Close()
		src = c
	case err != nil:
		return failed(stderr, err)
	default:
		defer e.Close()
		src = e
	}
	tasks, err := loadStatsTasks(context.Background(), src, repoID)
	if err != nil {
		return failed(stderr, err)
	}
	rep := stats.Compute(tasks, since, time.Local)
	if asJSON {
		return printJSON(stdout, stderr, rep)
	}
	stats.WriteText(stdout, rep)
	return 0
}

// journals is where statistics read tasks from: the engine, or the owner's socket.
type journals interface {
	ListStored(ctx context.Context, f core.ListFilter) ([]core.StoredTask, error)
	Journal(ctx context.Context, id string) ([]core.Event, error)
}

// loadStatsTasks reads every stored task (live, archived and pruned) with its journal; with a
// repository id only that repository's tasks.
func loadStatsTasks(ctx context.Context, e journals, repoID string) ([]stats.Task, error) {
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
