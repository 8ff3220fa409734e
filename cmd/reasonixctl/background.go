package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"reasonixctl/core"
	"reasonixctl/core/engine"
	"reasonixctl/core/remote"
	"reasonixctl/store"
)

// defaultServeIdle is how long `reasonixctl serve` stays with no working task and no client
// before it exits.
const defaultServeIdle = 30 * time.Minute

// serveStartTimeout bounds how long --mcp waits for the background owner it started to answer
// on its socket.
const serveStartTimeout = 15 * time.Second

// runServe runs the engine headless as the owner of the state directory, serving its socket
// until SIGTERM (or SIGINT), or until it has had no working task and no client for idle (0:
// never). It writes nothing to a terminal after it starts: everything goes to the log file.
func runServe(idle time.Duration, stderr io.Writer) int {
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
	e, err := engine.Open(s.engineConfig(dir, "serve", log, core.PermissionAutomatic))
	var owned *store.OwnedError
	if errors.As(err, &owned) {
		fmt.Fprintf(stderr, "reasonixctl serve: %v; it serves the directory already: attach with reasonixctl or reasonixctl --mcp, or stop it first\n", owned)
		return 1
	}
	if err != nil {
		fmt.Fprintln(stderr, "reasonixctl serve:", err)
		return 1
	}
	// As the --mcp owner does: the owner record goes first on SIGTERM, so a shutdown cut short
	// leaves none behind.
	context.AfterFunc(ctx, func() { store.Retire(dir) })
	srv, err := serveOwnerSocket(ctx, e, dir, "serve", log)
	if err != nil {
		e.Close()
		fmt.Fprintln(stderr, "reasonixctl serve: a background owner nobody can attach to is of no use:", err)
		return 1
	}
	log.Info("serving the state directory in the background", "pid", os.Getpid(), "idle_exit", idle.String())
	why := waitIdle(ctx, e, srv, idle)
	log.Info("background owner stopping", "why", why)
	srv.Close()
	if err := e.Close(); err != nil {
		log.Error("closing the state directory failed", "err", err)
		if errors.Is(err, store.ErrDirGone) {
			// The log file went with the directory: this is the one place left to say it.
			fmt.Fprintln(stderr, "reasonixctl serve: stopped:", err)
		}
		return 1
	}
	return 0
}

// waitIdle returns when ctx ends or when the engine has had no working task and srv no client
// for idle, saying which.
func waitIdle(ctx context.Context, e *engine.Engine, srv *remote.Server, idle time.Duration) string {
	if idle <= 0 {
		<-ctx.Done()
		return "signal"
	}
	every := min(max(idle/8, 10*time.Millisecond), 30*time.Second)
	tick := time.NewTicker(every)
	defer tick.Stop()
	// Idleness is counted from the first tick that finds nothing to do, not from the last that
	// found something: the client may have stayed until just before this tick, so serve never
	// exits before a whole idle time has passed without one (at most idle+every after it left).
	idleSince := time.Now()
	for {
		select {
		case <-ctx.Done():
			return "signal"
		case now := <-tick.C:
			if srv.Clients() > 0 || working(ctx, e) {
				idleSince = time.Time{}
				continue
			}
			if idleSince.IsZero() {
				idleSince = now
			}
			if now.Sub(idleSince) >= idle {
				return fmt.Sprintf("no working task and no client for %s", idle)
			}
		}
	}
}

// working says whether a task of e is doing something the owner exiting would interrupt: a
// worker's turn, a wait on someone's answer, a verification.
func working(ctx context.Context, e *engine.Engine) bool {
	views, err := e.List(ctx, core.ListFilter{})
	if err != nil {
		return true // not knowing is no reason to stop
	}
	for _, v := range views {
		if v.State.Working() {
			return true
		}
	}
	return false
}

// serveRestartGap is the least time between two background starts of serve by one --mcp.
const serveRestartGap = 10 * time.Second

// serveOrDial is the MCP server's connect under CODEX_REASONIX_OWNER=serve: it attaches to the
// owner of the state directory, starting `reasonixctl serve` in the background when none
// answers, so the tasks outlive this process.
func serveOrDial(dir string, log *slog.Logger) func(context.Context) (link, error) {
	dial := dialOwner(dir, remote.RoleMCP)
	var mu sync.Mutex
	var lastStart time.Time
	return func(ctx context.Context) (link, error) {
		if l, err := dial(ctx); err == nil {
			return l, nil
		}
		// A serve that exits at once (the directory broken, another owner's socket down) must
		// not be started again at every reconnect: at most one start per serveRestartGap.
		mu.Lock()
		since := time.Since(lastStart)
		recent := !lastStart.IsZero() && since < serveRestartGap
		if !recent {
			lastStart = time.Now()
		}
		mu.Unlock()
		if recent {
			return link{}, core.Errorf(core.CodeReasonixUnavailable, nil, "reasonixctl serve was started %s ago and does not answer; retrying later", since.Round(time.Millisecond))
		}
		exited, err := startServe(dir, log)
		if err != nil {
			return link{}, core.Errorf(core.CodeReasonixUnavailable, nil, "starting reasonixctl serve: %v", err)
		}
		deadline := time.NewTimer(serveStartTimeout)
		defer deadline.Stop()
		retry := time.NewTicker(20 * time.Millisecond)
		defer retry.Stop()
		var last error
		for {
			l, err := dial(ctx)
			if err == nil {
				return l, nil
			}
			last = err
			select {
			case <-ctx.Done():
				return link{}, ctx.Err()
			case <-deadline.C:
				return link{}, core.Errorf(core.CodeReasonixUnavailable, nil,
					"reasonixctl serve did not answer on %s within %s: %v (see its log, %s/logs/reasonixctl.log)", remote.SocketPath(dir), serveStartTimeout, last, dir)
			case <-exited:
				// It exited: another owner won the directory (dial it once more) or it
				// failed, and its reason is in the log.
				if l, err := dial(ctx); err == nil {
					return l, nil
				}
				return link{}, core.Errorf(core.CodeReasonixUnavailable, nil,
					"reasonixctl serve exited without serving %s: %v (see its log, %s/logs/reasonixctl.log)", dir, last, dir)
			case <-retry.C:
			}
		}
	}
}

// startServe starts `reasonixctl serve` on dir, detached from this process's session so that
// Codex ending this process (or its process group) does not end it, with no terminal: its
// standard streams are /dev/null and it logs to the state directory's log file.
func startServe(dir string, log *slog.Logger) (<-chan struct{}, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, "serve")
	cmd.Env = append(os.Environ(), "CODEX_REASONIX_STATE_DIR="+dir)
	cmd.SysProcAttr = detached()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	log.Info("started reasonixctl serve in the background", "pid", cmd.Process.Pid)
	exited := make(chan struct{})
	go func() {
		err := cmd.Wait()
		if err != nil {
			log.Info("reasonixctl serve exited", "pid", cmd.Process.Pid, "err", err)
		}
		close(exited)
	}()
	return exited, nil
}

// newServeCmd is `reasonixctl serve [--idle-exit D]`.
func newServeCmd(stderr io.Writer) *cobra.Command {
	var idle time.Duration
	c := &cobra.Command{
		Use:   "serve [--idle-exit 30m]",
		Short: "own the state directory in the background, so tasks outlive Codex and dashboards",
		Long: `serve runs the engine without a terminal as the owner of the state directory, serving
its socket: reasonixctl --mcp and dashboards attach to it, and tasks keep running when they exit.
It logs to the state directory's log file, stops on SIGTERM, and exits after --idle-exit with no
working task and no attached client (0: never). CODEX_REASONIX_SERVE_IDLE sets the default.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if v := os.Getenv("CODEX_REASONIX_SERVE_IDLE"); v != "" && !cmd.Flags().Changed("idle-exit") {
				if d, err := time.ParseDuration(v); err != nil || d < 0 {
					return fmt.Errorf("CODEX_REASONIX_SERVE_IDLE=%q: use a duration such as 30m, 2h or 0 (never)", v)
				}
			}
			if idle < 0 {
				return fmt.Errorf("--idle-exit %s: use a duration of 0 (never) or more", idle)
			}
			return done(runServe(idle, stderr))
		},
	}
	def := defaultServeIdle
	if v := os.Getenv("CODEX_REASONIX_SERVE_IDLE"); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d >= 0 {
			def = d
		}
	}
	c.Flags().DurationVar(&idle, "idle-exit", def, "exit after this long with no working task and no client (0: never)")
	return c
}
