package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"reasonixctl/core/contract"
	"reasonixctl/core/policy"
)

// runPolicy implements `policy explain [--contract F] [--worktree D] [--cwd D] [--json] -- ARGV...`:
// the decision the engine would make for a simple command with static argv. Exit 0 whenever a
// decision was made (allow or deny), 2 on usage errors.
func runPolicy(args []string, stdout, stderr io.Writer) int {
	const synopsis = "usage: reasonixctl policy explain [--contract FILE] [--worktree DIR] [--cwd DIR] [--json] -- ARGV..."
	fail := func(err error) int {
		fmt.Fprintln(stderr, "reasonixctl policy: "+err.Error())
		fmt.Fprintln(stderr, synopsis)
		return 2
	}
	if len(args) == 0 || args[0] != "explain" {
		return fail(errors.New("the only subcommand is explain"))
	}
	fs := flag.NewFlagSet("policy explain", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	contractFile := fs.String("contract", "", "TaskContractV1 file (default: an empty contract)")
	worktree := fs.String("worktree", ".", "worktree directory")
	cwd := fs.String("cwd", "", "directory the command runs in (default: the current directory)")
	asJSON := fs.Bool("json", false, "print the decision as JSON")
	if err := fs.Parse(args[1:]); err != nil {
		return fail(err)
	}
	argv := fs.Args()
	if len(argv) == 0 {
		return fail(errors.New("ARGV is required after --"))
	}

	var c *contract.Contract
	if *contractFile != "" {
		data, err := os.ReadFile(*contractFile)
		if err != nil {
			return fail(err)
		}
		if c, err = contract.Parse(data); err != nil {
			return fail(err)
		}
	}
	wt, err := filepath.Abs(*worktree)
	if err != nil {
		return fail(err)
	}
	dir := *cwd
	if dir == "" {
		dir = "."
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return fail(err)
	}

	d := policy.ClassifyExec(policy.ExecRequest{
		ToolCallID: "gate-1",
		Meta:       &policy.ExecMeta{CommandSchemaVersion: 1, Tool: "bash", Argv: argv, Cwd: dir, ApprovalID: "1"},
		Worktree:   wt,
	}, c)

	decision := "deny"
	if d.Allow {
		decision = "allow"
	}
	if *asJSON {
		out, _ := json.Marshal(struct {
			Decision       string `json:"decision"`
			Code           string `json:"code"`
			Reason         string `json:"reason"`
			Hint           string `json:"hint"`
			TimeoutSeconds int    `json:"timeout_seconds"`
		}{decision, d.Code, d.Reason, d.Hint, d.TimeoutSeconds})
		fmt.Fprintln(stdout, string(out))
		return 0
	}
	if d.Allow {
		fmt.Fprintf(stdout, "allow (watchdog %ds): %s\n", d.TimeoutSeconds, d.Reason)
		return 0
	}
	fmt.Fprintf(stdout, "deny %s: %s\nhint: %s\n", d.Code, d.Reason, d.Hint)
	return 0
}
