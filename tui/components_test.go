package tui

import (
	"strings"
	"testing"
	"time"

	"reasonixctl/core"
)

// Tests of the parts on their own, without the root model.

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

// The full help lists the keys of the checks tab and of the finalize form that only show in
// their own footers.
func TestHelpListsDropAndExcuse(t *testing.T) {
	h := newHarness(t, scenario(), 120, 60)
	h.press("?")
	for range 10 {
		if strings.Contains(h.view(), "drop this check from the contract") {
			break
		}
		h.press("pgdown")
	}
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
