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

func (m *Model) task(id string) *taskInfo {
	ti := m.info[id]
	if ti == nil {
		ti = &taskInfo{events: events.New(m.eventsEnv, id)}
		ti.contract = contract.New(m.theme, m.keys)
		ti.checks = checks.New(id, checks.Env{Theme: m.theme, Keys: m.keys, Ctx: m.cmds.ctx, Logs: m.cmds.svc})
		m.info[id] = ti
	}
	return ti
}

func (m *Model) ingest(ev core.Event) tea.Cmd {
	ti := m.task(ev.TaskID)
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
		cmds = append(cmds, m.cmds.refreshList(&m.list), m.detailIfSelected(ev.TaskID))
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
			m.dropPending(ia.ID)
		}
	case core.EventReviewReady, core.EventVerification:
		cmds = append(cmds, m.detailIfSelected(ev.TaskID))
	case core.EventCommitted:
		if d, ok := core.DataOf[core.CommittedData](ev); ok {
			if _, ok := m.finalizing[ev.TaskID]; ok {
				delete(m.finalizing, ev.TaskID)
				m.push(dialog.CommitNotice(ev.TaskID, d.CommitHash, d.Branch, d.IntegrationCommand))
				m.setStatus("committed "+ev.TaskID+" as "+d.CommitHash, false, ev.TaskID)
			}
		}
		cmds = append(cmds, m.detailIfSelected(ev.TaskID))
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

func (m *Model) detailIfSelected(id string) tea.Cmd {
	if id != m.list.selected {
		m.task(id).stale = true
		return nil
	}
	return m.cmds.fetchDetail(id, m.task(id))
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
	for _, ti := range m.info {
		ti.stale = true
	}
	cmds := []tea.Cmd{m.cmds.refreshList(&m.list)}
	if m.list.selected != "" {
		ti := m.task(m.list.selected)
		// Replay the journal again so the events view has no gap.
		ti.replayed = false
		cmds = append(cmds, m.cmds.fetchDetail(m.list.selected, m.task(m.list.selected)), m.cmds.replay(m.list.selected, m.task(m.list.selected)))
	}
	return tea.Batch(cmds...)
}

func (m *Model) onDetail(msg detailMsg) tea.Cmd {
	ti := m.task(msg.taskID)
	ti.getting = false
	var cmd tea.Cmd
	if ti.stale {
		cmd = m.detailIfSelected(msg.taskID)
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
	m.reviewDo(review.Loaded{TaskID: msg.taskID, Detail: d, Risks: fileRisks(ti)})
	ti.contract = ti.contract.Show(ti.detail)
	ti.checks = ti.checks.Show(d.View, d.Verification)
	m.list.replace(d.View)
	if msg.taskID == m.list.selected {
		cmd = tea.Batch(cmd, m.reviewDo(review.RefreshPreview{TaskID: msg.taskID}))
	}
	for _, ia := range d.Interactions {
		if ia.Status == core.InteractionPending {
			m.requests.add(msg.taskID, ia)
		} else {
			m.dropPending(ia.ID)
		}
	}
	return cmd
}

func (m *Model) onReplay(msg replayMsg) {
	ti := m.task(msg.taskID)
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

// trackStates notes when each task entered the state it shows, for elapsed times.
func (m *Model) trackStates() {
	for _, tv := range m.list.tasks {
		ti := m.task(tv.TaskID)
		if ti.state != tv.State {
			ti.state, ti.since = tv.State, m.now()
		}
	}
}
