package tui

import (
	"strings"
	"testing"
	"time"

	"reasonixctl/core"
	"reasonixctl/tui/dialog"
)

// withState is the list's tasks with task id in state s.
func withState(h *harness, id string, s core.State) tasksMsg {
	tasks := append([]core.TaskView(nil), h.list().tasks...)
	for i := range tasks {
		if tasks[i].TaskID == id {
			tasks[i].State = s
		}
	}
	return tasksMsg{tasks: tasks}
}

// A steer typed while the task comes to wait for a permission answer is kept: enter opens the
// request over the dialog, and once the answer lets the task run again enter sends the message.
func TestSteerTypedDuringAPermissionWaitIsKept(t *testing.T) {
	h := newHarness(t, scenario(), 100, 30)
	h.press("j") // docs-typo, running
	h.press("s")
	h.typeText("use the house style")
	h.send(ev("docs-typo", 7, core.EventInteractionWaiting, permissionIA("ia-1")))
	h.send(withState(h, "docs-typo", core.StateWaitingPermission))
	h.requireView("The task moved on while you typed.", "docs-typo waits for your answer to a permission request",
		"use the house style", "enter answer the request first")
	h.press("enter")
	h.requireControls()
	h.requireView("Permission requested")
	h.clk.advance(2 * time.Second)
	h.press("a")
	allow := h.svc.controlLog()
	if len(allow) != 1 || allow[0].Action() != core.ActionRespond {
		t.Fatalf("controls %s", fmtControls(allow))
	}
	// The answer's result put the task back to running; the dialog is on top again, text and all.
	h.requireView("Steer docs-typo", "The message reaches the worker during its current turn.", "use the house style")
	h.press("enter")
	h.requireControls(allow[0], core.Steer{TaskID: "docs-typo", Message: "use the house style"})
	if _, open := h.stack().top().(*dialog.Steer); open {
		t.Fatal("the steer dialog stayed open after the message was sent")
	}
	h.requireView("steer docs-typo: now running")
}

// A steer core refuses leaves the dialog open with the text and core's reason; enter sends it
// again.
func TestSteerRefusedByCoreKeepsTheText(t *testing.T) {
	h := newHarness(t, scenario(), 100, 30)
	refuse := true
	h.svc.onControl = func(req core.Command) (core.TaskView, error) {
		if refuse {
			return core.TaskView{}, core.Errorf(core.CodeInvalidState, nil, "the worker is between turns; steer again in a moment")
		}
		return core.TaskView{TaskID: req.Task(), State: core.StateRunning}, nil
	}
	h.press("j", "s")
	h.typeText("keep the old name")
	h.press("enter")
	h.requireView("Steer docs-typo", "keep the old name", "Not sent: invalid_state: the worker is between turns",
		"Your message is kept: enter sends it again")
	if n := len(h.stack().all()); n != 1 {
		t.Fatalf("%d dialogs open, want the steer dialog alone", n)
	}
	refuse = false
	h.press("enter")
	if n := len(h.svc.controlLog()); n != 2 {
		t.Fatalf("%d controls, want 2", n)
	}
	if !h.stack().empty() {
		t.Fatal("the steer dialog stayed open after the message was sent")
	}
}

// A task paused while its steer is typed: enter says why nothing is sent, and the text stays.
func TestSteerToAnEndedTaskSaysWhyAndKeepsTheText(t *testing.T) {
	h := newHarness(t, scenario(), 100, 30)
	h.press("j", "s")
	h.typeText("one more thing")
	h.send(withState(h, "docs-typo", core.StatePaused))
	h.press("enter")
	h.requireControls()
	h.requireView("Not sent: steer needs a running task or one in review; docs-typo is paused", "one more thing")
	if v := h.view(); strings.Contains(v, "sending…") {
		t.Fatalf("the dialog says it is sending:\n%s", v)
	}
}
