package review

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"reasonixctl/core"
)

func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// The stamp changes with HEAD's ref, a switch, the index and a packed ref, and reads a linked
// worktree's own HEAD and index.
func TestCheckoutStamp(t *testing.T) {
	repo := t.TempDir()
	gitT(t, repo, "init", "-q", "-b", "main")
	gitT(t, repo, "commit", "-q", "--allow-empty", "-m", "one")
	s0 := checkoutStamp(repo)
	if s0 != checkoutStamp(repo) || strings.Contains(s0, "unreadable") {
		t.Fatalf("stamp: %q", s0)
	}
	steps := []struct {
		what string
		do   func()
	}{
		{"commit", func() { gitT(t, repo, "commit", "-q", "--allow-empty", "-m", "two") }},
		{"switch", func() { gitT(t, repo, "switch", "-q", "-c", "other") }},
		{"pack-refs then commit", func() {
			gitT(t, repo, "pack-refs", "--all")
			gitT(t, repo, "commit", "-q", "--allow-empty", "-m", "three")
		}},
		{"add", func() {
			if err := os.WriteFile(filepath.Join(repo, "f"), []byte("f"), 0o644); err != nil {
				t.Fatal(err)
			}
			gitT(t, repo, "add", "f")
		}},
	}
	prev := s0
	for _, s := range steps {
		s.do()
		if now := checkoutStamp(repo); now == prev {
			t.Fatalf("%s: the stamp did not change", s.what)
		} else {
			prev = now
		}
	}
	linked := filepath.Join(t.TempDir(), "linked")
	gitT(t, repo, "worktree", "add", "-q", linked, "main")
	l0 := checkoutStamp(linked)
	if strings.Contains(l0, "unreadable") || l0 == prev {
		t.Fatalf("linked worktree stamp: %q", l0)
	}
	gitT(t, linked, "commit", "-q", "--allow-empty", "-m", "in the linked one")
	if checkoutStamp(linked) == l0 {
		t.Fatal("a commit in the linked worktree did not change its stamp")
	}
	if checkoutStamp(filepath.Join(t.TempDir(), "nothing")) == "" {
		t.Fatal("a missing checkout has no stamp")
	}
}

// The preview is asked when the detail arrives, stands for previewTTL unless forced, is asked
// again on a tick that finds the checkout moved, and is said by Preview while it is on its way.
func TestPreviewIsAskedAgainWhenItNoLongerHolds(t *testing.T) {
	repo := t.TempDir()
	gitT(t, repo, "init", "-q", "-b", "main")
	gitT(t, repo, "commit", "-q", "--allow-empty", "-m", "one")
	d := loginFix(sampleDiff)
	d.Repository = repo
	h := newHarness(t, d, 120, 27)
	r, cmd, _ := h.r.In(h.place).Update(RefreshPreview{TaskID: "login-fix"})
	h.r = r
	if p := h.r.Preview("login-fix"); cmd == nil || !p.Pending || p.Of != nil {
		t.Fatalf("asked: %+v", p)
	}
	if line := h.r.Preview("login-fix").Line(); line != "checking whether it applies to your checkout…" {
		t.Fatalf("pending line %q", line)
	}
	h.send(runCmd(cmd)...)
	if p := h.r.Preview("login-fix"); p.Pending || p.Of == nil || !p.Of.Clean {
		t.Fatalf("answered: %+v", p)
	}
	h.requireView("applies to HEAD 89abcde")
	asked := h.svc.previews

	// A recent answer stands; forcing, or its age, asks again.
	h.send(RefreshPreview{TaskID: "login-fix"})
	if h.svc.previews != asked {
		t.Fatal("a fresh preview was asked again")
	}
	h.send(RefreshPreview{TaskID: "login-fix", Force: true})
	h.clk = h.clk.Add(previewTTL)
	h.send(RefreshPreview{TaskID: "login-fix"})
	if h.svc.previews != asked+2 {
		t.Fatalf("forced and stale previews asked %d times, want 2", h.svc.previews-asked)
	}

	// Ticks read the checkout's stamp; only one that differs asks again.
	asked = h.svc.previews
	h.send(Tick{TaskID: "login-fix"}, Tick{TaskID: "login-fix"})
	if h.svc.previews != asked {
		t.Fatal("ticks on an unmoved checkout asked the preview")
	}
	gitT(t, repo, "commit", "-q", "--allow-empty", "-m", "two")
	h.send(Tick{TaskID: "login-fix"})
	if h.svc.previews != asked+1 {
		t.Fatalf("a moved checkout asked %d previews, want 1", h.svc.previews-asked)
	}

	// A failed preview says why; a task neither in review nor committed has none to ask.
	h.send(PreviewDone{TaskID: "login-fix", Of: d.View.ReviewTreeHash, Err: core.Errorf(core.CodeInvalidRequest, nil, "no source checkout")})
	if line := h.r.Preview("login-fix").Line(); !strings.Contains(line, "cherry-pick preview failed: ") {
		t.Fatalf("failed line %q", line)
	}
	d.View.State = core.StateRunning
	h.send(Loaded{TaskID: "login-fix", Detail: d})
	r, cmd, _ = h.r.In(h.place).Update(RefreshPreview{TaskID: "login-fix", Force: true})
	h.r = r
	if cmd != nil {
		t.Fatal("a running task's preview was asked")
	}
}
