package engine

import (
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"reasonixctl/acp/agents"
	"reasonixctl/core"
	"reasonixctl/sandbox"
	"reasonixctl/store/atomicfile"
)

// The worker's sandbox (issue 36, item 4). Reasonix runs the commands it is allowed in a
// bubblewrap of its own that shows all of /, so the worker itself runs inside ours, built from the
// allow-list the checks get (sandbox.Runner.Confine): the system directories, the toolchains of
// its PATH, its own package folder, the repository's git directory read-only, the worktree
// writable at its real place (the engine and the ACP session use that path), a private home at
// sandbox.WorkerHome; never the state directory, its socket, the user's home, /run or the host's
// /tmp. It has its own session (no terminal), pid namespace (no other process, no
// /proc/<pid>/root of one) and ends with its outermost process. Reasonix's own sandbox nests
// inside ours for the commands it runs.

// workerDir is the task's folder for its worker, under the state directory; its home is the
// worker's HOME. It is removed when the task is archived.
func (e *Engine) workerDir(id string) string {
	return filepath.Join(e.cfg.StateDir, "workers", id)
}

func (e *Engine) workerHome(id string) string {
	return filepath.Join(e.workerDir(id), "home")
}

// workerHomeVars are variables a worker inherits that name places of the user's home or of the
// host, which its sandbox does not show; they are dropped, and the sandbox's own set instead.
var workerHomeVars = []string{"REASONIX_STATE_HOME", "REASONIX_CACHE_HOME", "CODEX_HOME", "XDG_RUNTIME_DIR"}

// workerCAVars name certificate bundles a worker's TLS may need; each one named by an absolute
// path is shown read-only.
var workerCAVars = []string{"SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "NODE_EXTRA_CA_CERTS"}

// workerForwarder is the executable that runs sandbox.ForwardMain as `<it> sandbox-forward`
// inside the worker's sandbox ("" means this process's own, reasonixctl, whose main does).
var workerForwarder = ""

// workerBwrap is the bubblewrap the worker's sandbox uses ("" means bwrap from PATH); tests
// point it at a missing one.
var workerBwrap = ""

// workerSandbox returns the acp.LaunchConfig.Confine that runs spec's worker in the sandbox, or
// nil when bubblewrap does not work and spec allows running without it (a warning is logged).
// Without that opt-in the worker does not start: as for verification, nothing the worker runs
// is ever unconfined by default.
//
// Reasonix's home is prepared here, at each start; another agent's by startAgent before it, and
// its home variables (profile.Home, as the sandbox shows the home) are set here.
func workerSandbox(spec WorkerSpec, log *slog.Logger) (func(argv, env []string) ([]string, []string, error), error) {
	return agentSandbox(spec, agents.Profile{}, log)
}

// agentSandbox is workerSandbox for the agent profile names.
func agentSandbox(spec WorkerSpec, profile agents.Profile, log *slog.Logger) (func(argv, env []string) ([]string, []string, error), error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	runner := &sandbox.Runner{Bwrap: workerBwrap, Logger: log, Private: []string{spec.StateDir}, Forwarder: workerForwarder}
	if p := runner.Probe(); !p.Available {
		if !spec.AllowUnsandboxed {
			return nil, core.Errorf(core.CodeSandboxUnavailable, nil,
				"the worker runs only inside the sandbox, and %s (CODEX_REASONIX_ALLOW_UNSANDBOXED=true runs it without one)", p.Detail)
		}
		log.Warn("running the worker without a sandbox: it and every command it runs can reach the state directory, its socket and the terminal",
			"task", spec.TaskID, "reason", p.Detail)
		return nil, nil
	}
	if !filepath.IsAbs(spec.StateDir) || !filepath.IsAbs(spec.Home) {
		return nil, core.Errorf(core.CodeInternalError, nil, "the worker's sandbox needs the state directory and a home")
	}
	userEnv := os.Environ()
	return func(argv, env []string) ([]string, []string, error) {
		var shown []sandbox.Bind
		var homeEnv []string
		if profile.IsReasonix() {
			var err error
			if shown, err = prepareWorkerHome(spec.Home, userReasonixHome(env)); err != nil {
				return nil, nil, core.Errorf(core.CodeInternalError, nil, "preparing the worker's home: %w", err)
			}
		} else {
			setup, err := profile.Home(env, sandbox.WorkerHome)
			if err != nil {
				return nil, nil, core.Errorf(core.CodeReasonixUnavailable, nil, "reading the %s worker's configuration: %v", profile.Name, err)
			}
			homeEnv = setup.Env
		}
		endpoints := sandboxEndpoints(profile, env, userEnv)
		s := sandbox.Spec{
			Argv: argv, Worktree: spec.Worktree,
			ExtraReadOnly: workerReadOnly(argv[0], spec.RepoCommonDir, env),
			// The worker reaches its model endpoints and nothing else: a network namespace of its
			// own, and a proxy of ours that dials only these (sandbox/netproxy.go). The commands
			// it runs are cut off even from that by Reasonix's own sandbox unless the task was
			// delegated with network (--sandbox-network).
			Endpoints: endpoints,
			Env:       map[string]string{"PATH": workerEnvValue(env, "PATH")},
		}
		cmd, vars, err := runner.ConfineWorker(s, sandbox.Home{Dir: spec.Home, Shown: shown})
		if err != nil {
			var se *sandbox.Error
			if errors.As(err, &se) && se.Code == sandbox.CodeUnavailable {
				return nil, nil, core.Errorf(core.CodeSandboxUnavailable, nil, "%s", se.Message)
			}
			return nil, nil, err
		}
		if profile.IsReasonix() {
			vars["REASONIX_HOME"] = filepath.Join(sandbox.WorkerHome, ".reasonix")
		}
		for _, kv := range homeEnv {
			if k, v, ok := strings.Cut(kv, "="); ok {
				vars[k] = v
			}
		}
		return cmd, workerEnv(env, vars), nil
	}, nil
}

// sandboxEndpoints are the endpoints the network of a worker reaches: Reasonix's from its
// configuration as env (the worker's) points at it; another agent's from the person's own
// environment userEnv, as its private home is derived (startAgent), since env already points the
// agent at that home, which is the agent's to write and holds no endpoint of the person's.
func sandboxEndpoints(profile agents.Profile, env, userEnv []string) []string {
	if profile.IsReasonix() {
		return profile.Endpoints(env)
	}
	return profile.Endpoints(userEnv)
}

// workerReadOnly are the places shown read-only besides the allow-list: the repository's git
// directory (git in the worktree finds its objects and refs there; the person's checkout itself
// stays unseen), the node_modules folder that holds the worker's binary (npm's reasonix is a
// script that runs the platform package beside it), and the certificate bundles the environment
// names.
func workerReadOnly(bin, commonDir string, env []string) []string {
	var out []string
	if filepath.IsAbs(commonDir) && pathExists(commonDir) {
		out = append(out, commonDir)
	}
	if real, err := filepath.EvalSymlinks(bin); err == nil {
		for d := filepath.Dir(real); d != "/" && d != "."; d = filepath.Dir(d) {
			if filepath.Base(d) == "node_modules" {
				out = append(out, d)
				break
			}
		}
	}
	for _, k := range workerCAVars {
		if v := workerEnvValue(env, k); filepath.IsAbs(v) && pathExists(v) {
			out = append(out, v)
		}
	}
	return out
}

// userReasonixHome is the Reasonix home the worker would use unconfined: $REASONIX_HOME, else
// ~/.reasonix, as its environment says.
func userReasonixHome(env []string) string {
	if h := workerEnvValue(env, "REASONIX_HOME"); filepath.IsAbs(h) {
		return h
	}
	home := workerEnvValue(env, "HOME")
	if !filepath.IsAbs(home) {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return ""
		}
	}
	return filepath.Join(home, ".reasonix")
}

// prepareWorkerHome makes the worker's home and its Reasonix home (.reasonix) from the user's:
// config.toml (providers, models, settings; never keys, by Reasonix's own rule) is copied at each
// start, so that a change the worker makes stays in its home and never reaches the person's own
// sessions, which run unconfined; .env (the provider keys Reasonix saved) is shown read-only in
// place, never copied. Sessions, caches and statistics the worker writes stay in its home.
//
// The home is the worker's to write, so nothing in it is trusted: a link it left where a file
// or folder of ours goes is replaced, never followed.
func prepareWorkerHome(home, userRX string) ([]sandbox.Bind, error) {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, err
	}
	rx := filepath.Join(home, ".reasonix")
	if err := ownDir(rx); err != nil {
		return nil, err
	}
	if userRX == "" {
		return nil, nil
	}
	var shown []sandbox.Bind
	config, err := os.ReadFile(filepath.Join(userRX, "config.toml"))
	switch {
	case err == nil:
		if err := atomicfile.WriteFile(filepath.Join(rx, "config.toml"), config, atomicfile.Options{}); err != nil {
			return nil, err
		}
	case errors.Is(err, fs.ErrNotExist):
		// No configuration of the user's: the worker's own, if it wrote one, stays.
	default:
		return nil, err
	}
	keys := filepath.Join(userRX, ".env")
	if st, err := os.Stat(keys); err == nil && st.Mode().IsRegular() {
		if err := ownFile(filepath.Join(rx, ".env")); err != nil {
			return nil, err
		}
		shown = append(shown, sandbox.Bind{Src: keys, Dst: filepath.Join(".reasonix", ".env")})
	}
	return shown, nil
}

// prepareAgentHome makes the private home of an agent other than Reasonix from its profile's
// setup: each folder, then each file written afresh. The home is the agent's to write, so every
// folder on the way to a file is made ours (a link left there is replaced, never followed), and
// a file is replaced by rename, which never writes through a link at its place.
func prepareAgentHome(home string, setup agents.HomeSetup) error {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return err
	}
	ownPath := func(rel string) (string, error) {
		clean := filepath.Clean(filepath.FromSlash(rel))
		if clean == "." || filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
			return "", errors.New("home path " + rel + " leaves the home")
		}
		p := home
		parts := strings.Split(clean, string(filepath.Separator))
		for _, part := range parts[:len(parts)-1] {
			p = filepath.Join(p, part)
			if err := ownDir(p); err != nil {
				return "", err
			}
		}
		return filepath.Join(p, parts[len(parts)-1]), nil
	}
	for _, d := range setup.Dirs {
		p, err := ownPath(d)
		if err != nil {
			return err
		}
		if err := ownDir(p); err != nil {
			return err
		}
	}
	for _, f := range setup.Files {
		p, err := ownPath(f.Path)
		if err != nil {
			return err
		}
		if st, err := os.Lstat(p); err == nil && !st.Mode().IsRegular() {
			if err := os.RemoveAll(p); err != nil {
				return err
			}
		}
		if err := atomicfile.WriteFile(p, f.Data, atomicfile.Options{}); err != nil {
			return err
		}
	}
	return nil
}

// ownDir makes p a directory of ours, replacing whatever else is there (a link the worker left).
func ownDir(p string) error {
	st, err := os.Lstat(p)
	if err == nil && st.IsDir() {
		return nil
	}
	if err == nil {
		if err := os.Remove(p); err != nil {
			return err
		}
	}
	return os.Mkdir(p, 0o700)
}

// ownFile makes p a regular file (the mount point of a file shown read-only), replacing a link
// or anything else: bubblewrap would mount through a link, wherever it points.
func ownFile(p string) error {
	st, err := os.Lstat(p)
	if err == nil && st.Mode().IsRegular() {
		return nil
	}
	if err == nil {
		if err := os.RemoveAll(p); err != nil {
			return err
		}
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}

// workerEnv is env with vars set, and the variables naming places the sandbox does not show
// dropped.
func workerEnv(env []string, vars map[string]string) []string {
	out := make([]string, 0, len(env)+len(vars))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if _, set := vars[k]; set || slices.Contains(workerHomeVars, k) {
			continue
		}
		out = append(out, kv)
	}
	for k, v := range vars {
		out = append(out, k+"="+v)
	}
	return out
}

func workerEnvValue(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val // the last one wins, as for the process that gets env
		}
	}
	return v
}

func pathExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
