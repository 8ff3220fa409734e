package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A hidden path is absent from the command's view of the worktree — not emptied, not even
// listed — while everything beside it stays readable and writable, links stay links, and the
// worktree's .git cannot be rewritten.
func TestHiddenPathsAreAbsentAndTheGitLinkIsReadOnly(t *testing.T) {
	r := requireSandbox(t)
	_, _, wt := dirs(t)
	files := map[string]string{
		".git":                "gitdir: /nowhere\n",
		"keep.txt":            "kept\n",
		"helpers/.gitignore":  "*\n",
		"helpers/override.sh": "echo planted\n",
		"helpers/real.sh":     "echo real\n",
		"build/out/a.o":       "object\n",
		"deep/a/b/secret.txt": "hidden\n",
		"deep/a/b/c/visible":  "seen\n",
		".reasonix/notes.md":  "runtime\n",
	}
	for p, content := range files {
		full := filepath.Join(wt, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("keep.txt", filepath.Join(wt, "link")); err != nil {
		t.Fatal(err)
	}
	script := `ls -A . helpers deep/a/b | tr '\n' ' '; echo
for p in helpers/override.sh helpers/.gitignore build deep/a/b/secret.txt .reasonix; do test -e "$p" && echo "LEAK $p"; done
cat keep.txt link helpers/real.sh deep/a/b/c/visible
echo changed > helpers/real.sh && echo wrote-real
echo x > .git 2>/dev/null && echo GIT-WRITABLE
mv .git moved 2>/dev/null && echo GIT-MOVED
true`
	res := run(t, r, Spec{
		Argv: []string{"/bin/sh", "-c", script}, Worktree: wt, Timeout: 30 * time.Second,
		Hidden: []string{"helpers/override.sh", "helpers/.gitignore", "build/", "deep/a/b/secret.txt", ".reasonix/"},
	})
	out := string(res.Stdout)
	if !res.Passed() || strings.Contains(out, "LEAK") || strings.Contains(out, "GIT-") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", res.ExitCode, out, res.Stderr)
	}
	for _, want := range []string{"kept\nkept\necho real\nseen\n", "wrote-real"} {
		if !strings.Contains(out, want) {
			t.Fatalf("stdout lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(strings.SplitN(out, "\n", 2)[0], "override") || strings.Contains(out, "secret.txt") {
		t.Fatalf("a hidden name was listed:\n%s", out)
	}
	for p, content := range files {
		b, err := os.ReadFile(filepath.Join(wt, filepath.FromSlash(p)))
		if p == "helpers/real.sh" {
			content = "changed\n"
		}
		if err != nil || string(b) != content {
			t.Errorf("%s on disk: %q, %v; want %q", p, b, err, content)
		}
	}
}

func TestHiddenPathsMustStayInsideTheWorktree(t *testing.T) {
	r := requireSandbox(t)
	_, _, wt := dirs(t)
	for _, bad := range []string{"../x", "/etc/passwd", ".", ""} {
		_, err := r.Run(t.Context(), Spec{Argv: []string{"/bin/true"}, Worktree: wt, Hidden: []string{bad}})
		if err == nil {
			t.Errorf("hidden %q was accepted", bad)
		}
	}
}

// A read-only tree is what a check reads: it cannot change a file, add one, or remove one; what
// is hidden is absent; a dependency folder is bound where the tree has none; and the command still
// writes its scratch to /tmp and its cache.
func TestReadOnlyTreeCannotBeChanged(t *testing.T) {
	r := requireSandbox(t)
	root, repo, wt := dirs(t)
	for p, content := range map[string]string{"status.txt": "bad\n", "pkg/a.go": "package a\n", "pkg/planted.py": "x\n", ".git": "gitdir: /x\n"} {
		full := filepath.Join(wt, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(wt, "empty"), 0o755)
	os.MkdirAll(filepath.Join(repo, "node_modules", "dep"), 0o755)
	os.WriteFile(filepath.Join(repo, "node_modules", "dep", "index.js"), []byte("dep\n"), 0o644)
	cache := filepath.Join(root, "cache")
	script := `echo good > status.txt 2>/dev/null && echo CHANGED
rm -f pkg/a.go 2>/dev/null; test -e pkg/a.go || echo REMOVED
touch new.txt 2>/dev/null && echo ADDED
touch pkg/new.txt 2>/dev/null && echo ADDED-IN-A-LAID-OUT-FOLDER
for p in pkg/planted.py empty .git; do test -e "$p" && echo "SEEN $p"; done
cat node_modules/dep/index.js
echo scratch > /tmp/x && cat /tmp/x
echo cached > "$HOME/c" && cat "$HOME/c"`
	res := run(t, r, Spec{
		Argv: []string{"/bin/sh", "-c", script}, Worktree: wt, Timeout: 30 * time.Second, ReadOnly: true, CacheDir: cache,
		Hidden: []string{"pkg/planted.py", "empty", ".git"},
		Binds:  []Bind{{Src: filepath.Join(repo, "node_modules"), Dst: filepath.Join(wt, "node_modules")}},
	})
	out := string(res.Stdout)
	for _, bad := range []string{"CHANGED", "REMOVED", "ADDED", "SEEN"} {
		if strings.Contains(out, bad) {
			t.Fatalf("%s:\n%s\n%s", bad, out, res.Stderr)
		}
	}
	for _, want := range []string{"dep\n", "scratch\n", "cached\n"} {
		if !strings.Contains(out, want) {
			t.Fatalf("stdout lacks %q:\n%s\n%s", want, out, res.Stderr)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(wt, "status.txt")); string(b) != "bad\n" {
		t.Fatalf("status.txt on disk: %q", b)
	}
	if _, err := os.Lstat(filepath.Join(wt, "node_modules")); err == nil {
		t.Fatal("the dependency folder's mount point was left in the worktree")
	}
}
