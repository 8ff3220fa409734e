package tui

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"reasonixctl/core"
	"reasonixctl/core/baseline"
	"reasonixctl/tui/dialog"
)

// A request arriving while the cancel confirmation is open neither opens over it nor takes
// its `y`: the confirmation keeps focus and `y` means what it says there.
func TestPromptArrivingDuringCancelConfirmationTakesNoKeys(t *testing.T) {
	h := newHarness(t, scenario(), 80, 24)
	h.press("x")
	h.requireView("Cancel task login-fix?")
	h.send(ev("login-fix", 11, core.EventInteractionWaiting, permissionIA("ia-1")))
	h.requireView("Cancel task login-fix?", "1 waiting for you (i)")
	if h.stack().hasPrompt() {
		t.Fatal("the prompt opened over the confirmation")
	}
	h.press("n") // "no, do not cancel": not a deny of the prompt
	h.requireControls()
	// With nothing else open, the selected task's request now opens by itself.
	h.requireView("Permission requested")
	h.clk.advance(time.Second)
	h.press("x") // not an answer key: nothing happens
	h.requireControls()
}

// A request arriving while a steer note is typed waits; every letter reaches the note.
func TestPromptArrivingWhileTypingASteerNoteWaits(t *testing.T) {
	h := newHarness(t, scenario(), 80, 24)
	h.press("j") // docs-typo, running
	h.press("s")
	h.typeText("add a header and")
	h.send(ev("docs-typo", 7, core.EventInteractionWaiting, permissionIA("ia-1")))
	h.typeText(" details")
	h.requireControls()
	h.press("enter")
	note := "add a header and details"
	h.requireControls(core.Steer{TaskID: "docs-typo", Message: note})
	// The request opens once the note is sent, and the grace protects it from the next keys.
	h.requireView("Permission requested", "keys paused")
	h.press("d")
	h.requireControls(core.Steer{TaskID: "docs-typo", Message: note})
}

// Keys that arrive in one read (tmux send-keys 2 3, fast typing over SSH) count one by one.
func TestKeysArrivingInOneReadCountEach(t *testing.T) {
	h := newHarness(t, scenario(), 80, 24)
	h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("23")})
	h.requireView("[3 Contract]")
	if left := h.m.review.Unreviewed("login-fix"); len(left) != 2 {
		t.Fatalf("not marked reviewed before any key: %v", left)
	}
	h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("2v.v")})
	if left := h.m.review.Unreviewed("login-fix"); len(left) != 0 {
		t.Fatalf("not marked reviewed after \"2v.v\": %v", left)
	}
	// A form opened by one rune takes the rest of the read as text.
	h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("Fchecked")})
	fd, ok := h.stack().top().(*dialog.Finalize)
	if !ok || fd.Summary() != "checked" {
		t.Fatalf("finalize form after \"Fchecked\": %#v", h.stack().top())
	}
	// A read that spells a key's name is text in a text input: "right" does not move the
	// cursor and "enter" does not submit.
	for _, word := range []string{" right", "enter", "end"} {
		h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(word)})
	}
	if got := fd.Summary(); got != "checked rightenterend" {
		t.Fatalf("summary %q after typing key names", got)
	}
	if h.stack().top() != fd {
		t.Fatal("typing \"enter\" submitted the form")
	}
}

// A paste only ever lands in a text input.
func TestPasteGoesOnlyToTextInputs(t *testing.T) {
	h := newHarness(t, scenario(), 80, 24)
	h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("xyF"), Paste: true})
	if !h.stack().empty() || len(h.svc.controlLog()) != 0 {
		t.Fatal("a paste acted as keys")
	}
	h.press("s")
	h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("pasted note"), Paste: true})
	if v := h.stack().top().(*dialog.Steer).Text(); v != "pasted note" {
		t.Fatalf("steer note %q", v)
	}
}

// A task paused by a restart says why, and r resumes it with the pause tokens on screen.
func TestResumeAfterRestartRecovery(t *testing.T) {
	f := scenario()
	f.tasks[1].State, f.tasks[1].Phase = core.StatePaused, core.PhaseRestartRecovery
	f.tasks[1].Reason = "reasonixctl restarted while the task was running"
	f.tasks[1].PauseRevision, f.tasks[1].PauseReasonHash = 3, strings.Repeat("ab", 32)
	d := f.details["docs-typo"]
	d.Contract = mustJSON(map[string]any{"schema_version": 1, "objective": "Fix typos in README."})
	d.Network = true
	f.details["docs-typo"] = d
	h := newHarness(t, f, 120, 40)
	h.requireView("1 resumable (r)")
	// The paused task needs the person before the one in review: it comes first, selected.
	h.requireView("› docs-typo    PAUSE")
	h.requireView("reasonixctl restarted while the task was running", "r resumes it", "r resume")
	h.press("r")
	if len(f.delegates) != 1 {
		t.Fatalf("delegates %+v", f.delegates)
	}
	rev, yes := 3, true
	want := core.DelegateRequest{TaskID: "docs-typo", Contract: d.Contract, WaitMode: "background", PathBase: "repository",
		PauseRevision: &rev, PauseReasonHash: strings.Repeat("ab", 32), Resume: &yes,
		Authority:      core.Authority{Cwd: "/src/docs", Writable: true, Network: true},
		PermissionMode: core.PermissionSupervised}
	if !reflect.DeepEqual(f.delegates[0], want) {
		t.Fatalf("resume:\n got %+v\nwant %+v", f.delegates[0], want)
	}
	h.requireView("resumed docs-typo")
}

func TestQuitAsksWhileTasksWork(t *testing.T) {
	h := newHarness(t, scenario(), 80, 24)
	if _, cmd := h.m.Update(keyMsg("q")); quits(cmd) {
		t.Fatal("q quit at once while a task runs")
	}
	h.requireView("Quit reasonixctl?", "1 task(s) are still working", "resume them (r)")
	h.press("n")
	if !h.stack().empty() {
		t.Fatal("n left the question open")
	}
	h.press("q")
	if _, cmd := h.m.Update(keyMsg("y")); !quits(cmd) {
		t.Fatal("y did not quit")
	}

	// Nothing working: q quits without asking.
	f := scenario()
	f.tasks = f.tasks[:1]
	h = newHarness(t, f, 80, 24)
	if _, cmd := h.m.Update(keyMsg("q")); !quits(cmd) {
		t.Fatal("q asked although nothing runs")
	}
}

func TestStatusMessagesExpire(t *testing.T) {
	h := newHarness(t, scenario(), 80, 24)
	h.press("A", "j", "j", "s")
	h.requireView("old-task has ended")
	h.clk.advance(statusTTL)
	if strings.Contains(h.view(), "old-task has ended") {
		t.Fatal("the status outlived its time")
	}
	// A message about a task also ends when the task changes state.
	h.press("k", "k", "r")
	h.requireView("resume needs a paused task")
	h.svc.tasks[0].State = core.StateRunning
	h.send(ev("login-fix", 11, core.EventStateChanged, core.StateChangedData{From: core.StateReviewRequired, To: core.StateRunning, Phase: "repair_1"}))
	if strings.Contains(h.view(), "resume needs a paused task") {
		t.Fatal("the status outlived its task's state")
	}
}

// The footer offers what core allows in the selected task's state, nothing more.
func TestFooterOffersTheActionsOfTheState(t *testing.T) {
	f := scenario()
	f.tasks[0].RepairRounds = core.MaxRepairRounds
	h := newHarness(t, f, 160, 40)
	footer := lastLine(h.view())
	if !strings.Contains(footer, "F finalize") || strings.Contains(footer, "s repair") {
		t.Fatalf("review with no repair rounds left: %q", footer)
	}
	h.press("j")
	footer = lastLine(h.view())
	if !strings.Contains(footer, "s steer") || strings.Contains(footer, "F finalize") {
		t.Fatalf("running: %q", footer)
	}
	h.press("k", "s")
	h.requireView("login-fix used its 2 repair rounds")
}

// A start that fails leaves no row behind, gives the form back and names the next step.
func TestFailedStartLeavesNoDebrisAndPointsAtDoctor(t *testing.T) {
	f := scenario()
	h := newHarness(t, f, 100, 30)
	contract := filepath.Join(t.TempDir(), "c.json")
	if err := os.WriteFile(contract, []byte(`{"schema_version":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	f.delegateErr = core.Errorf(core.CodeReasonixUnavailable, nil, "exec: \"reasonix\": executable file not found in $PATH")
	h.press("n")
	h.typeText(contract)
	h.press("tab", "tab")
	h.typeText("needs-worker")
	// The engine journals the task's creation before the worker fails to start.
	h.send(ev("needs-worker", 1, core.EventTaskCreated, core.TaskCreatedData{State: core.StateProvisioning, Repository: "/src/app"}))
	h.press("ctrl+s")
	h.requireView("New task", "reasonix_unavailable", "reasonixctl doctor")
	if i := h.list().index("needs-worker"); i >= 0 {
		t.Fatal("the failed task still has a row")
	}
	d := h.stack().top().(*dialog.NewTask)
	if d.Value().ContractPath != contract || d.Value().TaskID != "needs-worker" {
		t.Fatal("the form lost its values")
	}
	f.delegateErr = nil
	h.press("ctrl+s")
	if len(f.delegates) != 2 || f.delegates[1].TaskID != "needs-worker" {
		t.Fatalf("retry: %+v", f.delegates)
	}
}

// At the smallest size a prompt keeps its key line; its body scrolls.
func TestPromptAtTheSmallestSizeKeepsItsKeyLine(t *testing.T) {
	h := newHarness(t, scenario(), 60, 16)
	ia := questionIA("q-1")
	ia.Request.Question = strings.Repeat("Which of these long names reads best in the error message? ", 8)
	h.send(ev("login-fix", 11, core.EventInteractionWaiting, ia))
	h.clk.advance(time.Second)
	v := h.view()
	if lines := strings.Split(v, "\n"); len(lines) != 16 {
		t.Fatalf("%d lines at 60×16", len(lines))
	}
	h.requireView("d deny", "pgup/pgdn scroll")
	h.press("pgdown", "pgdown", "pgdown")
	h.requireView("d deny", "2 ErrNoUser")
	for _, l := range strings.Split(h.view(), "\n") {
		if w := ansi.StringWidth(l); w > 60 {
			t.Fatalf("line of %d columns: %q", w, l)
		}
	}
}

// ? works inside a prompt and help says where it is.
func TestHelpInsideAPromptScrollsWithItsPosition(t *testing.T) {
	h := newHarness(t, scenario(), 80, 24)
	h.send(ev("login-fix", 11, core.EventInteractionWaiting, permissionIA("ia-1")))
	h.clk.advance(time.Second)
	h.press("?")
	h.requireView("Tasks", "lines 1–")
	for range 5 {
		// The help fits its box at 80×24, and no description is cut short.
		if v := h.view(); strings.Contains(v, "↕ pgup/pgdn scroll") || strings.Contains(v, "…") {
			t.Fatalf("the help does not fit:\n%s", v)
		}
		if strings.Contains(h.view(), "Prompt") {
			break
		}
		h.press("pgdown")
	}
	h.requireView("Prompt", "allow once")
	h.press("esc")
	h.requireView("Permission requested")
	h.requireControls()
}

// The cherry-pick line is never wrapped, so it copies as one line.
func TestCherryPickLineIsNeverWrapped(t *testing.T) {
	f := scenario()
	f.tasks[0].State = core.StateVerifying
	h := newHarness(t, f, 60, 16)
	h.m.waits.finalizing["login-fix"] = epoch
	hash := strings.Repeat("0123456789", 4)
	h.send(ev("login-fix", 11, core.EventCommitted, core.CommittedData{CommitHash: hash, Branch: "reasonix/login-fix", IntegrationCommand: "git cherry-pick " + hash}))
	found := false
	for _, l := range strings.Split(h.view(), "\n") {
		if strings.Contains(l, "git cherry-pick "+hash) {
			found = true
		}
	}
	if !found {
		t.Fatalf("no unwrapped cherry-pick line:\n%s", h.view())
	}
}

// The bell and the OSC 9 notification announce a request, once.
func TestNewRequestRingsOnce(t *testing.T) {
	f := scenario()
	var out bytes.Buffer
	clk := &clock{t: epoch}
	m := newModel(t.Context(), f, Options{StateDir: "/state", Now: clk.Now, Dir: "/src/app", Notify: true, Output: &out})
	h := &harness{t: t, m: m, svc: f, clk: clk}
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.run(m.Init())
	h.send(ev("docs-typo", 7, core.EventInteractionWaiting, permissionIA("ia-1")))
	h.send(ev("docs-typo", 7, core.EventInteractionWaiting, permissionIA("ia-1")))
	if got := out.String(); got != "\a\x1b]9;reasonixctl: docs-typo waits for you: make lint\x07" {
		t.Fatalf("notification %q", got)
	}
}

func lastLine(s string) string {
	lines := strings.Split(s, "\n")
	return lines[len(lines)-1]
}

// Left without a contract, the new-task form drafts one from the repository (contract init)
// into the state directory and fills in its path.
func TestNewTaskFormDraftsAContract(t *testing.T) {
	repo := gitRepo(t)
	if err := os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	clk := &clock{t: epoch}
	f := scenario()
	e := openEngine(t, state)
	t.Cleanup(func() { _ = e.Close() })
	f.onDraft = e.DraftContract
	m := newModel(t.Context(), f, Options{StateDir: state, Now: clk.Now, Dir: repo})
	h := &harness{t: t, m: m, svc: f, clk: clk}
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	h.run(m.Init())
	h.press("n", "ctrl+s")
	h.requireView("contract is empty", "ctrl+d to draft one")
	h.press("ctrl+d")
	if got := f.draftLog(); len(got) != 1 || got[0] != (core.DraftRequest{Dir: repo}) {
		t.Fatalf("draft requests %+v", got)
	}
	d := h.stack().top().(*dialog.NewTask)
	path := d.Value().ContractPath
	if !strings.HasPrefix(path, filepath.Join(state, "drafts")) {
		t.Fatalf("draft path %q is not in the state directory", path)
	}
	// The same per-repository place `contract init` writes to.
	if want := baseline.DraftDir(state, repo); filepath.Dir(path) != want {
		t.Fatalf("draft in %s, want %s", filepath.Dir(path), want)
	}
	raw, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(raw), `"go", "vet"`) && !strings.Contains(string(raw), `"vet"`) {
		t.Fatalf("draft: %v\n%s", err, raw)
	}
	h.requireView("drafted", "go vet ./...", "TODO", "with ctrl+e")
	// ctrl+e hands the draft to the editor; coming back, the form says what to do next.
	_, cmd := h.m.Update(keyMsg("ctrl+e"))
	if cmd == nil {
		t.Fatal("ctrl+e did nothing")
	}
	h.send(contractEditedMsg{path: path})
	h.requireView("edited "+filepath.Dir(path), filepath.Base(path), "ctrl+s starts the task") // the long path wraps
	if out, _ := exec.Command("git", "-C", repo, "status", "--porcelain").Output(); len(bytes.TrimSpace(out)) != 0 {
		// go.mod is untracked in this repository; nothing else may appear.
		if strings.Contains(string(out), "draft") || strings.Contains(string(out), ".json") {
			t.Fatalf("the draft landed in the repository: %s", out)
		}
	}
}

// ctrl+z tells the engine the person is away before suspending, and back after fg; an
// attached dashboard suspends without asking, since the owner's tasks go on.
func TestSuspendSaysThePersonIsAway(t *testing.T) {
	var calls []bool
	clk := &clock{t: epoch}
	svc := scenario()
	m := newModel(context.Background(), svc, Options{StateDir: "/state", Now: clk.Now, Away: func(away bool) { calls = append(calls, away) }})
	h := &harness{t: t, m: m, svc: svc, clk: clk}
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.run(m.Init())
	// This dashboard runs the engine of working tasks: it asks first.
	h.send(tea.KeyMsg{Type: tea.KeyCtrlZ})
	h.requireView("Suspend reasonixctl?", "working task(s)", "wait until you bring it back with fg")
	_, cmd := m.Update(keyMsg("y"))
	msgs := msgsOf(cmd)
	if len(msgs) != 1 {
		t.Fatalf("yes gave %v, want one sequence", msgs)
	}
	// A tea.Sequence: run its commands in order, as the program would.
	seq := reflect.ValueOf(msgs[0])
	if seq.Kind() != reflect.Slice {
		t.Fatalf("ctrl+z gave %T, want a sequence", seq.Interface())
	}
	var last tea.Msg
	for i := range seq.Len() {
		if c, ok := seq.Index(i).Interface().(tea.Cmd); ok && c != nil {
			last = c()
		}
	}
	if _, ok := last.(tea.SuspendMsg); !ok || !reflect.DeepEqual(calls, []bool{true}) {
		t.Fatalf("the sequence ended with %T after away calls %v", last, calls)
	}
	h.send(tea.ResumeMsg{})
	if !reflect.DeepEqual(calls, []bool{true, false}) {
		t.Fatalf("away calls %v after resuming", calls)
	}

	a := &fakeAttachment{owner: Owner{PID: 4242, Mode: "mcp"}, present: true, changed: make(chan struct{})}
	ah := newAttachedHarness(t, scenario(), a, 80, 24)
	if _, cmd := ah.m.Update(tea.KeyMsg{Type: tea.KeyCtrlZ}); len(msgsOf(cmd)) == 0 || !ah.stack().empty() {
		t.Fatal("an attached dashboard asked before suspending")
	}
	if _, cmd := ah.m.Update(keyMsg("q")); !quits(cmd) || !ah.stack().empty() {
		t.Fatal("an attached dashboard asked before quitting, though the owner's tasks go on")
	}
}

// A steer typed while the task goes to review says, before it is sent, that sending now starts
// a repair round.
func TestSteerDialogFollowsTheTaskState(t *testing.T) {
	h := newHarness(t, scenario(), 100, 30)
	h.press("j") // docs-typo, running
	h.press("s")
	h.requireView("Steer docs-typo", "during its current turn")
	h.typeText("check the edge case")
	tasks := append([]core.TaskView(nil), h.list().tasks...)
	for i := range tasks {
		if tasks[i].TaskID == "docs-typo" {
			tasks[i].State, tasks[i].Phase = core.StateReviewRequired, "codex_review"
		}
	}
	h.send(tasksMsg{tasks: tasks})
	h.requireView("Repair round 1/2 for docs-typo", "The task moved on while you typed.", "check the edge case")
}
