package tui

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/tui/intent"
)

// fakeAttachment is an owner that can leave and come back.
type fakeAttachment struct {
	mu      sync.Mutex
	owner   Owner
	present bool
	changed chan struct{}
}

func (a *fakeAttachment) Owner() (Owner, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.owner, a.present
}

func (a *fakeAttachment) Changed() <-chan struct{} { return a.changed }

func (a *fakeAttachment) set(o Owner, present bool) {
	a.mu.Lock()
	a.owner, a.present = o, present
	a.mu.Unlock()
}

func newAttachedHarness(t *testing.T, svc *fakeService, a *fakeAttachment, w, h int) *harness {
	t.Helper()
	clk := &clock{t: epoch}
	m := newModel(context.Background(), svc, Options{StateDir: "/state", WorkerVersion: "1.38.11", Now: clk.Now, Dir: "/src/app", Attached: a})
	hs := &harness{t: t, m: m, svc: svc, clk: clk}
	hs.send(ownerMsg{}) // no-op: the model read the owner when it was built
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	hs.run(m.Init())
	return hs
}

// An attached dashboard names its owner, keeps what it shows when the owner exits, and reloads
// from the next owner.
func TestAttachedDashboardFollowsItsOwner(t *testing.T) {
	a := &fakeAttachment{owner: Owner{PID: 4242, Mode: "mcp"}, present: true, changed: make(chan struct{})}
	svc := scenario()
	h := newAttachedHarness(t, svc, a, 100, 24)
	h.requireView("attached to reasonixctl --mcp (pid 4242)", "login-fix", "docs-typo")

	// The owner exits: calls fail from now on, and the stream's end must not wipe the view.
	a.set(Owner{PID: 4242, Mode: "mcp"}, false)
	svc.mu.Lock()
	svc.listErr = core.Errorf(core.CodeReasonixUnavailable, nil, "the owner exited")
	svc.mu.Unlock()
	h.send(ownerMsg{}, resyncMsg{err: core.Errorf(core.CodeReasonixUnavailable, nil, "the owner exited")})
	h.requireView("owner --mcp (pid 4242) exited; waiting for an owner: reasonixctl serve starts one", "the owner exited: showing what was last seen", "login-fix", "docs-typo")
	h.clk.advance(10 * time.Second)
	h.requireView("owner --mcp (pid 4242) exited; waiting for an owner: reasonixctl serve starts one", "login-fix")

	// A new owner answers: the list is reloaded from it.
	svc.mu.Lock()
	svc.listErr = nil
	svc.tasks = append(svc.tasks, core.TaskView{TaskID: "from-new-owner", State: core.StateRunning, UpdatedAt: epoch.Format(time.RFC3339Nano)})
	svc.mu.Unlock()
	a.set(Owner{PID: 5151, Mode: "tui"}, true)
	h.send(ownerMsg{})
	h.requireView("attached to another reasonixctl dashboard (pid 5151)", "from-new-owner")
}

// First answer wins: a prompt answered elsewhere closes here and says so.
func TestPromptAnsweredElsewhereClosesAndSaysSo(t *testing.T) {
	a := &fakeAttachment{owner: Owner{PID: 7, Mode: "mcp"}, present: true, changed: make(chan struct{})}
	h := newAttachedHarness(t, scenario(), a, 100, 24)
	h.press("j") // docs-typo
	h.send(ev("docs-typo", 7, core.EventInteractionWaiting, permissionIA("ia-1")))
	h.requireView("Permission requested")
	answered := permissionIA("ia-1")
	answered.Status = core.InteractionResolved
	answered.Response = &core.InteractionResponse{Decision: core.DecisionAllow, OptionID: "allow-once"}
	answered.Response.By, answered.Response.Client = core.ByCodex, "codex-mcp-client 0.169.0"
	h.send(ev("docs-typo", 8, core.EventInteractionResolved, answered))
	h.requireView("answered by codex-mcp-client 0.169.0: allow once (ia-1 of docs-typo)")
	if h.stack().hasPrompt() {
		t.Fatal("the prompt stayed open after another answer won")
	}

	// Answering late: the engine says the interaction is gone, and the dashboard says why.
	h.svc.onControl = func(req core.Command) (core.TaskView, error) {
		return core.TaskView{}, core.Errorf(core.CodeInteractionNotFound, nil, "no pending interaction %s", req.(core.Respond).InteractionID)
	}
	h.send(ev("docs-typo", 9, core.EventInteractionWaiting, permissionIA("ia-2")))
	h.requireView("Permission requested")
	h.clk.advance(2 * time.Second)
	h.press("d")
	h.requireView("ia-2 was already answered elsewhere; the first answer counts")
}

// A dashboard whose engine cannot serve its socket says so once, with the fix, and the notice
// goes with a key like any other.
func TestUnsharedDashboardSaysWhyOthersCannotAttach(t *testing.T) {
	svc := scenario()
	clk := &clock{t: epoch}
	why := &core.Error{Code: core.CodeInternalError, NextAction: core.NextFixRequest,
		Message: "unsafe owner socket: state directory /state has mode 0755; run chmod 700 /state"}
	m := newModel(context.Background(), svc, Options{StateDir: "/state", WorkerVersion: "1.38.11", Now: clk.Now, Dir: "/src/app", Unshared: why})
	h := &harness{t: t, m: m, svc: svc, clk: clk}
	h.send(tea.WindowSizeMsg{Width: 100, Height: 24})
	h.run(m.Init())
	h.requireView("Other processes cannot attach", "run chmod 700 /state")
	h.press("esc")
	if !h.stack().empty() {
		t.Fatal("the notice stayed after esc")
	}
	h.requireView("login-fix")
}

// With the owner gone the dashboard says it waits for one and how to start one, in the header
// and in the notice of any call that fails meanwhile, instead of advising doctor.
func TestOrphanedDashboardSaysItWaitsForAnOwner(t *testing.T) {
	a := &fakeAttachment{owner: Owner{PID: 4242, Mode: "serve"}, present: true, changed: make(chan struct{})}
	svc := scenario()
	h := newAttachedHarness(t, svc, a, 120, 30)
	a.set(Owner{PID: 4242, Mode: "serve"}, false)
	gone := core.Errorf(core.CodeReasonixUnavailable, nil, "the owner exited")
	svc.onControl = func(core.Command) (core.TaskView, error) { return core.TaskView{}, gone }
	h.send(ownerMsg{})
	h.requireView("exited; waiting for an owner: reasonixctl serve starts one")

	h.run(h.m.cmds.control(core.Cancel{TaskID: "login-fix"}))
	h.requireView("cancel login-fix failed", "No process owns /state now: this dashboard waits for an owner",
		"Start one with `reasonixctl serve`, or run `reasonixctl` with this state directory (CODEX_REASONIX_STATE_DIR=/state)")
	if v := flatten(h.view()); strings.Contains(v, "doctor") {
		t.Fatalf("the notice advises doctor:\n%s", h.view())
	}
	h.press("esc")

	// A notice made without the model (the review's, the editor's) says the same.
	h.m.push(errorNotice("saving the comment failed", gone))
	h.requireView("saving the comment failed", "this dashboard waits for an owner")
	h.press("esc")

	// The form of a task that could not start says it too.
	h.send(delegateMsg{in: intent.NewTask{ContractPath: "c.json", RepoDir: "/src/app", TaskID: "new-one"}, err: gone})
	h.requireView("New task", "this dashboard waits for an owner")
	if v := flatten(h.view()); strings.Contains(v, "doctor") {
		t.Fatalf("the form advises doctor:\n%s", h.view())
	}
}
