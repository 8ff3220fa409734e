package tui

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"reasonixctl/core"
	"reasonixctl/tui/dialog"
	"reasonixctl/tui/replay"
)

func (h *harness) view() string { return h.m.View() }

// selected is the task the task list has selected.
func (h *harness) selected() string { return h.list().selected }

// The components a test looks into, each through one accessor rather than the root's fields.
func (h *harness) stack() stackView         { return stackView{&h.m.dialogs} }
func (h *harness) requests() *requests      { return &h.m.requests }
func (h *harness) replay() *replay.Model    { return h.m.rp }
func (h *harness) list() *taskList          { return &h.m.list }
func (h *harness) task(id string) *taskInfo { return h.m.info.task(id) }

// requireView checks that the screen shows each text, however the text was wrapped.
func (h *harness) requireView(want ...string) {
	h.t.Helper()
	v := h.view()
	flat := flatten(v)
	for _, w := range want {
		if !strings.Contains(flat, flatten(w)) {
			h.t.Fatalf("view lacks %q:\n%s", w, v)
		}
	}
}

// flatten drops dialog borders and collapses whitespace, so wrapped text reads as one line.
func flatten(s string) string {
	s = strings.NewReplacer("│", " ", "╭", " ", "╮", " ", "╰", " ", "╯", " ", "─", " ").Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

func (h *harness) requireControls(want ...core.Command) {
	h.t.Helper()
	got := h.svc.controlLog()
	if len(want) == 0 && len(got) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		h.t.Fatalf("controls:\n got %s\nwant %s", fmtControls(got), fmtControls(want))
	}
}

func TestPromptOfAnotherTaskIsAnnouncedAndOpensWithI(t *testing.T) {
	h := newHarness(t, scenario(), 100, 30)
	if h.selected() != "login-fix" {
		t.Fatalf("selected %q, want the newest task", h.selected())
	}
	h.send(ev("docs-typo", 7, core.EventInteractionWaiting, permissionIA("ia-1")))
	if strings.Contains(h.view(), "Permission requested") {
		t.Fatal("a request of a task that is not selected opened by itself")
	}
	h.requireView("1 waiting for you (i)")
	h.press("i")
	if h.selected() != "docs-typo" {
		t.Fatalf("i did not select the waiting task: %q", h.selected())
	}
	h.clk.advance(time.Second)
	h.requireView("Permission requested", "make lint", "unknown_executable", "/state/worktrees/9ab01c2d/docs-typo", "allow for session")
	h.press("S")
	h.requireControls(core.Respond{TaskID: "docs-typo", InteractionID: "ia-1", Decision: core.DecisionAllow, OptionID: "allow-always"})
	if strings.Contains(h.view(), "Permission requested") {
		t.Fatal("the prompt stays open after the answer")
	}
	if len(h.requests().items) != 0 {
		t.Fatalf("pending after a successful respond: %d", len(h.requests().items))
	}
}

func TestPromptAllowOnceAndDeny(t *testing.T) {
	for _, tc := range []struct {
		key, decision string
	}{{"a", core.DecisionAllow}, {"d", core.DecisionDeny}} {
		t.Run(tc.key, func(t *testing.T) {
			h := newHarness(t, scenario(), 80, 24)
			h.send(ev("docs-typo", 7, core.EventInteractionWaiting, permissionIA("ia-9")))
			h.press("i")
			h.clk.advance(graceQuiet)
			h.press(tc.key)
			h.requireControls(core.Respond{TaskID: "docs-typo", InteractionID: "ia-9", Decision: tc.decision})
		})
	}
}

func TestKeysInTheGracePeriodAreSwallowed(t *testing.T) {
	h := newHarness(t, scenario(), 80, 24)
	h.send(ev("login-fix", 11, core.EventInteractionWaiting, permissionIA("ia-1")))
	h.requireView("Permission requested", "keys paused")
	// Someone typing for another purpose just as the prompt appears must not answer it: the
	// grace restarts while keys keep arriving.
	typing := graceQuiet * 4 / 5 // the gap between two keys of someone typing
	h.clk.advance(typing)
	h.press("a", "S", "d")
	h.clk.advance(typing)
	h.press("a")
	h.clk.advance(graceQuiet - time.Millisecond)
	h.press("d")
	h.requireControls()
	h.requireView("Permission requested")
	// ...for as long as the typing goes on, past 1.5 s too: typing meant for something else
	// never reaches the prompt.
	for range 4 {
		h.clk.advance(typing)
		h.press("a")
	}
	h.requireControls()
	// A pause, and the person answers.
	h.clk.advance(graceQuiet)
	if strings.Contains(h.view(), "keys paused") {
		t.Fatal("the grace cue outlives the grace")
	}
	h.press("d")
	h.requireControls(core.Respond{TaskID: "login-fix", InteractionID: "ia-1", Decision: core.DecisionDeny})
}

func TestQuestionAnsweredBySelectingAndFreeText(t *testing.T) {
	h := newHarness(t, scenario(), 80, 24)
	h.send(ev("login-fix", 11, core.EventInteractionWaiting, questionIA("q-1")))
	h.requireView("Which error name should I use?", "1 ErrEmptyUser", "2 ErrNoUser")
	h.press("enter") // enter never answers
	h.requireControls()
	h.clk.advance(time.Second)
	h.press("3") // no third option: stays open
	h.requireView("there is no option 3")
	h.press("enter") // nothing selected yet
	h.requireView("select an option first")
	// A digit only selects, however often it is pressed: the person meant a tab, perhaps.
	h.press("2")
	h.press("2")
	h.requireControls()
	h.requireView("› 2 ErrNoUser", "enter answer 2")
	h.press("up") // the arrows move the selection
	h.requireView("› 1 ErrEmptyUser")
	h.press("down")
	h.press("enter")
	h.requireControls(core.Respond{TaskID: "login-fix", InteractionID: "q-1", Decision: core.DecisionAllow, OptionID: "o2"})
	h.requireView(`answered q-1: option 2 "ErrNoUser"`)

	h.send(ev("login-fix", 12, core.EventInteractionWaiting, questionIA("q-2")))
	h.clk.advance(time.Second)
	h.press("t")
	h.typeText("ErrBlankUser")
	h.press("enter")
	got := h.svc.controlLog()
	want := core.Respond{TaskID: "login-fix", InteractionID: "q-2", Decision: core.DecisionAllow, Answer: "ErrBlankUser"}
	if len(got) != 2 || !reflect.DeepEqual(got[1], want) {
		t.Fatalf("free-text answer: %s", fmtControls(got))
	}
}

func TestPromptLaterAndResolvedElsewhere(t *testing.T) {
	h := newHarness(t, scenario(), 80, 24)
	h.send(ev("docs-typo", 7, core.EventInteractionWaiting, permissionIA("ia-1")))
	h.press("i")
	h.clk.advance(time.Second)
	h.press("esc")
	if strings.Contains(h.view(), "Permission requested") {
		t.Fatal("esc keeps the prompt open")
	}
	h.requireView("1 waiting for you (i)")
	h.press("i")
	h.requireView("Permission requested")
	// Codex answered over MCP: the prompt goes away by itself.
	resolved := permissionIA("ia-1")
	resolved.Status = core.InteractionResolved
	h.send(ev("docs-typo", 8, core.EventInteractionResolved, resolved))
	if strings.Contains(h.view(), "Permission requested") || len(h.requests().items) != 0 {
		t.Fatal("a resolved interaction still shows")
	}
}

func TestPendingInteractionFromDetailSurfacesAtStart(t *testing.T) {
	f := scenario()
	f.tasks[1].State = core.StateWaitingPermission
	d := f.details["docs-typo"]
	d.Interactions = []core.Interaction{permissionIA("ia-5")}
	f.details["docs-typo"] = d
	h := newHarness(t, f, 80, 24)
	h.requireView("1 waiting for you (i)")
	h.press("j") // selecting its task opens it
	h.requireView("Permission requested", "make lint")
}

func TestFinalizeFormSendsTheExactRequest(t *testing.T) {
	f := scenario()
	f.onControl = func(req core.Command) (core.TaskView, error) {
		v := f.tasks[0]
		v.State, v.CommitHash, v.IntegrationCommand = core.StateCompleted, "0123456789abcdef0123456789abcdef01234567", "git cherry-pick 0123456789abcdef0123456789abcdef01234567"
		return v, nil
	}
	h := newHarness(t, f, 120, 40)
	h.press("F")
	h.requireView("Finalize login-fix", "review revision 2 · tree "+treeHash, "[ ] ac_audit", "[ ] ac_readable")
	if strings.Contains(h.view(), "ac_tests") {
		t.Fatal("automated criteria are not the reviewer's to tick")
	}
	h.press("ctrl+s")
	h.requireView("write a review summary first")
	h.typeText("Checked the empty-user path and the new test.")
	h.press("ctrl+s")
	h.requireView("(2 left)")
	h.press("tab", "space", "tab", "space")
	h.requireControls()
	// The summary, out of focus, still reads whole.
	h.requireView("summary Checked the empty-user path and the new test.")
	h.press("ctrl+s")
	// Files not marked reviewed: the form asks before going on.
	h.requireView("2 file(s) not marked reviewed: internal/auth/login.go, internal/auth/login_test.go")
	h.requireControls()
	h.press("ctrl+s")
	rev := 2
	h.requireControls(core.Finalize{
		TaskID:                 "login-fix",
		ReviewSummary:          "Checked the empty-user path and the new test.",
		ApprovedReviewCriteria: []string{"ac_audit", "ac_readable"},
		ExpectedReviewRevision: &rev, ExpectedReviewTreeHash: treeHash,
		Authority: core.Authority{Cwd: "/src/app", Writable: true},
	})
	h.requireView("Committed login-fix", "git cherry-pick 0123456789abcdef0123456789abcdef01234567")
}

func TestFinalizeWaitsForTheCommittedEvent(t *testing.T) {
	f := scenario()
	f.onControl = func(req core.Command) (core.TaskView, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.tasks[0].State = core.StateVerifying
		return f.tasks[0], nil
	}
	d := f.details["login-fix"]
	d.Criteria = nil
	f.details["login-fix"] = d
	h := newHarness(t, f, 80, 24)
	h.press("2", "v", "}", "v", "F") // every file reviewed: no question
	h.typeText("ok")
	h.press("enter")
	h.requireView("finalizing login-fix: verifying")
	h.send(ev("login-fix", 11, core.EventCommitted, core.CommittedData{CommitHash: "feedbeef", Branch: "reasonix/login-fix", IntegrationCommand: "git cherry-pick feedbeef"}))
	h.requireView("Committed login-fix", "git cherry-pick feedbeef")
}

func TestFinalizeErrorsSayWhatToDoNext(t *testing.T) {
	for name, tc := range map[string]struct {
		err  error
		want []string
	}{
		"stale snapshot": {
			core.Errorf(core.CodeInvalidRequest, &core.StaleSnapshot{Checkpoint: "finalize_start", Expected: core.ReviewSnapshot{ReviewRevision: 2}, Current: core.ReviewSnapshot{ReviewRevision: 3}}, "the review snapshot is stale"),
			[]string{"invalid_request: the review snapshot is stale", "moved on at finalize_start: you reviewed revision 2, the task now has revision 3", "finalize against the new snapshot"},
		},
		"verification failed": {
			core.Errorf(core.CodeVerificationFailed, nil, "unit failed with exit 1"),
			[]string{"verification_failed: unit failed with exit 1", "checks view (4), steer a repair round (s)"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := scenario()
			f.onControl = func(core.Command) (core.TaskView, error) { return core.TaskView{}, tc.err }
			d := f.details["login-fix"]
			d.Criteria = nil
			f.details["login-fix"] = d
			h := newHarness(t, f, 120, 40)
			h.press("F")
			h.typeText("ok")
			h.press("enter", "enter")
			h.requireView(append([]string{"finalize login-fix failed"}, tc.want...)...)
			h.press("esc")
			h.requireView("1 Events")
		})
	}
}

func TestSteerInReviewIsARepairRound(t *testing.T) {
	h := newHarness(t, scenario(), 80, 24)
	h.press("s")
	h.requireView("Repair round 1/2 for login-fix")
	h.press("enter")
	h.requireView("the message is empty")
	h.typeText("Also log the rejected user.")
	h.press("enter")
	msg := "Also log the rejected user."
	h.requireControls(core.Steer{TaskID: "login-fix", Message: msg})
}

func TestSteerRefusedInOtherStates(t *testing.T) {
	h := newHarness(t, scenario(), 80, 24)
	h.press("A", "j", "j") // all tasks; the completed one
	if h.selected() != "old-task" {
		t.Fatalf("selected %q", h.selected())
	}
	h.press("s")
	h.requireView("old-task has ended (completed): nothing more to do")
	h.requireControls()
}

func TestCancelAndCloseAskFirst(t *testing.T) {
	h := newHarness(t, scenario(), 80, 24)
	h.press("x")
	h.requireView("Cancel task login-fix?")
	h.press("n")
	h.requireControls()
	h.press("x", "y")
	h.press("X")
	h.requireView("Close task login-fix?")
	h.press("esc", "X", "y")
	h.requireControls(
		core.Cancel{TaskID: "login-fix"},
		core.Close{TaskID: "login-fix"},
	)
}

func TestNewTaskFormDelegates(t *testing.T) {
	f := scenario()
	h := newHarness(t, f, 80, 24)
	contract := filepath.Join(t.TempDir(), "c.json")
	raw := `{"schema_version":1,"objective":"x"}`
	if err := os.WriteFile(contract, []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
	h.press("n")
	h.requireView("New task", "/src/app")
	h.press("ctrl+s")
	h.requireView("contract is empty")
	h.typeText(contract)
	h.press("tab", "tab")
	h.typeText("add-audit")
	h.press("tab", "space", "enter")
	if len(f.delegates) != 1 {
		t.Fatalf("delegates: %+v", f.delegates)
	}
	got := f.delegates[0]
	want := core.DelegateRequest{TaskID: "add-audit", Contract: []byte(raw), WorkerLane: core.LaneDeep, Worker: core.WorkerReasonix, WaitMode: "background",
		Authority: core.Authority{Cwd: "/src/app", Writable: true}, PermissionMode: core.PermissionSupervised}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("delegate:\n got %+v\nwant %+v", got, want)
	}
	if h.selected() != "add-audit" {
		t.Fatalf("the new task is not selected: %q", h.selected())
	}
}

func TestNewTaskWithBadContractSaysWhy(t *testing.T) {
	f := scenario()
	h := newHarness(t, f, 80, 24)
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	h.press("n")
	h.typeText(bad)
	h.press("tab", "tab")
	h.typeText("t1")
	h.press("ctrl+s")
	h.requireView("New task", "invalid_contract", "bad.json")
	if v := h.stack().top().(*dialog.NewTask).Value().TaskID; v != "t1" {
		t.Fatalf("the form lost its values: task id %q", v)
	}
	if len(f.delegates) != 0 {
		t.Fatal("an invalid contract reached Delegate")
	}
}

func TestEventsReplayThenStreamLive(t *testing.T) {
	h := newHarness(t, scenario(), 120, 40)
	h.requireView("I will read the login code first", "tool   ▸ read internal/auth/login.go · ✓ completed",
		"policy ▸ allow execute: go test ./internal/auth — verification_command",
		"policy ▸ deny execute: curl example.com — network_tool",
		"state  running → review_required (codex_review)")
	if n := strings.Count(h.view(), "read internal/auth/login.go"); n != 1 {
		t.Fatalf("a tool call's updates render %d times, want once in place", n)
	}
	h.send(ev("login-fix", 11, core.EventAgentMessage, core.TextData{Text: "Second thoughts. "}),
		ev("login-fix", 12, core.EventAgentMessage, core.TextData{Text: "And a third paragraph."}))
	h.requireView("agent  Second thoughts. And a third paragraph.")
	if n := strings.Count(h.view(), "agent  "); n != 2 {
		t.Fatalf("consecutive agent messages carry %d labels, want one per message (2)", n)
	}
	// A duplicate delivery (replay overlapping the live stream) is shown once.
	h.send(ev("login-fix", 12, core.EventAgentMessage, core.TextData{Text: "And a third paragraph."}))
	if n := strings.Count(h.view(), "And a third paragraph."); n != 1 {
		t.Fatalf("duplicate event rendered %d times", n)
	}
}

func TestScrollBackHoldsStillWhileTheTailGrows(t *testing.T) {
	f := scenario()
	f.journals = map[string][]core.Event{}
	h := newHarness(t, f, 80, 24)
	for i := 1; i <= 200; i++ {
		h.send(ev("login-fix", uint64(i), core.EventAgentThought, core.TextData{Text: "thought number " + strconv.Itoa(i)}))
	}
	h.press("pgup")
	before := h.view()
	if !strings.Contains(before, "lines back") {
		t.Fatalf("no scroll-back marker:\n%s", before)
	}
	for i := 201; i <= 260; i++ {
		h.send(ev("login-fix", uint64(i), core.EventAgentThought, core.TextData{Text: "thought number " + strconv.Itoa(i)}))
	}
	if eventsRegion(h.view()) != eventsRegion(before) {
		t.Fatalf("the view moved under the reader:\nbefore\n%s\nafter\n%s", before, h.view())
	}
	h.press("G")
	h.requireView("thought number 260")
}

func eventsRegion(v string) string {
	lines := strings.Split(v, "\n")
	var out []string
	for _, l := range lines {
		if strings.Contains(l, "thought number") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func TestTooSmallTerminalSaysSo(t *testing.T) {
	h := newHarness(t, scenario(), 50, 12)
	h.requireView("at least 60×16", "this one is 50×12")
}

func TestToggleAllShowsTerminalTasks(t *testing.T) {
	h := newHarness(t, scenario(), 80, 24)
	if strings.Contains(h.view(), "old-task") {
		t.Fatal("a completed task shows in the active list")
	}
	h.press("A")
	h.requireView("old-task", "all tasks")
}

func TestHelpListsEveryBinding(t *testing.T) {
	h := newHarness(t, scenario(), 120, 40)
	for _, g := range h.m.helpGroups() {
		for _, b := range g.Bindings {
			if h := b.Help(); h.Key == "" || h.Desc == "" {
				t.Fatalf("binding %v in %s has no help", b.Keys(), g.Title)
			}
		}
	}
	h.press("?")
	h.requireView("Tasks", "toggle active / all tasks")
	for range 10 {
		if strings.Contains(h.view(), "next hunk") {
			break
		}
		h.press("pgdown")
	}
	h.requireView("next hunk")
	titles := map[string]bool{}
	for _, g := range h.m.helpGroups() {
		if titles[g.Title] {
			t.Fatalf("help group %q appears twice", g.Title)
		}
		titles[g.Title] = true
	}
}

func TestRelayResubscribesAfterOverflow(t *testing.T) {
	f := newFake()
	first, second := make(chan core.Event, 1), make(chan core.Event, 1)
	f.live = []chan core.Event{first, second}
	overflow := core.Errorf(core.CodeInternalError, nil, "subscriber fell behind")
	f.liveErr = []error{overflow}
	first <- core.Event{TaskID: "t", Seq: 1, Type: core.EventAgentMessage}
	close(first)
	second <- core.Event{TaskID: "t", Seq: 9, Type: core.EventAgentMessage}

	ctx, cancel := context.WithCancel(context.Background())
	msgs := make(chan tea.Msg, 16)
	done := make(chan struct{})
	go func() { defer close(done); relay(ctx, f, func(m tea.Msg) { msgs <- m }, time.Hour) }()
	next := func() tea.Msg {
		select {
		case m := <-msgs:
			return m
		case <-time.After(5 * time.Second):
			t.Fatal("relay sent nothing")
			return nil
		}
	}
	if m, ok := next().(eventsMsg); !ok || len(m) != 1 || m[0].Seq != 1 {
		t.Fatalf("first: %#v", m)
	}
	if m, ok := next().(resyncMsg); !ok || !errors.Is(m.err, overflow) {
		t.Fatalf("overflow: %#v", m)
	}
	if _, ok := next().(resyncMsg); !ok {
		t.Fatal("no reload after re-subscribing")
	}
	if m, ok := next().(eventsMsg); !ok || len(m) != 1 || m[0].Seq != 9 {
		t.Fatalf("after re-subscribe: %#v", m)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("relay does not stop with its context")
	}
}

// Events that are there together reach the model as one message, so the dashboard builds one
// frame for them, not one for each; their order stays, and none is lost.
func TestRelayBatchesEventsThatCameTogether(t *testing.T) {
	f := newFake()
	live := make(chan core.Event, 2*maxBatch)
	f.live = []chan core.Event{live}
	for i := range maxBatch + 3 {
		live <- core.Event{TaskID: "t", Seq: uint64(i + 1), Type: core.EventAgentMessage}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	msgs := make(chan tea.Msg, 16)
	go relay(ctx, f, func(m tea.Msg) { msgs <- m }, time.Hour)
	var sizes []int
	want := uint64(1)
	for want <= maxBatch+3 {
		select {
		case m := <-msgs:
			batch, ok := m.(eventsMsg)
			if !ok {
				t.Fatalf("got %#v", m)
			}
			for _, ev := range batch {
				if ev.Seq != want {
					t.Fatalf("event %d where %d was next", ev.Seq, want)
				}
				want++
			}
			sizes = append(sizes, len(batch))
		case <-time.After(5 * time.Second):
			t.Fatalf("relay stopped after %d events", want-1)
		}
	}
	if !slices.Equal(sizes, []int{maxBatch, 3}) {
		t.Fatalf("batches of %v, want one full batch and the rest", sizes)
	}
}

func TestResyncRefillsTheEventsViewFromTheJournal(t *testing.T) {
	f := scenario()
	h := newHarness(t, f, 80, 24)
	// An event the live stream dropped when the subscriber fell behind.
	f.mu.Lock()
	f.journals["login-fix"] = append(f.journals["login-fix"], core.Event{TaskID: "login-fix", Seq: 11, Time: epoch, Type: core.EventSteered, Data: mustJSON(core.TextData{Text: "missed while behind"})})
	f.mu.Unlock()
	h.send(resyncMsg{err: errors.New("subscriber fell behind")})
	h.requireView("steer  missed while behind", "event stream restarted after: subscriber fell behind")
	if n := strings.Count(h.view(), "I will read the login code"); n != 1 {
		t.Fatalf("replayed history shows %d times", n)
	}
}

// A key that arrives with others, in one read (typing, a script, a paste without brackets),
// never answers: neither the last of them, nor the first, nor one of several runes.
func TestKeysArrivingTogetherNeverAnswer(t *testing.T) {
	h := newHarness(t, scenario(), 80, 24)
	h.send(ev("login-fix", 11, core.EventInteractionWaiting, permissionIA("ia-1")))
	h.clk.advance(5 * time.Second) // long open: the grace is over
	for _, read := range [][]tea.Msg{
		{keyMsg("xa")},                // several runes in one read
		{keyMsg("down"), keyMsg("a")}, // an answer key after another key
		{keyMsg("a"), keyMsg("down")}, // an answer key followed by another
		{keyMsg("d"), keyMsg("d")},    // a double press in one read
		{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("a"), Paste: true}}, // pasted
	} {
		h.send(read...)
		h.requireControls()
		h.requireView("Permission requested")
	}
	h.requireView("keys that arrive together never answer")
	h.press("a") // alone
	h.requireControls(core.Respond{TaskID: "login-fix", InteractionID: "ia-1", Decision: core.DecisionAllow})
	h.requireView("answered ia-1: allow once")
}

// A search typed before any task is selected says why nothing opened.
func TestSearchWithoutATaskSaysSo(t *testing.T) {
	h := newHarness(t, scenario(), 100, 30)
	h.list().selected = ""
	h.press("/")
	h.requireView("no task yet: / searches")
}

// The spinner of a running task, in the summary's "now" line and after the tabs, is drawn by
// the terminal, never printed as its colour codes (sanitizing is for what a task says, not for
// the dashboard's own styling).
func TestSummarySpinnerIsDrawnNotPrinted(t *testing.T) {
	lipgloss.SetColorProfile(termenv.ANSI256)
	t.Cleanup(func() { lipgloss.SetColorProfile(termenv.Ascii) })
	h := newHarness(t, scenario(), 160, 45)
	h.list().selected = "docs-typo"
	h.requireView("now")
	if v := h.view(); strings.Contains(v, "␛") {
		t.Fatalf("the summary prints escape codes as text:\n%s", v)
	}
}

// The form proposes the dashboard's default worker (CODEX_REASONIX_WORKER) and the one chosen
// on it reaches the delegate request; the task's details name it.
func TestNewTaskFormChoosesTheWorker(t *testing.T) {
	f := scenario()
	f.tasks[0].Worker = "gemini"
	d := f.details["login-fix"]
	d.View = f.tasks[0]
	f.details["login-fix"] = d
	h := newHarnessWith(t, f, 120, 40, func(o *Options) { o.Worker = "claude" })
	h.requireView("worker     gemini")
	contract := filepath.Join(t.TempDir(), "c.json")
	if err := os.WriteFile(contract, []byte(`{"schema_version":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	h.press("n")
	h.requireView("(•) claude")
	h.typeText(contract)
	h.press("tab", "tab")
	h.typeText("by-codex")
	h.press("tab", "tab", "space", "enter")
	if len(f.delegates) != 1 || f.delegates[0].Worker != "codex" {
		t.Fatalf("delegates: %+v", f.delegates)
	}
}
