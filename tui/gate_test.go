package tui

import (
	"testing"

	"reasonixctl/core"
)

// selectTask moves the selection down the list to task id.
func (h *harness) selectTask(id string) {
	h.t.Helper()
	for range h.list().tasks {
		if h.selected() == id {
			return
		}
		h.press("j")
	}
	h.t.Fatalf("%s is not in the list: %s", id, h.order())
}

// M follows core's table, not a state of the dashboard's own: a task in review that used its
// repair rounds is refused in core's words before anything is sent (the conflicts need a round),
// and one paused by a source collision after its review is offered the rebase.
func TestRebaseKeyFollowsTheTable(t *testing.T) {
	svc := scenario()
	svc.tasks[0].RepairRounds = core.MaxRepairRounds
	h := newHarness(t, svc, 200, 40)
	h.selectTask("login-fix")
	h.press("M")
	h.requireView("login-fix used its 2 repair rounds, and a rebase needs one: close it and start a task from the current HEAD")
	if !h.stack().empty() {
		t.Fatal("M opened a dialog for a task core does not offer a rebase")
	}
	h.requireControls()

	svc = scenario()
	for i := range svc.tasks {
		if svc.tasks[i].TaskID == "docs-typo" {
			svc.tasks[i].State, svc.tasks[i].Phase, svc.tasks[i].ReviewTreeHash = core.StatePaused, core.PhaseSourceCollision, treeHash
		}
	}
	h = newHarness(t, svc, 200, 40)
	h.selectTask("docs-typo")
	h.press("M")
	h.requireView("Move docs-typo onto its checkout's HEAD?")
	h.press("y")
	h.requireControls(core.Rebase{TaskID: "docs-typo"})
}

// D drops a check only where core offers amend_checks: outside review it says why in core's
// words and asks nothing; in review it asks first, and yes sends amend_checks.
func TestDropCheckFollowsTheTable(t *testing.T) {
	svc := scenario()
	one := 1
	d := svc.details["docs-typo"]
	d.Verification = []core.VerificationResult{{ID: "go-test", Argv: []string{"go", "test", "./..."}, ExitCode: &one}}
	svc.details["docs-typo"] = d
	h := newHarness(t, svc, 200, 40)
	h.selectTask("docs-typo")
	h.press("4", "D")
	h.requireView("amend_checks needs a task in review; docs-typo is running")
	if !h.stack().empty() {
		t.Fatal("D opened a dialog for a running task")
	}
	h.press("k", "D")
	h.requireView("Drop unit from login-fix's contract?")
	h.press("y")
	h.requireControls(core.AmendChecks{TaskID: "login-fix", DropChecks: []string{"unit"}})
}
