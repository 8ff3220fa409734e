package tui

import (
	"context"
	"encoding/json"
	"path/filepath"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/tui/events"
	"reasonixctl/tui/intent"
)

// refreshList lists the tasks again, once the List in flight (if any) has answered.
func (m *Model) refreshList() tea.Cmd {
	if !m.list.fetch() {
		return nil
	}
	all := m.list.showAll
	return func() tea.Msg {
		tasks, err := m.svc.List(m.ctx, core.ListFilter{All: all})
		return tasksMsg{tasks: tasks, err: err}
	}
}

func (m *Model) fetchDetail(id string) tea.Cmd {
	ti := m.task(id)
	if ti.getting {
		ti.stale = true
		return nil
	}
	ti.getting, ti.stale = true, false
	return func() tea.Msg {
		d, err := m.svc.Get(m.ctx, id)
		return detailMsg{taskID: id, detail: d, err: err}
	}
}

// replayTimeout bounds how long a journal replay may take before the dashboard shows what it has.
const replayTimeout = 5 * time.Second

// replay reads the newest replayWindow events of a task's journal, up to the seq the task had
// when the replay started, into a fresh pane; older ones are paged in as the reader scrolls up.
func (m *Model) replay(id string) tea.Cmd {
	ti := m.task(id)
	if ti.replayed || ti.replaying {
		return nil
	}
	ti.replaying = true
	read := ti.events.ReadTail()
	ctx, svc := m.ctx, m.svc
	return func() tea.Msg {
		return replayTask(ctx, svc, id, read)
	}
}

// replayTask reads the journal's newest window, learning the agent's last words and the usage
// reports from the events read.
func replayTask(ctx context.Context, svc core.Service, id string, read events.TailRead) replayMsg {
	ctx, cancel := context.WithTimeout(ctx, replayTimeout)
	defer cancel()
	d, err := svc.Get(ctx, id)
	if err != nil {
		return replayMsg{taskID: id, err: err}
	}
	agent := &taskInfo{}
	if d.LastSeq == 0 {
		return replayMsg{taskID: id, pane: nil, agent: agent, from: 1}
	}
	// Usage reports of the pages before the newest count for today's figures too.
	pane, from, err := read(ctx, d.LastSeq, agent.noteAgent, agent.noteUsage)
	return replayMsg{taskID: id, pane: pane, agent: agent, from: from, err: err}
}

func (m *Model) control(req core.Command) tea.Cmd {
	return func() tea.Msg {
		v, err := m.svc.Control(m.ctx, req)
		return controlMsg{req: req, view: v, err: err}
	}
}

func (m *Model) delegate(in intent.NewTask) tea.Cmd {
	return func() tea.Msg {
		raw, err := core.ReadContractFile(in.ContractPath)
		if err != nil {
			return delegateMsg{in: in, err: core.Errorf(core.CodeInvalidRequest, nil, "cannot read the contract file: %v", err)}
		}
		if !json.Valid(raw) {
			return delegateMsg{in: in, err: core.Errorf(core.CodeInvalidContract, nil, "%s is not valid JSON", in.ContractPath)}
		}
		res, err := m.svc.Delegate(m.ctx, core.DelegateRequest{
			TaskID: in.TaskID, Contract: raw, WorkerLane: in.Lane, WaitMode: "background",
			Authority:      core.Authority{Cwd: in.RepoDir, Writable: true},
			PermissionMode: core.PermissionSupervised,
		})
		return delegateMsg{in: in, res: res, err: err}
	}
}

// resume continues a paused task with the pause tokens the person is looking at: if the task
// paused again since, the engine refuses and the dashboard shows the new reason.
func (m *Model) resume(d core.TaskDetail, v core.TaskView) tea.Cmd {
	rev, yes := v.PauseRevision, true
	req := core.DelegateRequest{
		TaskID: v.TaskID, Contract: d.Contract, WaitMode: "background", PathBase: "repository",
		PauseRevision: &rev, PauseReasonHash: v.PauseReasonHash, Resume: &yes,
		Authority:      core.Authority{Cwd: d.Repository, Writable: true, Network: d.Network},
		PermissionMode: core.PermissionSupervised,
	}
	return func() tea.Msg {
		res, err := m.svc.Delegate(m.ctx, req)
		return delegateMsg{in: intent.NewTask{TaskID: v.TaskID}, res: res, err: err, resume: true}
	}
}

// draftContract asks the service to draft a contract for the repository (as `reasonixctl
// contract init` does) into the state directory, never into the repository, whose checkout must
// stay clean.
func (m *Model) draftContract(dir string) tea.Cmd {
	req := core.DraftRequest{Dir: dir, Check: m.opts.CheckDrafts}
	// The service may be another process, in another directory.
	if abs, err := filepath.Abs(dir); err == nil {
		req.Dir = abs
	}
	ctx := m.ctx
	return func() tea.Msg {
		res, err := m.svc.DraftContract(ctx, req)
		if err != nil {
			return draftMsg{err: err}
		}
		return draftMsg{path: res.Path, draft: res.Draft, checked: res.Checked}
	}
}

// The results of the service commands, each handled by the part it belongs to: the task list
// (tasksMsg), the task's data (detailMsg, replayMsg), the actions (controlMsg, delegateMsg) and
// the new-task form (draftMsg).
type (
	tasksMsg struct {
		tasks []core.TaskView
		err   error
	}
	detailMsg struct {
		taskID string
		detail core.TaskDetail
		err    error
	}
	replayMsg struct {
		taskID string
		pane   *events.Pane // the journal's newest events, built off the event loop
		agent  *taskInfo    // what noteAgent learnt from them
		from   uint64       // the first seq read
		err    error
	}
	controlMsg struct {
		req  core.Command
		view core.TaskView
		err  error
	}
	draftMsg struct {
		path  string
		draft core.ContractDraft
		// checked is what each command found did on HEAD, when the draft was checked.
		checked []core.BaseCheck
		err     error
	}
	delegateMsg struct {
		in     intent.NewTask
		res    core.DelegateResult
		err    error
		resume bool
	}
)
