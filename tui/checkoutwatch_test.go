package tui

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
)

// movingCheckout previews against a real checkout: the answer names its HEAD as git reads it
// now, and conflicts when told to.
type movingCheckout struct {
	*fakeService
	repo      string
	mu        sync.Mutex
	previews  int
	conflicts []string
}

func (m *movingCheckout) CherryPickPreview(context.Context, string) (core.CherryPickPreview, error) {
	out, err := exec.Command("git", "-C", m.repo, "rev-parse", "HEAD").Output()
	if err != nil {
		return core.CherryPickPreview{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.previews++
	return core.CherryPickPreview{Source: "/src/app", Head: strings.TrimSpace(string(out)), Of: "review_tree",
		Clean: len(m.conflicts) == 0, Conflicts: m.conflicts}, nil
}

func (m *movingCheckout) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.previews
}

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

// The "apply" line under the list (a terminal wide enough to show the selected task's summary)
// follows the checkout: a commit there (HEAD moves) or a `git add` (the index changes) is seen
// at the next tick and the preview asked again, well inside the preview's 30 s; a tick with
// nothing changed asks nothing; ctrl+r asks again whatever the preview's age. Before, the line
// kept the old HEAD until the cache expired, and ctrl+r did not refresh it.
func TestApplyLineFollowsTheCheckout(t *testing.T) {
	repo := t.TempDir()
	gitT(t, repo, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(repo, "README"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitT(t, repo, "add", "README")
	gitT(t, repo, "commit", "-q", "-m", "initial")
	first := gitT(t, repo, "rev-parse", "HEAD")

	svc := &movingCheckout{fakeService: scenario(), repo: repo}
	d := svc.details["login-fix"]
	d.Repository = repo
	svc.details["login-fix"] = d
	clk := &clock{t: epoch}
	m := newModel(context.Background(), svc, Options{StateDir: "/state", WorkerVersion: "1.38.11", Now: clk.Now, Dir: "/src/app"})
	h := &harness{t: t, m: m, svc: svc.fakeService, clk: clk}
	h.send(tea.WindowSizeMsg{Width: wideWidth, Height: 40})
	h.run(m.Init())
	h.requireView("applies cleanly", first[:10])
	asked := svc.count()

	// Nothing moved: ticks read the stamp and ask nothing.
	for range 3 {
		clk.advance(time.Second)
		h.send(tickMsg(clk.Now()))
	}
	if svc.count() != asked {
		t.Fatalf("ticks on an unmoved checkout asked %d previews", svc.count()-asked)
	}

	// A commit in the checkout: the next tick shows the new HEAD.
	if err := os.WriteFile(filepath.Join(repo, "other.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitT(t, repo, "add", "other.txt")
	gitT(t, repo, "commit", "-q", "-m", "moved")
	second := gitT(t, repo, "rev-parse", "HEAD")
	clk.advance(time.Second)
	h.send(tickMsg(clk.Now()))
	h.requireView("applies cleanly", second[:10])
	if strings.Contains(h.view(), first[:10]) {
		t.Fatal("the old HEAD is still on screen")
	}

	// The index alone changes: asked again too.
	asked = svc.count()
	if err := os.WriteFile(filepath.Join(repo, "staged.txt"), []byte("y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitT(t, repo, "add", "staged.txt")
	clk.advance(time.Second)
	h.send(tickMsg(clk.Now()))
	if svc.count() != asked+1 {
		t.Fatalf("a changed index asked %d previews, want 1", svc.count()-asked)
	}

	// ctrl+r asks again though the preview is a second old and the checkout did not move.
	svc.mu.Lock()
	svc.conflicts = []string{"internal/auth/login.go"}
	svc.mu.Unlock()
	clk.advance(time.Second)
	h.send(tea.KeyMsg{Type: tea.KeyCtrlR})
	h.requireView("conflicts with", "internal/auth/login.go")
}
