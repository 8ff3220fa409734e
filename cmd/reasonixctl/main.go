// Command reasonixctl supervises a Reasonix coding worker in an isolated git worktree, from a
// terminal dashboard or, with --mcp, as an MCP stdio server for Codex.
package main

import (
	"fmt"
	"io"
	"os"

	"reasonixctl/sandbox"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

// softMemoryLimit is the heap size past which the collector works harder, unless GOMEMLIMIT
// says otherwise. Badger's compactions allocate a few MiB per table they write, so a prune or a
// busy hour would otherwise let garbage grow the heap to twice the peak before a collection
// (144 MiB pruning 900 tasks of a 1,000,000-event state, 64 MiB with the limit). It is soft:
// a heap that needs more still gets it. Each running worker adds workerMemory to it.
const softMemoryLimit = 64 << 20

func main() {
	// Inside a worker's sandbox this binary is the forwarder that gives the worker its network
	// (sandbox.ForwardMain): nothing else of reasonixctl runs there.
	if len(os.Args) > 1 && os.Args[1] == sandbox.ForwardCommand {
		os.Exit(sandbox.ForwardMain(os.Args[2:]))
	}
	softLimit.setBase(softMemoryLimit) // unless GOMEMLIMIT is set; see memlimit.go
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
