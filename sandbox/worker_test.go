package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A worker's home is its own folder under the state directory, shown at WorkerHome: writable,
// with the configuration it is shown read-only inside it; the folder's real place, the state
// directory around it and the worktree's other neighbours stay unseen, and the worktree is
// writable at its real place.
func TestWorkerHomeIsPrivateAndNamesNothing(t *testing.T) {
	r := requireSandbox(t)
	root := t.TempDir()
	state := filepath.Join(root, "state")
	wt := filepath.Join(state, "worktrees", "repo", "task")
	home := filepath.Join(state, "workers", "task", "home")
	for _, d := range []string{wt, home} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(state, "grants.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	userRX := filepath.Join(root, "user-home", ".reasonix")
	if err := os.MkdirAll(userRX, 0o700); err != nil {
		t.Fatal(err)
	}
	keys := filepath.Join(userRX, ".env")
	if err := os.WriteFile(keys, []byte("MOCK_API_KEY=k\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r.Private = []string{state}

	script := `set -u
echo "HOME=$HOME"
echo written > "$HOME/mine" || echo "FAIL home not writable"
echo written > "$PWD/out" || echo "FAIL worktree not writable"
cat "$HOME/.reasonix/.env" | sed 's/^/KEYS /'
echo changed > "$HOME/.reasonix/.env" 2>/dev/null && echo "FAIL shown file writable"
for p in "$REALHOME" "$STATE/grants.json" "$STATE/workers"; do test -e "$p" && echo "FAIL SEEN $p"; done
ls -A "$STATE" | grep -vx worktrees | sed 's/^/FAIL LISTED /'
ls -A /home | grep -vx reasonix-worker | sed 's|^|LISTED /home/|'
echo done`
	argv, vars, err := r.ConfineWorker(Spec{
		Argv: []string{"/bin/sh", "-c", script}, Worktree: wt, Network: true,
		Env: map[string]string{"PATH": "/usr/bin:/bin"},
	}, Home{Dir: home, Shown: []Bind{{Src: keys, Dst: ".reasonix/.env"}}})
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"HOME": WorkerHome, "XDG_CONFIG_HOME": WorkerHome + "/.config", "TMPDIR": "/tmp"} {
		if vars[k] != want {
			t.Errorf("%s = %q, want %q", k, vars[k], want)
		}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "STATE=" + state, "REALHOME=" + home}
	for k, v := range vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	text := string(out)
	if err != nil || !strings.Contains(text, "done") || strings.Contains(text, "FAIL") {
		t.Fatalf("%v\n%s\n%q", err, text, argv)
	}
	if !strings.Contains(text, "HOME="+WorkerHome) || !strings.Contains(text, "KEYS MOCK_API_KEY=k") {
		t.Errorf("the home or its shown file is not there:\n%s", text)
	}
	if b, err := os.ReadFile(filepath.Join(home, "mine")); err != nil || string(b) != "written\n" {
		t.Errorf("a file the worker wrote in its home is not in the home's folder: %q %v", b, err)
	}
	if b, _ := os.ReadFile(keys); string(b) != "MOCK_API_KEY=k\n" {
		t.Errorf("the shown file changed: %q", b)
	}
}

// The worker's cache is its home: a cache bound at its real place would name the state
// directory, so ConfineWorker refuses one, and a shown file must stay inside the home.
func TestConfineWorkerRefusesACacheAndFilesOutsideTheHome(t *testing.T) {
	r := requireSandbox(t)
	wt, home := t.TempDir(), t.TempDir()
	s := Spec{Argv: []string{"/bin/true"}, Worktree: wt, CacheDir: t.TempDir()}
	if _, _, err := r.ConfineWorker(s, Home{Dir: home}); err == nil {
		t.Error("a worker with a CacheDir was confined")
	}
	s.CacheDir = ""
	for _, dst := range []string{"../escape", "/etc/passwd", ""} {
		if _, _, err := r.ConfineWorker(s, Home{Dir: home, Shown: []Bind{{Src: "/etc/hostname", Dst: dst}}}); err == nil {
			t.Errorf("a file shown at %q was accepted", dst)
		}
	}
}
