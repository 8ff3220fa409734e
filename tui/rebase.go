package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/tui/dialog"
)

// rebaseTask asks before moving t onto its checkout's HEAD, when core offers a rebase in t's
// state; the engine says why not when the change still applies or the worktree moved.
func (m *Model) rebaseTask(t *core.TaskView) tea.Cmd {
	if t == nil {
		m.setStatus("no task selected", true, "")
		return nil
	}
	if why := core.WhyNot(*t, core.ActionRebase); why != "" {
		m.setStatus(why, true, t.TaskID)
		return nil
	}
	m.push(dialog.NewConfirm("Move "+t.TaskID+" onto its checkout's HEAD?",
		"The change is merged onto the checkout's current HEAD; files that conflict get conflict markers, and a repair round "+
			"(it counts against the limit) asks the worker to resolve them. The contract and write scope stay the same; "+
			"you review the new revision before finalize.",
		core.Rebase{TaskID: t.TaskID}))
	return nil
}
