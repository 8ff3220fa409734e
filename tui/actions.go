package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
)

func (m *Model) onControl(msg controlMsg) tea.Cmd {
	req := msg.req
	respond, _ := req.(core.Respond)
	steer, _ := req.(core.Steer)
	if msg.err != nil {
		e := core.AsError(msg.err)
		switch req.Action() {
		case core.ActionRespond:
			if p := m.requests.find(respond.InteractionID); p != nil {
				p.answering = false
				if e.Code == core.CodeInteractionNotFound {
					m.dropPending(respond.InteractionID)
					m.setStatus(respond.InteractionID+" was already answered elsewhere; the first answer counts", false, req.Task())
					return tea.Batch(m.refreshList(), m.fetchDetail(req.Task()))
				}
			}
		case core.ActionFinalize:
			delete(m.finalizing, req.Task())
		case core.ActionSteer:
			// The steer dialog waits for the answer: it keeps the text and shows why.
			if d := m.steerDialogFor(req.Task()); d != nil && d.sending {
				d.refused(m.describeError(msg.err))
				return tea.Batch(m.refreshList(), m.fetchDetail(req.Task()))
			}
		}
		n := m.errorNotice(req.Action()+" "+req.Task()+" failed", msg.err)
		if req.Action() == core.ActionSteer && steer.Message != "" {
			n.lines = append(n.lines, "", "Your message, not sent: "+steer.Message)
		}
		m.push(n)
		// The snapshot may have moved on: show the fresh diff and revision.
		return tea.Batch(m.refreshList(), m.fetchDetail(req.Task()))
	}
	m.list.replace(msg.view)
	if req.Action() == core.ActionSteer {
		if d := m.steerDialogFor(req.Task()); d != nil && d.sending {
			m.dialogs.remove(d)
		}
	}
	switch req.Action() {
	case core.ActionRespond:
		what := m.gate.said[respond.InteractionID]
		delete(m.gate.said, respond.InteractionID)
		if what == "" {
			what = respond.Decision
		}
		m.dropPending(respond.InteractionID)
		m.setStatus("answered "+respond.InteractionID+": "+what, false, "")
	case core.ActionFinalize:
		if msg.view.CommitHash != "" {
			// The committed event may have shown the notice already.
			if _, ok := m.finalizing[req.Task()]; ok {
				delete(m.finalizing, req.Task())
				m.push(commitNotice(req.Task(), msg.view.CommitHash, msg.view.Branch, msg.view.IntegrationCommand))
			}
			m.setStatus("committed "+req.Task()+" as "+msg.view.CommitHash, false, req.Task())
		} else {
			m.setStatus("finalizing "+req.Task()+": "+string(msg.view.State), false, req.Task())
		}
	default:
		m.setStatus(req.Action()+" "+req.Task()+": now "+string(msg.view.State), false, req.Task())
	}
	return tea.Batch(m.refreshList(), m.fetchDetail(req.Task()))
}

func (m *Model) onDelegate(msg delegateMsg) tea.Cmd {
	id := msg.in.TaskID
	if msg.err != nil {
		if msg.resume {
			m.push(m.errorNotice("resuming "+id+" failed", msg.err))
			return tea.Batch(m.refreshList(), m.fetchDetail(id))
		}
		// A task that could not start is undone by the engine: drop what the dashboard saw of
		// it and give the person their form back, with the cause and what to do about it.
		conflict := core.AsError(msg.err).Code == core.CodeTaskConflict
		if m.list.index(id) < 0 || !conflict {
			delete(m.info, id)
		}
		d := m.newTaskForm(msg.in, id)
		d.err = strings.Join(m.describeError(msg.err), "\n")
		if conflict {
			// Core names the first field that differs ("contract"); what the form got wrong is
			// the id.
			d.err = idTaken(id, m.stateOf(id))
			d.setFocus(2)
		}
		m.push(d)
		return m.refreshList()
	}
	if !msg.resume && m.lastForm.TaskID == id {
		// The next form starts from the same contract and repository, with a new id to type.
		m.lastForm.TaskID = ""
	}
	m.list.selected = msg.res.TaskID
	verb := "started "
	if msg.resume {
		verb = "resumed "
	}
	m.setStatus(verb+msg.res.TaskID+" ("+string(msg.res.State)+")", false, msg.res.TaskID)
	return tea.Batch(m.refreshList(), m.fetchDetail(msg.res.TaskID), m.replay(msg.res.TaskID))
}

// newTaskForm is the new-task form filled with in, knowing the ids of the listed tasks but
// except (the id of a start that just failed: its row is about to go).
func (m *Model) newTaskForm(in newTaskInput, except string) *newTaskDialog {
	d := newNewTaskDialog(in)
	d.taken = map[string]core.State{}
	for _, tv := range m.list.tasks {
		if tv.TaskID != except {
			d.taken[tv.TaskID] = tv.State
		}
	}
	return d
}

// stateOf is a task's state as the dashboard last saw it, or "".
func (m *Model) stateOf(id string) core.State {
	if i := m.list.index(id); i >= 0 {
		return m.list.tasks[i].State
	}
	if ti, ok := m.info[id]; ok && ti.detail != nil {
		return ti.detail.View.State
	}
	return ""
}

// steerDialogFor is the open steer dialog of a task, if any.
func (m *Model) steerDialogFor(taskID string) *steerDialog {
	for _, d := range m.dialogs.items {
		if sd, ok := d.(*steerDialog); ok && sd.taskID == taskID {
			return sd
		}
	}
	return nil
}

// openRequestOf opens the waiting request of a task over the open dialogs, as `i` does.
func (m *Model) openRequestOf(taskID string) tea.Cmd {
	for _, p := range m.requests.items {
		if p.taskID == taskID && !p.answering {
			p.deferred = false
			m.openPrompt(p)
			return nil
		}
	}
	m.setStatus(taskID+" has no request waiting here yet: ctrl+r reloads it", false, taskID)
	return nil
}

// askSuspend suspends the dashboard, first asking when it runs the engine of working tasks:
// while this process is stopped, so are they.
func (m *Model) askSuspend() tea.Cmd {
	n := m.list.working()
	if n == 0 || m.opts.Attached != nil {
		return m.suspend()
	}
	m.push(&confirmDialog{
		title: "Suspend reasonixctl?",
		body: fmt.Sprintf("This dashboard runs the engine: its %d working task(s), and Codex's calls through an "+
			"MCP server attached to it, wait until you bring it back with fg.", n),
		yes: suspendAction{},
	})
	return nil
}

// suspend stops the dashboard for the shell (ctrl+z), telling the engine first that nobody is
// here to answer; fg brings it back (tea.ResumeMsg).
func (m *Model) suspend() tea.Cmd {
	return tea.Sequence(m.away(true), tea.Suspend)
}

func (m *Model) away(away bool) tea.Cmd {
	hook := m.opts.Away
	if hook == nil {
		return nil
	}
	return func() tea.Msg { hook(away); return nil }
}

// act runs one of the task actions core allows in the task's state, or says why it cannot.
func (m *Model) act(t *core.TaskView, action string) tea.Cmd {
	if t == nil {
		m.setStatus("no task selected: press n to start one", true, "")
		return nil
	}
	if why := core.WhyNot(*t, action); why != "" {
		m.setStatus(why, true, t.TaskID)
		return nil
	}
	switch action {
	case core.ActionSteer:
		m.push(newSteerDialog(*t))
	case core.ActionFinalize:
		ti := m.task(t.TaskID)
		if ti.detail == nil {
			m.setStatus("loading the review of "+t.TaskID+"…", false, t.TaskID)
			return m.fetchDetail(t.TaskID)
		}
		if nothingChanged(ti.detail) {
			m.push(nothingToFinalize(t.TaskID))
			return nil
		}
		m.push(m.finalizeForm(ti))
		return m.refreshPreview(t.TaskID, true)
	case core.ActionCancel:
		m.push(&confirmDialog{
			title: "Cancel task " + t.TaskID + "?",
			body:  "The worker stops, pending questions are dropped and nothing is committed. The branch and worktree stay for inspection.",
			req:   core.Cancel{TaskID: t.TaskID},
		})
	case core.ActionClose:
		m.push(&confirmDialog{
			title: "Close task " + t.TaskID + "?",
			body:  "The worker session is closed and the task ends; a committed result stays on its branch.",
			req:   core.Close{TaskID: t.TaskID},
		})
	case core.ActionResume:
		ti := m.task(t.TaskID)
		if ti.detail == nil {
			m.setStatus("loading "+t.TaskID+"…", false, t.TaskID)
			return m.fetchDetail(t.TaskID)
		}
		m.setStatus("resuming "+t.TaskID+"…", false, t.TaskID)
		return m.resume(*ti.detail, *t)
	}
	return nil
}

// askQuit quits, asking first when tasks are still working: quitting stops their workers.
func (m *Model) askQuit() tea.Cmd {
	n := m.list.working()
	if n == 0 || m.opts.Attached != nil {
		// An attached dashboard leaves the owner's tasks running.
		return tea.Quit
	}
	m.push(&confirmDialog{
		quit:  true,
		title: "Quit reasonixctl?",
		body: fmt.Sprintf("%d task(s) are still working. Quitting stops their workers; the tasks are paused and "+
			"you can resume them (r) the next time you open the dashboard.", n),
	})
	return nil
}

func (m *Model) carryOut(d dialog, res dialogResult) tea.Cmd {
	if res.close {
		m.dialogs.remove(d)
	}
	if res.quit {
		return tea.Quit
	}
	if pd, ok := d.(*promptDialog); ok {
		m.requests.handled(pd.ia.ID, res.later, res.control != nil)
	}
	if sd, ok := d.(*steerDialog); ok && res.control != nil {
		// Decide on the task as it is now, not as the dialog last drew it.
		if i := m.list.index(sd.taskID); i >= 0 {
			sd.sending = false
			sd.follow(m.list.tasks[i])
			res = sd.submit()
		}
	}
	var cmd tea.Cmd
	if res.control != nil {
		if res.control.Action() == core.ActionFinalize {
			m.finalizing[res.control.Task()] = m.now()
			m.setStatus("finalizing "+res.control.Task()+": verifying and committing…", false, "")
		}
		cmd = m.control(res.control)
	}
	if res.draft != "" {
		cmd = m.draftContract(res.draft)
	}
	if res.do != nil {
		cmd = m.perform(res.do)
	}
	if res.delegate != nil {
		m.lastForm = *res.delegate
		m.setStatus("starting task "+res.delegate.TaskID+"…", false, "")
		cmd = m.delegate(*res.delegate)
	}
	return cmd
}

// globalKey handles the dashboard's own keys, those no pane took: selection, tabs, the replay,
// the dialogs they open and the task actions.
func (m *Model) globalKey(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	t := m.list.selectedTask()
	switch {
	case key.Matches(msg, k.Copy):
		if t != nil {
			return m.copyKey(t, m.task(t.TaskID))
		}
	case key.Matches(msg, k.Quit):
		return m.askQuit()
	case key.Matches(msg, k.Search) && t == nil:
		// A search typed before the first task arrives would otherwise vanish without a word,
		// and the letters after it act as the dashboard's keys.
		m.setStatus("no task yet: / searches a task's events or diff once one is selected", false, "")
	case key.Matches(msg, k.Help):
		m.push(&helpDialog{})
	case key.Matches(msg, k.Up):
		return m.moveSelection(-1)
	case key.Matches(msg, k.Down):
		return m.moveSelection(1)
	case key.Matches(msg, k.NextView):
		m.tab = (m.tab + 1) % tabCount
	case key.Matches(msg, k.PrevView):
		m.tab = (m.tab + tabCount - 1) % tabCount
	case key.Matches(msg, k.EventsView):
		m.tab = tabEvents
	case key.Matches(msg, k.DiffView):
		m.tab = tabDiff
	case key.Matches(msg, k.ContractView):
		m.tab = tabContract
	case key.Matches(msg, k.ChecksView):
		m.tab = tabChecks
	case key.Matches(msg, k.Replay):
		return m.openReplay(t)
	case key.Matches(msg, k.ToggleAll):
		m.list.showAll = !m.list.showAll
		return m.refreshList()
	case key.Matches(msg, k.Refresh):
		cmds := []tea.Cmd{m.refreshList()}
		if t != nil {
			// The apply line too: the person reloads because something moved, and the
			// preview's own age says nothing about that.
			cmds = append(cmds, m.fetchDetail(t.TaskID), m.refreshPreview(t.TaskID, true))
		}
		return tea.Batch(cmds...)
	case key.Matches(msg, k.NewTask):
		m.push(m.newTaskForm(m.lastForm, ""))
	case key.Matches(msg, k.ShowPending):
		return m.openNextPending()
	case key.Matches(msg, k.Grants):
		return m.openGrants()
	case key.Matches(msg, k.Apply):
		return m.applyTask(t)
	case key.Matches(msg, rebaseKey):
		return m.rebaseTask(t)
	case key.Matches(msg, k.Steer):
		return m.act(t, core.ActionSteer)
	case key.Matches(msg, k.Finalize):
		return m.act(t, core.ActionFinalize)
	case key.Matches(msg, k.Cancel):
		return m.act(t, core.ActionCancel)
	case key.Matches(msg, k.Close):
		return m.act(t, core.ActionClose)
	case key.Matches(msg, k.Resume):
		return m.act(t, core.ActionResume)
	}
	return nil
}

// action is what a dialog asks the dashboard to do beyond closing, sending a control or a
// delegate, or drafting a contract: a value, carried out by perform. Dialogs never hold the
// model or call the service.
type action interface{ isAction() }

type (
	// suspendAction suspends the dashboard (ctrl+z, confirmed).
	suspendAction struct{}
	// applyAction cherry-picks a completed task's commit onto its checkout (L, confirmed).
	applyAction struct{ taskID string }
	// dropCheckAction drops a check from a task's contract (D in the checks tab, confirmed).
	dropCheckAction struct{ taskID, check string }
	// editContractAction opens a contract file in $EDITOR (the new-task form's ctrl+e).
	editContractAction struct{ path string }
	// copyAction copies text to the clipboard (OSC 52); what names it in the status line.
	copyAction struct{ text, what string }
	// saveCommentAction adds, edits or deletes a review comment.
	saveCommentAction struct{ req core.CommentRequest }
	// sendCommentsAction sends a task's open review comments as one repair round.
	sendCommentsAction struct{ taskID string }
	// openRequestAction opens a task's waiting request over the dialog that asked (the steer
	// dialog of a task that waits for the person).
	openRequestAction struct{ taskID string }
)

func (suspendAction) isAction()      {}
func (applyAction) isAction()        {}
func (dropCheckAction) isAction()    {}
func (editContractAction) isAction() {}
func (copyAction) isAction()         {}
func (saveCommentAction) isAction()  {}
func (sendCommentsAction) isAction() {}
func (openRequestAction) isAction()  {}

// perform carries out a dialog's action.
func (m *Model) perform(a action) tea.Cmd {
	switch a := a.(type) {
	case suspendAction:
		return m.suspend()
	case applyAction:
		return m.runApply(a.taskID, true)
	case dropCheckAction:
		return m.dropChecks(a)
	case editContractAction:
		return m.editContract(a.path)
	case copyAction:
		return m.copyText(a.text, a.what)
	case saveCommentAction:
		return m.saveComment(a.req)
	case sendCommentsAction:
		return m.sendComments(a.taskID)
	case openRequestAction:
		return m.openRequestOf(a.taskID)
	case grantsAction:
		return m.grantsCmd(a)
	}
	return nil
}
