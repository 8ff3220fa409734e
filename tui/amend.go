package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
	"reasonixctl/tui/intent"
)

// dropCheck asks before dropping check id of task ti from its contract.
func (m *Model) dropCheck(ti *taskInfo, id string) {
	if ti.detail == nil {
		m.setStatus("checks can be dropped only in review", false, "")
		return
	}
	if why := core.WhyNot(ti.detail.View, core.ActionAmendChecks); why != "" {
		m.setStatus(why, false, ti.detail.View.TaskID)
		return
	}
	taskID := ti.detail.View.TaskID
	m.push(&confirmDialog{
		title: "Drop " + safetext.Line(id) + " from " + taskID + "'s contract?",
		body: "Finalize will no longer run it; a criterion only it proved becomes one you approve at finalize. " +
			"The contract gets a new revision, and the worker is told at its next prompt.",
		yes: intent.DropCheck{TaskID: taskID, Check: id},
	})
}

// dropChecks drops a check from a task's contract through the service (reasonix_control's
// amend_checks), so an attached dashboard can too.
func (m *Model) dropChecks(a intent.DropCheck) tea.Cmd {
	return m.control(core.ControlRequest{TaskID: a.TaskID, Action: core.ActionAmendChecks, DropChecks: []string{a.Check}})
}
