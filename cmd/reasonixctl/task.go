package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"reasonixctl/core"
	"reasonixctl/core/engine"
	"reasonixctl/core/remote"
	"reasonixctl/core/safetext"
	"reasonixctl/store"
)

// retention is what the task commands need of an engine: the one this process opens, or the
// owner's through its socket when another process owns the state directory.
type retention interface {
	Control(ctx context.Context, cmd core.Command) (core.TaskView, error)
	ListStored(ctx context.Context, f core.ListFilter) ([]core.StoredTask, error)
	Archive(ctx context.Context, id string, apply bool) (core.ArchiveResult, error)
	Prune(ctx context.Context, olderThan time.Duration, apply bool) ([]core.PruneResult, error)
	ApplyToCheckout(ctx context.Context, taskID string, apply bool) (core.ApplyResult, error)
}

var (
	_ retention = (*engine.Engine)(nil)
	_ retention = (*remote.Client)(nil)
)

// withEngine opens the state directory for one task command and runs fn with it; when another
// process owns the directory, fn runs through that owner's socket instead.
func withEngine(mode string, stderr io.Writer, fn func(retention) int) int {
	dir, log, closeLog, code := stateAndLog(stderr, false)
	if code != 0 {
		return code
	}
	defer closeLog()
	e, err := engine.Open(engine.Config{StateDir: dir, Mode: mode, Logger: log})
	var owned *store.OwnedError
	if errors.As(err, &owned) {
		c, derr := remote.Dial(context.Background(), dir, remote.RoleCLI)
		if derr == nil {
			defer c.Close()
			log.Info("running through the owner's socket", "command", mode, "owner_pid", c.Owner().PID)
			return fn(c)
		}
		// The owner may have exited between the two: then the directory is ours to open.
		if e, err = engine.Open(engine.Config{StateDir: dir, Mode: mode, Logger: log}); errors.As(err, &owned) {
			return failed(stderr, fmt.Errorf("%w, and its socket does not answer: %w", err, derr))
		}
	}
	if err != nil {
		return failed(stderr, err)
	}
	defer e.Close()
	return fn(e)
}

// failed reports err and returns its exit code.
func failed(stderr io.Writer, err error) int {
	fmt.Fprintln(stderr, "reasonixctl:", err)
	var ce *core.Error
	if errors.As(err, &ce) && ce.Code == core.CodeInvalidRequest {
		return 2
	}
	return 1
}

// listedTask is one row of `task list --json`: the task view with where the task is stored.
type listedTask struct {
	core.TaskView
	Storage    core.Storage `json:"storage"`
	CreatedAt  string       `json:"created_at"`
	ArchivedAt string       `json:"archived_at,omitempty"`
	PrunedAt   string       `json:"pruned_at,omitempty"`
}

const timeLayout = "2006-01-02T15:04:05.000Z07:00"

func formatOptional(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(timeLayout)
}

func newTaskListCmd(stdout, stderr io.Writer) *cobra.Command {
	var all, asJSON bool
	cmd := &cobra.Command{
		Use:   "list [--all] [--json]",
		Short: "list live tasks (with --all: finished, archived and pruned ones too)",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return done(taskList(all, asJSON, stdout, stderr))
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "include finished, archived and pruned tasks")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func taskList(all, asJSON bool, stdout, stderr io.Writer) int {
	return withEngine("task list", stderr, func(e retention) int {
		tasks, err := e.ListStored(context.Background(), core.ListFilter{All: all})
		if err != nil {
			return failed(stderr, err)
		}
		if asJSON {
			rows := make([]listedTask, len(tasks))
			for i, t := range tasks {
				rows[i] = listedTask{TaskView: t.View, Storage: t.Storage, CreatedAt: t.CreatedAt.UTC().Format(timeLayout),
					ArchivedAt: formatOptional(t.ArchivedAt), PrunedAt: formatOptional(t.PrunedAt)}
			}
			return printJSON(stdout, stderr, rows)
		}
		if len(tasks) == 0 {
			fmt.Fprintln(stdout, "No tasks.")
			return 0
		}
		if !isTerminal(stdout) {
			// One tab-separated line per task, for scripts.
			for _, t := range tasks {
				fmt.Fprintf(stdout, "%s\t%s\t%s\t%s\t%s\n", t.View.TaskID, t.View.State, t.Storage, t.View.Branch, t.View.UpdatedAt)
			}
			return 0
		}
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "TASK\tSTATE\tSTORAGE\tBRANCH\tUPDATED")
		for _, t := range tasks {
			updated := t.View.UpdatedAt
			if at, err := time.Parse(time.RFC3339Nano, updated); err == nil {
				updated = at.Local().Format("2006-01-02 15:04")
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t.View.TaskID, t.View.State, t.Storage, t.View.Branch, updated)
		}
		if err := tw.Flush(); err != nil {
			return failed(stderr, err)
		}
		return 0
	})
}

// isTerminal says whether w is a terminal, where output is for a person rather than a script.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func newTaskArchiveCmd(stdout, stderr io.Writer) *cobra.Command {
	var apply bool
	cmd := &cobra.Command{
		Use:   "archive ID [--apply]",
		Short: "archive a finished task: remove its worktree, keep its branch (a dry run without --apply)",
		Args:  exactArgs(1, "exactly one task id"),
		// Task ids come from the state directory, which completion must not open.
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, args []string) error {
			return done(taskArchive(args[0], apply, stdout, stderr))
		},
	}
	cmd.Flags().BoolVar(&apply, "apply", false, "remove the worktree (without it, only say what would happen)")
	return cmd
}

func taskArchive(id string, apply bool, stdout, stderr io.Writer) int {
	return withEngine("task archive", stderr, func(e retention) int {
		res, err := e.Archive(context.Background(), id, apply)
		if err != nil {
			return failed(stderr, err)
		}
		worktree, deleted, kept := "remove worktree ", "delete ", "keep branch "
		if res.Applied {
			worktree, deleted, kept = "removed worktree ", "deleted ", "kept branch "
			fmt.Fprintf(stdout, "Archived task %s (%s):\n", res.TaskID, res.State)
		} else {
			fmt.Fprintf(stdout, "Dry run, nothing was changed. Archiving task %s (%s) would:\n", res.TaskID, res.State)
		}
		if res.Worktree != "" {
			fmt.Fprintf(stdout, "  %s%s\n", worktree, res.Worktree)
		} else {
			fmt.Fprintln(stdout, "  (the worktree is already gone)")
		}
		for _, p := range res.Deleted {
			fmt.Fprintf(stdout, "  %s%s\n", deleted, p)
		}
		fmt.Fprintf(stdout, "  %s%s at %s\n", kept, res.Branch, res.Head)
		if !res.Applied {
			fmt.Fprintln(stdout, "Run again with --apply to archive it.")
		}
		return 0
	})
}

var ageSyntax = regexp.MustCompile(`^(0|[1-9][0-9]*)([dhm])$`)

// parseAge reads an age such as 30d, 12h or 90m.
func parseAge(s string) (time.Duration, error) {
	m := ageSyntax.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("--older-than %q: use a whole number of days, hours or minutes, such as 30d, 12h or 90m", s)
	}
	unit := map[string]time.Duration{"d": 24 * time.Hour, "h": time.Hour, "m": time.Minute}[m[2]]
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil || n > math.MaxInt64/int64(unit) {
		return 0, fmt.Errorf("--older-than %q is too large", s)
	}
	return time.Duration(n) * unit, nil
}

func newTaskPruneCmd(stdout, stderr io.Writer) *cobra.Command {
	var olderThan string
	var apply bool
	cmd := &cobra.Command{
		Use:   "prune [--older-than 30d] [--apply]",
		Short: "delete the journals of tasks archived long ago, keeping tombstones (a dry run without --apply)",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			age, err := parseAge(olderThan)
			if err != nil {
				return err
			}
			return done(taskPrune(age, olderThan, apply, stdout, stderr))
		},
	}
	cmd.Flags().StringVar(&olderThan, "older-than", "30d", "prune tasks archived at least this long ago (Nd, Nh or Nm)")
	cmd.Flags().BoolVar(&apply, "apply", false, "delete them (without it, only say what would happen)")
	cmd.RegisterFlagCompletionFunc("older-than", cobra.FixedCompletions([]string{"30d", "7d", "1d", "12h"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func taskPrune(age time.Duration, olderThan string, apply bool, stdout, stderr io.Writer) int {
	return withEngine("task prune", stderr, func(e retention) int {
		res, err := e.Prune(context.Background(), age, apply)
		if err != nil && (len(res) == 0 || !apply) {
			return failed(stderr, err)
		}
		var b strings.Builder
		switch {
		case err != nil:
			fmt.Fprintf(&b, "Pruned %d archived task(s) before the error:\n", len(res))
		case len(res) == 0 && apply:
			fmt.Fprintf(&b, "No archived task is %s old or older; nothing was pruned.\n", olderThan)
		case len(res) == 0:
			fmt.Fprintf(&b, "Dry run: no archived task is %s old or older; nothing would be pruned.\n", olderThan)
		case apply:
			fmt.Fprintf(&b, "Pruned %d archived task(s); each tombstone keeps its id taken:\n", len(res))
		default:
			fmt.Fprintf(&b, "Dry run, nothing was changed. Pruning would delete the journal and record of %d archived task(s), keeping a tombstone of each:\n", len(res))
		}
		for _, r := range res {
			fmt.Fprintf(&b, "  %s\t%s\t%s\tarchived %s\n", r.TaskID, r.State, r.Branch, r.ArchivedAt.UTC().Format(timeLayout))
		}
		if len(res) > 0 && !apply {
			fmt.Fprintln(&b, "Run again with --apply to prune them.")
		}
		io.WriteString(stdout, b.String())
		if err != nil {
			return failed(stderr, err)
		}
		return 0
	})
}

// printJSON writes v as indented JSON, the form every --json flag gives, with every control
// and hidden character escaped (safetext.EscapeJSON): the same data, inert on a terminal.
func printJSON(stdout, stderr io.Writer, v any) int {
	b, err := json.MarshalIndent(v, "", "  ")
	if err == nil {
		_, err = stdout.Write(append(safetext.EscapeJSON(b), '\n'))
	}
	if err != nil {
		return failed(stderr, err)
	}
	return 0
}
