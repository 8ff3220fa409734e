// Command reasonixctl supervises a Reasonix coding worker in an isolated git worktree, from a
// terminal dashboard or, with --mcp, as an MCP stdio server for Codex.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

// command is one subcommand: its usage, a one-line summary and its entry point, which
// returns the exit code.
type command struct {
	name    string
	usage   string
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

// commands is the subcommand table; help is generated from it so it lists exactly what exists.
func commands() []command {
	return []command{
		{"demo", "demo", "the whole loop on a throw-away repository, no worker needed", runDemo},
		{"doctor", "doctor [--json]", "check git, the worker, the sandbox, the state directory, Codex", runDoctor},
		{"contract", "contract lint [--json] FILE|-", "validate a TaskContractV1 and print its hash", runContract},
		{"policy", "policy explain [--contract F] [--worktree D] [--cwd D] [--json] -- ARGV...", "the policy's decision for a command", runPolicy},
		{"task", "task list [--all] [--json] | archive ID [--apply] | prune [--older-than 30d] [--apply]", "list tasks; archive finished ones (dry run without --apply); prune old archives", runTask},
	}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return runDashboard(stderr)
	}
	switch args[0] {
	case "--mcp":
		return runMCP(args[1:], stdout, stderr)
	case "--version", "-version", "version":
		fmt.Fprintf(stdout, "reasonixctl %s\n", version)
		return 0
	case "--help", "-help", "-h", "help":
		usage(stdout)
		return 0
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "reasonixctl: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "reasonixctl %s — supervise a Reasonix worker in an isolated git worktree\n\nUsage:\n", version)
	line := func(usage, summary string) {
		fmt.Fprintf(w, "  %s\n      %s\n", strings.TrimSpace("reasonixctl "+usage), summary)
	}
	line("", "the dashboard: supervise tasks at the keyboard")
	line("--mcp [--log-stderr]", "serve Codex over MCP on stdin/stdout")
	for _, c := range commands() {
		line(c.usage, c.summary)
	}
	line("--version", "print the version")
	fmt.Fprintln(w, "\nConfiguration comes from the environment (REASONIX_BIN, CODEX_REASONIX_*); see the README.")
}
