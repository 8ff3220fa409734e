package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
)

// Options configure the dashboard.
type Options struct {
	StateDir      string
	WorkerVersion string
	// Now is the clock; nil means time.Now. Tests inject one so ages and the prompt grace
	// period are deterministic.
	Now func() time.Time
	// Dir is the repository directory the new-task form proposes; empty means the process's
	// working directory.
	Dir string
	// PromptGrace is how long keys are swallowed after a prompt appears; 0 means 400 ms.
	PromptGrace time.Duration
	Logger      *slog.Logger
}

// Messages the model receives. eventMsg and resyncMsg come from the relay; the rest are
// results of commands that call the service.
type (
	eventMsg  core.Event
	resyncMsg struct{ err error }
	tickMsg   time.Time
	tasksMsg  struct {
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
		events []core.Event
		err    error
	}
	controlMsg struct {
		req  core.ControlRequest
		view core.TaskView
		err  error
	}
	delegateMsg struct {
		taskID string
		res    core.DelegateResult
		err    error
	}
)

type detailTab int

const (
	tabEvents detailTab = iota
	tabDiff
	tabContract
	tabCount
)

var tabNames = [tabCount]string{"Events", "Diff", "Contract"}

// taskInfo is what the dashboard keeps per task beyond its TaskView.
type taskInfo struct {
	detail      *core.TaskDetail
	repository  string
	created     time.Time
	usage       *core.Usage
	events      *eventsPane
	replayed    bool         // the pane holds the journal from its start
	replaying   bool         // a replay command is in flight
	early       []core.Event // live events seen before the replay finished
	getting     bool         // a Get is in flight
	stale       bool         // the detail changed since the last Get
	diff        *diffDoc
	diffText    string
	diffCur     diffCursor
	reviewed    map[string]bool
	reviewedRev int
	contractTop int
}

// pendingIA is an interaction waiting for the supervisor.
type pendingIA struct {
	taskID    string
	ia        core.Interaction
	deferred  bool // put aside with esc
	answering bool // a respond is in flight
}

// Model is the dashboard's root model.
type Model struct {
	svc   core.Service
	ctx   context.Context
	opts  Options
	now   func() time.Time
	theme Theme
	keys  KeyMap
	log   *slog.Logger

	width, height int
	showAll       bool
	tasks         []core.TaskView
	selected      string
	info          map[string]*taskInfo
	pending       []*pendingIA
	stack         []dialog
	tab           detailTab
	listing       bool // a List is in flight
	listDirty     bool
	finalizing    map[string]bool
	status        string
	statusErr     bool
}

// NewModel builds the dashboard model over svc; Run wraps it in a program.
func NewModel(svc core.Service, opts Options) tea.Model {
	return newModel(context.Background(), svc, opts)
}

func newModel(ctx context.Context, svc core.Service, opts Options) *Model {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.PromptGrace == 0 {
		opts.PromptGrace = 400 * time.Millisecond
	}
	if opts.Dir == "" {
		opts.Dir, _ = os.Getwd()
	}
	lg := opts.Logger
	if lg == nil {
		lg = slog.New(slog.DiscardHandler)
	}
	return &Model{
		svc: svc, ctx: ctx, opts: opts, now: opts.Now, log: lg,
		theme: DefaultTheme(), keys: DefaultKeyMap(),
		info: map[string]*taskInfo{}, finalizing: map[string]bool{},
	}
}

// Init loads the task list.
func (m *Model) Init() tea.Cmd { return m.refreshList() }

func (m *Model) task(id string) *taskInfo {
	ti := m.info[id]
	if ti == nil {
		ti = &taskInfo{events: newEventsPane(), reviewed: map[string]bool{}}
		m.info[id] = ti
	}
	return ti
}

// Update handles one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmds []tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.KeyMsg:
		cmds = append(cmds, m.handleKey(msg))
	case eventMsg:
		cmds = append(cmds, m.ingest(core.Event(msg)))
	case resyncMsg:
		cmds = append(cmds, m.resync(msg.err))
	case tickMsg:
		// Only re-renders: ages and the grace period read the clock in View.
	case tasksMsg:
		cmds = append(cmds, m.onTasks(msg))
	case detailMsg:
		cmds = append(cmds, m.onDetail(msg))
	case replayMsg:
		m.onReplay(msg)
	case controlMsg:
		cmds = append(cmds, m.onControl(msg))
	case delegateMsg:
		cmds = append(cmds, m.onDelegate(msg))
	}
	m.surfacePrompt()
	return m, tea.Batch(cmds...)
}

// ---- service commands ----

func (m *Model) refreshList() tea.Cmd {
	if m.listing {
		m.listDirty = true
		return nil
	}
	m.listing = true
	all := m.showAll
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

// replay reads a task's journal up to the seq the task had when the replay started.
func (m *Model) replay(id string) tea.Cmd {
	ti := m.task(id)
	if ti.replayed || ti.replaying {
		return nil
	}
	ti.replaying = true
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(m.ctx, replayTimeout)
		defer cancel()
		d, err := m.svc.Get(ctx, id)
		if err != nil {
			return replayMsg{taskID: id, err: err}
		}
		if d.LastSeq == 0 {
			return replayMsg{taskID: id}
		}
		sub, err := m.svc.Subscribe(ctx, core.SubscribeOptions{TaskID: id, FromSeq: 1})
		if err != nil {
			return replayMsg{taskID: id, err: err}
		}
		var evs []core.Event
		for {
			select {
			case ev, ok := <-sub.C:
				if !ok {
					return replayMsg{taskID: id, events: evs, err: sub.Err()}
				}
				evs = append(evs, ev)
				if ev.Seq >= d.LastSeq {
					return replayMsg{taskID: id, events: evs}
				}
			case <-ctx.Done():
				return replayMsg{taskID: id, events: evs, err: ctx.Err()}
			}
		}
	}
}

func (m *Model) control(req core.ControlRequest) tea.Cmd {
	return func() tea.Msg {
		v, err := m.svc.Control(m.ctx, req)
		return controlMsg{req: req, view: v, err: err}
	}
}

func (m *Model) delegate(in newTaskInput) tea.Cmd {
	return func() tea.Msg {
		raw, err := os.ReadFile(in.ContractPath)
		if err != nil {
			return delegateMsg{taskID: in.TaskID, err: core.Errorf(core.CodeInvalidRequest, nil, "cannot read the contract file: %v", err)}
		}
		if !json.Valid(raw) {
			return delegateMsg{taskID: in.TaskID, err: core.Errorf(core.CodeInvalidContract, nil, "%s is not valid JSON", in.ContractPath)}
		}
		res, err := m.svc.Delegate(m.ctx, core.DelegateRequest{
			TaskID: in.TaskID, Contract: raw, WorkerLane: in.Lane, WaitMode: "background",
			Authority:      core.Authority{Cwd: in.RepoDir, Writable: true},
			PermissionMode: core.PermissionSupervised,
		})
		return delegateMsg{taskID: in.TaskID, res: res, err: err}
	}
}

// ---- incoming data ----

func (m *Model) ingest(ev core.Event) tea.Cmd {
	ti := m.task(ev.TaskID)
	if !ti.replayed {
		if ev.Seq == 1 {
			ti.replayed = true
		} else if len(ti.early) < maxLogLines {
			ti.early = append(ti.early, ev)
		}
	}
	ti.events.add(ev)
	var cmds []tea.Cmd
	switch ev.Type {
	case core.EventTaskCreated:
		var d core.TaskCreatedData
		if json.Unmarshal(ev.Data, &d) == nil {
			ti.repository = d.Repository
		}
		ti.created = ev.Time
		cmds = append(cmds, m.refreshList())
	case core.EventStateChanged:
		var d core.StateChangedData
		if json.Unmarshal(ev.Data, &d) == nil {
			for i := range m.tasks {
				if m.tasks[i].TaskID == ev.TaskID {
					m.tasks[i].State, m.tasks[i].Phase = d.To, d.Phase
				}
			}
		}
		cmds = append(cmds, m.refreshList(), m.detailIfSelected(ev.TaskID))
	case core.EventUsage:
		var u core.Usage
		if json.Unmarshal(ev.Data, &u) == nil {
			ti.usage = &u
		}
	case core.EventInteractionWaiting:
		var ia core.Interaction
		if json.Unmarshal(ev.Data, &ia) == nil {
			m.addPending(ev.TaskID, ia)
		}
	case core.EventInteractionResolved:
		var ia core.Interaction
		if json.Unmarshal(ev.Data, &ia) == nil {
			m.dropPending(ia.ID)
		}
	case core.EventReviewReady, core.EventVerification:
		cmds = append(cmds, m.detailIfSelected(ev.TaskID))
	case core.EventCommitted:
		var d core.CommittedData
		if json.Unmarshal(ev.Data, &d) == nil && m.finalizing[ev.TaskID] {
			delete(m.finalizing, ev.TaskID)
			m.push(commitNotice(ev.TaskID, d.CommitHash, d.Branch, d.IntegrationCommand))
			m.setStatus("committed "+ev.TaskID+" as "+d.CommitHash, false)
		}
		cmds = append(cmds, m.detailIfSelected(ev.TaskID))
	}
	return tea.Batch(cmds...)
}

func (m *Model) detailIfSelected(id string) tea.Cmd {
	if id != m.selected {
		m.task(id).stale = true
		return nil
	}
	return m.fetchDetail(id)
}

// resync follows a lost subscription: events may have been missed, so reload what is shown.
func (m *Model) resync(err error) tea.Cmd {
	if err != nil {
		m.setStatus("event stream restarted after: "+err.Error(), true)
	}
	for _, ti := range m.info {
		ti.stale = true
	}
	cmds := []tea.Cmd{m.refreshList()}
	if m.selected != "" {
		ti := m.task(m.selected)
		// Replay the journal again so the events view has no gap.
		ti.replayed = false
		cmds = append(cmds, m.fetchDetail(m.selected), m.replay(m.selected))
	}
	return tea.Batch(cmds...)
}

func (m *Model) onTasks(msg tasksMsg) tea.Cmd {
	m.listing = false
	var cmds []tea.Cmd
	if m.listDirty {
		m.listDirty = false
		cmds = append(cmds, m.refreshList())
	}
	if msg.err != nil {
		m.setStatus("listing tasks failed: "+oneLine(msg.err), true)
		return tea.Batch(cmds...)
	}
	m.tasks = msg.tasks
	if m.selectedIndex() < 0 {
		m.selected = ""
		if len(m.tasks) > 0 {
			m.selected = m.tasks[0].TaskID
		}
	}
	for _, t := range m.tasks {
		ti := m.task(t.TaskID)
		// Details give the repository, age, usage and pending interactions the list lacks.
		if ti.detail == nil || (ti.stale && t.TaskID == m.selected) {
			cmds = append(cmds, m.fetchDetail(t.TaskID))
		}
	}
	if m.selected != "" {
		cmds = append(cmds, m.replay(m.selected))
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
			m.setStatus("loading "+msg.taskID+" failed: "+oneLine(msg.err), true)
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
	if d.Usage != nil {
		ti.usage = d.Usage
	}
	if d.Diff != ti.diffText || ti.diff == nil {
		ti.diffText, ti.diff = d.Diff, parseReviewDiff(d.Diff)
	}
	if d.View.ReviewRevision != ti.reviewedRev {
		ti.reviewed, ti.reviewedRev = map[string]bool{}, d.View.ReviewRevision
	}
	for i := range m.tasks {
		if m.tasks[i].TaskID == d.View.TaskID && d.View.TaskID != "" {
			m.tasks[i] = d.View
		}
	}
	for _, ia := range d.Interactions {
		if ia.Status == core.InteractionPending {
			m.addPending(msg.taskID, ia)
		} else {
			m.dropPending(ia.ID)
		}
	}
	return cmd
}

func (m *Model) onReplay(msg replayMsg) {
	ti := m.task(msg.taskID)
	ti.replaying = false
	if msg.err != nil && len(msg.events) == 0 {
		m.setStatus("reading the journal of "+msg.taskID+" failed: "+oneLine(msg.err), true)
		return
	}
	pane := newEventsPane()
	pane.setSize(ti.events.w, ti.events.h)
	for _, ev := range msg.events {
		pane.add(ev)
	}
	for _, ev := range ti.early {
		pane.add(ev)
	}
	ti.events, ti.early, ti.replayed = pane, nil, true
}

func (m *Model) onControl(msg controlMsg) tea.Cmd {
	req := msg.req
	if msg.err != nil {
		e := core.AsError(msg.err)
		switch req.Action {
		case core.ActionRespond:
			if p := m.findPending(req.InteractionID); p != nil {
				p.answering = false
				if e.Code == core.CodeInteractionNotFound {
					m.dropPending(req.InteractionID)
				}
			}
		case core.ActionFinalize:
			delete(m.finalizing, req.TaskID)
		}
		m.push(errorNotice(req.Action+" "+req.TaskID+" failed", msg.err))
		// The snapshot may have moved on: show the fresh diff and revision.
		return m.fetchDetail(req.TaskID)
	}
	m.replaceView(msg.view)
	switch req.Action {
	case core.ActionRespond:
		m.dropPending(req.InteractionID)
		m.setStatus("answered "+req.InteractionID+": "+req.Decision, false)
	case core.ActionFinalize:
		if msg.view.CommitHash != "" {
			// The committed event may have shown the notice already.
			if m.finalizing[req.TaskID] {
				delete(m.finalizing, req.TaskID)
				m.push(commitNotice(req.TaskID, msg.view.CommitHash, msg.view.Branch, msg.view.IntegrationCommand))
			}
			m.setStatus("committed "+req.TaskID+" as "+msg.view.CommitHash, false)
		} else {
			m.setStatus("finalizing "+req.TaskID+": "+string(msg.view.State), false)
		}
	default:
		m.setStatus(req.Action+" "+req.TaskID+": now "+string(msg.view.State), false)
	}
	return tea.Batch(m.refreshList(), m.fetchDetail(req.TaskID))
}

func (m *Model) onDelegate(msg delegateMsg) tea.Cmd {
	if msg.err != nil {
		m.push(errorNotice("starting task "+msg.taskID+" failed", msg.err))
		return nil
	}
	m.selected = msg.res.TaskID
	m.setStatus("started "+msg.res.TaskID+" ("+string(msg.res.State)+")", false)
	return tea.Batch(m.refreshList(), m.fetchDetail(msg.res.TaskID))
}

func (m *Model) replaceView(v core.TaskView) {
	for i := range m.tasks {
		if m.tasks[i].TaskID == v.TaskID && v.TaskID != "" {
			m.tasks[i] = v
		}
	}
}

// ---- pending interactions ----

func (m *Model) findPending(id string) *pendingIA {
	for _, p := range m.pending {
		if p.ia.ID == id {
			return p
		}
	}
	return nil
}

func (m *Model) addPending(taskID string, ia core.Interaction) {
	if ia.ID == "" || m.findPending(ia.ID) != nil {
		return
	}
	m.pending = append(m.pending, &pendingIA{taskID: taskID, ia: ia})
}

func (m *Model) dropPending(id string) {
	for i, p := range m.pending {
		if p.ia.ID == id {
			m.pending = append(m.pending[:i:i], m.pending[i+1:]...)
			break
		}
	}
	for i, d := range m.stack {
		if pd, ok := d.(*promptDialog); ok && pd.ia.ID == id {
			m.stack = append(m.stack[:i:i], m.stack[i+1:]...)
			break
		}
	}
}

func (m *Model) pendingFor(taskID string) bool {
	for _, p := range m.pending {
		if p.taskID == taskID {
			return true
		}
	}
	return false
}

// surfacePrompt puts the oldest unanswered interaction on top of the dialog stack, whatever the
// person is doing, unless a prompt is already there.
func (m *Model) surfacePrompt() {
	for _, d := range m.stack {
		if _, ok := d.(*promptDialog); ok {
			return
		}
	}
	var next *pendingIA
	waiting := 0
	for _, p := range m.pending {
		if p.deferred || p.answering {
			continue
		}
		if next == nil {
			next = p
		} else {
			waiting++
		}
	}
	if next == nil {
		return
	}
	d := newPromptDialog(next.taskID, next.ia, m.now())
	d.others = waiting
	m.push(d)
}

func (m *Model) push(d dialog) { m.stack = append(m.stack, d) }

func (m *Model) topDialog() dialog {
	if len(m.stack) == 0 {
		return nil
	}
	return m.stack[len(m.stack)-1]
}

// ---- keys ----

func (m *Model) handleKey(msg tea.KeyMsg) tea.Cmd {
	if msg.Type == tea.KeyCtrlC {
		return tea.Quit
	}
	if d := m.topDialog(); d != nil {
		if pd, ok := d.(*promptDialog); ok && m.now().Sub(pd.openedAt) < m.opts.PromptGrace {
			// Swallow keys typed just as the prompt appeared: they were meant for something else.
			return nil
		}
		res := d.update(msg, m.keys)
		return m.apply(d, res)
	}
	k := m.keys
	t := m.selectedTask()
	if m.tab == tabEvents && t != nil && m.task(t.TaskID).events.update(msg, DefaultEventKeys()) {
		return nil
	}
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
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
	case key.Matches(msg, k.ToggleAll):
		m.showAll = !m.showAll
		return m.refreshList()
	case key.Matches(msg, k.Refresh):
		cmds := []tea.Cmd{m.refreshList()}
		if t != nil {
			cmds = append(cmds, m.fetchDetail(t.TaskID))
		}
		return tea.Batch(cmds...)
	case key.Matches(msg, k.NewTask):
		m.push(newNewTaskDialog(m.opts.Dir))
	case key.Matches(msg, k.ShowPending):
		for _, p := range m.pending {
			p.deferred = false
		}
		if len(m.pending) == 0 {
			m.setStatus("no pending interactions", false)
		}
	case t == nil && (key.Matches(msg, k.Steer) || key.Matches(msg, k.Finalize) || key.Matches(msg, k.Cancel) || key.Matches(msg, k.Close)):
		m.setStatus("no task selected", true)
	case key.Matches(msg, k.Steer):
		return m.openSteer(t)
	case key.Matches(msg, k.Finalize):
		return m.openFinalize(t)
	case key.Matches(msg, k.Cancel):
		m.push(&confirmDialog{
			title: "Cancel task " + t.TaskID + "?",
			body:  "The worker stops, pending questions are dropped and nothing is committed. The branch and worktree stay for inspection.",
			req:   core.ControlRequest{TaskID: t.TaskID, Action: core.ActionCancel},
		})
	case key.Matches(msg, k.Close):
		m.push(&confirmDialog{
			title: "Close task " + t.TaskID + "?",
			body:  "The worker session is closed and the task ends; a committed result stays on its branch.",
			req:   core.ControlRequest{TaskID: t.TaskID, Action: core.ActionClose},
		})
	default:
		m.scrollKey(msg)
	}
	return nil
}

func (m *Model) apply(d dialog, res dialogResult) tea.Cmd {
	if res.close {
		for i := len(m.stack) - 1; i >= 0; i-- {
			if m.stack[i] == d {
				m.stack = append(m.stack[:i:i], m.stack[i+1:]...)
				break
			}
		}
	}
	if pd, ok := d.(*promptDialog); ok {
		if p := m.findPending(pd.ia.ID); p != nil {
			p.deferred = p.deferred || res.later
			p.answering = res.control != nil
		}
	}
	var cmd tea.Cmd
	if res.control != nil {
		if res.control.Action == core.ActionFinalize {
			m.finalizing[res.control.TaskID] = true
			m.setStatus("finalizing "+res.control.TaskID+": verifying and committing…", false)
		}
		cmd = m.control(*res.control)
	}
	if res.delegate != nil {
		m.setStatus("starting task "+res.delegate.TaskID+"…", false)
		cmd = m.delegate(*res.delegate)
	}
	return cmd
}

func (m *Model) openSteer(t *core.TaskView) tea.Cmd {
	switch t.State {
	case core.StateReviewRequired:
		round := t.RepairRounds + 1
		m.push(newSteerDialog(t.TaskID, fmt.Sprintf("Repair round %d/2 for %s", round, t.TaskID),
			"Say what to fix. The contract stays the same; the worker resumes and the task returns to review."))
	case core.StateRunning:
		m.push(newSteerDialog(t.TaskID, "Steer "+t.TaskID, "The message reaches the worker during its current turn."))
	default:
		m.setStatus("steer needs a running task or one in review (this one is "+string(t.State)+")", true)
	}
	return nil
}

func (m *Model) openFinalize(t *core.TaskView) tea.Cmd {
	if t.State != core.StateReviewRequired {
		m.setStatus("finalize needs a task in review (this one is "+string(t.State)+")", true)
		return nil
	}
	ti := m.task(t.TaskID)
	if ti.detail == nil {
		m.setStatus("loading the review of "+t.TaskID+"…", false)
		return m.fetchDetail(t.TaskID)
	}
	m.push(newFinalizeDialog(*ti.detail))
	return nil
}

func (m *Model) selectedIndex() int {
	for i, t := range m.tasks {
		if t.TaskID == m.selected {
			return i
		}
	}
	return -1
}

func (m *Model) selectedTask() *core.TaskView {
	if i := m.selectedIndex(); i >= 0 {
		return &m.tasks[i]
	}
	return nil
}

func (m *Model) moveSelection(delta int) tea.Cmd {
	if len(m.tasks) == 0 {
		return nil
	}
	i := clampInt(m.selectedIndex()+delta, 0, len(m.tasks)-1)
	m.selected = m.tasks[i].TaskID
	ti := m.task(m.selected)
	var cmds []tea.Cmd
	if ti.detail == nil || ti.stale {
		cmds = append(cmds, m.fetchDetail(m.selected))
	}
	cmds = append(cmds, m.replay(m.selected))
	return tea.Batch(cmds...)
}

func (m *Model) scrollKey(msg tea.KeyMsg) {
	t := m.selectedTask()
	if t == nil {
		return
	}
	ti := m.task(t.TaskID)
	k := m.keys
	page := max(m.detailHeight()-2, 1)
	switch m.tab {
	case tabDiff:
		if ti.diff == nil || len(ti.diff.files) == 0 {
			return
		}
		c := ti.diffCur
		bodyH := m.diffBodyHeight()
		last := ti.diff.maxTop(c, bodyH)
		switch {
		case key.Matches(msg, k.NextHunk):
			c = ti.diff.nextHunk(c)
		case key.Matches(msg, k.PrevHunk):
			c = ti.diff.prevHunk(c)
		case key.Matches(msg, k.NextFile):
			if c.file+1 < len(ti.diff.files) {
				c = diffCursor{c.file + 1, 0}
			}
		case key.Matches(msg, k.PrevFile):
			if c.file > 0 {
				c = diffCursor{c.file - 1, 0}
			}
		case key.Matches(msg, k.PageDown):
			c.top = min(c.top+page, max(last, c.top))
		case key.Matches(msg, k.PageUp):
			c.top = min(c.top, last) - page
		case key.Matches(msg, k.Top):
			c.top = 0
		case key.Matches(msg, k.Bottom):
			c.top = last
		case key.Matches(msg, k.Reviewed):
			name := ti.diff.files[c.file].name
			ti.reviewed[name] = !ti.reviewed[name]
		}
		ti.diffCur = ti.diff.clamp(c)
	case tabContract:
		switch {
		case key.Matches(msg, k.PageDown):
			ti.contractTop += page
		case key.Matches(msg, k.PageUp):
			ti.contractTop -= page
		case key.Matches(msg, k.Top):
			ti.contractTop = 0
		}
		ti.contractTop = max(ti.contractTop, 0)
	}
}

func (m *Model) setStatus(s string, isErr bool) {
	m.status, m.statusErr = s, isErr
	if isErr {
		m.log.Warn("dashboard", "status", s)
	}
}

// ---- notices ----

func commitNotice(taskID, hash, branch, integration string) *noticeDialog {
	if integration == "" {
		integration = "git cherry-pick " + hash
	}
	return &noticeDialog{
		title: "Committed " + taskID,
		lines: []string{
			"commit " + hash + " on branch " + branch,
			"",
			"Bring it into your checkout with:",
			integration,
		},
	}
}

var nextSteps = map[core.NextAction]string{
	core.NextFixRequest:             "Fix what the message names and try again.",
	core.NextInstallOrUpgrade:       "Install or upgrade the missing piece (reasonixctl doctor says which), then try again.",
	core.NextCreateNewTask:          "Start a new task with another id (n).",
	core.NextInspectTask:            "Refresh (r) and look at the task's current state before acting again.",
	core.NextResolveSourceCollision: "Resolve the overlapping changes in your checkout, then try again.",
	core.NextRepairAndFinalize:      "Steer a repair round (s) saying what to fix, review the new diff, then finalize again (F).",
	core.NextRetry:                  "Try again in a moment.",
	core.NextNone:                   "This is unexpected; the log has the details.",
}

func errorNotice(title string, err error) *noticeDialog {
	return &noticeDialog{title: title, lines: describeError(err), isErr: true}
}

// describeError renders a *core.Error as plain lines: what happened, the details that matter and
// what to do next.
func describeError(err error) []string {
	e := core.AsError(err)
	lines := []string{string(e.Code) + ": " + e.Message}
	next := nextSteps[e.NextAction]
	if cp, ok := e.Details["checkpoint"]; ok && e.Code == core.CodeInvalidRequest {
		lines = append(lines, fmt.Sprintf("The review snapshot moved on at %v: you reviewed %s, the task now has %s.",
			cp, compactJSON(e.Details["expected"]), compactJSON(e.Details["current"])))
		next = "The diff has been reloaded: review it again (2) and finalize against the new snapshot (F)."
	}
	keys := make([]string, 0, len(e.Details))
	for k := range e.Details {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch k {
		case "checkpoint", "expected", "current":
			continue
		case "issues":
			if issues, ok := e.Details[k].([]core.Issue); ok {
				for _, is := range issues {
					lines = append(lines, "• "+is.Path+": "+is.Message)
				}
				continue
			}
		}
		lines = append(lines, k+": "+compactJSON(e.Details[k]))
	}
	if next != "" {
		lines = append(lines, "", "Next: "+next)
	}
	return lines
}

func oneLine(err error) string {
	return strings.ReplaceAll(err.Error(), "\n", " ")
}
