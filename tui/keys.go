package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/tui/bind"
	"reasonixctl/tui/dialog"
	"reasonixctl/tui/intent"
	"reasonixctl/tui/review"
)

// The dashboard's own keys, those no dialog or pane took, as two binding tables: the task
// actions and the dashboard's own. Dispatch (globalKey), the footer and the help's
// "Tasks" and "Detail" groups are all read from them, so a key's help, its footer word and
// whether it runs cannot disagree; a task action core does not allow now says core.WhyNot's
// words when pressed and stays out of the footer.

// noTask is why a task key does nothing before there is a task to act on.
const noTask = "no task selected: press n to start one"

// actionKeys are the keys that act on the selected task: core's task actions, answering its
// request, applying and rebasing its change.
func (m *Model) actionKeys() bind.Table[tea.Cmd] {
	k := m.keys
	t := m.list.selectedTask()
	// action is a key for one of core's task actions: it runs when core allows it in the
	// task's state and otherwise says why not, in core's words.
	action := func(b key.Binding, short, name string) bind.Binding[tea.Cmd] {
		return bind.Binding[tea.Cmd]{Key: b, Short: short,
			Run:    func(tea.KeyMsg) tea.Cmd { return m.act(t, name) },
			WhyNot: func() string { return whyNot(t, name) }}
	}
	steer := "steer"
	if t != nil && t.State == core.StateReviewRequired {
		steer = "repair"
	}
	answer := bind.Binding[tea.Cmd]{Key: k.ShowPending, Run: func(tea.KeyMsg) tea.Cmd { return m.openNextPending() }}
	if m.requests.count() > 0 {
		answer.Short = "answer"
	}
	rebase := action(k.Rebase, "", core.ActionRebase)
	if t != nil && conflictsWithHead(&m.review, t.TaskID) {
		// Offered in the footer only when the change no longer applies: in any other review
		// the engine refuses it as needless.
		rebase.Short = "rebase"
	}
	apply := bind.Binding[tea.Cmd]{Key: k.Apply, Run: func(tea.KeyMsg) tea.Cmd { return m.cmds.applyToCheckout(t.TaskID, false) },
		WhyNot: func() string { return whyNotApply(t) }}
	if t != nil && t.State == core.StateCompleted {
		apply.Short = "apply"
	}
	return bind.Table[tea.Cmd]{
		answer,
		action(k.Finalize, "finalize", core.ActionFinalize),
		action(k.Steer, steer, core.ActionSteer),
		action(k.Resume, "resume", core.ActionResume),
		apply,
		rebase,
		action(k.Cancel, "cancel", core.ActionCancel),
		action(k.Close, "", core.ActionClose),
	}
}

// whyNot is why action (any key that needs a task, for "") does nothing on t now.
func whyNot(t *core.TaskView, action string) string {
	switch {
	case t == nil:
		return noTask
	case action == "":
		return ""
	}
	return core.WhyNot(*t, action)
}

// dashKeys are the dashboard's own keys: the task list, the tabs, the replay, the dialogs it
// opens, help and quitting.
func (m *Model) dashKeys() bind.Table[tea.Cmd] {
	k := m.keys
	t := m.list.selectedTask()
	needTask := func() string { return whyNot(t, "") }
	tab := func(b key.Binding, to detailTab) bind.Binding[tea.Cmd] {
		return bind.Binding[tea.Cmd]{Key: b, Run: func(tea.KeyMsg) tea.Cmd { m.tab = to; return nil }}
	}
	short := func(when bool, word string) string {
		if when {
			return word
		}
		return ""
	}
	move := func(delta int) tea.Cmd {
		if !m.list.move(delta) {
			return nil
		}
		return m.info.selectionChanged(m.list.selected)
	}
	// reload reads the task list again and, with a task selected, its detail and apply line:
	// the person reloads because something moved, and the preview's own age says nothing about
	// that.
	reload := func(tea.KeyMsg) tea.Cmd {
		cmds := []tea.Cmd{m.cmds.refreshList(&m.list)}
		if t != nil {
			cmds = append(cmds, m.info.fetchDetail(t.TaskID), diffTab{m}.send(review.RefreshPreview{TaskID: t.TaskID, Force: true}))
		}
		return tea.Batch(cmds...)
	}
	return bind.Table[tea.Cmd]{
		{Key: k.Replay, Short: short(t != nil, "replay"), Run: func(tea.KeyMsg) tea.Cmd { return replayPane{m}.open(t) }, WhyNot: needTask},
		{Key: k.Up, Run: func(tea.KeyMsg) tea.Cmd { return move(-1) }},
		{Key: k.Down, Short: short(len(m.list.tasks) > 1, "task"), Run: func(tea.KeyMsg) tea.Cmd { return move(1) }},
		{Key: k.NextView, Short: short(t != nil, "view"), Run: func(tea.KeyMsg) tea.Cmd { m.tab = (m.tab + 1) % tabCount; return nil }},
		{Key: k.PrevView, Run: func(tea.KeyMsg) tea.Cmd { m.tab = (m.tab + tabCount - 1) % tabCount; return nil }},
		tab(k.EventsView, tabEvents),
		tab(k.DiffView, tabDiff),
		tab(k.ContractView, tabContract),
		tab(k.ChecksView, tabChecks),
		{Key: k.NewTask, Short: "new", Run: func(tea.KeyMsg) tea.Cmd { m.push(m.list.newTaskForm(m.lastForm, "")); return nil }},
		{Key: k.ToggleAll, Short: short(t == nil, "all tasks"), Run: func(tea.KeyMsg) tea.Cmd {
			m.list.showAll = !m.list.showAll
			return m.cmds.refreshList(&m.list)
		}},
		{Key: k.Copy, Run: func(tea.KeyMsg) tea.Cmd { return m.copyKey(t) }, WhyNot: needTask},
		{Key: k.Search, WhyNot: func() string {
			if t != nil {
				return "" // the tab in view has no search: nothing to say
			}
			// A search typed before the first task arrives would otherwise vanish without a
			// word, and the letters after it act as the dashboard's keys.
			return "no task yet: / searches a task's events or diff once one is selected"
		}},
		{Key: k.Grants, Run: func(tea.KeyMsg) tea.Cmd {
			m.push(dialog.NewGrants())
			return m.cmds.grants(intent.Grants{})
		}},
		{Key: k.Refresh, Run: reload},
		{Key: k.Help, Run: func(tea.KeyMsg) tea.Cmd { m.push(dialog.NewHelp(m.helpGroups())); return nil }},
		{Key: k.Quit, Short: "quit", Run: func(tea.KeyMsg) tea.Cmd { return m.askQuit() }},
		{Key: k.Suspend, Run: func(tea.KeyMsg) tea.Cmd { return m.askSuspend() }},
	}
}

// globalKey handles the dashboard's own keys, those no pane took: the task actions first, then
// navigation. A key that does nothing now says why in the status line.
func (m *Model) globalKey(msg tea.KeyMsg) tea.Cmd {
	for _, table := range []bind.Table[tea.Cmd]{m.actionKeys(), m.dashKeys()} {
		cmd, why, found := table.Dispatch(msg)
		if !found {
			continue
		}
		if why != "" {
			id := ""
			if t := m.list.selectedTask(); t != nil {
				id = t.TaskID
			}
			m.setStatus(why, true, id)
		}
		return cmd
	}
	return nil
}

// conflictsWithHead says the last cherry-pick preview of a task in rv found its change
// conflicting with its checkout's HEAD: what a rebase is for.
func conflictsWithHead(rv *review.Review, taskID string) bool {
	p := rv.Preview(taskID).Of
	return p != nil && !p.Clean && len(p.Conflicts) > 0
}
