// Command reasonixctl supervises a Reasonix coding worker in an isolated git worktree, from a
// terminal dashboard or, with --mcp, as an MCP stdio server for Codex.
package main

import (
	"fmt"
	"io"
	"os"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

// command is one subcommand: its one-line help and its entry point, which returns the exit code.
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

// commands is the subcommand table; help is generated from it so it lists exactly what exists.
func commands() []command {
	return []command{
		{"contract", "contract lint [--json] FILE|-   validate a TaskContractV1 and print its hash", runContract},
		{"policy", "policy explain [--contract F] [--worktree D] [--cwd D] [--json] -- ARGV...", runPolicy},
		{"demo", "demo                                  try the whole loop on a throw-away repository", runDemo},
		{"task", "task list [--all] [--json]            list tasks in the state directory", runTask},
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
	fmt.Fprintf(w, "reasonixctl %s — supervise a Reasonix worker in an isolated git worktree\n\n", version)
	fmt.Fprintln(w, "Usage:")
	fmt.Fprintln(w, "  reasonixctl                  the dashboard: supervise tasks at the keyboard")
	fmt.Fprintln(w, "  reasonixctl --mcp            serve Codex over MCP on stdin/stdout (--log-stderr mirrors the log)")
	fmt.Fprintln(w, "  reasonixctl --version")
	fmt.Fprintln(w, "  reasonixctl --help")
	for _, c := range commands() {
		fmt.Fprintf(w, "  reasonixctl %s\n", c.summary)
	}
}
