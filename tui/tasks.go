package tui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/tui/checks"
	"reasonixctl/tui/contract"
	"reasonixctl/tui/dialog"
	"reasonixctl/tui/events"
	"reasonixctl/tui/review"
	"reasonixctl/tui/term"
	"reasonixctl/tui/words"
)

// taskInfo is what the dashboard keeps per task beyond its TaskView.
type taskInfo struct {
	detail     *core.TaskDetail
	repository string
	created    time.Time
	usage      *core.Usage
	usageLog   usageLog // usage reports seen, for today's figures and the task's total (usage.go)
	usageGen   uint64   // counts changes of usage
	usageSeq   uint64   // the journal seq usage is as of
	total      usageTotal
	events     *events.Pane
	replayed   bool         // the pane was built from the journal (its newest window)
	fromStart  bool         // … and that window starts at the journal's first event
	replaying  bool         // a replay command is in flight
	early      []core.Event // live events seen before the replay finished
	getting    bool         // a Get is in flight
	stale      bool         // the detail changed since the last Get

	// The contract and checks tabs (tui/contract, tui/checks).
	contract contract.Model
	checks   checks.Model

	// state and since say which state the dashboard last saw and since when, for the elapsed
	// time of waits.
	state core.State
	since time.Time
	// lastAgent is the agent's latest message text, shown in prompts.
	lastAgent   string
	agentStreak bool
}

// taskData is what the dashboard keeps of every task beyond its view in the list, by task id,
// with what it needs to make a task's parts the first time the task is seen and to read the
// task's detail and journal.
type taskData struct {
	byID   map[string]*taskInfo
	cmds   *commands
	ui     ui
	events *events.Env // what every task's events pane draws with and reads the journal through
}

// task is what the dashboard keeps of task id, made the first time it is asked for.
func (d *taskData) task(id string) *taskInfo {
	ti := d.byID[id]
	if ti == nil {
		ti = &taskInfo{events: events.New(d.events, id)}
		ti.contract = contract.New(d.ui.theme, d.ui.keys)
		ti.checks = checks.New(id, checks.Env{Theme: d.ui.theme, Keys: d.ui.keys, Ctx: d.cmds.ctx, Logs: d.cmds.svc})
		d.byID[id] = ti
	}
	return ti
}

// fetchDetail reads task id's detail, once the Get in flight (if any) has answered.
func (d *taskData) fetchDetail(id string) tea.Cmd { return d.cmds.fetchDetail(id, d.task(id)) }

// replay reads the newest window of task id's journal, unless it was read or is being read.
func (d *taskData) replay(id string) tea.Cmd { return d.cmds.replay(id, d.task(id)) }

// detailIfSelected reads task id's detail again when it is the selected task; any other task's
// is marked stale, to be read when the task is selected.
func (d *taskData) detailIfSelected(id, selected string) tea.Cmd {
	if id != selected {
		d.task(id).stale = true
		return nil
	}
	return d.fetchDetail(id)
}

// selectionChanged reads what the newly selected task id lacks: its detail, when none or a
// stale one is held, and its journal.
func (d *taskData) selectionChanged(id string) tea.Cmd {
	ti := d.task(id)
	var cmds []tea.Cmd
	if ti.detail == nil || ti.stale {
		cmds = append(cmds, d.fetchDetail(id))
	}
	cmds = append(cmds, d.replay(id))
	return tea.Batch(cmds...)
}

// selected is the selected task of l and what the dashboard keeps of it, or nils.
func (d *taskData) selected(l *taskList) (*core.TaskView, *taskInfo) {
	t := l.selectedTask()
	if t == nil {
		return nil, nil
	}
	return t, d.task(t.TaskID)
}

// stateOf is a task's state as the dashboard last saw it, in l or in its detail, or "".
func (d *taskData) stateOf(id string, l *taskList) core.State {
	if i := l.index(id); i >= 0 {
		return l.tasks[i].State
	}
	if ti, ok := d.byID[id]; ok && ti.detail != nil {
		return ti.detail.View.State
	}
	return ""
}

// trackStates notes when each task entered the state it shows, for elapsed times.
func (d *taskData) trackStates(tasks []core.TaskView, now time.Time) {
	for _, tv := range tasks {
		ti := d.task(tv.TaskID)
		if ti.state != tv.State {
			ti.state, ti.since = tv.State, now
		}
	}
}

// age is how long ago the task was created, as far as the dashboard knows; "-" when it does not.
func (ti *taskInfo) age(tv core.TaskView, now time.Time) string {
	created := ti.created
	if created.IsZero() {
		if u, err := time.Parse(time.RFC3339Nano, tv.UpdatedAt); err == nil {
			created = u
		}
	}
	if created.IsZero() {
		return "-"
	}
	return term.HumanAge(now.Sub(created))
}

func (m *Model) ingest(ev core.Event) tea.Cmd {
	ti := m.info.task(ev.TaskID)
	if !ti.replayed {
		if ev.Seq == 1 {
			ti.replayed, ti.fromStart = true, true
		} else if len(ti.early) < events.MaxLines {
			ti.early = append(ti.early, ev)
		}
	}
	ti.events.Live(ev)
	ti.noteAgent(ev)
	var cmds []tea.Cmd
	switch ev.Type {
	case core.EventTaskCreated:
		if d, ok := core.DataOf[core.TaskCreatedData](ev); ok {
			ti.repository = d.Repository
		}
		ti.created = ev.Time
		cmds = append(cmds, m.cmds.refreshList(&m.list))
	case core.EventStateChanged:
		if d, ok := core.DataOf[core.StateChangedData](ev); ok {
			for i := range m.list.tasks {
				if m.list.tasks[i].TaskID == ev.TaskID {
					m.list.tasks[i].State, m.list.tasks[i].Phase = d.To, d.Phase
				}
			}
			ti.state, ti.since = d.To, ev.Time
		}
		cmds = append(cmds, m.cmds.refreshList(&m.list), m.info.detailIfSelected(ev.TaskID, m.list.selected))
	case core.EventUsage:
		if u, ok := core.DataOf[core.Usage](ev); ok {
			ti.usage, ti.usageSeq = &u, ev.Seq
			ti.usageGen++
		}
	case core.EventInteractionWaiting:
		if d, ok := core.DataOf[core.InteractionWaitingData](ev); ok {
			m.requests.add(ev.TaskID, core.Interaction(d)) // attend announces the task starting to wait
		}
	case core.EventInteractionResolved:
		if d, ok := core.DataOf[core.InteractionResolvedData](ev); ok {
			ia := core.Interaction(d)
			if p := m.requests.find(ia.ID); p != nil && !p.answering && ia.Status == core.InteractionResolved {
				// First answer wins: someone else (Codex, another dashboard) answered it. The
				// line outlives the task's state change that follows at once.
				m.setStatus("answered by "+words.AnsweredBy(ia.Response)+": "+words.ResponseText(ia)+" ("+ia.ID+" of "+ev.TaskID+")", false, "")
			}
			m.requests.forget(ia.ID, &m.dialogs)
		}
	case core.EventReviewReady, core.EventVerification:
		cmds = append(cmds, m.info.detailIfSelected(ev.TaskID, m.list.selected))
	case core.EventCommitted:
		if d, ok := core.DataOf[core.CommittedData](ev); ok {
			if _, ok := m.waits.finalizing[ev.TaskID]; ok {
				delete(m.waits.finalizing, ev.TaskID)
				m.push(dialog.CommitNotice(ev.TaskID, d.CommitHash, d.Branch, d.IntegrationCommand))
				m.setStatus("committed "+ev.TaskID+" as "+d.CommitHash, false, ev.TaskID)
			}
		}
		cmds = append(cmds, m.info.detailIfSelected(ev.TaskID, m.list.selected))
	}
	return tea.Batch(cmds...)
}

// noteAgent keeps the agent's latest message: consecutive agent text events are one message.
func (ti *taskInfo) noteAgent(ev core.Event) {
	ti.noteUsage(ev)
	if ev.Type != core.EventAgentMessage {
		if ev.Type != core.EventUsage && ev.Type != core.EventAgentThought {
			ti.agentStreak = false
		}
		return
	}
	d, ok := core.DataOf[core.AgentMessageData](ev)
	if !ok {
		return
	}
	if !ti.agentStreak {
		ti.lastAgent = ""
	}
	ti.lastAgent += d.Text
	if len(ti.lastAgent) > 4096 {
		ti.lastAgent = ti.lastAgent[len(ti.lastAgent)-4096:]
	}
	ti.agentStreak = true
}

// resync follows a lost subscription: events may have been missed, so reload what is shown.
func (m *Model) resync(err error) tea.Cmd {
	if m.attach.gone {
		// Nothing answers until a new owner starts: keep what is shown as it was.
		return nil
	}
	if err != nil {
		m.setStatus("event stream restarted after: "+err.Error(), true, "")
	}
	for _, ti := range m.info.byID {
		ti.stale = true
	}
	cmds := []tea.Cmd{m.cmds.refreshList(&m.list)}
	if m.list.selected != "" {
		ti := m.info.task(m.list.selected)
		// Replay the journal again so the events view has no gap.
		ti.replayed = false
		cmds = append(cmds, m.info.fetchDetail(m.list.selected), m.info.replay(m.list.selected))
	}
	return tea.Batch(cmds...)
}

func (m *Model) onDetail(msg detailMsg) tea.Cmd {
	ti := m.info.task(msg.taskID)
	ti.getting = false
	var cmd tea.Cmd
	if ti.stale {
		cmd = m.info.detailIfSelected(msg.taskID, m.list.selected)
	}
	if msg.err != nil {
		if core.AsError(msg.err).Code != core.CodeTaskNotFound {
			m.setStatus("loading "+msg.taskID+" failed: "+words.OneLine(msg.err), true, msg.taskID)
		}
		return cmd
	}
	d := msg.detail
	ti.detail = &d
	if d.Repository != "" {
		ti.repository = d.Repository
	}
	if !d.CreatedAt.IsZero() {
		ti.created = d.CreatedAt
	}
	if d.Usage != nil && d.LastSeq >= ti.usageSeq {
		// A detail asked for before a report that arrived meanwhile would set the older figure.
		ti.usage, ti.usageSeq = d.Usage, d.LastSeq
		ti.usageGen++
		ti.noteSnapshot(d.LastSeq, *d.Usage, m.now())
	}
	diffTab{m}.send(review.Loaded{TaskID: msg.taskID, Detail: d, Risks: fileRisks(ti)})
	ti.contract = ti.contract.Show(ti.detail)
	ti.checks = ti.checks.Show(d.View, d.Verification)
	m.list.replace(d.View)
	if msg.taskID == m.list.selected {
		cmd = tea.Batch(cmd, diffTab{m}.send(review.RefreshPreview{TaskID: msg.taskID}))
	}
	for _, ia := range d.Interactions {
		if ia.Status == core.InteractionPending {
			m.requests.add(msg.taskID, ia)
		} else {
			m.requests.forget(ia.ID, &m.dialogs)
		}
	}
	return cmd
}

func (m *Model) onReplay(msg replayMsg) {
	ti := m.info.task(msg.taskID)
	ti.replaying = false
	if msg.err != nil && !msg.pane.HoldsTail() {
		m.setStatus("reading the journal of "+msg.taskID+" failed: "+words.OneLine(msg.err), true, msg.taskID)
		return
	}
	ti.lastAgent, ti.agentStreak = "", false
	if a := msg.agent; a != nil {
		ti.lastAgent, ti.agentStreak = a.lastAgent, a.agentStreak
		for seq, ev := range a.usageLog {
			if ti.usageLog == nil {
				ti.usageLog = usageLog{}
			}
			ti.usageLog[seq] = ev
		}
	}
	ti.events = ti.events.Succeed(msg.pane, ti.early)
	for _, ev := range ti.early {
		ti.noteAgent(ev)
	}
	ti.early, ti.replayed = nil, true
	ti.fromStart = msg.from <= 1
	// A prompt that opened before the journal arrived (a dashboard attaching to a waiting task)
	// gets the agent's last words now.
	for _, p := range m.requests.items {
		if d := m.dialogs.Prompt(p.ia.ID); p.taskID == msg.taskID && d != nil && d.LastWords() == "" {
			d.SetLastWords(ti.lastAgent)
		}
	}
}
