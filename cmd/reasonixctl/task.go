package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"reasonixctl/core"
)

const taskUsage = `usage:
  reasonixctl task list [--all] [--json]
  reasonixctl task archive ID [--apply]
  reasonixctl task prune [--older-than 30d] [--apply]
archive and prune are dry runs unless --apply is given.`

// errUsage marks a command line that cannot be run; the flag package has already said why, or
// the error's text does.
var errUsage = errors.New("usage")

// runTask is `reasonixctl task list|archive|prune`. Exit codes: 2 for a usage error or an
// invalid_request, 1 for any other error.
func runTask(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "list":
			return taskList(args[1:], stdout, stderr)
		case "archive":
			return taskArchive(args[1:], stdout, stderr)
		case "prune":
			return taskPrune(args[1:], stdout, stderr)
		}
	}
	fmt.Fprintln(stderr, taskUsage)
	return 2
}

// parseInterleaved parses flags that may come before or after the positional arguments
// (`task archive ID --apply`), which flag.Parse alone stops at.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, errUsage
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, taskUsage) }
	return fs
}

func usageError(stderr io.Writer, format string, args ...any) int {
	fmt.Fprintf(stderr, "reasonixctl: "+format+"\n", args...)
	fmt.Fprintln(stderr, taskUsage)
	return 2
}

// withEngine opens the state directory for one task command and runs fn with it.
func withEngine(mode string, stderr io.Writer, fn func(*core.Engine) int) int {
	dir, log, closeLog, code := stateAndLog(stderr, false)
	if code != 0 {
		return code
	}
	defer closeLog()
	e, err := core.Open(core.Config{StateDir: dir, Mode: mode, Logger: log})
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

func taskList(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("task list", stderr)
	all := fs.Bool("all", false, "include finished, archived and pruned tasks")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) > 0 {
		return usageError(stderr, "task list takes no arguments, got %q", pos)
	}
	return withEngine("task list", stderr, func(e *core.Engine) int {
		tasks, err := e.ListStored(context.Background(), core.ListFilter{All: *all})
		if err != nil {
			return failed(stderr, err)
		}
		if *asJSON {
			rows := make([]listedTask, len(tasks))
			for i, t := range tasks {
				rows[i] = listedTask{TaskView: t.View, Storage: t.Storage, CreatedAt: t.CreatedAt.UTC().Format(timeLayout),
					ArchivedAt: formatOptional(t.ArchivedAt), PrunedAt: formatOptional(t.PrunedAt)}
			}
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			if err := enc.Encode(rows); err != nil {
				return failed(stderr, err)
			}
			return 0
		}
		if len(tasks) == 0 {
			fmt.Fprintln(stdout, "No tasks.")
			return 0
		}
		for _, t := range tasks {
			fmt.Fprintf(stdout, "%s\t%s\t%s\t%s\t%s\n", t.View.TaskID, t.View.State, t.Storage, t.View.Branch, t.View.UpdatedAt)
		}
		return 0
	})
}

func taskArchive(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("task archive", stderr)
	apply := fs.Bool("apply", false, "remove the worktree (without it, only say what would happen)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) != 1 {
		return usageError(stderr, "task archive takes exactly one task id")
	}
	return withEngine("task archive", stderr, func(e *core.Engine) int {
		res, err := e.Archive(context.Background(), pos[0], *apply)
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

func taskPrune(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("task prune", stderr)
	olderThan := fs.String("older-than", "30d", "prune tasks archived at least this long ago (Nd, Nh or Nm)")
	apply := fs.Bool("apply", false, "delete them (without it, only say what would happen)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) > 0 {
		return usageError(stderr, "task prune takes no arguments, got %q", pos)
	}
	age, err := parseAge(*olderThan)
	if err != nil {
		return usageError(stderr, "%v", err)
	}
	return withEngine("task prune", stderr, func(e *core.Engine) int {
		res, err := e.Prune(context.Background(), age, *apply)
		if err != nil && (len(res) == 0 || !*apply) {
			return failed(stderr, err)
		}
		var b strings.Builder
		switch {
		case err != nil:
			fmt.Fprintf(&b, "Pruned %d archived task(s) before the error:\n", len(res))
		case len(res) == 0 && *apply:
			fmt.Fprintf(&b, "No archived task is %s old or older; nothing was pruned.\n", *olderThan)
		case len(res) == 0:
			fmt.Fprintf(&b, "Dry run: no archived task is %s old or older; nothing would be pruned.\n", *olderThan)
		case *apply:
			fmt.Fprintf(&b, "Pruned %d archived task(s); each tombstone keeps its id taken:\n", len(res))
		default:
			fmt.Fprintf(&b, "Dry run, nothing was changed. Pruning would delete the journal and record of %d archived task(s), keeping a tombstone of each:\n", len(res))
		}
		for _, r := range res {
			fmt.Fprintf(&b, "  %s\t%s\t%s\tarchived %s\n", r.TaskID, r.State, r.Branch, r.ArchivedAt.UTC().Format(timeLayout))
		}
		if len(res) > 0 && !*apply {
			fmt.Fprintln(&b, "Run again with --apply to prune them.")
		}
		io.WriteString(stdout, b.String())
		if err != nil {
			return failed(stderr, err)
		}
		return 0
	})
}
