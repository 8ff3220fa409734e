package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/tui/bind"
	"reasonixctl/tui/dialog"
	"reasonixctl/tui/intent"
)

// The root's side of the dialogs (tui/dialog): opening them with what the root knows, and
// giving them what changes while they are open.

func (m *Model) push(d dialog.Dialog) { m.dialogs.Push(d, m.now()) }

// openHelp puts the full help on top.
func (m *Model) openHelp() { m.push(dialog.NewHelp(m.helpGroups())) }

// helpGroups are the full help's groups: the dashboard's keys, then the dialogs', each read
// from its part's binding table.
func (m *Model) helpGroups() []bind.Group {
	var out []bind.Group
	for _, g := range m.keys.Groups() {
		if g.Title == "Prompt" || g.Title == "Forms" {
			continue // the dialogs' groups, from their tables
		}
		out = append(out, g)
	}
	return append(out, dialog.HelpGroups(m.keys)...)
}

// openGrants is P: the dialog, and the command that fills it.
func (m *Model) openGrants() tea.Cmd {
	m.push(dialog.NewGrants())
	return m.grantsCmd(intent.Grants{})
}

// grantsCmd carries out a grants dialog's request through the service.
func (m *Model) grantsCmd(a intent.Grants) tea.Cmd { return dialog.GrantsCmd(m.ctx, m.svc, a) }

// onGrants gives the open grants dialog the service's answer; one closed since has nothing to
// show it in.
func (m *Model) onGrants(msg dialog.GrantsMsg) {
	for _, d := range m.dialogs.All() {
		if gd, ok := d.(*dialog.Grants); ok {
			gd.Answered(msg)
		}
	}
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
