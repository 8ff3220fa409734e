package tui

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
	"reasonixctl/core/doctor"
	"reasonixctl/core/engine"
	"reasonixctl/tui/bind"
	"reasonixctl/tui/dialog"
	"reasonixctl/tui/term"
)

// engineScenario writes the result, then asks to run a command the policy does not know, so the
// task waits for a person.
func engineScenario() *acptest.Scenario {
	return &acptest.Scenario{Name: "tui-engine", Turns: []acptest.Turn{{
		Steps: []acptest.Step{
			{Text: "Writing the result, then I will run the checks.", Chunks: 7},
			{Write: &acptest.WriteFile{Path: "result.txt", Content: "done\n"}},
			{Shell: &acptest.Shell{Command: "make check", Output: "ok\n"}, Permission: "ask"},
			{Text: "All set for review.", Chunks: 3},
		},
		Summary: "Wrote result.txt.",
	}}}
}

const engineContract = `{
  "schema_version": 1,
  "objective": "Write result.txt",
  "user_outcome": "result.txt says done",
  "write_scope": ["result.txt"],
  "acceptance_criteria": [
    {"id": "written", "requirement": "result.txt is not empty", "evidence": "automated"},
    {"id": "reads-well", "requirement": "result.txt reads well", "evidence": "review"}
  ],
  "verification": [{"id": "has-result", "argv": ["test", "-s", "result.txt"], "proves": ["written"]}]
}`

func openEngine(t *testing.T, state string) *engine.Engine {
	t.Helper()
	e, err := engine.Open(engine.Config{
		StateDir: state, Mode: "tui", PermissionMode: core.PermissionSupervised,
		AllowUnsandboxed: !doctor.SandboxAvailable(),
		Worker: engine.PipeWorker(func(ctx context.Context, r io.Reader, w io.Writer) error {
			return acptest.Serve(ctx, r, w, acptest.Options{Scenario: engineScenario()})
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func gitRepo(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("GIT_AUTHOR_NAME", "t")
	t.Setenv("GIT_AUTHOR_EMAIL", "t@example.invalid")
	t.Setenv("GIT_COMMITTER_NAME", "t")
	t.Setenv("GIT_COMMITTER_EMAIL", "t@example.invalid")
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "README.md"}, {"commit", "-q", "-m", "start"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	return dir
}

// liveHarness is a harness over a real engine: events reach the model as the relay would send
// them, and waits end on what the screen shows, with a deadline.
type liveHarness struct {
	*harness
	events <-chan core.Event
}

func newLiveHarness(t *testing.T, e *engine.Engine, dir string) *liveHarness {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	sub, err := e.Subscribe(ctx, core.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{t: time.Now()}
	m := newModel(ctx, e, Options{StateDir: "/state", WorkerVersion: "scripted", Now: clk.Now, Dir: dir})
	h := &harness{t: t, m: m, clk: clk}
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	h.run(m.Init())
	return &liveHarness{harness: h, events: sub.C}
}

// waitView feeds live events to the model until the screen shows every text.
func (h *liveHarness) waitView(want ...string) {
	h.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		flat := flatten(h.view())
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(flat, flatten(w))
		}
		if ok {
			return
		}
		select {
		case ev, open := <-h.events:
			if !open {
				h.t.Fatalf("event stream ended waiting for %q:\n%s", want, h.view())
			}
			h.send(eventsMsg{ev})
			// Real time passes between events; keep the dashboard's clock with it.
			h.clk.t = time.Now()
		case <-deadline:
			h.t.Fatalf("timed out waiting for %q:\n%s", want, h.view())
		}
	}
}

// A task paused by a restart is resumed, answered and finalized from the dashboard alone.
func TestRestartedTaskIsResumedAnsweredAndFinalizedByKeys(t *testing.T) {
	repo := gitRepo(t)
	state := filepath.Join(t.TempDir(), "state")
	e := openEngine(t, state)
	ctx := context.Background()
	if _, err := e.Delegate(ctx, core.DelegateRequest{
		TaskID: "restarted", Contract: json.RawMessage(engineContract), WaitMode: "background",
		Authority: core.Authority{Cwd: repo, Writable: true},
	}); err != nil {
		t.Fatal(err)
	}
	h := newLiveHarness(t, e, repo)
	h.waitView("Permission requested", "make check")
	// The person quits while the worker waits; the next start finds the task paused.
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openEngine(t, state)
	t.Cleanup(func() { _ = e.Close() })
	h = newLiveHarness(t, e, repo)
	h.waitView("1 resumable (r)", "restart_recovery", "r resume")

	h.press("r")
	h.waitView("Permission requested", "make check", "unknown_executable")
	if strings.Contains(h.view(), "1 resumable") {
		t.Fatal("still resumable after the resume")
	}
	h.clk.advance(time.Second)
	h.press("a")
	h.waitView("review_required", "All set for review.")

	h.press("2")
	h.waitView("result.txt")
	h.press("v", "F")
	h.typeText("result.txt says done")
	h.press("tab", "space", "enter")
	h.waitView("Committed restarted", "git cherry-pick")
	d, err := e.Get(ctx, "restarted")
	if err != nil || d.View.State != core.StateCompleted || d.View.CommitHash == "" {
		t.Fatalf("after finalize: %+v %v", d.View, err)
	}
}

// The prompt golden is drawn from what the engine really stores for a request, not from a
// hand-written fixture.
func TestGoldenPromptFromTheEngine(t *testing.T) {
	repo := gitRepo(t)
	state := filepath.Join(t.TempDir(), "state")
	e := openEngine(t, state)
	t.Cleanup(func() { _ = e.Close() })
	if _, err := e.Delegate(context.Background(), core.DelegateRequest{
		TaskID: "engine-prompt", Contract: json.RawMessage(engineContract), WaitMode: "background",
		Authority: core.Authority{Cwd: repo, Writable: true},
	}); err != nil {
		t.Fatal(err)
	}
	h := newLiveHarness(t, e, repo)
	h.waitView("Permission requested", "make check")
	h.clk.advance(time.Second)
	var prompt *promptDialog
	for _, d := range h.stack().all() {
		if pd, ok := d.(*promptDialog); ok {
			prompt = pd
		}
	}
	if prompt == nil {
		t.Fatal("no prompt open")
	}
	// Temporary paths and the repository id differ from run to run.
	ia := prompt.Interaction()
	ia.Request.Cwd = regexp.MustCompile(`worktrees/[0-9a-f]+/`).ReplaceAllString(
		strings.ReplaceAll(ia.Request.Cwd, state, "/STATE"), "worktrees/REPO/")
	body, keys := dialog.NewPrompt(prompt.TaskID(), ia, prompt.LastWords(), 0).View(term.DefaultTheme(), bind.DefaultKeyMap(), 76)
	golden.RequireEqual(t, []byte(body+"\n"+keys+"\n"))
}
