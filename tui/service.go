package tui

import (
	"context"
	"encoding/json"
	"path/filepath"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/tui/dialog"
	"reasonixctl/tui/events"
	"reasonixctl/tui/intent"
)

// commands builds the tea.Cmds that call the service: each runs off the event loop and answers
// with the typed message its part handles. It holds only what the calls need; what a call
// depends on of the dashboard's state is given to it.
type commands struct {
	svc core.Service
	ctx context.Context
	// checkDrafts runs each drafted check on the checkout's HEAD (Options.CheckDrafts).
	checkDrafts bool
	// awayHook is told the person left or came back (Options.Away); nil when nobody listens.
	awayHook func(away bool)
}

// refreshList lists the tasks again, once the List in flight (if any) has answered.
func (c *commands) refreshList(l *taskList) tea.Cmd {
	if !l.fetch() {
		return nil
	}
	all := l.showAll
	return func() tea.Msg {
		tasks, err := c.svc.List(c.ctx, core.ListFilter{All: all})
		return tasksMsg{tasks: tasks, err: err}
	}
}

// fetchDetail reads task id's detail (ti is what the dashboard keeps of it), once the Get in
// flight (if any) has answered.
func (c *commands) fetchDetail(id string, ti *taskInfo) tea.Cmd {
	if ti.getting {
		ti.stale = true
		return nil
	}
	ti.getting, ti.stale = true, false
	return func() tea.Msg {
		d, err := c.svc.Get(c.ctx, id)
		return detailMsg{taskID: id, detail: d, err: err}
	}
}

// replayTimeout bounds how long a journal replay may take before the dashboard shows what it has.
const replayTimeout = 5 * time.Second

// replay reads the newest replayWindow events of a task's journal, up to the seq the task had
// when the replay started, into a fresh pane; older ones are paged in as the reader scrolls up.
func (c *commands) replay(id string, ti *taskInfo) tea.Cmd {
	if ti.replayed || ti.replaying {
		return nil
	}
	ti.replaying = true
	read := ti.events.ReadTail()
	ctx, svc := c.ctx, c.svc
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

func (c *commands) control(req core.Command) tea.Cmd {
	return func() tea.Msg {
		v, err := c.svc.Control(c.ctx, req)
		return controlMsg{req: req, view: v, err: err}
	}
}

func (c *commands) delegate(in intent.NewTask) tea.Cmd {
	return func() tea.Msg {
		raw, err := core.ReadContractFile(in.ContractPath)
		if err != nil {
			return delegateMsg{in: in, err: core.Errorf(core.CodeInvalidRequest, nil, "cannot read the contract file: %v", err)}
		}
		if !json.Valid(raw) {
			return delegateMsg{in: in, err: core.Errorf(core.CodeInvalidContract, nil, "%s is not valid JSON", in.ContractPath)}
		}
		res, err := c.svc.Delegate(c.ctx, core.DelegateRequest{
			TaskID: in.TaskID, Contract: raw, WorkerLane: in.Lane, Worker: in.Worker, WaitMode: "background",
			Authority:      core.Authority{Cwd: in.RepoDir, Writable: true},
			PermissionMode: core.PermissionSupervised,
		})
		return delegateMsg{in: in, res: res, err: err}
	}
}

// resume continues a paused task with the pause tokens the person is looking at: if the task
// paused again since, the engine refuses and the dashboard shows the new reason.
func (c *commands) resume(d core.TaskDetail, v core.TaskView) tea.Cmd {
	rev, yes := v.PauseRevision, true
	req := core.DelegateRequest{
		TaskID: v.TaskID, Contract: d.Contract, WaitMode: "background", PathBase: "repository",
		PauseRevision: &rev, PauseReasonHash: v.PauseReasonHash, Resume: &yes,
		Authority:      core.Authority{Cwd: d.Repository, Writable: true, Network: d.Network},
		PermissionMode: core.PermissionSupervised,
	}
	return func() tea.Msg {
		res, err := c.svc.Delegate(c.ctx, req)
		return delegateMsg{in: intent.NewTask{TaskID: v.TaskID}, res: res, err: err, resume: true}
	}
}

// draftContract asks the service to draft a contract for the repository (as `reasonixctl
// contract init` does) into the state directory, never into the repository, whose checkout must
// stay clean.
func (c *commands) draftContract(dir string) tea.Cmd {
	req := core.DraftRequest{Dir: dir, Check: c.checkDrafts}
	// The service may be another process, in another directory.
	if abs, err := filepath.Abs(dir); err == nil {
		req.Dir = abs
	}
	ctx := c.ctx
	return func() tea.Msg {
		res, err := c.svc.DraftContract(ctx, req)
		if err != nil {
			return draftMsg{err: err}
		}
		return draftMsg{path: res.Path, draft: res.Draft, checked: res.Checked}
	}
}

// applyToCheckout applies task id's commit to its source checkout, or only tries it (a dry
// run) unless apply.
func (c *commands) applyToCheckout(id string, apply bool) tea.Cmd {
	svc := c.svc
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(c.ctx, 60*time.Second)
		defer cancel()
		res, err := svc.ApplyToCheckout(ctx, id, apply)
		return applyMsg{taskID: id, dry: !apply, res: res, err: err}
	}
}

// grants lists the grants, or makes or revokes one, for the grants dialog.
func (c *commands) grants(a intent.Grants) tea.Cmd { return dialog.GrantsCmd(c.ctx, c.svc, a) }

// away tells whoever listens (Options.Away) that the person left or came back.
func (c *commands) away(away bool) tea.Cmd {
	hook := c.awayHook
	if hook == nil {
		return nil
	}
	return func() tea.Msg { hook(away); return nil }
}

// suspend stops the dashboard for the shell (ctrl+z), telling the engine first that nobody is
// here to answer; fg brings it back (tea.ResumeMsg).
func (c *commands) suspend() tea.Cmd {
	return tea.Sequence(c.away(true), tea.Suspend)
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
