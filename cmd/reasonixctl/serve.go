package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"reasonixctl/core"
	"reasonixctl/core/doctor"
	"reasonixctl/core/engine"
	"reasonixctl/core/remote"
	"reasonixctl/core/safetext"
	"reasonixctl/core/statedir"
	"reasonixctl/mcp"
	"reasonixctl/store"
	"reasonixctl/tui"
)

// mcpMemoryLimit is --mcp's soft memory limit. The runtime counts its own metadata and stacks
// against it, ≈ 9 MiB here, and an owning server keeps ≈ 7 MiB of heap live while a task runs:
// at 16 MiB that left about 1 MiB between collections, so the collector ran after every MiB
// allocated (≈ 8 times a task, a third of its CPU). At 24 MiB the collector's own pacing
// decides again (BENCHMARKS.md, "Per task through MCP").
const mcpMemoryLimit = 24 << 20

// runMCP serves the core over MCP on stdin/stdout. The tools are listed before the state
// directory is opened, so Codex sees them at once.
func runMCP(args []string, stdout, stderr io.Writer) int {
	logStderr := len(args) > 0 && args[0] == "--log-stderr"
	// A long-lived helper next to Codex should stay small; the limit is soft, so a large diff or
	// review still gets the memory it needs. Each running worker adds workerMemory to it, and
	// GOMEMLIMIT replaces it.
	softLimit.setBase(mcpMemoryLimit)
	s, err := readSettings()
	if err != nil {
		fmt.Fprintln(stderr, "reasonixctl:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	dir, log, closer, err := openState(logStderr)
	if err != nil {
		fmt.Fprintln(stderr, "reasonixctl:", err)
		if errors.Is(err, statedir.ErrUnsafe) {
			return refusedMCP(ctx, err, s, logStderr, stdout, stderr)
		}
		return 1
	}
	defer closer.Close()
	// Codex follows SIGTERM with SIGKILL about 50 ms later. The owner record goes first, so that
	// a shutdown cut short (a worker's process group can take longer to end) leaves none behind;
	// it is removed only while it names this process.
	context.AfterFunc(ctx, func() { store.Retire(dir) })
	// The MCP server owns the state directory when it is free. When another process (a
	// dashboard) owns it, the server attaches through its socket, and takes the directory over
	// if that owner exits.
	var att *attachment
	open := func(context.Context) (core.Service, error) {
		connect := ownOrDial(ctx, s, dir, log)
		if s.owner == "serve" {
			connect = serveOrDial(dir, log)
		}
		a, err := newAttachment(ctx, log, connect)
		if err != nil {
			log.Error("opening the state directory failed", "err", err)
			return nil, err
		}
		att = a
		return a, nil
	}
	srv := mcp.NewServer(open, mcp.Options{Version: version, Logger: log, Network: s.network, AskUser: s.askUser})
	err = srv.ServeStdio(ctx, os.Stdin, stdout)
	if att != nil {
		att.Close()
	}
	if err != nil {
		log.Error("mcp server stopped", "err", err)
		return 1
	}
	return 0
}

// refusedMCP serves MCP over a state directory every mode refuses. Codex still gets its tools at
// once, as ARCHITECTURE.md promises, and each tool call fails with the refusal and its fix,
// where Codex shows it, rather than with a server that died before saying anything; nothing in
// the directory is opened, not even the log. It exits 1 when Codex closes the session.
func refusedMCP(ctx context.Context, refusal error, s settings, logStderr bool, stdout, stderr io.Writer) int {
	ce := core.Errorf(core.CodeInternalError, nil, "reasonixctl refuses its state directory, so no tool can run: %w", refusal)
	ce.NextAction = core.NextFixRequest // the message names the fix
	var log *slog.Logger
	if logStderr {
		log = slog.New(safetext.NewLogHandler(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo})))
	}
	open := func(context.Context) (core.Service, error) { return nil, ce }
	srv := mcp.NewServer(open, mcp.Options{Version: version, Logger: log, Network: s.network, AskUser: s.askUser})
	if err := srv.ServeStdio(ctx, os.Stdin, stdout); err != nil {
		fmt.Fprintln(stderr, "reasonixctl: mcp server stopped:", err)
	}
	return 1
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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e, err := engine.Open(s.engineConfig(dir, "tui", log, core.PermissionSupervised))
	var owned *store.OwnedError
	if errors.As(err, &owned) {
		return runAttachedDashboard(ctx, dir, owned, log, s.worker, stderr)
	}
	if err != nil {
		fmt.Fprintln(stderr, "reasonixctl:", err)
		return 1
	}
	defer e.Close()
	// The person at this dashboard is asked about the commands of tasks Codex delegates
	// through an attached MCP server too.
	here := presentAt(e)
	defer here(false)
	srv, unshared := serveOwnerSocket(ctx, e, dir, "tui", log)
	if srv != nil {
		defer srv.Close()
	}
	if err := tui.Run(ctx, e, tui.Options{StateDir: dir, WorkerVersion: doctor.WorkerVersion(ctx, s.bin), Logger: log, Unshared: unshared, CheckDrafts: true, Worker: s.worker,
		Away: func(away bool) { here(!away) }}); err != nil {
		fmt.Fprintln(stderr, "reasonixctl:", err)
		return 1
	}
	return 0
}

// presentAt counts the person at this process's dashboard as a supervisor of e, and returns
// how to say whether they are still there (false while the dashboard is suspended, and when
// it quits).
func presentAt(e *engine.Engine) func(here bool) {
	var mu sync.Mutex
	detach := e.AttachSupervisor()
	return func(here bool) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case here && detach == nil:
			detach = e.AttachSupervisor()
		case !here && detach != nil:
			detach()
			detach = nil
		}
	}
}

// runAttachedDashboard runs the dashboard on the engine of the process that owns the state
// directory, through its socket.
// worker is the worker its new-task form proposes (CODEX_REASONIX_WORKER, as this process reads
// it; the form always names one, so the owner's own default does not apply).
func runAttachedDashboard(ctx context.Context, dir string, owned *store.OwnedError, log *slog.Logger, worker string, stderr io.Writer) int {
	a, err := newAttachment(ctx, log, dialOwner(dir, "dashboard"))
	if err != nil {
		fmt.Fprintf(stderr, "reasonixctl: %v, and attaching to it failed: %v\n", owned, err)
		return 1
	}
	defer a.Close()
	if err := tui.Run(ctx, a, tui.Options{StateDir: dir, Logger: log, Attached: a, CheckDrafts: true, Worker: worker, Away: func(away bool) { a.Supervise(!away) }}); err != nil {
		fmt.Fprintln(stderr, "reasonixctl:", err)
		return 1
	}
	return 0
}

// serveOwnerSocket lets other processes attach to the engine this process owns. Without the
// socket everything still works here; others are refused as before, so a failure is logged
// and returned for a dashboard to show.
func serveOwnerSocket(ctx context.Context, e *engine.Engine, dir, mode string, log *slog.Logger) (*remote.Server, error) {
	srv, err := remote.Serve(ctx, e, dir, remote.Info{PID: os.Getpid(), Mode: mode, Version: version, StartedAt: time.Now().UTC()}, log)
	if err != nil {
		log.Warn("serving the owner socket failed; other processes cannot attach", "err", err)
		ce := *core.AsError(err)
		if errors.Is(err, remote.ErrUnsafeSocket) {
			ce.NextAction = core.NextFixRequest // the message names the fix
		}
		return nil, &ce
	}
	return srv, nil
}

// ownOrDial is the MCP server's connect: it owns the state directory when it can, and else
// attaches to the process that does.
func ownOrDial(ctx context.Context, s settings, dir string, log *slog.Logger) func(context.Context) (link, error) {
	dial := dialOwner(dir, "mcp")
	return func(context.Context) (link, error) {
		e, err := engine.Open(s.engineConfig(dir, "mcp", log, core.PermissionAutomatic))
		var owned *store.OwnedError
		if errors.As(err, &owned) {
			return dial(ctx)
		}
		if err != nil {
			return link{}, err
		}
		srv, _ := serveOwnerSocket(ctx, e, dir, "mcp", log)
		return link{svc: e, owner: tui.Owner{PID: os.Getpid(), Mode: "mcp"}, close: func() {
			if srv != nil {
				srv.Close()
			}
			if err := e.Close(); err != nil {
				log.Error("closing the state directory failed", "err", err)
			}
		}}, nil
	}
}
