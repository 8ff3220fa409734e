package tui

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
)

// checkAmender changes a task's checks in review: the engine a dashboard owns implements it
// (core.Engine.AmendChecks); an attached dashboard's service does not.
type checkAmender interface {
	AmendChecks(ctx context.Context, req core.AmendChecksRequest) (core.TaskView, error)
}

// dropCheckKey, in the checks tab of a task in review, drops the selected check from the task's
// contract (a new contract revision; the worker is told at its next prompt).
var dropCheckKey = bind([]string{"D"}, "D", "drop this check from the contract")

// amendAction names an amendment in status lines and notices.
const amendAction = "amend checks"

// dropCheck asks before dropping check id of task ti from its contract.
func (m *Model) dropCheck(ti *taskInfo, id string) {
	if ti.detail == nil || ti.detail.View.State != core.StateReviewRequired {
		m.setStatus("checks can be dropped only in review", false, "")
		return
	}
	_, ok := m.svc.(checkAmender)
	if !ok {
		m.setStatus("this dashboard is attached: drop checks from the one that owns the state directory", false, "")
		return
	}
	taskID := ti.detail.View.TaskID
	m.push(&confirmDialog{
		title: "Drop " + sanitizeLine(id) + " from " + taskID + "'s contract?",
		body: "Finalize will no longer run it; a criterion only it proved becomes one you approve at finalize. " +
			"The contract gets a new revision, and the worker is told at its next prompt.",
		yes: dropCheckAction{taskID: taskID, check: id},
	})
}

// dropChecks drops a check from a task's contract, its answer reported as a control's.
func (m *Model) dropChecks(a dropCheckAction) tea.Cmd {
	amender, ok := m.svc.(checkAmender)
	if !ok {
		return nil
	}
	ctx := m.ctx
	return func() tea.Msg {
		v, err := amender.AmendChecks(ctx, core.AmendChecksRequest{TaskID: a.taskID, Drop: []string{a.check}})
		return controlMsg{req: core.ControlRequest{TaskID: a.taskID, Action: amendAction}, view: v, err: err}
	}
}
