package tui

import (
	"reasonixctl/core"
	"reasonixctl/tui/bind"
	"reasonixctl/tui/checks"
	"reasonixctl/tui/contract"
	"reasonixctl/tui/dialog"
	"reasonixctl/tui/events"
	"reasonixctl/tui/intent"
	"reasonixctl/tui/replay"
	"reasonixctl/tui/review"
)

// The root's side of the dialogs (tui/dialog): opening them with what the root knows, and
// giving them what changes while they are open.

func (m *Model) push(d dialog.Dialog) { m.dialogs.Push(d, m.now()) }

// helpGroups is the full help, which ? puts on top: every part's binding table, the root's two
// first, then the dialogs'.
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

// newTaskForm is the new-task form filled with in, knowing the ids of the listed tasks but
// except (the id of a start that just failed: its row is about to go).
func (l *taskList) newTaskForm(in intent.NewTask, except string) *dialog.NewTask {
	taken := map[string]core.State{}
	for _, tv := range l.tasks {
		if tv.TaskID != except {
			taken[tv.TaskID] = tv.State
		}
	}
	return dialog.NewNewTask(in, taken)
}

// followPreviews gives the finalize forms open in s their task's cherry-pick preview as rv has
// it now.
func followPreviews(s *dialog.Stack, rv *review.Review) {
	for _, d := range s.All() {
		if fd, ok := d.(*dialog.Finalize); ok {
			fd.SetPreview(rv.Preview(fd.TaskID()))
		}
	}
}
