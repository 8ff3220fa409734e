package engine

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"reasonixctl/core"
	"reasonixctl/sandbox"
)

// Without a working bubblewrap the worker does not start, unless the person opted in to running
// without a sandbox, as for verification; then it starts unconfined and the log says so.
func TestWorkerDoesNotStartUnconfinedWithoutTheOptIn(t *testing.T) {
	old := workerBwrap
	workerBwrap = filepath.Join(t.TempDir(), "no-bwrap")
	t.Cleanup(func() { workerBwrap = old })
	state := t.TempDir()
	spec := WorkerSpec{TaskID: "t", Worktree: t.TempDir(), StateDir: state, Home: filepath.Join(state, "workers", "t", "home")}

	confine, err := workerSandbox(spec, nil)
	var ce *core.Error
	if !errors.As(err, &ce) || ce.Code != core.CodeSandboxUnavailable || confine != nil {
		t.Fatalf("without bubblewrap: confine %v, err %v; want sandbox_unavailable", confine != nil, err)
	}

	var logged bytes.Buffer
	spec.AllowUnsandboxed = true
	confine, err = workerSandbox(spec, slog.New(slog.NewTextHandler(&logged, nil)))
	if err != nil || confine != nil {
		t.Fatalf("with the opt-in: confine %v, err %v; want an unconfined start", confine != nil, err)
	}
	if !strings.Contains(logged.String(), "level=WARN") || !strings.Contains(logged.String(), "without a sandbox") {
		t.Errorf("no warning logged: %s", logged.String())
	}
}

// The worker's home gets the user's Reasonix configuration: config.toml copied, .env shown
// read-only in place. The home is the worker's to write, so a link it left where our folder or
// the mount point of .env goes is replaced, never followed.
func TestWorkerHomeTakesTheUsersConfigAndFollowsNoLink(t *testing.T) {
	root := t.TempDir()
	userRX := filepath.Join(root, "user", ".reasonix")
	elsewhere := filepath.Join(root, "elsewhere")
	home := filepath.Join(root, "state", "workers", "t", "home")
	for _, d := range []string{userRX, elsewhere, home} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(userRX, "config.toml"), []byte("default_model = \"mock\"\n"), 0o600)
	os.WriteFile(filepath.Join(userRX, ".env"), []byte("MOCK_API_KEY=k\n"), 0o600)
	// A worker before this one left .reasonix as a link out of its home.
	if err := os.Symlink(elsewhere, filepath.Join(home, ".reasonix")); err != nil {
		t.Fatal(err)
	}

	shown, err := prepareWorkerHome(home, userRX)
	if err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) > 0 {
		t.Fatalf("preparing the home wrote through the worker's link: %v", entries)
	}
	rx := filepath.Join(home, ".reasonix")
	if st, err := os.Lstat(rx); err != nil || !st.IsDir() {
		t.Fatalf(".reasonix is not a folder of ours: %v %v", st, err)
	}
	if b, err := os.ReadFile(filepath.Join(rx, "config.toml")); err != nil || string(b) != "default_model = \"mock\"\n" {
		t.Errorf("config.toml: %q %v", b, err)
	}
	want := []sandbox.Bind{{Src: filepath.Join(userRX, ".env"), Dst: filepath.Join(".reasonix", ".env")}}
	if !slices.Equal(shown, want) {
		t.Errorf("shown = %v, want %v", shown, want)
	}

	// Now .env's mount point is a link, and the worker changed its copy of config.toml.
	os.Remove(filepath.Join(rx, ".env"))
	os.Symlink(filepath.Join(elsewhere, "planted"), filepath.Join(rx, ".env"))
	os.WriteFile(filepath.Join(rx, "config.toml"), []byte("changed by the worker\n"), 0o600)
	if _, err := prepareWorkerHome(home, userRX); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(filepath.Join(rx, ".env")); err != nil || !st.Mode().IsRegular() {
		t.Errorf("the mount point of .env is not a plain file: %v %v", st, err)
	}
	if b, _ := os.ReadFile(filepath.Join(rx, "config.toml")); string(b) != "default_model = \"mock\"\n" {
		t.Errorf("config.toml was not taken afresh from the user's: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(userRX, ".env")); string(b) != "MOCK_API_KEY=k\n" {
		t.Errorf("the user's .env changed: %q", b)
	}
}

// Variables naming places the worker's sandbox does not show are dropped; the sandbox's own win.
func TestWorkerEnvironment(t *testing.T) {
	env := []string{"PATH=/usr/bin", "HOME=/home/alice", "REASONIX_STATE_HOME=/home/alice/.local/state/reasonix",
		"CODEX_HOME=/home/alice/.codex", "MOCK_API_KEY=k", "REASONIX_HOME=/home/alice/.reasonix"}
	got := workerEnv(env, map[string]string{"HOME": sandbox.WorkerHome, "REASONIX_HOME": sandbox.WorkerHome + "/.reasonix"})
	slices.Sort(got)
	want := []string{"HOME=" + sandbox.WorkerHome, "MOCK_API_KEY=k", "PATH=/usr/bin", "REASONIX_HOME=" + sandbox.WorkerHome + "/.reasonix"}
	if !slices.Equal(got, want) {
		t.Errorf("workerEnv = %q, want %q", got, want)
	}
	if h := userReasonixHome(env); h != "/home/alice/.reasonix" {
		t.Errorf("the user's Reasonix home is %q", h)
	}
	if h := userReasonixHome([]string{"HOME=/home/bob"}); h != "/home/bob/.reasonix" {
		t.Errorf("without REASONIX_HOME the user's Reasonix home is %q", h)
	}
}
