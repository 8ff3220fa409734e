package sandbox

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"
)

// Defaults applied when a Spec leaves a limit at zero.
const (
	DefaultMaxOutput = 4 << 20
	DefaultTimeout   = 5 * time.Minute
)

// Spec is one command to run.
type Spec struct {
	Argv          []string
	Dir           string // working directory; empty means Worktree; must resolve inside Worktree
	Worktree      string // the only writable place
	RepoRoot      string // made readable (it may live under a hidden place such as /tmp)
	ExtraReadOnly []string
	Env           map[string]string // added to the allowlisted environment (see BuildEnv)
	// CacheDir is a private writable directory for the toolchains' build caches (GOCACHE, npm's,
	// pip's, cargo's target), kept across runs; with it the command also gets a fresh HOME in its
	// /tmp (freshLayout), the user's Go module cache and cargo registry read-only, and nothing is
	// fetched.
	CacheDir string
	// Binds are read-only mounts, for example a dependency folder of the source checkout at its
	// place in the worktree.
	Binds []Bind
	// Hidden are paths, relative to Worktree, that the command must not see: absent from its
	// view of the worktree, though they stay on disk (files and folders the review left out of
	// the commit, so that a check proves only what is committed). Needs the sandbox.
	Hidden []string
	// ReadOnly binds the worktree read-only: a check reads the reviewed tree and cannot change it
	// (its outputs go to the cache, HOME and /tmp). Hidden paths are then left out without any
	// writable place in their stead.
	ReadOnly bool
	// Network lets the command reach the host's network; off unless the task was delegated with
	// it.
	Network bool
	// Endpoints, for ConfineWorker only, are the "host:port" targets a worker may reach, and all
	// it may: its sandbox gets a network namespace of its own and a proxy that dials only these
	// (netproxy.go). Exclusive with Network.
	Endpoints []string
	Timeout   time.Duration // zero means DefaultTimeout
	MaxOutput int           // per stream; zero means DefaultMaxOutput
}

// Result is the outcome of a command that could be started.
type Result struct {
	ExitCode  int // -1 when killed by a signal
	TimedOut  bool
	Truncated bool // a stream exceeded MaxOutput; the command was killed
	Stdout    []byte
	Stderr    []byte
	Duration  time.Duration
	Sandboxed bool
}

// Passed reports whether the command succeeded: exit 0, no timeout, no truncation.
func (r Result) Passed() bool { return r.ExitCode == 0 && !r.TimedOut && !r.Truncated }

// Runner runs Specs. The zero value uses bwrap from PATH, hides DefaultHidden and refuses to run
// without a sandbox.
type Runner struct {
	Bwrap            string // bubblewrap executable; empty means "bwrap" from PATH
	AllowUnsandboxed bool   // run directly when no engine works (explicit opt-in only)
	HideDirs         []string
	HideFiles        []string // with HideDirs nil, DefaultHidden is used
	// Private are places no toolchain bind may show, not even as an ancestor of what it needs:
	// the state directory, whose socket drives every task. The user's home, /root, /run and the
	// host's /tmp are always private.
	Private []string
	Logger  *slog.Logger
	// Forwarder is the executable that runs ForwardMain when started as `<Forwarder>
	// sandbox-forward …` (reasonixctl itself); empty means this process's own executable. It is
	// shown read-only in a worker's sandbox that has Endpoints.
	Forwarder string
	// Ledger, when set, records each command's process group while it runs, so that the next
	// owner can end it if this process is killed.
	Ledger *Ledger

	// dialNet, when set, is how a worker's proxy dials its endpoints (tests).
	dialNet func(ctx context.Context, network, addr string) (net.Conn, error)

	// Escalation delays; zero means 2 s from SIGTERM to SIGKILL, then 3 s before a forced result.
	killGrace, forceAfter time.Duration
}

func (r *Runner) logger() *slog.Logger {
	if r.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return r.Logger
}

func (r *Runner) hidden() (dirs, files []string) {
	if r.HideDirs == nil && r.HideFiles == nil {
		return DefaultHidden()
	}
	return r.HideDirs, r.HideFiles
}

// Probe is the result of the availability check, as reported by doctor.
type Probe struct {
	Engine     string // "bubblewrap"
	Executable string // resolved path, empty when not found
	Available  bool   // the probe command ran
	Detail     string // why not, when unavailable
}

var probes sync.Map // bwrap setting → *probeOnce

type probeOnce struct {
	once sync.Once
	p    Probe
}

// Probe checks once per process (per Bwrap setting) that bubblewrap can create the namespaces.
func (r *Runner) Probe() Probe {
	v, _ := probes.LoadOrStore(r.Bwrap, &probeOnce{})
	po := v.(*probeOnce)
	po.once.Do(func() { po.p = probe(r.Bwrap) })
	return po.p
}

func probe(bwrap string) Probe {
	p := Probe{Engine: "bubblewrap"}
	if bwrap == "" {
		bwrap = "bwrap"
	}
	exe, err := exec.LookPath(bwrap)
	if err != nil {
		p.Detail = "bubblewrap not found: " + err.Error()
		return p
	}
	p.Executable = exe
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	args := append([]string{"--die-with-parent", "--new-session", "--unshare-all"}, systemMounts()...)
	args = append(args, "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--", "/bin/true")
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = []string{"PATH=" + defaultPath}
	if out, err := cmd.CombinedOutput(); err != nil {
		p.Detail = fmt.Sprintf("bubblewrap probe failed: %v: %.300s", err, out)
		return p
	}
	p.Available = true
	return p
}

// Run executes s. A command that started always yields a Result (check Result.Passed); the error
// is non-nil for a refused Spec, a missing sandbox, a failed start, or a cancelled ctx.
func (r *Runner) Run(ctx context.Context, s Spec) (Result, error) {
	if len(s.Endpoints) > 0 {
		return Result{}, invalid("endpoints are a worker's (ConfineWorker); a command gets the network or none")
	}
	s, err := normalise(s)
	if err != nil {
		return Result{}, err
	}
	env, err := BuildEnv(s.Env)
	if err != nil {
		return Result{}, err
	}
	if err := prepareCache(s); err != nil {
		return Result{}, &Error{Code: CodeInternal, Message: "preparing the cache directory", Err: err}
	}
	env = withEnv(env, toolchainEnv(s))
	p := r.Probe()
	if !p.Available {
		if len(s.Hidden) > 0 || s.ReadOnly {
			return Result{}, &Error{Code: CodeUnavailable, Message: p.Detail + "; without the sandbox the command would see files outside the review and could change the reviewed ones"}
		}
		if !r.AllowUnsandboxed {
			return Result{}, &Error{Code: CodeUnavailable, Message: p.Detail}
		}
		exe := lookPath(s.Argv[0], lookupEnv(env, "PATH"), s.Dir)
		if exe == "" {
			return Result{}, invalid("executable %q not found", s.Argv[0])
		}
		r.logger().Warn("running without a sandbox", "argv", s.Argv, "reason", p.Detail)
		return r.execute(ctx, s, exe, s.Argv, env, false)
	}
	args, err := r.bwrapArgs(s, lookupEnv(env, "PATH"), nil)
	if err != nil {
		return Result{}, err
	}
	if !s.ReadOnly {
		created := missingMountPoints(append(dependencyBinds(s), s.Binds...), s.Worktree)
		defer removeEmpty(created)
	}
	return r.execute(ctx, s, p.Executable, append([]string{p.Executable}, args...), env, true)
}

// Confine returns the command line (bubblewrap's path first) that runs s.Argv in the sandbox,
// for a process its caller starts, feeds and stops itself: a worker that lives for a whole task.
// The view is Run's; the environment is the caller's to give (s.Env["PATH"], else ours, is the
// PATH whose toolchains are shown); Timeout, MaxOutput and CacheDir's toolchain variables do not
// apply. Without a working bubblewrap it fails with CodeUnavailable: a worker is never run
// unconfined by this call.
func (r *Runner) Confine(s Spec) ([]string, error) {
	if len(s.Endpoints) > 0 {
		return nil, invalid("endpoints are a worker's (ConfineWorker)")
	}
	return r.confine(s, nil)
}

// confine is Confine with last, mounts laid after every other one (so that nothing the view
// shows covers them) and before the root is made read-only (so that their mount points can be
// made).
func (r *Runner) confine(s Spec, last []string) ([]string, error) {
	pathEnv := s.Env["PATH"]
	if pathEnv == "" {
		pathEnv = os.Getenv("PATH")
	}
	s.Env = nil
	s, err := normalise(s)
	if err != nil {
		return nil, err
	}
	if err := prepareCache(s); err != nil {
		return nil, &Error{Code: CodeInternal, Message: "preparing the cache directory", Err: err}
	}
	p := r.Probe()
	if !p.Available {
		return nil, &Error{Code: CodeUnavailable, Message: p.Detail}
	}
	args, err := r.bwrapArgs(s, pathEnv, last)
	if err != nil {
		return nil, err
	}
	return append([]string{p.Executable}, args...), nil
}

func normalise(s Spec) (Spec, error) {
	if len(s.Argv) == 0 || s.Argv[0] == "" {
		return s, invalid("argv is empty")
	}
	if s.Timeout < 0 || s.MaxOutput < 0 {
		return s, invalid("timeout and output limit must not be negative")
	}
	if s.Timeout == 0 {
		s.Timeout = DefaultTimeout
	}
	if s.MaxOutput == 0 {
		s.MaxOutput = DefaultMaxOutput
	}
	var err error
	if s.Worktree, err = existingDir("worktree", s.Worktree); err != nil {
		return s, err
	}
	if s.Dir == "" {
		s.Dir = s.Worktree
	}
	if !filepath.IsAbs(s.Dir) {
		s.Dir = filepath.Join(s.Worktree, s.Dir)
	}
	if s.Dir, err = existingDir("cwd", s.Dir); err != nil {
		return s, err
	}
	if !within(s.Dir, s.Worktree) {
		return s, invalid("cwd %s is outside the worktree %s", s.Dir, s.Worktree)
	}
	if s.RepoRoot != "" {
		if s.RepoRoot, err = existingDir("repository root", s.RepoRoot); err != nil {
			return s, err
		}
	}
	extra := make([]string, 0, len(s.ExtraReadOnly))
	for _, p := range s.ExtraReadOnly {
		if !filepath.IsAbs(p) {
			return s, invalid("read-only path %q is not absolute", p)
		}
		rp := resolveExisting(p)
		if rp == "" {
			return s, invalid("read-only path %s does not exist", p)
		}
		extra = append(extra, rp)
	}
	s.ExtraReadOnly = extra
	if s.CacheDir != "" && !filepath.IsAbs(s.CacheDir) {
		return s, invalid("cache directory %q is not absolute", s.CacheDir)
	}
	for _, b := range s.Binds {
		if !filepath.IsAbs(b.Src) || !filepath.IsAbs(b.Dst) {
			return s, invalid("bind %s → %s needs absolute paths", b.Src, b.Dst)
		}
		if resolveExisting(b.Src) == "" {
			return s, invalid("bind source %s does not exist", b.Src)
		}
	}
	return s, nil
}

func existingDir(what, p string) (string, error) {
	if p == "" || !filepath.IsAbs(p) {
		return "", invalid("%s %q must be an absolute path", what, p)
	}
	rp := resolveExisting(p)
	if rp == "" {
		return "", invalid("%s %s does not exist", what, p)
	}
	if st, err := os.Stat(rp); err != nil || !st.IsDir() {
		return "", invalid("%s %s is not a directory", what, p)
	}
	return rp, nil
}

// bwrapArgs builds the mount plan from an allow-list: an empty root, the system directories,
// the toolchains the command's PATH resolves to, what the Spec names, and nothing else — no home,
// no state directory, no /run, no host /tmp, so no socket of the host's is reachable by path. The
// command starts in a new session without a controlling terminal and in every namespace bubblewrap
// can make (user, ipc, pid, uts, cgroup, and network unless the Spec asks for it).
//
// Order matters: the read-only views, then the masks of what they must not show, then the
// writable worktree and cache, the hidden paths inside the worktree, and the dependency folders
// read-only inside it.
func (r *Runner) bwrapArgs(s Spec, pathEnv string, last []string) ([]string, error) {
	hideDirs, hideFiles := r.hidden()
	private := r.privatePlaces()
	args := []string{"--die-with-parent", "--new-session", "--unshare-all"}
	if s.Network {
		args = append(args, "--share-net")
	}
	args = append(args, systemMounts()...)
	args = append(args, "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/var/tmp")
	if s.CacheDir != "" {
		// The fresh home a command with a cache gets (freshLayout) exists, as a home does.
		args = append(args, "--dir", freshLayout["HOME"])
	}

	shown := toolchainBinds(lookPath(s.Argv[0], pathEnv, s.Dir), pathEnv, s.Worktree, private)
	if s.RepoRoot != "" {
		shown = append(shown, s.RepoRoot)
	}
	shown = append(shown, s.ExtraReadOnly...)
	for _, b := range shown {
		args = append(args, "--ro-bind", b, b)
	}
	// A checkout or an extra folder may hold the state directory or the user's credentials.
	args = append(args, maskedWithin(shown, append(slices.Clone(hideDirs), private...), hideFiles)...)

	tree := "--bind"
	if s.ReadOnly {
		tree = "--ro-bind"
	}
	args = append(args, tree, s.Worktree, s.Worktree)
	if s.CacheDir != "" {
		args = append(args, "--bind", s.CacheDir, s.CacheDir)
	}
	deps := append(dependencyBinds(s), s.Binds...)
	hidden := s.Hidden
	if s.ReadOnly {
		// A read-only tree cannot take a mount point: the folder that gets one is laid out
		// afresh like the folder of a hidden path.
		hidden = append(slices.Clone(hidden), mountPointsIn(deps, s.Worktree)...)
	}
	masks, remounts, err := hideMounts(s.Worktree, hidden, s.ReadOnly)
	if err != nil {
		return nil, err
	}
	args = append(args, masks...)
	// A command may change the worktree's files, never its link to the repository: a rewritten
	// .git would point reasonixctl's own git at a repository of the command's making.
	if link := filepath.Join(s.Worktree, ".git"); !s.ReadOnly && isPlainFileOrDir(link) {
		args = append(args, "--ro-bind", link, link)
	}
	// After the writable binds, so that a dependency folder can sit read-only inside them.
	for _, b := range deps {
		args = append(args, "--ro-bind", b.Src, b.Dst)
	}
	args = append(args, remounts...)
	args = append(args, last...)
	// The root bubblewrap builds is a tmpfs; nothing is written there but into the places above.
	args = append(args, "--remount-ro", "/")
	return append(append(args, "--chdir", s.Dir, "--"), s.Argv...), nil
}

// isPlainFileOrDir reports whether p is a regular file or a directory, not through a link.
func isPlainFileOrDir(p string) bool {
	st, err := os.Lstat(p)
	return err == nil && (st.Mode().IsRegular() || st.IsDir())
}

func (r *Runner) execute(ctx context.Context, s Spec, path string, argv, env []string, sandboxed bool) (Result, error) {
	res := Result{Sandboxed: sandboxed}
	outR, outW, err := os.Pipe()
	if err != nil {
		return res, &Error{Code: CodeInternal, Message: "pipe", Err: err}
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return res, &Error{Code: CodeInternal, Message: "pipe", Err: err}
	}
	cmd := &exec.Cmd{
		Path: path, Args: argv, Env: env, Dir: s.Dir, Stdout: outW, Stderr: errW,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
	}
	start := time.Now()
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return res, &Error{Code: CodeInvalidRequest, Message: fmt.Sprintf("cannot start %q", s.Argv[0]), Err: err}
	}
	pgid := cmd.Process.Pid
	forget := r.Ledger.Track(pgid)
	killGroup := func(sig syscall.Signal) { _ = syscall.Kill(-pgid, sig) }

	overflow := make(chan struct{})
	var overflowOnce sync.Once
	onOverflow := func() { overflowOnce.Do(func() { close(overflow) }) }
	stdout, stderr := &capture{limit: s.MaxOutput, over: onOverflow}, &capture{limit: s.MaxOutput, over: onOverflow}
	var readers sync.WaitGroup
	for _, c := range []struct {
		dst *capture
		src *os.File
	}{{stdout, outR}, {stderr, errR}} {
		readers.Add(1)
		go func() {
			defer readers.Done()
			_, _ = io.Copy(c.dst, c.src)
		}()
	}

	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	grace, force := r.killGrace, r.forceAfter
	if grace == 0 {
		grace = 2 * time.Second
	}
	if force == 0 {
		force = 3 * time.Second
	}
	timer := time.NewTimer(s.Timeout)
	defer timer.Stop()
	var ctxErr error
	escalate := func(first syscall.Signal) {
		killGroup(first)
		select {
		case <-exited:
			return
		case <-time.After(grace):
		}
		killGroup(syscall.SIGKILL)
		select {
		case <-exited:
		case <-time.After(force):
		}
	}
	select {
	case <-exited:
	case <-timer.C:
		res.TimedOut = true
		escalate(syscall.SIGTERM)
	case <-ctx.Done():
		ctxErr = ctx.Err()
		escalate(syscall.SIGTERM)
	case <-overflow:
		escalate(syscall.SIGKILL)
	}
	// Whatever the command left behind in its group dies with it.
	killGroup(syscall.SIGKILL)
	forget()

	drained := make(chan struct{})
	go func() {
		readers.Wait()
		close(drained)
	}()
	select {
	case <-drained:
	case <-time.After(force):
		// An escaped descendant still holds the pipes; stop reading.
		outR.Close()
		errR.Close()
		<-drained
	}
	outR.Close()
	errR.Close()

	res.Duration = time.Since(start)
	res.Stdout, res.Stderr = stdout.buf, stderr.buf
	res.Truncated = stdout.truncated || stderr.truncated
	res.ExitCode = -1
	select {
	case <-exited:
		res.ExitCode = cmd.ProcessState.ExitCode()
	default:
	}
	if ctxErr != nil {
		return res, ctxErr
	}
	return res, nil
}

// capture keeps up to limit bytes and reports the first byte beyond it; it keeps draining so the
// writer never blocks before it is killed.
type capture struct {
	buf       []byte
	limit     int
	truncated bool
	over      func()
}

func (c *capture) Write(p []byte) (int, error) {
	room := c.limit - len(c.buf)
	if len(p) > room {
		c.buf = append(c.buf, p[:max(room, 0)]...)
		if !c.truncated {
			c.truncated = true
			c.over()
		}
		return len(p), nil
	}
	c.buf = append(c.buf, p...)
	return len(p), nil
}
