package sandbox

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
)

// Bind mounts Src read-only at Dst inside the sandbox. Dst may lie inside the worktree: that is
// how a dependency folder of the source checkout (node_modules, .venv) is seen by verification
// without being copied into the worktree or becoming writable.
type Bind struct {
	Src, Dst string
}

// cacheLayout is where a command's toolchains keep their build caches inside Spec.CacheDir,
// kept across a task's runs so that the first verification's build is not paid again; nothing
// in it is ever part of a commit. Each toolchain makes its own folder on first use, so a task's
// cache costs one directory until something fills it.
var cacheLayout = map[string]string{
	"XDG_CACHE_HOME":   "xdg-cache",
	"GOCACHE":          "go-build",
	"npm_config_cache": "npm",
	"PIP_CACHE_DIR":    "pip",
	"CARGO_TARGET_DIR": "cargo-target",
}

// freshLayout is where the places a toolchain reads its configuration or code from — HOME, the
// XDG configuration and data folders, cargo's home, Python's bytecode — point: into the
// sandbox's private /tmp, made anew for every command. In the kept cache a command the worker
// wrote could leave `go env -w GOFLAGS=-run=^$`, a cargo `runner = "true"` or a planted .pyc for
// the next check to obey.
var freshLayout = map[string]string{
	"HOME":                "/tmp/home",
	"XDG_CONFIG_HOME":     "/tmp/home/.config",
	"XDG_DATA_HOME":       "/tmp/home/.local/share",
	"CARGO_HOME":          "/tmp/home/.cargo",
	"PYTHONPYCACHEPREFIX": "/tmp/pycache",
}

// scratchDir is where temporary files go: the sandbox's private /tmp, which ends with the
// command, so nothing of one run's scratch reaches the next.
const scratchDir = "/tmp"

var scratchEnv = []string{"TMPDIR", "TMP", "TEMP", "GOTMPDIR"}

// toolchainEnv is the environment that points toolchains at the private cache and keeps them
// offline: the Go module cache and cargo's registry of the user are visible read-only, and
// nothing is fetched.
func toolchainEnv(s Spec) map[string]string {
	env := map[string]string{}
	if s.CacheDir == "" {
		return env
	}
	for k, sub := range cacheLayout {
		env[k] = filepath.Join(s.CacheDir, sub)
	}
	maps.Copy(env, freshLayout)
	for _, k := range scratchEnv {
		env[k] = scratchDir
	}
	if projectSetsCargoTarget(s.Worktree) {
		delete(env, "CARGO_TARGET_DIR")
	}
	env["GOTOOLCHAIN"] = "local"
	if !s.Network {
		env["GOPROXY"] = "off"
		env["npm_config_offline"] = "true"
		env["PIP_NO_INDEX"] = "1"
		env["CARGO_NET_OFFLINE"] = "true"
	}
	if mc := userGoModCache(); mc != "" {
		env["GOMODCACHE"] = mc
	}
	if rh := userRustupHome(); rh != "" {
		// rustup's cargo and rustc are proxies that find their toolchains here, by HOME otherwise.
		env["RUSTUP_HOME"] = rh
	}
	env["npm_config_update_notifier"] = "false"
	return env
}

// dependencyBinds are the user's dependency caches, visible read-only at the place the
// toolchain expects them.
func dependencyBinds(s Spec) []Bind {
	if s.CacheDir == "" {
		return nil
	}
	var out []Bind
	if mc := userGoModCache(); mc != "" {
		out = append(out, Bind{Src: mc, Dst: mc})
	}
	if rh := userRustupHome(); rh != "" {
		out = append(out, Bind{Src: rh, Dst: rh})
	}
	if reg := userCargoRegistry(); reg != "" {
		out = append(out, Bind{Src: reg, Dst: filepath.Join(freshLayout["CARGO_HOME"], "registry")})
	}
	return out
}

// userGoModCache is the module cache the user's go command uses, when it exists.
func userGoModCache() string {
	dir := os.Getenv("GOMODCACHE")
	if dir == "" {
		gopath := os.Getenv("GOPATH")
		if gopath == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return ""
			}
			gopath = filepath.Join(home, "go")
		}
		dir = filepath.Join(filepath.SplitList(gopath)[0], "pkg", "mod")
	}
	return resolveExisting(dir)
}

// userCargoRegistry is cargo's downloaded registry (index, crates and sources), when it exists.
func userCargoRegistry() string {
	home := os.Getenv("CARGO_HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		home = filepath.Join(h, ".cargo")
	}
	return resolveExisting(filepath.Join(home, "registry"))
}

// userRustupHome is where rustup keeps the user's toolchains, when it exists.
func userRustupHome() string {
	home := os.Getenv("RUSTUP_HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		home = filepath.Join(h, ".rustup")
	}
	return resolveExisting(home)
}

// projectSetsCargoTarget reports whether the project chose its own target directory, which an
// environment variable would override.
func projectSetsCargoTarget(worktree string) bool {
	for _, name := range []string{".cargo/config.toml", ".cargo/config"} {
		b, err := os.ReadFile(filepath.Join(worktree, name))
		if err == nil && strings.Contains(string(b), "target-dir") {
			return true
		}
	}
	return false
}

// prepareCache creates the cache directory, and the mount points of the dependency caches bound
// inside it: bubblewrap needs a bind's destination to exist.
func prepareCache(s Spec) error {
	if s.CacheDir == "" {
		return nil
	}
	dirs := []string{s.CacheDir}
	for _, b := range dependencyBinds(s) {
		if strictlyWithin(b.Dst, s.CacheDir) {
			dirs = append(dirs, b.Dst)
		}
	}
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	return nil
}

// withEnv returns env with the given variables set, replacing earlier values.
func withEnv(env []string, set map[string]string) []string {
	if len(set) == 0 {
		return env
	}
	out := make([]string, 0, len(env)+len(set))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := set[k]; !ok {
			out = append(out, kv)
		}
	}
	for k, v := range set {
		out = append(out, k+"="+v)
	}
	return out
}

// missingMountPoints lists the bind destinations inside the worktree that do not exist yet:
// bubblewrap creates them in the worktree itself, and they are removed again after the run.
func missingMountPoints(binds []Bind, worktree string) []string {
	var out []string
	for _, b := range binds {
		if strictlyWithin(b.Dst, worktree) {
			if _, err := os.Lstat(b.Dst); os.IsNotExist(err) {
				out = append(out, b.Dst)
			}
		}
	}
	return out
}

// removeEmpty removes the directories a run created as mount points; a non-empty one stays.
func removeEmpty(dirs []string) {
	for _, d := range dirs {
		_ = os.Remove(d)
	}
}

// mountPointsIn lists the bind destinations inside the worktree, relative to it.
func mountPointsIn(binds []Bind, worktree string) []string {
	var out []string
	for _, b := range binds {
		if rel, err := filepath.Rel(worktree, b.Dst); err == nil && strictlyWithin(b.Dst, worktree) {
			out = append(out, filepath.ToSlash(rel))
		}
	}
	return out
}
