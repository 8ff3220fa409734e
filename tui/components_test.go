package tui

import (
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
)

// Tests of the parts on their own, without the root model.

// The stack keeps the keys of a new prompt's grace, ctrl+c, help and paging; the rest go to the
// top dialog.
func TestDialogStackKeepsWhatIsItsOwn(t *testing.T) {
	k := DefaultKeyMap()
	var s dialogStack
	s.push(&noticeDialog{title: "n"}, epoch)
	for _, c := range []struct {
		key  tea.KeyMsg
		want stackStep
	}{
		{keyMsg("?"), stackHelp},
		{keyMsg("pgdown"), stackTook},
		{tea.KeyMsg{Type: tea.KeyCtrlC}, stackAskQuit},
		{keyMsg("esc"), stackToTop},
		{keyMsg("y"), stackToTop},
	} {
		if got := s.key(c.key, k, epoch); got != c.want {
			t.Errorf("%q over a notice: %d, want %d", c.key.String(), got, c.want)
		}
	}
	if s.scroll != 5 {
		t.Errorf("pgdown scrolled the body to %d", s.scroll)
	}

	s.push(&confirmDialog{title: "Quit?", quit: true}, epoch)
	if got := s.key(tea.KeyMsg{Type: tea.KeyCtrlC}, k, epoch); got != stackQuit {
		t.Errorf("ctrl+c in the quit confirmation: %d", got)
	}

	// A prompt's grace: keys are kept for as long as they keep coming; after a pause the next
	// one reaches the prompt.
	s.push(newPromptDialog("t", permissionIA("ia-1")), epoch)
	at := epoch
	for at.Before(epoch.Add(3 * time.Second)) {
		if got := s.key(keyMsg("a"), k, at); got != stackTook {
			t.Fatalf("a key %v after the prompt opened reached it", at.Sub(epoch))
		}
		at = at.Add(graceQuiet / 2)
	}
	at = at.Add(graceQuiet)
	if got := s.key(keyMsg("a"), k, at); got != stackToTop {
		t.Fatalf("a key after a pause: %d", got)
	}

	// Typing a word at two keys a second as a prompt opens under it: no key of the word reaches
	// the prompt.
	s.remove(s.top())
	s.push(newPromptDialog("t", permissionIA("ia-2")), epoch)
	for i, at := 0, epoch.Add(200*time.Millisecond); i < 6; i, at = i+1, at.Add(500*time.Millisecond) {
		if got := s.key(keyMsg("make a"[i:i+1]), k, at); got != stackTook {
			t.Fatalf("key %d of a word typed at 2 keys/s, %v after the prompt opened, reached it", i, at.Sub(epoch))
		}
	}
}

// A dialog taking text keeps ?, pgup and pgdown as text.
func TestDialogStackLeavesTextToATypingDialog(t *testing.T) {
	var s dialogStack
	s.push(newSteerDialog(core.TaskView{TaskID: "t", State: core.StateRunning}), epoch)
	for _, k := range []string{"?", "pgdown", "pgup"} {
		if got := s.key(keyMsg(k), DefaultKeyMap(), epoch); got != stackToTop {
			t.Errorf("%q in the steer form: %d", k, got)
		}
	}
}

func TestRequestsOpen(t *testing.T) {
	var r requests
	r.add("a", permissionIA("ia-1"))
	r.add("b", permissionIA("ia-2"))
	r.add("b", permissionIA("ia-2")) // again: one request
	r.add("c", core.Interaction{})   // no id: nothing to answer
	if r.count() != 2 || !r.waitingFor("b") || r.waitingFor("c") {
		t.Fatalf("requests: %d, b %v, c %v", r.count(), r.waitingFor("b"), r.waitingFor("c"))
	}
	if p := r.next("b"); p == nil || p.ia.ID != "ia-2" {
		t.Errorf("i with b selected opens %+v", p)
	}
	if p := r.next("z"); p == nil || p.ia.ID != "ia-1" {
		t.Errorf("i with another task selected opens the oldest: %+v", p)
	}
	r.find("ia-2").deferred = true
	if r.opening("b") != nil {
		t.Error("a request put aside opened by itself")
	}
	r.find("ia-1").answering = true
	if r.count() != 1 || r.waitingFor("a") || r.next("a").ia.ID != "ia-2" {
		t.Error("a request being answered still counts")
	}
	r.drop("ia-1")
	if r.find("ia-1") != nil || len(r.items) != 1 {
		t.Errorf("drop: %d left", len(r.items))
	}
}

// A status line stands for statusTTL, or until its task leaves the state it had.
func TestStatusExpiresWithTimeOrState(t *testing.T) {
	l := &taskList{tasks: []core.TaskView{{TaskID: "t", State: core.StateRunning}}}
	st := newStatus("steered t", false, epoch, "t", l)
	if text, _ := st.fresh(epoch.Add(time.Second), l); text != "steered t" {
		t.Fatalf("fresh status: %q", text)
	}
	if text, _ := st.fresh(epoch.Add(statusTTL), l); text != "" {
		t.Errorf("status after its TTL: %q", text)
	}
	l.tasks[0].State = core.StateReviewRequired
	if text, _ := st.fresh(epoch.Add(time.Second), l); text != "" {
		t.Errorf("status after its task moved on: %q", text)
	}
	if text, isErr := newStatus("no task", true, epoch, "", l).fresh(epoch, l); text != "no task" || !isErr {
		t.Errorf("a status about no task: %q %v", text, isErr)
	}
}

func TestReplayKeysMoveOrAsk(t *testing.T) {
	rp := &replayView{events: make([]core.Event, 30)}
	k := DefaultKeyMap()
	for _, c := range []struct {
		key  string
		cur  int
		step replayStep
	}{
		{"l", 1, replayStay},
		{"pgdown", 11, replayStay},
		{"G", 29, replayStay},
		{"right", 29, replayStay},
		{"g", 0, replayStay},
		{"h", 0, replayStay},
		{"?", 0, replayHelp},
		{"ctrl+c", 0, replayQuit},
		{"esc", 0, replayLeave},
		{"p", 0, replayLeave},
	} {
		msg := keyMsg(c.key)
		if c.key == "ctrl+c" {
			msg = tea.KeyMsg{Type: tea.KeyCtrlC}
		}
		if step := rp.key(msg, k); step != c.step || rp.cur != c.cur {
			t.Errorf("%q: step %d at %d, want %d at %d", c.key, step, rp.cur, c.step, c.cur)
		}
	}
}

// The focused pane is the replay while one is open, else the selected task's tab; with no task
// selected, none, and keys go to the dashboard's own.
func TestFocusFollowsReplayAndTab(t *testing.T) {
	h := newHarness(t, scenario(), 100, 30)
	want := map[detailTab]pane{tabEvents: eventsTab{h.m}, tabDiff: diffTab{h.m}, tabContract: contractTab{h.m}, tabChecks: checksTab{h.m}}
	for tab, p := range want {
		h.press(string(rune('1' + tab)))
		if got := h.m.focused(); got != p {
			t.Errorf("tab %d: focus on %T", tab, got)
		}
	}
	h.press("p")
	if _, ok := h.m.focused().(replayPane); !ok {
		t.Errorf("replay open: focus on %T", h.m.focused())
	}
	h.press("esc")
	h.list().selected = ""
	if p := h.m.focused(); p != nil {
		t.Errorf("no task selected: focus on %T", p)
	}
}

// A typed action from a dialog is carried out by the root: a copy writes the clipboard sequence.
func TestConfirmedActionIsAValue(t *testing.T) {
	d := &confirmDialog{title: "Suspend?", yes: suspendAction{}}
	res := d.update(keyMsg("y"), DefaultKeyMap())
	if _, ok := res.do.(suspendAction); !ok || !res.close || res.control != nil {
		t.Fatalf("yes: %+v", res)
	}
	n := &noticeDialog{title: "Committed", command: "git cherry-pick abc"}
	res = n.update(keyMsg("y"), DefaultKeyMap())
	if a, ok := res.do.(copyAction); !ok || a.text != "git cherry-pick abc" {
		t.Fatalf("y in a notice with a command: %+v", res)
	}
}

// The full help lists the keys of the checks tab and of the finalize form that only show in
// their own footers.
func TestHelpListsDropAndExcuse(t *testing.T) {
	h := newHarness(t, scenario(), 120, 60)
	h.press("?")
	h.requireView("drop this check from the contract")
	h.press("G") // the form keys are at the end
	h.requireView("excuse pre-existing failures")
}

// M asks before moving a task in review onto HEAD, and sends reasonix_control rebase.
func TestRebaseKeyAsksThenSendsRebase(t *testing.T) {
	h := newHarness(t, scenario(), 100, 30)
	h.requireView("login-fix")
	h.press("M")
	h.requireView("Move login-fix onto its checkout's HEAD?", "conflict markers")
	h.press("y")
	h.requireControls(core.Rebase{TaskID: "login-fix"})
	h.press("j") // docs-typo is running
	h.press("M")
	h.requireView("rebase needs a task in review")
}
