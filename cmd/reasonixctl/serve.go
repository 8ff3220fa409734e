package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"reasonixctl/core"
	"reasonixctl/mcp"
	"reasonixctl/tui"
)

const mcpMemoryLimit = 16 << 20

// runMCP serves the core over MCP on stdin/stdout. The tools are listed before the state
// directory is opened, so Codex sees them at once.
func runMCP(args []string, stdout, stderr io.Writer) int {
	logStderr := len(args) > 0 && args[0] == "--log-stderr"
	if os.Getenv("GOMEMLIMIT") == "" {
		// A long-lived helper next to Codex should stay small; the limit is soft, so a large
		// diff or review still gets the memory it needs.
		debug.SetMemoryLimit(mcpMemoryLimit)
	}
	s, err := readSettings()
	if err != nil {
		fmt.Fprintln(stderr, "reasonixctl:", err)
		return 2
	}
	dir, log, closeLog, code := stateAndLog(stderr, logStderr)
	if code != 0 {
		return code
	}
	defer closeLog()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var engine *core.Engine
	open := func(context.Context) (core.Service, error) {
		e, err := core.Open(s.engineConfig(dir, "mcp", log, core.PermissionAutomatic))
		if err != nil {
			log.Error("opening the state directory failed", "err", err)
			return nil, err
		}
		engine = e
		return e, nil
	}
	srv := mcp.NewServer(open, mcp.Options{Version: version, Logger: log, Network: s.network, AskUser: s.askUser})
	err = srv.ServeStdio(ctx, os.Stdin, stdout)
	if engine != nil {
		engine.Close()
	}
	if err != nil {
		log.Error("mcp server stopped", "err", err)
		return 1
	}
	return 0
}

// runDashboard runs the core in-process under the dashboard. Permissions the policy does not
// know are asked of the person at the keyboard.
func runDashboard(stderr io.Writer) int {
	s, err := readSettings()
	if err != nil {
		fmt.Fprintln(stderr, "reasonixctl:", err)
		return 2
	}
	dir, log, closeLog, code := stateAndLog(stderr, false)
	if code != 0 {
		return code
	}
	defer closeLog()
	e, err := core.Open(s.engineConfig(dir, "tui", log, core.PermissionSupervised))
	if err != nil {
		fmt.Fprintln(stderr, "reasonixctl:", err)
		return 1
	}
	defer e.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := tui.Run(ctx, e, tui.Options{StateDir: dir, WorkerVersion: core.WorkerVersion(ctx, s.bin), Logger: log}); err != nil {
		fmt.Fprintln(stderr, "reasonixctl:", err)
		return 1
	}
	return 0
}
