package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Toolchains find a home, caches and a temporary directory in the private cache, offline.
func TestToolchainEnvironmentPointsAtThePrivateCache(t *testing.T) {
	r := requireSandbox(t)
	root, _, wt := dirs(t)
	cache := filepath.Join(root, "state", "cache")
	s := helperSpec(t, wt, "env")
	s.CacheDir = cache
	res := run(t, r, s)
	if !res.Passed() {
		t.Fatalf("env: %s", res.Stderr)
	}
	env := map[string]string{}
	for _, kv := range strings.Split(string(res.Stdout), "\n") {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	for k, sub := range cacheLayout {
		if want := filepath.Join(cache, sub); env[k] != want {
			t.Errorf("%s=%q, want %q", k, env[k], want)
		}
	}
	for k, want := range freshLayout {
		if env[k] != want {
			t.Errorf("%s=%q, want %q, made anew for each command", k, env[k], want)
		}
	}
	for _, k := range scratchEnv {
		if env[k] != "/tmp" {
			t.Errorf("%s=%q, want the sandbox's own /tmp", k, env[k])
		}
	}
	if env["GOPROXY"] != "off" || env["GOTOOLCHAIN"] != "local" || env["CARGO_NET_OFFLINE"] != "true" {
		t.Errorf("not offline: GOPROXY=%q GOTOOLCHAIN=%q CARGO_NET_OFFLINE=%q", env["GOPROXY"], env["GOTOOLCHAIN"], env["CARGO_NET_OFFLINE"])
	}
	// The cache is writable from inside.
	s = helperSpec(t, wt, "write", filepath.Join(cache, "probe"))
	s.CacheDir = cache
	if res := run(t, r, s); !res.Passed() {
		t.Fatalf("cache not writable: %s", res.Stderr)
	}
	// Only the cache directory is made beforehand; a toolchain makes its own cache folder, as
	// it does outside, and scratch files go to the sandbox's /tmp.
	gocache := filepath.Join(cache, cacheLayout["GOCACHE"])
	if _, err := os.Lstat(gocache); !os.IsNotExist(err) {
		t.Errorf("GOCACHE made before any toolchain asked for it: %v", err)
	}
	s = helperSpec(t, wt, "mkdir", filepath.Join(gocache, "00"))
	s.CacheDir = cache
	if res := run(t, r, s); !res.Passed() {
		t.Fatalf("a toolchain cannot make its cache folder: %s", res.Stderr)
	}
	s = helperSpec(t, wt, "write", "/tmp/scratch")
	s.CacheDir = cache
	if res := run(t, r, s); !res.Passed() {
		t.Fatalf("no scratch space: %s", res.Stderr)
	}
	// With the network granted, fetching is allowed again.
	s = helperSpec(t, wt, "env")
	s.CacheDir, s.Network = cache, true
	if res := run(t, r, s); strings.Contains(string(res.Stdout), "GOPROXY=off") {
		t.Fatal("GOPROXY=off with the network granted")
	}
}

// What one command writes where toolchains read their configuration (go env -w, a cargo config,
// Python bytecode) is gone for the next: only build caches are kept across a task's runs.
func TestConfigurationDoesNotOutliveTheCommand(t *testing.T) {
	r := requireSandbox(t)
	root, _, wt := dirs(t)
	cache := filepath.Join(root, "state", "cache")
	plant := Spec{Argv: []string{"/bin/sh", "-c", `mkdir -p "$XDG_CONFIG_HOME/go" "$CARGO_HOME" "$PYTHONPYCACHEPREFIX" "$GOCACHE" &&
echo GOFLAGS=-run=^$ > "$XDG_CONFIG_HOME/go/env" && echo planted > "$CARGO_HOME/config.toml" &&
echo planted > "$PYTHONPYCACHEPREFIX/x.pyc" && echo planted > "$HOME/.npmrc" && echo kept > "$GOCACHE/k"`},
		Worktree: wt, CacheDir: cache, Timeout: 30 * time.Second}
	if res := run(t, r, plant); !res.Passed() {
		t.Fatalf("plant: %s", res.Stderr)
	}
	look := plant
	look.Argv = []string{"/bin/sh", "-c", `for f in "$XDG_CONFIG_HOME/go/env" "$CARGO_HOME/config.toml" "$PYTHONPYCACHEPREFIX/x.pyc" "$HOME/.npmrc"; do test -e "$f" && echo "KEPT $f"; done; cat "$GOCACHE/k"`}
	res := run(t, r, look)
	if out := string(res.Stdout); strings.Contains(out, "KEPT") || !strings.Contains(out, "kept") {
		t.Fatalf("after a command planted its configuration:\n%s%s", out, res.Stderr)
	}
}

// A dependency folder of the source checkout is visible read-only at its place in the worktree
// during the run, and leaves nothing behind in the worktree.
func TestDependencyFolderIsBoundReadOnlyIntoTheWorktree(t *testing.T) {
	r := requireSandbox(t)
	root, repo, wt := dirs(t)
	dep := filepath.Join(repo, "node_modules", "dep")
	if err := os.MkdirAll(dep, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dep, "index.js"), []byte("module.exports = 42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(root, "state", "cache")
	bind := Bind{Src: filepath.Join(repo, "node_modules"), Dst: filepath.Join(wt, "node_modules")}
	s := helperSpec(t, wt, "read", filepath.Join(wt, "node_modules", "dep", "index.js"))
	s.CacheDir, s.Binds = cache, []Bind{bind}
	if res := run(t, r, s); !res.Passed() || string(res.Stdout) != "module.exports = 42\n" {
		t.Fatalf("dependency not visible: %+v %s", res, res.Stderr)
	}
	s = helperSpec(t, wt, "write", filepath.Join(wt, "node_modules", "dep", "index.js"))
	s.CacheDir, s.Binds = cache, []Bind{bind}
	if res := run(t, r, s); res.Passed() {
		t.Fatal("the dependency folder is writable")
	}
	if _, err := os.Lstat(filepath.Join(wt, "node_modules")); !os.IsNotExist(err) {
		t.Fatalf("the mount point stays in the worktree: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dep, "index.js")); string(b) != "module.exports = 42\n" {
		t.Fatal("the source's dependency changed")
	}
}
