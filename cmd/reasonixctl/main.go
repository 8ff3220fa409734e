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

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches a command line and returns the exit code: 0 on success, 1 when the command
// failed, 2 when the command line itself is wrong.
func run(args []string, stdout, stderr io.Writer) int {
	// --mcp, --version and the dashboard are decided before the command tree is built: Codex
	// waits for --mcp to list its tools, and nothing of the tree is needed to serve them.
	if len(args) == 0 {
		return runDashboard(stderr)
	}
	switch args[0] {
	case "--mcp":
		return runMCP(args[1:], stdout, stderr)
	case "--version", "-version", "version":
		if len(args) == 1 {
			fmt.Fprintf(stdout, "reasonixctl %s\n", version)
			return 0
		}
	case "-help":
		// Accepted before the move to cobra, which reads it as -h -e -l -p.
		args = append([]string{"--help"}, args[1:]...)
	}
	return execute(args, stdout, stderr)
}
