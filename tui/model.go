package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	"github.com/charmbracelet/bubbles/viewport"
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
	Dir    string
	Logger *slog.Logger
	// Notify rings the terminal bell and sends an OSC 9 notification to Output when a request
	// starts waiting for the person.
	Notify bool
	Output io.Writer
	// Monochrome draws without colour (NO_COLOR): reverse, bold and underline still mark the
	// selection and the active tab.
	Monochrome bool
	// Attached, when set, says the service forwards to another process that owns the state
	// directory; the header names it and follows it leaving and a new one arriving.
	Attached Attachment
	// Away, when set, is told that the person left (true, as the dashboard suspends on ctrl+z)
	// or came back (false): the engine must not wait for answers from a stopped dashboard.
	Away func(away bool)
	// Unshared, when set, says why this dashboard's engine serves no socket: an MCP server or
	// another dashboard cannot attach to it. It is shown once, as a notice, at start.
	Unshared error
	// CheckDrafts makes the new-task form's ctrl+d run each drafted check on the checkout's HEAD,
	// sandboxed, and keep only those that pass (as `contract init --check`).
	CheckDrafts bool

	// animate lets the model schedule its own timers (spinner frames, the end of a prompt's key
	// grace). Run sets it; tests leave it off and move a fake clock instead.
	animate bool
}

// statusTTL is how long a status message stays in the header.
const statusTTL = 5 * time.Second

// Messages the model receives. eventMsg and resyncMsg come from the relay; the rest are
// results of commands that call the service.
type (
	eventMsg  core.Event
	resyncMsg struct{ err error }
	tickMsg   time.Time
	redrawMsg struct{}
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
		pane   *eventsPane // the journal's newest events, built off the event loop
		agent  *taskInfo   // what noteAgent learnt from them
		from   uint64      // the first seq read
		err    error
	}
	controlMsg struct {
		req  core.ControlRequest
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
		in     newTaskInput
		res    core.DelegateResult
		err    error
		resume bool
	}
)

type detailTab int

const (
	tabEvents detailTab = iota
	tabDiff
	tabContract
	tabChecks
	tabCount
)

var tabNames = [tabCount]string{"Events", "Diff", "Contract", "Checks"}

// taskInfo is what the dashboard keeps per task beyond its TaskView.
type taskInfo struct {
	detail     *core.TaskDetail
	repository string
	created    time.Time
	usage      *core.Usage
	usageLog   usageLog // usage reports seen, for today's figures (usage.go)
	usageGen   uint64   // counts changes of usage
	events     *eventsPane
	replayed   bool         // the pane was built from the journal (its newest window)
	fromStart  bool         // … and that window starts at the journal's first event
	replaying  bool         // a replay command is in flight
	early      []core.Event // live events seen before the replay finished
	getting    bool         // a Get is in flight
	stale      bool         // the detail changed since the last Get
	diff       *diffDoc
	diffText   string
	diffCur    diffCursor
	reviewed   map[string]bool
	rv         taskReview // the diff view's selected line and cherry-pick preview
	// reviewedRev is the review revision the reviewed marks belong to.
	reviewedRev int
	contract    viewport.Model
	checks      checksState
	// state and since say which state the dashboard last saw and since when, for the elapsed
	// time of waits.
	state core.State
	since time.Time
	// lastAgent is the agent's latest message text, shown in prompts.
	lastAgent   string
	agentStreak bool
}

// pendingIA is an interaction waiting for the supervisor.
type pendingIA struct {
	taskID    string
	ia        core.Interaction
	deferred  bool // put aside with esc: it does not open by itself again
	answering bool // a respond is in flight
}

// status is the one-line message in the header; it expires after statusTTL or when its task
// changes state.
type status struct {
	text   string
	isErr  bool
	at     time.Time
	taskID string
	state  core.State
}

// Model is the dashboard's root model. It composes the task list, the detail panes and the
// dialog stack, routes keys to whichever has focus and turns results into service calls.
type Model struct {
	svc   core.Service
	ctx   context.Context
	opts  Options
	now   func() time.Time
	theme Theme
	keys  KeyMap
	log   *slog.Logger

	width, height int
	list          taskList
	info          map[string]*taskInfo
	pending       []*pendingIA
	announced     map[string]bool
	dialogs       dialogStack
	tab           detailTab
	listing       bool // a List is in flight
	listDirty     bool
	finalizing    map[string]time.Time
	status        status
	spin          spinner.Model
	spinning      bool
	graceTimer    bool
	gate          answerGate
	lastForm      newTaskInput
	attach        attachState
	rp            *replayView           // the replay on screen, if any
	usageMemo     map[string]*taskUsage // each task's share of today's usage (usage.go)
	review        reviewUI
}

// NewModel builds the dashboard model over svc; Run wraps it in a program.
func NewModel(svc core.Service, opts Options) tea.Model {
	return newModel(context.Background(), svc, opts)
}

func newModel(ctx context.Context, svc core.Service, opts Options) *Model {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Dir == "" {
		opts.Dir, _ = os.Getwd()
	}
	lg := opts.Logger
	if lg == nil {
		lg = slog.New(slog.DiscardHandler)
	}
	theme := DefaultTheme()
	if opts.Monochrome {
		theme = MonochromeTheme()
	}
	sp := spinner.New(spinner.WithSpinner(spinner.MiniDot), spinner.WithStyle(theme.Pending))
	var attach attachState
	if opts.Attached != nil {
		owner, ok := opts.Attached.Owner()
		attach = attachState{owner: owner, gone: !ok}
	}
	return &Model{
		svc: svc, ctx: ctx, opts: opts, now: opts.Now, log: lg, attach: attach,
		theme: theme, keys: DefaultKeyMap(), spin: sp,
		info: map[string]*taskInfo{}, finalizing: map[string]time.Time{}, announced: map[string]bool{},
		lastForm: newTaskInput{RepoDir: opts.Dir, Lane: core.LaneFast},
	}
}

// Init loads the task list.
func (m *Model) Init() tea.Cmd {
	if m.opts.Unshared != nil && m.dialogs.empty() {
		m.push(errorNotice("Other processes cannot attach to this dashboard", m.opts.Unshared))
	}
	return m.refreshList()
}

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
		cmds = append(cmds, m.handleKeys(msg))
	case keyQuietMsg:
		if h := m.gate.settle(msg.n); h != nil {
			cmds = append(cmds, m.release(h))
		}
	case tea.ResumeMsg:
		cmds = append(cmds, m.away(false), m.refreshList())
	case eventMsg:
		cmds = append(cmds, m.ingest(core.Event(msg)))
	case resyncMsg:
		cmds = append(cmds, m.resync(msg.err))
	case tickMsg, redrawMsg:
		// Only re-renders: ages, elapsed times and the grace cue read the clock in View.
		m.graceTimer = false
	case spinner.TickMsg:
		if m.anyWaiting() {
			var cmd tea.Cmd
			m.spin, cmd = m.spin.Update(msg)
			cmds = append(cmds, cmd)
		} else {
			m.spinning = false
		}
	case tasksMsg:
		cmds = append(cmds, m.onTasks(msg))
	case detailMsg:
		cmds = append(cmds, m.onDetail(msg))
	case replayMsg:
		m.onReplay(msg)
	case pageMsg:
		m.onPage(msg)
	case searchPageMsg:
		cmds = append(cmds, m.onSearchPage(msg))
	case controlMsg:
		cmds = append(cmds, m.onControl(msg))
	case delegateMsg:
		cmds = append(cmds, m.onDelegate(msg))
	case draftMsg:
		m.onDraft(msg)
	case ownerMsg:
		cmds = append(cmds, m.onOwner())
	case checkLogMsg:
		m.onCheckLog(msg)
	case replayLoadedMsg:
		m.onReplayLoaded(msg)
	case reviewMsg:
		cmds = append(cmds, msg.applyReview(m))
	}
	m.surfacePrompt()
	m.trackStates()
	cmds = append(cmds, m.checksNeed())
	cmds = append(cmds, m.timers())
	return m, tea.Batch(cmds...)
}

// timers starts the spinner while something waits and wakes the view when a prompt's key
// grace ends, so its cue disappears on time. Only a running program animates.
func (m *Model) timers() tea.Cmd {
	if !m.opts.animate {
		return nil
	}
	var cmds []tea.Cmd
	if !m.spinning && m.anyWaiting() {
		m.spinning = true
		cmds = append(cmds, m.spin.Tick)
	}
	if left := m.dialogs.graceLeft(m.now()); left > 0 && !m.graceTimer {
		m.graceTimer = true
		cmds = append(cmds, tea.Tick(left+10*time.Millisecond, func(time.Time) tea.Msg { return redrawMsg{} }))
	}
	return tea.Batch(cmds...)
}

// ---- service commands ----

func (m *Model) refreshList() tea.Cmd {
	if m.listing {
		m.listDirty = true
		return nil
	}
	m.listing = true
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
	w, h, f := ti.events.w, ti.events.h, ti.events.filter
	ctx, svc := m.ctx, m.svc
	return func() tea.Msg {
		return replayTask(ctx, svc, id, w, h, f)
	}
}

func replayTask(ctx context.Context, svc core.Service, id string, w, h int, f eventFilter) replayMsg {
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
	from := uint64(1)
	if d.LastSeq > replayFirst {
		from = d.LastSeq - replayFirst + 1
	}
	pane, err := buildPage(ctx, svc, id, w, h, f, maxLogLines, from, d.LastSeq, agent.noteAgent)
	msg := replayMsg{taskID: id, pane: pane, agent: agent, from: from, err: err}
	// Fill the pane backwards, a page at a time: how many events fit depends on their size.
	// Usage reports of the earlier pages count for today's figures too.
	for err == nil && pane.hasOlder() {
		room := min(pane.limit-pane.cost, pane.limit-(len(pane.entries)-pane.head))
		if room < pane.limit/4 {
			break
		}
		start, end := pane.olderPage(room)
		var q *eventsPane
		q, err = buildPage(ctx, svc, id, w, h, f, room, start, end, agent.noteUsage)
		if err != nil {
			break
		}
		pane.prepend(q)
		msg.from = start
	}
	return msg
}

func (m *Model) control(req core.ControlRequest) tea.Cmd {
	return func() tea.Msg {
		v, err := m.svc.Control(m.ctx, req)
		return controlMsg{req: req, view: v, err: err}
	}
}

func (m *Model) delegate(in newTaskInput) tea.Cmd {
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
		return delegateMsg{in: newTaskInput{TaskID: v.TaskID}, res: res, err: err, resume: true}
	}
}

// draftContract drafts a contract for the repository (as `reasonixctl contract init` does) into
// the state directory, never into the repository, whose checkout must stay clean.
func (m *Model) draftContract(dir string) tea.Cmd {
	state := m.opts.StateDir
	now := m.now()
	check, ctx := m.opts.CheckDrafts, m.ctx
	return func() tea.Msg {
		d, err := core.DraftContract(dir)
		var checked []core.BaseCheck
		if check && err == nil {
			d, checked, err = core.DraftContractChecked(ctx, core.BaseCheckOptions{StateDir: state, Dir: dir})
		}
		if err != nil {
			return draftMsg{err: err}
		}
		path, err := core.WriteDraft(state, d, now)
		if err != nil {
			return draftMsg{err: err}
		}
		return draftMsg{path: path, draft: d, checked: checked}
	}
}

func (m *Model) onDraft(msg draftMsg) {
	d, ok := m.dialogs.top().(*newTaskDialog)
	if !ok {
		return
	}
	d.note = ""
	if msg.err != nil {
		d.err = "drafting a contract failed: " + msg.err.Error()
		return
	}
	d.inputs[0].SetValue(msg.path)
	var checks []string
	for _, c := range msg.draft.Checks {
		checks = append(checks, strings.Join(c.Argv, " "))
	}
	found := "no verification command found: add one"
	if len(checks) > 0 {
		found = "verification: " + strings.Join(checks, "; ")
	}
	d.note = "drafted " + msg.path + " (" + found + "). Edit its TODO fields (" +
		strings.Join(msg.draft.Placeholders, ", ") + ") with ctrl+e, then start it with ctrl+s." + droppedNote(msg.checked)
}

// notify rings the bell and raises a desktop notification (OSC 9) for a new request.
func (m *Model) notify(taskID string, ia core.Interaction) tea.Cmd {
	if !m.opts.Notify || m.opts.Output == nil {
		return nil
	}
	msg := notification(taskID, ia)
	w := m.opts.Output
	return func() tea.Msg {
		_, _ = io.WriteString(w, msg)
		return nil
	}
}

// ---- incoming data ----

func (m *Model) ingest(ev core.Event) tea.Cmd {
	ti := m.task(ev.TaskID)
	if !ti.replayed {
		if ev.Seq == 1 {
			ti.replayed, ti.fromStart = true, true
		} else if len(ti.early) < maxLogLines {
			ti.early = append(ti.early, ev)
		}
	}
	ti.events.live(ev)
	ti.noteAgent(ev)
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
			for i := range m.list.tasks {
				if m.list.tasks[i].TaskID == ev.TaskID {
					m.list.tasks[i].State, m.list.tasks[i].Phase = d.To, d.Phase
				}
			}
			ti.state, ti.since = d.To, ev.Time
		}
		cmds = append(cmds, m.refreshList(), m.detailIfSelected(ev.TaskID))
	case core.EventUsage:
		var u core.Usage
		if json.Unmarshal(ev.Data, &u) == nil {
			ti.usage = &u
			ti.usageGen++
		}
	case core.EventInteractionWaiting:
		var ia core.Interaction
		if json.Unmarshal(ev.Data, &ia) == nil {
			m.addPending(ev.TaskID, ia)
			if !m.announced[ia.ID] && ia.Status == core.InteractionPending {
				m.announced[ia.ID] = true
				cmds = append(cmds, m.notify(ev.TaskID, ia))
			}
		}
	case core.EventInteractionResolved:
		var ia core.Interaction
		if json.Unmarshal(ev.Data, &ia) == nil {
			if p := m.findPending(ia.ID); p != nil && !p.answering && ia.Status == core.InteractionResolved {
				// First answer wins: someone else (Codex, another dashboard) answered it. The
				// line outlives the task's state change that follows at once.
				m.setStatus("answered by "+answeredBy(ia.Response)+": "+responseText(ia)+" ("+ia.ID+" of "+ev.TaskID+")", false, "")
			}
			m.dropPending(ia.ID)
		}
	case core.EventReviewReady, core.EventVerification:
		cmds = append(cmds, m.detailIfSelected(ev.TaskID))
	case core.EventCommitted:
		var d core.CommittedData
		if json.Unmarshal(ev.Data, &d) == nil {
			if _, ok := m.finalizing[ev.TaskID]; ok {
				delete(m.finalizing, ev.TaskID)
				m.push(commitNotice(ev.TaskID, d.CommitHash, d.Branch, d.IntegrationCommand))
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
	var d core.TextData
	if json.Unmarshal(ev.Data, &d) != nil {
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
	return m.fetchDetail(id)
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
	cmds := []tea.Cmd{m.refreshList()}
	if m.list.selected != "" {
		ti := m.task(m.list.selected)
		// Replay the journal again so the events view has no gap.
		ti.replayed = false
		cmds = append(cmds, m.fetchDetail(m.list.selected), m.replay(m.list.selected))
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
		m.setStatus("listing tasks failed: "+oneLine(msg.err), true, "")
		return tea.Batch(cmds...)
	}
	m.list.set(msg.tasks)
	for _, t := range m.list.tasks {
		ti := m.task(t.TaskID)
		// Details give the repository, age, usage and pending interactions the list lacks.
		if ti.detail == nil || (ti.stale && t.TaskID == m.list.selected) {
			cmds = append(cmds, m.fetchDetail(t.TaskID))
		}
	}
	if m.list.selected != "" {
		cmds = append(cmds, m.replay(m.list.selected))
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
			m.setStatus("loading "+msg.taskID+" failed: "+oneLine(msg.err), true, msg.taskID)
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
		ti.usageGen++
	}
	if d.Diff != ti.diffText || ti.diff == nil {
		ti.diffText, ti.diff = d.Diff, parseReviewDiff(d.Diff)
	}
	if d.View.ReviewRevision != ti.reviewedRev {
		ti.reviewed, ti.reviewedRev = map[string]bool{}, d.View.ReviewRevision
	}
	m.list.replace(d.View)
	if msg.taskID == m.list.selected {
		cmd = tea.Batch(cmd, m.refreshPreview(msg.taskID, false))
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
	if msg.err != nil && (msg.pane == nil || msg.pane.empty() || msg.pane.detached) {
		m.setStatus("reading the journal of "+msg.taskID+" failed: "+oneLine(msg.err), true, msg.taskID)
		return
	}
	pane := msg.pane
	if pane == nil {
		pane = newEventsPane()
	}
	pane.setSize(ti.events.w, ti.events.h)
	pane.setFilter(ti.events.filter) // the reader's filter outlives a reload
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
	for _, ev := range ti.early {
		pane.add(ev)
		ti.noteAgent(ev)
	}
	ti.events.search.stopSeek()
	ti.events, ti.early, ti.replayed = pane, nil, true
	ti.fromStart = msg.from <= 1
	// A prompt that opened before the journal arrived (a dashboard attaching to a waiting task)
	// gets the agent's last words now.
	for _, p := range m.pending {
		if d := m.dialogs.prompt(p.ia.ID); p.taskID == msg.taskID && d != nil && d.lastWords == "" {
			d.lastWords = ti.lastAgent
		}
	}
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
					m.setStatus(req.InteractionID+" was already answered elsewhere; the first answer counts", false, req.TaskID)
					return tea.Batch(m.refreshList(), m.fetchDetail(req.TaskID))
				}
			}
		case core.ActionFinalize:
			delete(m.finalizing, req.TaskID)
		}
		m.push(errorNotice(req.Action+" "+req.TaskID+" failed", msg.err))
		// The snapshot may have moved on: show the fresh diff and revision.
		return tea.Batch(m.refreshList(), m.fetchDetail(req.TaskID))
	}
	m.list.replace(msg.view)
	switch req.Action {
	case core.ActionRespond:
		what := m.gate.said[req.InteractionID]
		delete(m.gate.said, req.InteractionID)
		if what == "" {
			what = req.Decision
		}
		m.dropPending(req.InteractionID)
		m.setStatus("answered "+req.InteractionID+": "+what, false, "")
	case core.ActionFinalize:
		if msg.view.CommitHash != "" {
			// The committed event may have shown the notice already.
			if _, ok := m.finalizing[req.TaskID]; ok {
				delete(m.finalizing, req.TaskID)
				m.push(commitNotice(req.TaskID, msg.view.CommitHash, msg.view.Branch, msg.view.IntegrationCommand))
			}
			m.setStatus("committed "+req.TaskID+" as "+msg.view.CommitHash, false, req.TaskID)
		} else {
			m.setStatus("finalizing "+req.TaskID+": "+string(msg.view.State), false, req.TaskID)
		}
	default:
		m.setStatus(req.Action+" "+req.TaskID+": now "+string(msg.view.State), false, req.TaskID)
	}
	return tea.Batch(m.refreshList(), m.fetchDetail(req.TaskID))
}

func (m *Model) onDelegate(msg delegateMsg) tea.Cmd {
	id := msg.in.TaskID
	if msg.err != nil {
		if msg.resume {
			m.push(errorNotice("resuming "+id+" failed", msg.err))
			return tea.Batch(m.refreshList(), m.fetchDetail(id))
		}
		// A task that could not start is undone by the engine: drop what the dashboard saw of
		// it and give the person their form back, with the cause and what to do about it.
		if m.list.index(id) < 0 || core.AsError(msg.err).Code != core.CodeTaskConflict {
			delete(m.info, id)
		}
		d := newNewTaskDialog(msg.in)
		d.err = strings.Join(describeError(msg.err), "\n")
		m.push(d)
		return m.refreshList()
	}
	m.list.selected = msg.res.TaskID
	verb := "started "
	if msg.resume {
		verb = "resumed "
	}
	m.setStatus(verb+msg.res.TaskID+" ("+string(msg.res.State)+")", false, msg.res.TaskID)
	return tea.Batch(m.refreshList(), m.fetchDetail(msg.res.TaskID), m.replay(msg.res.TaskID))
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
	if d := m.dialogs.prompt(id); d != nil {
		m.dialogs.remove(d)
	}
}

func (m *Model) pendingFor(taskID string) bool {
	for _, p := range m.pending {
		if p.taskID == taskID && !p.answering {
			return true
		}
	}
	return false
}

func (m *Model) pendingCount() int {
	n := 0
	for _, p := range m.pending {
		if !p.answering {
			n++
		}
	}
	return n
}

// surfacePrompt opens the selected task's waiting request, but only when nothing else is open
// and nothing is taking text: a request of another task, or one arriving while the person uses
// a dialog, a form or a search box, is announced (header count, row marker, bell) and waits for
// `i`.
func (m *Model) surfacePrompt() {
	if !m.dialogs.empty() || m.capturing() {
		return
	}
	for _, p := range m.pending {
		if p.taskID == m.list.selected && !p.deferred && !p.answering {
			m.openPrompt(p)
			return
		}
	}
}

func (m *Model) openPrompt(p *pendingIA) {
	d := newPromptDialog(p.taskID, p.ia)
	d.lastWords = m.task(p.taskID).lastAgent
	d.others = m.pendingCount() - 1
	m.dialogs.push(d, m.now())
}

// openNextPending is `i`: the selected task's request first, else the oldest waiting one.
func (m *Model) openNextPending() tea.Cmd {
	var next *pendingIA
	for _, p := range m.pending {
		if p.answering {
			continue
		}
		if next == nil || (p.taskID == m.list.selected && next.taskID != m.list.selected) {
			next = p
		}
	}
	if next == nil {
		m.setStatus("nothing is waiting for you", false, "")
		return nil
	}
	next.deferred = false
	var cmd tea.Cmd
	if next.taskID != m.list.selected && m.list.index(next.taskID) >= 0 {
		m.list.selected = next.taskID
		cmd = m.selectionChanged()
	}
	m.openPrompt(next)
	return cmd
}

func (m *Model) push(d dialog) { m.dialogs.push(d, m.now()) }

// ---- keys ----

// handleKeys splits a key message that carries several runes (keys that arrived in one read:
// fast typing, `tmux send-keys 2 3`) into one key each, unless a text input has focus, where
// they are text. A paste only ever goes to a text input.
func (m *Model) handleKeys(msg tea.KeyMsg) tea.Cmd {
	alone, quiet := m.gate.key(m.opts.animate)
	top := m.dialogs.top()
	typing := m.capturing()
	if typing && msg.Type == tea.KeyRunes && len(msg.Runes) > 1 {
		// Text, like a paste: a read that is exactly "right", "enter" or "end" must be typed,
		// not taken for the key of that name.
		msg.Paste = true
	}
	if msg.Paste {
		if typing && top != nil && !m.dialogs.swallow(m.now()) {
			return tea.Batch(quiet, m.apply(top, top.update(msg, m.keys), false))
		}
		if typing && top == nil {
			return tea.Batch(quiet, m.handleKey(msg, false))
		}
		return quiet
	}
	if msg.Type != tea.KeyRunes || len(msg.Runes) <= 1 || typing {
		return tea.Batch(quiet, m.handleKey(msg, alone))
	}
	cmds := []tea.Cmd{quiet}
	for i, r := range msg.Runes {
		if m.capturing() {
			// A dialog opened by an earlier rune takes the rest as text.
			cmds = append(cmds, m.handleKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: msg.Runes[i:], Paste: len(msg.Runes[i:]) > 1}, false))
			break
		}
		cmds = append(cmds, m.handleKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}}, false))
		m.surfacePrompt()
	}
	return tea.Batch(cmds...)
}

// capturing reports whether keys are text right now: the top dialog takes text, or, with no
// dialog open, the selected task's events search or the checks search is being typed into. It
// is the one question the key router and the prompt's opening ask.
func (m *Model) capturing() bool {
	if top := m.dialogs.top(); top != nil {
		return top.typing()
	}
	if m.rp != nil {
		return false
	}
	switch t := m.list.selectedTask(); {
	case m.tab == tabEvents && t != nil:
		return m.task(t.TaskID).events.typing()
	case m.tab == tabChecks && t != nil:
		return m.task(t.TaskID).checks.search.typing
	}
	return false
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
		yes: func(m *Model) tea.Cmd { return m.suspend() },
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

// handleKey routes one key; alone says it arrived by itself, the only way a key may answer a
// request (answer.go).
func (m *Model) handleKey(msg tea.KeyMsg, alone bool) tea.Cmd {
	k := m.keys
	if key.Matches(msg, k.Suspend) {
		return m.askSuspend()
	}
	if top := m.dialogs.top(); top != nil {
		if m.dialogs.swallow(m.now()) {
			// Keys typed as the prompt appeared were meant for something else.
			return nil
		}
		if cd, ok := top.(*confirmDialog); ok && cd.quit && msg.Type == tea.KeyCtrlC {
			return tea.Quit
		}
		if msg.Type == tea.KeyCtrlC {
			return m.askQuit()
		}
		if _, isHelp := top.(*helpDialog); !isHelp && !top.typing() {
			if key.Matches(msg, k.Help) {
				m.push(&helpDialog{})
				return nil
			}
			switch msg.Type {
			case tea.KeyPgDown:
				m.dialogs.scroll += 5
				return nil
			case tea.KeyPgUp:
				m.dialogs.scroll = max(m.dialogs.scroll-5, 0)
				return nil
			}
		}
		return m.apply(top, top.update(msg, k), alone)
	}
	if m.rp != nil {
		return m.replayKey(msg)
	}
	t := m.list.selectedTask()
	if m.tab == tabEvents && t != nil && m.task(t.TaskID).events.update(msg, m.keys.eventKeys()) {
		return m.pageCmd(t.TaskID)
	}
	if m.tab == tabChecks && m.checksKey(msg) {
		return nil
	}
	if cmd, ok := m.reviewKey(t, msg); ok {
		return cmd
	}
	switch {
	case key.Matches(msg, k.Quit):
		return m.askQuit()
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
			cmds = append(cmds, m.fetchDetail(t.TaskID))
		}
		return tea.Batch(cmds...)
	case key.Matches(msg, k.NewTask):
		m.push(newNewTaskDialog(m.lastForm))
	case key.Matches(msg, k.ShowPending):
		return m.openNextPending()
	case key.Matches(msg, k.Grants):
		m.push(newGrantsDialog(m.opts.StateDir))
	case key.Matches(msg, k.Apply):
		return m.applyTask(t)
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
	default:
		m.scrollKey(msg)
	}
	return nil
}

// act runs one of the task actions core allows in the task's state, or says why it cannot.
func (m *Model) act(t *core.TaskView, action string) tea.Cmd {
	if t == nil {
		m.setStatus("no task selected: press n to start one", true, "")
		return nil
	}
	if !core.Allows(*t, action) {
		m.setStatus(notAllowed(*t, action), true, t.TaskID)
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
			req:   core.ControlRequest{TaskID: t.TaskID, Action: core.ActionCancel},
		})
	case core.ActionClose:
		m.push(&confirmDialog{
			title: "Close task " + t.TaskID + "?",
			body:  "The worker session is closed and the task ends; a committed result stays on its branch.",
			req:   core.ControlRequest{TaskID: t.TaskID, Action: core.ActionClose},
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

// notAllowed says why an action does not apply to a task now.
func notAllowed(t core.TaskView, action string) string {
	switch {
	case action == core.ActionSteer && t.State == core.StateReviewRequired:
		return fmt.Sprintf("%s used its %d repair rounds: finalize it (F) or close it (X)", t.TaskID, core.MaxRepairRounds)
	case t.State.Terminal():
		return t.TaskID + " has ended (" + string(t.State) + "): nothing more to do"
	}
	need := map[string]string{
		core.ActionSteer:    "a running task or one in review",
		core.ActionFinalize: "a task in review",
		core.ActionResume:   "a paused task",
		core.ActionCancel:   "a task that is not verifying or ended",
		core.ActionClose:    "a task that is not verifying or ended",
	}[action]
	return fmt.Sprintf("%s needs %s; %s is %s", action, need, t.TaskID, strings.ReplaceAll(string(t.State), "_", " "))
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

// apply carries out a dialog's result. An answer to a request is held by the gate until its key
// proves to have come alone (answer.go), and refused outright when it did not.
func (m *Model) apply(d dialog, res dialogResult, alone bool) tea.Cmd {
	if pd, ok := d.(*promptDialog); ok && res.control != nil && res.control.Action == core.ActionRespond {
		if !alone {
			pd.err = "keys that arrive together never answer: press the key on its own"
			return nil
		}
		m.gate.hold(pd, res)
		return nil
	}
	return m.carryOut(d, res)
}

// release sends a held answer whose key came alone, if its request still waits here.
func (m *Model) release(h *heldAnswer) tea.Cmd {
	if m.dialogs.prompt(h.dialog.ia.ID) != h.dialog {
		return nil
	}
	// What was chosen is said when the engine confirms; the request may be gone by then.
	req := h.res.control
	m.gate.said[req.InteractionID] = answerText(h.dialog.ia, req.Decision, req.OptionID, req.Answer, req.Grant)
	return m.carryOut(h.dialog, h.res)
}

func (m *Model) carryOut(d dialog, res dialogResult) tea.Cmd {
	if res.close {
		m.dialogs.remove(d)
	}
	if res.quit {
		return tea.Quit
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
			m.finalizing[res.control.TaskID] = m.now()
			m.setStatus("finalizing "+res.control.TaskID+": verifying and committing…", false, "")
		}
		cmd = m.control(*res.control)
	}
	if res.draft != "" {
		cmd = m.draftContract(res.draft)
	}
	if res.review != nil {
		cmd = res.review(m)
	}
	if res.delegate != nil {
		m.lastForm = *res.delegate
		m.setStatus("starting task "+res.delegate.TaskID+"…", false, "")
		cmd = m.delegate(*res.delegate)
	}
	return cmd
}

func (m *Model) selectedTask() *core.TaskView { return m.list.selectedTask() }

func (m *Model) moveSelection(delta int) tea.Cmd {
	if !m.list.move(delta) {
		return nil
	}
	return m.selectionChanged()
}

func (m *Model) selectionChanged() tea.Cmd {
	ti := m.task(m.list.selected)
	var cmds []tea.Cmd
	if ti.detail == nil || ti.stale {
		cmds = append(cmds, m.fetchDetail(m.list.selected))
	}
	cmds = append(cmds, m.replay(m.list.selected))
	return tea.Batch(cmds...)
}

func (m *Model) scrollKey(msg tea.KeyMsg) {
	t := m.list.selectedTask()
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
		scrollViewport(&ti.contract, msg, k)
	}
}

// setStatus shows a message in the header until it expires or, when taskID is set, until that
// task changes state.
func (m *Model) setStatus(s string, isErr bool, taskID string) {
	st := status{text: s, isErr: isErr, at: m.now(), taskID: taskID}
	if t := m.list.index(taskID); t >= 0 {
		st.state = m.list.tasks[t].State
	}
	m.status = st
	if isErr {
		m.log.Warn("dashboard", "status", s)
	}
}

// currentStatus is the status message while it is still fresh.
func (m *Model) currentStatus() (string, bool) {
	st := m.status
	if st.text == "" || m.now().Sub(st.at) >= statusTTL {
		return "", false
	}
	if i := m.list.index(st.taskID); st.taskID != "" && i >= 0 && m.list.tasks[i].State != st.state {
		return "", false
	}
	return st.text, st.isErr
}

// ---- waits ----

// isWaiting reports whether a task is in a wait the person should see moving.
func (m *Model) isWaiting(tv core.TaskView) bool {
	if _, ok := m.finalizing[tv.TaskID]; ok {
		return true
	}
	switch tv.State {
	case core.StateProvisioning, core.StateRunning, core.StateVerifying:
		return true
	}
	return false
}

func (m *Model) anyWaiting() bool {
	for _, tv := range m.list.tasks {
		if m.isWaiting(tv) {
			return true
		}
	}
	return len(m.finalizing) > 0
}

// waitLabel is the spinner and the elapsed time of a task's current wait, or "".
func (m *Model) waitLabel(tv core.TaskView) string {
	if !m.isWaiting(tv) {
		return ""
	}
	since := m.task(tv.TaskID).since
	what := strings.ReplaceAll(string(tv.State), "_", " ")
	if at, ok := m.finalizing[tv.TaskID]; ok {
		since, what = at, "finalizing"
	}
	if since.IsZero() {
		return m.spin.View() + " " + what
	}
	return m.spin.View() + " " + what + " " + humanAge(m.now().Sub(since))
}

// ---- notices ----

func commitNotice(taskID, hash, branch, integration string) *noticeDialog {
	if integration == "" {
		integration = "git cherry-pick " + hash
	}
	return &noticeDialog{
		title:   "Committed " + taskID,
		lines:   []string{"commit " + hash, "branch " + branch, "", "Bring it into your checkout with:"},
		command: integration,
	}
}

var nextSteps = map[core.NextAction]string{
	core.NextFixRequest:             "Fix what the message names and try again.",
	core.NextInstallOrUpgrade:       "Install or upgrade the missing piece (reasonixctl doctor says which), then try again.",
	core.NextCreateNewTask:          "Start a new task with another id (n).",
	core.NextInspectTask:            "Look at the task's current state (ctrl+r reloads it) before acting again.",
	core.NextResolveSourceCollision: "Resolve the overlapping changes in your checkout, then try again.",
	core.NextRepairAndFinalize:      "Steer a repair round (s) saying what to fix, review the new diff, then finalize again (F).",
	core.NextRetry:                  "Try again in a moment.",
	core.NextNone:                   "This is unexpected; the log has the details.",
}

// nextByCode overrides the generic next step where the code says more.
var nextByCode = map[core.Code]string{
	core.CodeReasonixUnavailable:  "Run `reasonixctl doctor`: it says whether the worker binary is missing, too old or misconfigured. Fix that, then start the task again.",
	core.CodeReasonixIncompatible: "Run `reasonixctl doctor` to see which worker version and features are needed.",
	core.CodeVerificationFailed:   "Read the whole log in the checks view (4), steer a repair round (s) saying what to fix, review the new diff, then finalize again (F).",
	core.CodeSandboxUnavailable:   "Install bubblewrap (Debian/Ubuntu: apt install bubblewrap; Fedora: dnf install bubblewrap), then check with `reasonixctl doctor`.",
}

func errorNotice(title string, err error) *noticeDialog {
	return &noticeDialog{title: title, lines: describeError(err), isErr: true}
}

// describeError renders a *core.Error as plain lines: what happened, the details that matter and
// what to do next.
func describeError(err error) []string {
	e := core.AsError(err)
	msgLines := strings.Split(e.Message, "\n")
	lines := []string{string(e.Code) + ": " + msgLines[0]}
	for _, l := range msgLines[1:] {
		lines = append(lines, "  │ "+l)
	}
	next := nextSteps[e.NextAction]
	if n, ok := nextByCode[e.Code]; ok {
		next = n
	}
	if s := e.Stale; s != nil {
		lines = append(lines, fmt.Sprintf("The review snapshot moved on at %s: you reviewed %s, the task now has %s.",
			s.Checkpoint, snapshotText(s.Expected), snapshotText(s.Current)))
		next = "The diff has been reloaded: review it again (2) and finalize against the new snapshot (F)."
	}
	// A failed check's message already says what ran, how it ended, its log and its tail.
	for _, is := range e.Issues {
		lines = append(lines, "• "+is.Path+": "+is.Message)
	}
	for _, k := range e.OtherDetails() {
		switch k {
		case "baseline", "pre_existing_failure", "placeholders":
			// The base commit's output is in the checks tab; the placeholders are the issues.
			continue
		}
		lines = append(lines, k+": "+compactJSON(e.Details[k]))
	}
	if next != "" {
		lines = append(lines, "", "Next: "+next)
	}
	return lines
}

// snapshotText names a review snapshot: its revision and the start of its tree hash.
func snapshotText(s core.ReviewSnapshot) string {
	text := fmt.Sprintf("revision %d", s.ReviewRevision)
	if h := s.ReviewTreeHash; h != "" {
		text += " (tree " + h[:min(len(h), 12)] + ")"
	}
	return text
}

// oneLine is an error as one line to draw (errors quote paths, worker text and other foreign
// strings).
func oneLine(err error) string { return sanitizeLine(err.Error()) }
