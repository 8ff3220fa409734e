package tui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
)

// rebaseKey moves a task whose change no longer applies to its checkout's HEAD onto that HEAD,
// the conflicts written as markers for a repair round (reasonix_control rebase).
var rebaseKey = bind([]string{"M"}, "M", "move a task in review whose change conflicts with HEAD onto it (a repair round resolves the markers)")

// rebaseTask asks before moving t onto its checkout's HEAD; the engine says why not when the
// change still applies, no repair round is left or the worktree moved.
func (m *Model) rebaseTask(t *core.TaskView) tea.Cmd {
	if t == nil {
		m.setStatus("no task selected", true, "")
		return nil
	}
	if !core.Rebasable(*t) {
		m.setStatus(fmt.Sprintf("%s is %s: only a task in review (or paused because its checkout moved) can be moved onto HEAD", t.TaskID, t.State), true, t.TaskID)
		return nil
	}
	m.push(&confirmDialog{
		title: "Move " + t.TaskID + " onto its checkout's HEAD?",
		body: "The change is merged onto the checkout's current HEAD; files that conflict get conflict markers, and a repair round " +
			"(it counts against the limit) asks the worker to resolve them. The contract and write scope stay the same; " +
			"you review the new revision before finalize.",
		req: core.ControlRequest{TaskID: t.TaskID, Action: core.ActionRebase},
	})
	return nil
}
