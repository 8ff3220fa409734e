package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"reasonixctl/core"
)

// runTask is `reasonixctl task list [--all] [--json]`.
func runTask(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "list" {
		fmt.Fprintln(stderr, "usage: reasonixctl task list [--all] [--json]")
		return 2
	}
	fs := flag.NewFlagSet("task list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	all := fs.Bool("all", false, "include finished tasks")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args[1:]); err != nil || fs.NArg() > 0 {
		return 2
	}
	dir, log, closeLog, code := stateAndLog(stderr, false)
	if code != 0 {
		return code
	}
	defer closeLog()
	e, err := core.Open(core.Config{StateDir: dir, Mode: "task list", Logger: log})
	if err != nil {
		fmt.Fprintln(stderr, "reasonixctl:", err)
		return 1
	}
	defer e.Close()
	views, err := e.List(context.Background(), core.ListFilter{All: *all})
	if err != nil {
		fmt.Fprintln(stderr, "reasonixctl:", err)
		return 1
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if views == nil {
			views = []core.TaskView{}
		}
		enc.Encode(views)
		return 0
	}
	if len(views) == 0 {
		fmt.Fprintln(stdout, "No tasks.")
		return 0
	}
	for _, v := range views {
		fmt.Fprintf(stdout, "%s\t%s\t%s\t%s\t%s\n", v.TaskID, v.State, v.Phase, v.Branch, v.UpdatedAt)
	}
	return 0
}
