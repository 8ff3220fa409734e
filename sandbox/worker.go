package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// WorkerHome is where a worker's private home is mounted inside its sandbox. The folder itself
// lives under the state directory; mounted at its real place, its parents would name that
// directory and list what else it holds (workers, worktrees), so it is shown at a path that names
// nothing of the host.
const WorkerHome = "/home/reasonix-worker"

// Home is a worker's private home.
type Home struct {
	// Dir is the folder on the host, mounted writable at WorkerHome.
	Dir string
	// Shown are host files or folders mounted read-only inside the home, Dst relative to it:
	// configuration the worker reads and must not change (a change would reach the person's own
	// sessions, which run outside any sandbox).
	Shown []Bind
}

// ConfineWorker returns the command line that runs s.Argv as a task's worker, a process its
// caller starts, feeds and stops, and the environment variables to set for it. The view is
// Confine's — the allow-list the checks get: the system directories, the toolchains of
// s.Env["PATH"], s.ExtraReadOnly, the worktree writable at its place; never the user's home,
// the state directory (Runner.Private), /run or the host's /tmp — plus:
//   - home.Dir writable at WorkerHome, with home.Shown read-only inside it;
//   - the user's Go module cache and rustup toolchains read-only at their places, and cargo's
//     registry read-only at WorkerHome/.cargo/registry, as the checks see them, so that the
//     commands the worker runs build offline as the checks do;
//   - with s.Endpoints, a network namespace of its own in which only those host:port targets
//     are reached, through a proxy this call starts (netproxy.go) and the forwarder it puts
//     first on the command line (ForwardMain), which then runs s.Argv; the proxy ends with the
//     forwarder, or after a minute if the command line is never run;
//   - with s.Network instead, the host's network, and the file /etc/resolv.conf links to when it
//     lies outside the system directories (systemd-resolved's stub under /run): without it no
//     name resolves. Without either, no network at all.
//
// s.CacheDir must be empty: the home is the worker's cache, and a cache bound at its real place
// would name the state directory.
func (r *Runner) ConfineWorker(s Spec, home Home) ([]string, map[string]string, error) {
	if s.CacheDir != "" {
		return nil, nil, invalid("a worker's cache is its home; CacheDir must be empty")
	}
	dir, err := existingDir("worker home", home.Dir)
	if err != nil {
		return nil, nil, err
	}
	for _, b := range home.Shown {
		rel := filepath.Clean(b.Dst)
		if b.Dst == "" || filepath.IsAbs(rel) || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
			return nil, nil, invalid("%s must be shown inside the worker's home", b.Dst)
		}
		if !filepath.IsAbs(b.Src) || resolveExisting(b.Src) == "" {
			return nil, nil, invalid("%s, to be shown in the worker's home, does not exist", b.Src)
		}
	}
	if s.Network && len(s.Endpoints) > 0 {
		return nil, nil, invalid("a worker gets the host's network or its endpoints, not both")
	}
	if s.Network {
		if target := resolveExisting("/etc/resolv.conf"); target != "" && !inSystemDirs(target) {
			s.ExtraReadOnly = append(slices.Clone(s.ExtraReadOnly), target)
		}
	}
	env := map[string]string{
		"HOME":            WorkerHome,
		"XDG_CONFIG_HOME": filepath.Join(WorkerHome, ".config"),
		"XDG_CACHE_HOME":  filepath.Join(WorkerHome, ".cache"),
		"XDG_DATA_HOME":   filepath.Join(WorkerHome, ".local", "share"),
		"XDG_STATE_HOME":  filepath.Join(WorkerHome, ".local", "state"),
	}
	for _, k := range scratchEnv {
		env[k] = scratchDir
	}
	mounts := []string{"--bind", dir, WorkerHome}
	if mc := userGoModCache(); mc != "" {
		mounts = append(mounts, "--ro-bind", mc, mc)
		env["GOMODCACHE"] = mc
	}
	if rh := userRustupHome(); rh != "" {
		mounts = append(mounts, "--ro-bind", rh, rh)
		env["RUSTUP_HOME"] = rh
	}
	if reg := userCargoRegistry(); reg != "" {
		mounts = append(mounts, "--ro-bind", reg, filepath.Join(WorkerHome, ".cargo", "registry"))
		env["CARGO_HOME"] = filepath.Join(WorkerHome, ".cargo")
	}
	for _, b := range home.Shown {
		mounts = append(mounts, "--ro-bind", b.Src, filepath.Join(WorkerHome, filepath.Clean(b.Dst)))
	}
	if len(s.Endpoints) == 0 {
		argv, err := r.confine(s, mounts)
		if err != nil {
			return nil, nil, err
		}
		return argv, env, nil
	}
	argv, err := r.confineWithEndpoints(s, mounts)
	if err != nil {
		return nil, nil, err
	}
	return argv, env, nil
}

// confineWithEndpoints is confine for a worker that reaches s.Endpoints only: it starts the
// proxy, shows its folder and the forwarder at neutral places, and puts the forwarder in front
// of s.Argv. The view is computed for s.Argv, so that the worker's own toolchain is shown.
func (r *Runner) confineWithEndpoints(s Spec, mounts []string) ([]string, error) {
	eps, err := parseEndpoints(s.Endpoints)
	if err != nil {
		return nil, err
	}
	fwd := r.Forwarder
	if fwd == "" {
		if fwd, err = os.Executable(); err != nil {
			return nil, &Error{Code: CodeInternal, Message: "finding the forwarder", Err: err}
		}
	}
	if fwd = resolveExisting(fwd); fwd == "" || !filepath.IsAbs(fwd) {
		return nil, invalid("the forwarder %s does not exist", r.Forwarder)
	}
	proxy, err := startNetProxy(eps, r.logger(), r.dialNet)
	if err != nil {
		return nil, err
	}
	mounts = append(slices.Clone(mounts), "--ro-bind", proxy.dir, netDirInside, "--ro-bind", fwd, forwarderInside)
	cmd, err := r.confine(s, mounts)
	if err != nil {
		proxy.Close()
		return nil, err
	}
	front := []string{forwarderInside, ForwardCommand, "--socket", netSocketInside}
	for _, e := range eps {
		if e.loopback() {
			front = append(front, "--listen", e.String())
		}
	}
	front = append(front, "--")
	// confine's command line ends with s.Argv as given.
	head := cmd[:len(cmd)-len(s.Argv)]
	return slices.Concat(head, front, s.Argv), nil
}
