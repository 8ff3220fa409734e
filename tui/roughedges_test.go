package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"reasonixctl/core"
	"reasonixctl/tui/dialog"
)

// The dashboard used as a person would, each rough edge at the terminal size where it showed.

// newHarnessWith is newHarness with options of the test's own.
func newHarnessWith(t *testing.T, svc *fakeService, w, h int, set func(*Options)) *harness {
	t.Helper()
	clk := &clock{t: epoch}
	opts := Options{StateDir: "/state", WorkerVersion: "1.38.11", Now: clk.Now, Dir: "/src/app"}
	set(&opts)
	m := newModel(context.Background(), svc, opts)
	hs := &harness{t: t, m: m, svc: svc, clk: clk}
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	hs.run(m.Init())
	return hs
}

// requireNotInView fails when the screen shows text, however wrapped.
func (h *harness) requireNotInView(text string) {
	h.t.Helper()
	if strings.Contains(flatten(h.view()), flatten(text)) {
		h.t.Fatalf("view shows %q:\n%s", text, h.view())
	}
}

// The first screen says what is running and that the prompt about to open is the worker asking;
// neither the note nor the prompt after it hides the task list.
func TestIntroFirstAndTheTaskListStaysInView(t *testing.T) {
	f := scenario()
	d := f.details["login-fix"]
	d.Interactions = []core.Interaction{permissionIA("ia-1")}
	f.details["login-fix"] = d
	h := newHarnessWith(t, f, 80, 24, func(o *Options) {
		o.Intro = &Note{Title: "The demo", Lines: []string{"A scripted worker runs task login-fix.", "The prompt that opens next is the worker asking you."}}
	})
	h.requireView("The demo", "The prompt that opens next is the worker asking you.", "› login-fix")
	h.requireNotInView("Permission requested")
	h.press("enter")
	h.requireView("Permission requested", "› login-fix", "docs-typo")
	h.clk.advance(graceQuiet)
	h.press("a")
	h.requireControls(core.Respond{TaskID: "login-fix", InteractionID: "ia-1", Decision: core.DecisionAllow})
}

// The help says how to scroll it and close it, beside where it is.
func TestHelpSaysHowToScroll(t *testing.T) {
	h := newHarness(t, scenario(), 80, 24)
	h.press("?")
	h.requireView("lines 1–", "↑↓/pgup/pgdn scroll", "esc/? close")
}

// Enter that does not finalize says why where it can be read: with the form taller than the
// screen the reason was printed below its last visible line.
func TestFinalizeRefusalIsInView(t *testing.T) {
	h := newHarness(t, scenario(), 80, 24)
	h.press("F")
	h.typeText("Checked the empty-user path.")
	h.press("tab", "space", "tab", "space", "enter")
	h.requireView("2 file(s) not marked reviewed: internal/auth/login.go, internal/auth/login_test.go. Submit again to finalize anyway")
	h.requireControls()

	f := scenario()
	d := f.details["login-fix"]
	d.SourceRisks = []core.SourceRisk{{ID: core.SourceRiskPrefix + "internal/auth/login.go", Path: "internal/auth/login.go", Lines: []int{12},
		Text: "internal/auth/login.go: bidi control U+202E at line 12"}}
	f.details["login-fix"] = d
	h = newHarness(t, f, 80, 24)
	h.press("F")
	h.typeText("Checked the empty-user path.")
	h.press("tab", "space", "tab", "space", "enter")
	h.requireView("then ctrl+o acknowledges them")
	h.requireControls()
}

// A code line one cell wider than the pane ends in …, like longer ones.
func TestALineOneCellTooLongEndsInAnEllipsis(t *testing.T) {
	const codeW = 72 // 80 columns less the gutter of two-digit line numbers
	for _, n := range []int{codeW - 1, codeW, codeW + 1, codeW + 2} {
		line := "x := f(" + strings.Repeat("a", n-8) + ")"
		f := scenario()
		d := f.details["login-fix"]
		d.Diff = "diff --git a/x.go b/x.go\n--- a/x.go\n+++ b/x.go\n@@ -10,2 +10,2 @@\n-old\n+" + line + "\n"
		f.details["login-fix"] = d
		h := newHarness(t, f, 80, 24)
		h.press("2")
		var row string
		for _, l := range strings.Split(h.view(), "\n") {
			if strings.Contains(l, "x := f(") {
				row = strings.TrimRight(l, " ")
			}
		}
		if w := lipgloss.Width(row); w > 80 {
			t.Fatalf("%d cells: the row is %d wide: %q", n, w, row)
		}
		cut := strings.HasSuffix(row, "…")
		if cut != (n > codeW) {
			t.Fatalf("%d cells in %d: cut marked %v: %q", n, codeW, cut, row)
		}
		if !cut && !strings.HasSuffix(row, line) {
			t.Fatalf("%d cells in %d: the line is not whole: %q", n, codeW, row)
		}
	}
}

// The first ] after } or { goes to the next hunk: the file was entered at its header, and ]
// went to the hunk already shown.
func TestNextHunkAfterChangingFiles(t *testing.T) {
	h := newHarness(t, scenario(), 80, 24)
	h.press("2", "}", "{")
	h.requireView("file 1/2 · hunk 1/2")
	before := h.view()
	h.press("]")
	if h.view() == before {
		t.Fatalf("] changed nothing on screen:\n%s", before)
	}
	h.requireView("file 1/2 · hunk 2/2", "›41    -    u := find(user)")
	h.press("]")
	h.requireView("file 2/2 · hunk 1/1")
}

// v says what it did where it can always be seen: with the file list hidden and a commented
// line selected, nothing on screen changed.
func TestReviewedMarkShowsWhenTheFileListIsHidden(t *testing.T) {
	h := newReviewHarness(t, wideScenario(), 80, 24, nil)
	h.press("2", "z", "J", "J", "J")
	h.requireView("● line 15: Audit after the check.")
	before := h.view()
	h.press("v")
	if h.view() == before {
		t.Fatalf("v changed nothing on screen:\n%s", before)
	}
	h.requireView("internal/auth/login.go marked reviewed · 1/2 files reviewed")
	h.press("v")
	h.requireView("internal/auth/login.go no longer marked reviewed · 0/2 files reviewed")
}

// The list shows the waiting tasks in the order i opens them: the oldest request first.
func TestWaitingTasksInTheOrderIOpensThem(t *testing.T) {
	h := newHarness(t, scenario(), 120, 40)
	h.press("A")
	for h.selected() != "old-task" {
		h.press("j")
	}
	h.send(ev("docs-typo", 7, core.EventInteractionWaiting, permissionIA("ia-old")))
	h.send(ev("login-fix", 11, core.EventInteractionWaiting, questionIA("ia-new")))
	first := strings.Fields(h.order())[0]
	if first != "docs-typo" {
		t.Fatalf("the list shows %s, the task whose request came first is docs-typo", h.order())
	}
	h.press("i")
	if h.selected() != first {
		t.Fatalf("i opened %s's request, the list's first waiting task is %s", h.selected(), first)
	}
	h.clk.advance(graceQuiet)
	h.press("a")
	h.requireControls(core.Respond{TaskID: "docs-typo", InteractionID: "ia-old", Decision: core.DecisionAllow})
}

// After R the events say the command was allowed for the repository, not "allow once": the
// answer's record names only the worker's option it took.
func TestAGrantIsNotCalledAllowOnce(t *testing.T) {
	h := newHarness(t, scenario(), 80, 24)
	ia := permissionIA("ia-7")
	ia.Status = core.InteractionResolved
	ia.Response = &core.InteractionResponse{Decision: core.DecisionAllow, OptionID: "allow-once", By: core.BySupervisor, Outcome: core.OutcomeAnswered}
	h.send(ev("login-fix", 11, core.EventInteractionResolved, ia))
	h.send(ev("login-fix", 12, core.EventPermissionDecided, core.PermissionData{Kind: "execute", Argv: ia.Request.Argv, Cwd: ia.Request.Cwd,
		Decision: core.DecisionAllow, By: core.BySupervisor, Outcome: core.OutcomeAnswered, Grant: "g-1",
		Reason: "allowed by the supervisor; granted for the repository as g-1"}))
	h.requireView("ask permission ia-7 answered allow this command for the repository (by supervisor)")
	h.requireNotInView("allow once")

	// An allow without a grant still reads allow once.
	ia.ID = "ia-8"
	h.send(ev("login-fix", 13, core.EventInteractionResolved, ia))
	h.send(ev("login-fix", 14, core.EventPermissionDecided, core.PermissionData{Kind: "execute", Argv: ia.Request.Argv,
		Decision: core.DecisionAllow, By: core.BySupervisor, Outcome: core.OutcomeAnswered}))
	h.requireView("ask permission ia-8 answered allow once (by supervisor)")
}

// A start that failed no longer says it is starting, and the form opens again with what it
// held when it was closed, not with the path that failed.
func TestAFailedStartAndTheFormItLeaves(t *testing.T) {
	f := scenario()
	h := newHarness(t, f, 80, 24)
	h.press("n")
	h.typeText("/nonexistent/contract.json")
	h.press("tab", "tab")
	h.typeText("add-audit")
	h.press("ctrl+s")
	h.requireView("New task", "cannot read the contract file")
	h.requireNotInView("starting task add-audit")
	good := writeContract(t)
	h.send(tea.KeyMsg{Type: tea.KeyCtrlU})
	h.typeText(good)
	h.press("esc")
	h.press("n")
	d := h.stack().top().(*dialog.NewTask)
	if got := d.Value().ContractPath; got != good {
		t.Fatalf("the form opened with contract %q, it held %q when closed", got, good)
	}
	if got := d.Value().TaskID; got != "add-audit" {
		t.Fatalf("the form lost the task id: %q", got)
	}
	if len(f.delegates) != 0 {
		t.Fatalf("delegates: %+v", f.delegates)
	}
}

// A task's tokens count every worker session: after a restart its worker's counters start
// from zero again, and the list and the header counted only the new session.
func TestTokenTotalsCountEveryWorkerSession(t *testing.T) {
	f := scenario()
	d := f.details["docs-typo"]
	d.Usage = &core.Usage{PromptTokens: 40000, CompletionTokens: 5000}
	f.details["docs-typo"] = d
	for seq := uint64(1); seq <= 4; seq++ {
		f.journals["docs-typo"] = append(f.journals["docs-typo"], core.Event{TaskID: "docs-typo", Seq: seq, Time: epoch.Add(-3 * time.Minute),
			Type: core.EventAgentMessage, Data: mustJSON(core.TextData{Text: "working"})})
	}
	h := newHarness(t, f, 80, 24)
	h.requireView("45k docs", "today 60k tokens")
	// Both workers restart: their first reports count from zero.
	h.send(ev("docs-typo", 5, core.EventUsage, core.Usage{PromptTokens: 900, CompletionTokens: 100}))
	h.send(ev("login-fix", 11, core.EventUsage, core.Usage{PromptTokens: 400, CompletionTokens: 100}))
	h.requireView("46k docs", "16k app", "today 62k tokens")
}

// The diff is given at least what it has at 80 columns on any wider terminal: beside the list
// at 120 it had 71.
func TestTheDiffIsNeverNarrowerThanAt80(t *testing.T) {
	shown := func(w int) (int, string) {
		h := newReviewHarness(t, wideScenario(), w, 40, nil)
		h.press("2")
		var row string
		for _, l := range strings.Split(h.view(), "\n") {
			if strings.Contains(l, "return fmt.Errorf(") {
				row = l[strings.Index(l, "return fmt.Errorf("):]
			}
		}
		return diffTab{h.m}.placed().DiffWidth(), row
	}
	w80, row80 := shown(80)
	if w80 != 80 {
		t.Fatalf("the diff is %d wide at 80 columns", w80)
	}
	for _, w := range []int{100, 120, 121, 133, 134, 159, 160, 200, 240} {
		got, row := shown(w)
		if got < w80 || lipgloss.Width(row) < lipgloss.Width(row80) {
			t.Fatalf("at %d columns the diff is %d wide and shows %q; at 80 it is %d and shows %q", w, got, row, w80, row80)
		}
	}
}

// A grant given at another dashboard is worded as one wherever the answer is read later: the
// status line here, and the events line, which has only the answer's record to go by.
func TestAGrantFromElsewhereIsWordedAsOne(t *testing.T) {
	h := newHarness(t, scenario(), 200, 30)
	ia := permissionIA("ia-9")
	h.send(ev("login-fix", 11, core.EventInteractionWaiting, ia))
	h.press("esc") // the prompt opened by itself: put it aside
	ia.Status = core.InteractionResolved
	ia.Response = &core.InteractionResponse{Decision: core.DecisionAllow, OptionID: "allow-once", By: core.BySupervisor,
		Outcome: core.OutcomeAnswered, Grant: "g-2"}
	h.send(ev("login-fix", 12, core.EventInteractionResolved, ia))
	h.requireView("answered by another dashboard: allow this command for the repository",
		"ask permission ia-9 answered allow this command for the repository (by supervisor)")
	h.requireNotInView("allow once")
}
