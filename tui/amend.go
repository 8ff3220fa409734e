package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
)

// dropCheckKey, in the checks tab of a task in review, drops the selected check from the task's
// contract (a new contract revision; the worker is told at its next prompt).
var dropCheckKey = bind([]string{"D"}, "D", "drop this check from the contract")

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
		yes: dropCheckAction{taskID: taskID, check: id},
	})
}

// dropChecks drops a check from a task's contract through the service (reasonix_control's
// amend_checks), so an attached dashboard can too.
func (m *Model) dropChecks(a dropCheckAction) tea.Cmd {
	return m.control(core.AmendChecks{TaskID: a.taskID, DropChecks: []string{a.check}})
}
