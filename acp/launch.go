package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"sync"
	"syscall"
	"time"

	"reasonixctl/acp/agents"
)

const (
	killGrace     = 2 * time.Second
	helpTimeout   = 10 * time.Second
	defaultBinary = "reasonix"
)

// LaunchConfig says how to start a worker process.
type LaunchConfig struct {
	// Bin is the worker binary; "" means $REASONIX_BIN, else "reasonix" on PATH.
	Bin string
	// Dir is the child's working directory ("" inherits ours).
	Dir string
	// Network allows the worker's shell sandbox network access (--sandbox-network on|off).
	Network bool
	// EnvAllow are extra parent variable name globs passed to the child.
	EnvAllow []string
	// Env are extra KEY=VALUE entries set after the allowlist (they override it); injection
	// variables such as LD_PRELOAD are dropped even here.
	Env []string
	// Logger receives diagnostics; nil discards.
	Logger *slog.Logger
	// ClientName and ClientVersion are sent at initialize.
	ClientName, ClientVersion string
	// Track, when set, is told the worker's process group as soon as it exists; the function it
	// returns is called once the group has been killed. The caller keeps the groups of a process
	// that may die without stopping them (see sandbox.Ledger).
	Track func(pgid int) (forget func())
	// Confine, when set, puts every process Start runs — `BIN acp --help` and the worker — in a
	// sandbox: it gets the command line (the resolved binary first) and the environment Start
	// would use, and returns the ones to run instead, the sandbox's own executable first. That
	// executable must run the command in a pid namespace of its own that ends with it
	// (bubblewrap's --unshare-pid and --die-with-parent), since the worker's process is then the
	// sandbox's outermost one: its group is the one tracked and killed, and everything the worker
	// starts stays below it, where Suspend and Close find it. Nil runs the binary as it is.
	Confine func(argv, env []string) ([]string, []string, error)
	// Agent is the worker's profile. The zero Profile (or reasonix) runs `Bin acp` with the
	// confinement flags it advertises and requires Reasonix's extensions; any other runs the
	// profile's command line as it is (its program looked up on PATH), with the profile's
	// variables passed (Env) and set (SetEnv) besides the allowlist, and speaks plain ACP.
	Agent agents.Profile
	// FSRoot, when set, offers the agent fs/read_text_file and fs/write_text_file inside this
	// folder (ConnectConfig.FSRoot).
	FSRoot string
}

// Start launches `BIN acp` with the supervisor flags the binary advertises, in its own process
// group with an allowlisted environment (inside the sandbox cfg.Confine makes, when set), and
// initializes it. ctx bounds the start and handshake only; the process lives until Close or
// failure.
func Start(ctx context.Context, cfg LaunchConfig) (*Worker, error) {
	if !cfg.Agent.IsReasonix() {
		return startAgent(ctx, cfg)
	}
	bin := cfg.Bin
	if bin == "" {
		bin = os.Getenv("REASONIX_BIN")
	}
	if bin == "" {
		bin = defaultBinary
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	env := childEnv(os.Environ(), cfg.EnvAllow, cfg.Env)
	flags, err := advertisedFlags(ctx, path, env, cfg.Dir, cfg.Confine)
	if err != nil {
		return nil, fmt.Errorf("%w: %s acp --help: %w", ErrUnavailable, path, err)
	}
	args := append([]string{"acp"}, supervisorArgs(flags, cfg.Network)...)
	return launch(ctx, cfg, append([]string{path}, args...), env)
}

// startAgent launches an agent other than Reasonix from its profile's command line.
func startAgent(ctx context.Context, cfg LaunchConfig) (*Worker, error) {
	p := cfg.Agent
	if len(p.Command) == 0 {
		return nil, fmt.Errorf("%w: worker %s has no command line", ErrUnavailable, p.Name)
	}
	path, err := exec.LookPath(p.Command[0])
	if err != nil {
		return nil, fmt.Errorf("%w: worker %s: %w", ErrUnavailable, p.Name, err)
	}
	env := childEnv(os.Environ(), append(slices.Clone(cfg.EnvAllow), p.Env...), append(slices.Clone(p.SetEnv), cfg.Env...))
	return launch(ctx, cfg, append([]string{path}, p.Command[1:]...), env)
}

// launch runs argv (inside cfg.Confine's sandbox when set) as the worker cfg.Agent names and
// speaks ACP to it up to initialize.
func launch(ctx context.Context, cfg LaunchConfig, argv, env []string) (*Worker, error) {
	args := argv[1:]
	if cfg.Confine != nil {
		var err error
		if argv, env, err = cfg.Confine(argv, env); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
	}
	proc, stdout, stdin, ring, err := spawn(argv, cfg.Dir, env, cfg.Track, cfg.Confine != nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	w := newWorker(stdout, stdin, cfg.Logger, proc, ring)
	w.agent, w.fsRoot = cfg.Agent, cfg.FSRoot
	go proc.wait(func() { w.closeOutputAfterExit(stdout) })
	if err := w.initialize(ctx, ConnectConfig{Logger: cfg.Logger, ClientName: cfg.ClientName, ClientVersion: cfg.ClientVersion}); err != nil {
		return nil, err
	}
	w.log.Debug("worker started", "worker", cfg.Agent.Name, "pid", proc.cmd.Process.Pid, "args", args)
	return w, nil
}

// supervisorArgs are the confinement flags, each passed only when the binary accepts it.
func supervisorArgs(flags map[string]bool, network bool) []string {
	var args []string
	if flags["workspace-only"] {
		args = append(args, "--workspace-only")
	}
	if flags["sandbox-network"] {
		if network {
			args = append(args, "--sandbox-network=on")
		} else {
			args = append(args, "--sandbox-network=off")
		}
	}
	if flags["sandbox-bash"] {
		args = append(args, "--sandbox-bash=enforce")
	}
	if flags["planner"] {
		args = append(args, "--planner=off")
	}
	return args
}

var (
	flagCache   sync.Map // binary identity → map[string]bool
	helpFlagsRe = regexp.MustCompile(`(?m)^\s*--?([a-zA-Z][a-zA-Z0-9-]*)`)
)

// advertisedFlags reads `BIN acp --help` once per binary (path, size and mtime), in the sandbox
// confine makes when it is set (with dir, the worker's directory, as its working directory).
func advertisedFlags(ctx context.Context, path string, env []string, dir string, confine func(argv, env []string) ([]string, []string, error)) (map[string]bool, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	key := fmt.Sprintf("%s|%d|%d", path, fi.Size(), fi.ModTime().UnixNano())
	if v, ok := flagCache.Load(key); ok {
		return v.(map[string]bool), nil
	}
	ctx, cancel := context.WithTimeout(ctx, helpTimeout)
	defer cancel()
	argv := []string{path, "acp", "--help"}
	cwd := os.TempDir()
	if confine != nil {
		var err error
		if argv, env, err = confine(argv, env); err != nil {
			return nil, err
		}
		cwd = dir
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Dir = cwd
	if confine != nil {
		// A sandbox's pid namespace ends with its outermost process, which the context kills,
		// and which dies with us.
		cmd.SysProcAttr = groupLeaderAttr()
	}
	// The help output of a Go flag set exits 0 on some versions and 2 on others: only the
	// text matters, unless the command could not run at all.
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return nil, err
	}
	flags := map[string]bool{}
	for _, m := range helpFlagsRe.FindAllSubmatch(out, -1) {
		flags[string(m[1])] = true
	}
	flagCache.Store(key, flags)
	return flags, nil
}

// process is a started worker child, leader of its own process group.
type process struct {
	cmd     *exec.Cmd
	exited  chan struct{}
	waitErr error
	forget  func()
	// stderrRead closes when the worker's stderr is read to its end, so that the worker's Done
	// comes after what it last wrote there (the crash it explains) is in the ring.
	stderrRead chan struct{}
	// confined: cmd is a sandbox whose pid namespace holds the worker and everything it starts
	// (LaunchConfig.Confine).
	confined bool

	mu     sync.Mutex
	frozen *freeze // the processes Suspend stopped, until they are continued
}

// spawn starts the worker process and the reader of its stderr; the caller runs wait.
func spawn(argv []string, dir string, env []string, track func(int) func(), confined bool) (*process, *os.File, *os.File, *stderrRing, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, nil, nil, nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, nil, nil, nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = groupLeaderAttr()
	if err := cmd.Start(); err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		return nil, nil, nil, nil, err
	}
	forget := func() {}
	if track != nil {
		forget = track(cmd.Process.Pid)
	}
	closeAll(inR, outW, errW)
	ring := &stderrRing{}
	p := &process{cmd: cmd, exited: make(chan struct{}), forget: forget, stderrRead: make(chan struct{}), confined: confined}
	go func() {
		_, _ = io.Copy(ring, errR)
		_ = errR.Close()
		close(p.stderrRead)
	}()
	return p, outR, inW, ring, nil
}

// wait reaps the process, then calls after on the same goroutine: the one a worker process
// costs besides its stderr's reader. Start runs it as soon as the worker is connected.
func (p *process) wait(after func()) {
	p.waitErr = p.cmd.Wait()
	close(p.exited)
	after()
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}

// closeOutputAfterExit unblocks the reader when the worker exited but a descendant still holds
// its stdout open. It runs once the worker has exited.
func (w *Worker) closeOutputAfterExit(stdout *os.File) {
	select {
	case <-w.readerDone:
	case <-time.After(killGrace):
		_ = stdout.Close()
	}
}

// exitCause waits briefly for the exit status that explains why the output ended.
func (p *process) exitCause(readErr error) error {
	select {
	case <-p.exited:
		if p.waitErr != nil {
			return fmt.Errorf("%w: %v", ErrWorkerExited, p.waitErr)
		}
		return fmt.Errorf("%w: exit status 0", ErrWorkerExited)
	case <-time.After(killGrace):
		return fmt.Errorf("%w: output closed (%v) but the process is still running", ErrWorkerExited, readErr)
	}
}

// stop asks the process group to end, kills it after killGrace and reaps the leader. A confined
// worker is asked through its own processes: SIGTERM to the sandbox's outermost process would
// end it at once, and with it (--die-with-parent, the pid namespace) everything inside by
// SIGKILL, with no chance for the worker to end cleanly. A suspended worker is continued after
// the SIGTERM, so that it can act on it.
func (p *process) stop() {
	pgid := p.cmd.Process.Pid
	if p.confined {
		signalInside(pgid, syscall.SIGTERM)
	} else {
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
	}
	p.thaw()
	select {
	case <-p.exited:
	case <-time.After(killGrace):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-p.exited
	}
	// Descendants that ignored SIGTERM outlive the leader; the group id stays theirs. A
	// confined worker's sandbox ends with its outermost process: the pid namespace's first
	// process dies with it (--die-with-parent), and the kernel kills the rest of the namespace.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	p.forget()
	// A descendant outside the group may hold stderr open: its last lines are not waited for.
	select {
	case <-p.stderrRead:
	case <-time.After(killGrace):
	}
}
