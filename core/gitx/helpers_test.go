package gitx_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"reasonixctl/core/gitx"
)

var ctx = context.Background()

// sh runs git the way a person would, for setting up and inspecting repositories.
func sh(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=Setup", "GIT_AUTHOR_EMAIL=setup@example.com",
		"GIT_COMMITTER_NAME=Setup", "GIT_COMMITTER_EMAIL=setup@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func write(t testing.TB, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// fixture is a source checkout with one commit, a state folder for worktrees, and a check at
// cleanup that the checkout is byte-identical to how the test found it.
type fixture struct {
	src, state string
}

func newFixture(t testing.TB) fixture {
	t.Helper()
	t.Setenv("GIT_AUTHOR_NAME", "Task Author")
	t.Setenv("GIT_AUTHOR_EMAIL", "author@example.com")
	root := t.TempDir()
	f := fixture{src: filepath.Join(root, "src"), state: filepath.Join(root, "state")}
	sh(t, root, "init", "-q", "-b", "main", f.src)
	write(t, filepath.Join(f.src, "a.txt"), "alpha\nbeta\n", 0o644)
	write(t, filepath.Join(f.src, "lib", "b.txt"), "bravo\n", 0o644)
	write(t, filepath.Join(f.src, "run.sh"), "#!/bin/sh\necho run\n", 0o644)
	write(t, filepath.Join(f.src, "gone.txt"), "to be deleted\n", 0o644)
	write(t, filepath.Join(f.src, ".reasonix", "tracked.json"), "{}\n", 0o644)
	sh(t, f.src, "add", "-A")
	sh(t, f.src, "commit", "-q", "-m", "initial")
	before := fingerprint(t, f.src)
	t.Cleanup(func() {
		if after := fingerprint(t, f.src); after != before {
			t.Errorf("the source checkout changed: files, index or refs differ")
		}
	})
	return f
}

// fingerprint hashes the checkout's files, index, HEAD, config and refs; the task's own branch,
// its reflog, the worktree administration files and the objects are allowed to change (as are
// hooks, which tests install).
func fingerprint(t testing.TB, src string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		gitRel, inGit := strings.CutPrefix(rel, ".git/")
		if inGit && (strings.HasPrefix(gitRel, "worktrees") || strings.HasPrefix(gitRel, "logs/refs/heads/reasonix") ||
			strings.HasPrefix(gitRel, "refs/heads/reasonix") || strings.HasPrefix(gitRel, "objects") || strings.HasPrefix(gitRel, "hooks")) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		h.Write([]byte(rel + "\x00" + info.Mode().String() + "\x00"))
		if info.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// task creates a worktree for a fresh task in the fixture.
func (f fixture) task(t testing.TB, id string) gitx.Worktree {
	t.Helper()
	src, err := gitx.OpenSource(ctx, f.src, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	wt, err := gitx.CreateWorktree(ctx, src, f.state, id)
	if err != nil {
		t.Fatal(err)
	}
	return wt
}

func wantCode(t testing.TB, err error, code, reason string) *gitx.Error {
	t.Helper()
	var ge *gitx.Error
	if !errors.As(err, &ge) || ge.Code != code || (reason != "" && ge.Reason != reason) {
		t.Fatalf("want %s/%s, got %v", code, reason, err)
	}
	return ge
}
