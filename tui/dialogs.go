package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/tui/bind"
	"reasonixctl/tui/checks"
	"reasonixctl/tui/contract"
	"reasonixctl/tui/dialog"
	"reasonixctl/tui/events"
	"reasonixctl/tui/intent"
	"reasonixctl/tui/replay"
)

// The root's side of the dialogs (tui/dialog): opening them with what the root knows, and
// giving them what changes while they are open.

func (m *Model) push(d dialog.Dialog) { m.dialogs.Push(d, m.now()) }

// openHelp puts the full help on top, listing the dashboard's keys, then the dialogs', each
// group read from its part's binding table.
func (m *Model) openHelp() { m.push(dialog.NewHelp(m.helpGroups())) }

// helpGroups is the full help: every part's binding table, the root's two first.
func (m *Model) helpGroups() []bind.Group {
	groups := []bind.Group{
		{Title: "Tasks", Bindings: m.actionKeys().Help()},
		{Title: "Dashboard", Bindings: m.dashKeys().Help()},
		events.New(m.info.events, "").Help(),
		m.review.Help(),
		contract.New(m.theme, m.keys).Help(),
		checks.New("", checks.Env{Theme: m.theme, Keys: m.keys}).Help(),
		replay.HelpGroup(m.keys),
	}
	return append(groups, dialog.HelpGroups(m.keys)...)
}

// openGrants is P: the dialog, and the command that fills it.
func (m *Model) openGrants() tea.Cmd {
	m.push(dialog.NewGrants())
	return m.cmds.grants(intent.Grants{})
}

// newTaskForm is the new-task form filled with in, knowing the ids of the listed tasks but
// except (the id of a start that just failed: its row is about to go).
func (m *Model) newTaskForm(in intent.NewTask, except string) *dialog.NewTask {
	taken := map[string]core.State{}
	for _, tv := range m.list.tasks {
		if tv.TaskID != except {
			taken[tv.TaskID] = tv.State
		}
	}
	return dialog.NewNewTask(in, taken)
}

// followDialogs gives the open finalize forms their task's cherry-pick preview as it is now.
func (m *Model) followDialogs() {
	for _, d := range m.dialogs.All() {
		if fd, ok := d.(*dialog.Finalize); ok {
			fd.SetPreview(m.review.Preview(fd.TaskID()))
		}
	}
}
