package tui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/tui/dialog"
	"reasonixctl/tui/intent"
	"reasonixctl/tui/review"
	"reasonixctl/tui/words"
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
					m.requests.forget(respond.InteractionID, &m.dialogs)
					m.setStatus(respond.InteractionID+" was already answered elsewhere; the first answer counts", false, req.Task())
					return tea.Batch(m.cmds.refreshList(&m.list), m.info.fetchDetail(req.Task()))
				}
			}
		case core.ActionFinalize:
			delete(m.waits.finalizing, req.Task())
		case core.ActionSteer:
			// The steer dialog waits for the answer: it keeps the text and shows why.
			if d := m.dialogs.Steer(req.Task()); d != nil && d.Sending() {
				d.Refused(m.attach.describeError(msg.err))
				return tea.Batch(m.cmds.refreshList(&m.list), m.info.fetchDetail(req.Task()))
			}
		}
		n := m.attach.errorNotice(req.Action()+" "+req.Task()+" failed", msg.err)
		if req.Action() == core.ActionSteer && steer.Message != "" {
			n.AddLines("", "Your message, not sent: "+steer.Message)
		}
		m.push(n)
		// The snapshot may have moved on: show the fresh diff and revision.
		return tea.Batch(m.cmds.refreshList(&m.list), m.info.fetchDetail(req.Task()))
	}
	m.list.replace(msg.view)
	if req.Action() == core.ActionSteer {
		if d := m.dialogs.Steer(req.Task()); d != nil && d.Sending() {
			m.dialogs.Remove(d)
		}
	}
	switch req.Action() {
	case core.ActionRespond:
		what := m.gate.said[respond.InteractionID]
		delete(m.gate.said, respond.InteractionID)
		if what == "" {
			what = respond.Decision
		}
		m.requests.forget(respond.InteractionID, &m.dialogs)
		m.setStatus("answered "+respond.InteractionID+": "+what, false, "")
	case core.ActionFinalize:
		if msg.view.CommitHash != "" {
			// The committed event may have shown the notice already.
			if _, ok := m.waits.finalizing[req.Task()]; ok {
				delete(m.waits.finalizing, req.Task())
				m.push(dialog.CommitNotice(req.Task(), msg.view.CommitHash, msg.view.Branch, msg.view.IntegrationCommand))
			}
			m.setStatus("committed "+req.Task()+" as "+msg.view.CommitHash, false, req.Task())
		} else {
			m.setStatus("finalizing "+req.Task()+": "+string(msg.view.State), false, req.Task())
		}
	default:
		m.setStatus(req.Action()+" "+req.Task()+": now "+string(msg.view.State), false, req.Task())
	}
	return tea.Batch(m.cmds.refreshList(&m.list), m.info.fetchDetail(req.Task()))
}

func (m *Model) onDelegate(msg delegateMsg) tea.Cmd {
	id := msg.in.TaskID
	if msg.err != nil {
		if msg.resume {
			m.push(m.attach.errorNotice("resuming "+id+" failed", msg.err))
			return tea.Batch(m.cmds.refreshList(&m.list), m.info.fetchDetail(id))
		}
		// A task that could not start is undone by the engine: drop what the dashboard saw of
		// it and give the person their form back, with the cause and what to do about it.
		conflict := core.AsError(msg.err).Code == core.CodeTaskConflict
		if m.list.index(id) < 0 || !conflict {
			delete(m.info.byID, id)
			diffTab{m}.send(review.Forget{TaskID: id})
		}
		d := m.list.newTaskForm(msg.in, id)
		d.StartFailed(m.attach.describeError(msg.err))
		if conflict {
			// Core names the first field that differs ("contract"); what the form got wrong is
			// the id.
			d.IDTaken(m.info.stateOf(id, &m.list))
		}
		m.push(d)
		return m.cmds.refreshList(&m.list)
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
	return tea.Batch(m.cmds.refreshList(&m.list), m.info.fetchDetail(msg.res.TaskID), m.info.replay(msg.res.TaskID))
}

// askSuspend suspends the dashboard, first asking when it runs the engine of working tasks:
// while this process is stopped, so are they.
func (m *Model) askSuspend() tea.Cmd {
	n := m.list.working()
	if n == 0 || m.opts.Attached != nil {
		return m.cmds.suspend()
	}
	m.push(dialog.NewConfirmAction("Suspend reasonixctl?",
		fmt.Sprintf("This dashboard runs the engine: its %d working task(s), and Codex's calls through an "+
			"MCP server attached to it, wait until you bring it back with fg.", n),
		intent.Suspend{}))
	return nil
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
		m.push(dialog.NewSteer(*t))
	case core.ActionFinalize:
		ti := m.info.task(t.TaskID)
		if ti.detail == nil {
			m.setStatus("loading the review of "+t.TaskID+"…", false, t.TaskID)
			return m.info.fetchDetail(t.TaskID)
		}
		if words.NothingChanged(ti.detail) {
			m.push(dialog.NothingToFinalize(t.TaskID))
			return nil
		}
		m.push(finalizeForm(ti, &m.review))
		return diffTab{m}.send(review.RefreshPreview{TaskID: t.TaskID, Force: true})
	case core.ActionRebase:
		// Moves t onto its checkout's HEAD; the engine says why not when the change still
		// applies or the worktree moved.
		m.push(dialog.NewConfirm("Move "+t.TaskID+" onto its checkout's HEAD?",
			"The change is merged onto the checkout's current HEAD; files that conflict get conflict markers, and a repair round "+
				"(it counts against the limit) asks the worker to resolve them. The contract and write scope stay the same; "+
				"you review the new revision before finalize.",
			core.Rebase{TaskID: t.TaskID}))
	case core.ActionCancel:
		m.push(dialog.NewConfirm("Cancel task "+t.TaskID+"?",
			"The worker stops, pending questions are dropped and nothing is committed. The branch and worktree stay for inspection.",
			core.Cancel{TaskID: t.TaskID}))
	case core.ActionClose:
		m.push(dialog.NewConfirm("Close task "+t.TaskID+"?",
			"The worker session is closed and the task ends; a committed result stays on its branch.",
			core.Close{TaskID: t.TaskID}))
	case core.ActionResume:
		ti := m.info.task(t.TaskID)
		if ti.detail == nil {
			m.setStatus("loading "+t.TaskID+"…", false, t.TaskID)
			return m.info.fetchDetail(t.TaskID)
		}
		m.setStatus("resuming "+t.TaskID+"…", false, t.TaskID)
		return m.cmds.resume(*ti.detail, *t)
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
	m.push(dialog.NewQuitConfirm("Quit reasonixctl?",
		fmt.Sprintf("%d task(s) are still working. Quitting stops their workers; the tasks are paused and "+
			"you can resume them (r) the next time you open the dashboard.", n)))
	return nil
}

func (m *Model) carryOut(d dialog.Dialog, res intent.Result) tea.Cmd {
	if res.Close {
		m.dialogs.Remove(d)
	}
	if res.Quit {
		return tea.Quit
	}
	if pd, ok := d.(*dialog.Prompt); ok {
		m.requests.handled(pd.Interaction().ID, res.Later, res.Control != nil)
	}
	if sd, ok := d.(*dialog.Steer); ok && res.Control != nil {
		// Decide on the task as it is now, not as the dialog last drew it.
		if i := m.list.index(sd.TaskID()); i >= 0 {
			res = sd.Resubmit(m.list.tasks[i])
		}
	}
	var cmd tea.Cmd
	if res.Control != nil {
		if res.Control.Action() == core.ActionFinalize {
			m.waits.finalizing[res.Control.Task()] = m.now()
			m.setStatus("finalizing "+res.Control.Task()+": verifying and committing…", false, "")
		}
		cmd = m.cmds.control(res.Control)
	}
	if res.Draft != "" {
		cmd = m.cmds.draftContract(res.Draft)
	}
	if res.Do != nil {
		cmd = m.perform(res.Do)
	}
	if res.Delegate != nil {
		m.lastForm = *res.Delegate
		m.setStatus("starting task "+res.Delegate.TaskID+"…", false, "")
		cmd = m.cmds.delegate(*res.Delegate)
	}
	return cmd
}

// perform carries out a dialog's action.
func (m *Model) perform(a intent.Action) tea.Cmd {
	switch a := a.(type) {
	case intent.Suspend:
		return m.cmds.suspend()
	case intent.Apply:
		return m.cmds.applyToCheckout(a.TaskID, true)
	case intent.Confirm:
		m.push(dialog.NewConfirmAction(a.Title, a.Body, a.Yes))
	case intent.DropCheck:
		// reasonix_control's amend_checks, through the service, so an attached dashboard can too.
		return m.cmds.control(core.AmendChecks{TaskID: a.TaskID, DropChecks: []string{a.Check}})
	case intent.EditContract:
		return editContract(a.Path)
	case intent.Copy:
		return m.copyText(a.Text, a.What)
	case intent.SaveComment, intent.SendComments:
		return diffTab{m}.send(a)
	case intent.OpenRequest:
		// The task's waiting request, over the open dialogs, as `i` opens it.
		if p := m.requests.waitingOf(a.TaskID); p != nil {
			p.deferred = false
			m.push(m.requests.prompt(p, m.info.task(p.taskID).lastAgent))
			return nil
		}
		m.setStatus(a.TaskID+" has no request waiting here yet: ctrl+r reloads it", false, a.TaskID)
	case intent.Grants:
		return m.cmds.grants(a)
	}
	return nil
}
