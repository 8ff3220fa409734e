package tui

import (
	"context"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/tui/bind"
	"reasonixctl/tui/checks"
	"reasonixctl/tui/dialog"
	"reasonixctl/tui/events"
	"reasonixctl/tui/intent"
	"reasonixctl/tui/replay"
	"reasonixctl/tui/review"
	"reasonixctl/tui/term"
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
	// Worker is the worker the new-task form proposes (CODEX_REASONIX_WORKER); empty means
	// reasonix.
	Worker string
	Logger *slog.Logger
	// Notify rings the terminal bell and sends an OSC 9 notification to Output when a task
	// starts waiting for the person or becomes ready to finalize, while the terminal is not
	// focused (or never said whether it is).
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
	// Intro, when set, is a note shown first, before any request opens: what is running and
	// what comes next (the demo says what its scripted worker is about to do).
	Intro *Note

	// animate lets the model schedule its own timers (spinner frames, the end of a prompt's key
	// grace). Run sets it; tests leave it off and move a fake clock instead.
	animate bool
}

// Messages from the relay (run.go) and the clock; the results of service commands are typed
// per command (service.go and each part's file).
type (
	// eventsMsg is the relay's batch: the events that came within one frame, in order.
	eventsMsg []core.Event
	resyncMsg struct{ err error }
	tickMsg   time.Time
	redrawMsg struct{}
)

// Model is the dashboard's root model. It sizes the screen, relays each message to the part it
// belongs to, owns the focus (the tab, the replay) and the dialog stack, routes keys to
// whichever has focus and carries out what dialogs ask (actions.go).
type Model struct {
	cmds *commands // the service's calls (service.go)
	opts Options
	ui   // the theme, the key map and the clock every part shares
	log  *slog.Logger

	width, height int          // the terminal's; the layout follows from them (layout.go)
	list          taskList     // the tasks in attention order and the selection (tasklist.go)
	info          taskData     // what the dashboard keeps of each task (tasks.go)
	requests      requests     // waiting for the person (requests.go)
	dialogs       dialog.Stack // the dialogs open, the top one with the keys (tui/dialog)
	tab           detailTab
	status        status // the header's one-line message (status.go)
	waits         waits  // the tasks in a wait, and the spinner (status.go)
	graceTimer    bool
	gate          answerGate // every answer to a request passes it (answer.go)
	lastForm      intent.NewTask
	attach        attachState    // the owner of an attached dashboard's state directory (attach.go)
	rp            *replay.Model  // the replay on screen, if any
	usage         usageToday     // each task's share of today's usage (usage.go)
	review        review.Review  // the review tab: every task's review (tui/review)
	attn          attentionWatch // each task's attention group and the terminal's focus (attention.go)
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
	theme := term.DefaultTheme()
	if opts.Monochrome {
		theme = term.MonochromeTheme()
	}
	keys := bind.DefaultKeyMap()
	sp := spinner.New(spinner.WithSpinner(spinner.MiniDot), spinner.WithStyle(theme.Pending))
	attach := attachState{attached: opts.Attached, stateDir: opts.StateDir}
	if opts.Attached != nil {
		owner, ok := opts.Attached.Owner()
		attach.owner, attach.gone = owner, !ok
	}
	cmds := &commands{svc: svc, ctx: ctx, checkDrafts: opts.CheckDrafts, awayHook: opts.Away}
	u := ui{theme: theme, keys: keys, now: opts.Now}
	return &Model{
		cmds: cmds, opts: opts, log: lg, ui: u, attach: attach,
		info: taskData{byID: map[string]*taskInfo{}, cmds: cmds, ui: u,
			events: &events.Env{Theme: theme, Keys: keys, Ctx: ctx, Journal: svc}},
		waits:    waits{finalizing: map[string]time.Time{}, spin: sp},
		attn:     attentionWatch{notify: opts.Notify, out: opts.Output},
		lastForm: intent.NewTask{RepoDir: opts.Dir, Lane: core.LaneFast, Worker: opts.Worker},
		review:   review.New(review.Config{Service: svc, Context: ctx, Theme: theme, Keys: keys, Now: opts.Now, Monochrome: opts.Monochrome}),
	}
}

// Note is a titled note of a few paragraphs.
type Note struct {
	Title string
	Lines []string
}

// Init loads the task list.
func (m *Model) Init() tea.Cmd {
	fresh := m.dialogs.Empty()
	if n := m.opts.Intro; n != nil && fresh {
		m.push(dialog.Intro(n.Title, n.Lines))
	}
	if m.opts.Unshared != nil && fresh {
		m.push(errorNotice("Other processes cannot attach to this dashboard", m.opts.Unshared))
	}
	return m.cmds.refreshList(&m.list)
}

// Update handles one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmds []tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		hidden := m.layout().tooSmall()
		m.width, m.height = msg.Width, msg.Height
		if hidden && !m.layout().tooSmall() {
			// A prompt behind the too-small notice was never faced: its grace starts now.
			m.dialogs.Regrace(m.now())
		}
	case tea.KeyMsg:
		cmds = append(cmds, m.handleKeys(msg))
	case keyQuietMsg:
		if h := m.gate.release(msg.n, &m.dialogs); h != nil {
			cmds = append(cmds, m.carryOut(h.prompt, h.res))
		}
	case tea.FocusMsg, tea.BlurMsg:
		m.attn.onFocus(msg)
	case tea.ResumeMsg:
		cmds = append(cmds, m.cmds.away(false), m.cmds.refreshList(&m.list))
	case eventsMsg:
		for _, ev := range msg {
			cmds = append(cmds, m.ingest(ev))
		}
	case resyncMsg:
		cmds = append(cmds, m.resync(msg.err))
	case tickMsg:
		// Re-renders (ages, elapsed times and the grace cue read the clock in View), and looks
		// whether the selected task's checkout moved under its apply line.
		m.graceTimer = false
		cmds = append(cmds, diffTab{m}.send(review.Tick{TaskID: m.list.selected}))
	case redrawMsg:
		m.graceTimer = false
	case spinner.TickMsg:
		if m.waits.any(m.list.tasks) {
			var cmd tea.Cmd
			m.waits.spin, cmd = m.waits.spin.Update(msg)
			cmds = append(cmds, cmd)
		} else {
			m.waits.spinning = false
		}
	case tasksMsg:
		cmds = append(cmds, m.onTasks(msg))
	case detailMsg:
		cmds = append(cmds, m.onDetail(msg))
	case replayMsg:
		m.onReplay(msg)
	case events.PageMsg:
		cmds = append(cmds, eventsTab{m}.deliver(msg.TaskID, msg))
	case events.SearchPageMsg:
		cmds = append(cmds, eventsTab{m}.deliver(msg.TaskID, msg))
	case controlMsg:
		cmds = append(cmds, m.onControl(msg))
	case delegateMsg:
		if msg.err != nil {
			// "starting task x…" (or "resuming x…") spoke of a start that has failed: the form or
			// the notice given back now says why, and the line must not go on saying it starts.
			m.status = status{}
		}
		cmds = append(cmds, m.onDelegate(msg))
	case draftMsg:
		if d, ok := m.dialogs.Top().(*dialog.NewTask); ok {
			d.Drafted(core.DraftResult{Path: msg.path, Draft: msg.draft, Checked: msg.checked}, msg.err)
		}
	case ownerMsg:
		if say, isErr, reload := m.attach.follow(); say != "" {
			m.setStatus(say, isErr, "")
			if reload {
				// The relay re-subscribes by itself too; reloading here does not depend on
				// which of the two arrives first.
				cmds = append(cmds, m.resync(nil))
			}
		}
	case checks.LogRead:
		ti := m.info.task(msg.TaskID)
		ti.checks, _, _ = ti.checks.Update(msg)
	case dialog.GrantsMsg:
		m.dialogs.GrantsAnswered(msg)
	case replay.LoadedMsg:
		if m.rp != nil {
			m.rp, _, _ = m.rp.Update(msg)
		}
	// The results of a review, editor or apply command: each is a typed message, most of them
	// carrying their task's id.
	case review.Message:
		cmds = append(cmds, diffTab{m}.send(msg))
	case contractEditedMsg:
		if d, ok := m.dialogs.Top().(*dialog.NewTask); ok {
			d.Edited(msg.path, msg.err)
		}
	case applyMsg:
		cmds = append(cmds, m.onApply(msg))
	}
	m.surfacePrompt()
	followPreviews(&m.dialogs, &m.review)
	cmds = append(cmds, m.attn.attend(&m.list, &m.requests))
	m.info.trackStates(m.list.tasks, m.now())
	cmds = append(cmds, checksTab{m}.onScreen())
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
	if !m.waits.spinning && m.waits.any(m.list.tasks) {
		m.waits.spinning = true
		cmds = append(cmds, m.waits.spin.Tick)
	}
	if left := m.dialogs.GraceLeft(m.now()); left > 0 && !m.graceTimer {
		m.graceTimer = true
		cmds = append(cmds, tea.Tick(left+10*time.Millisecond, func(time.Time) tea.Msg { return redrawMsg{} }))
	}
	return tea.Batch(cmds...)
}

// handleKeys splits a key message that carries several runes (keys that arrived in one read:
// fast typing, `tmux send-keys 2 3`) into one key each, unless a text input has focus, where
// they are text. A paste only ever goes to a text input.
func (m *Model) handleKeys(msg tea.KeyMsg) tea.Cmd {
	alone, quiet := m.gate.key(m.opts.animate)
	if m.layout().tooSmall() {
		// Only the notice is on screen: nothing behind it may take a key but quitting.
		if msg.Type == tea.KeyCtrlC || key.Matches(msg, m.keys.Quit) {
			return tea.Batch(quiet, m.askQuit())
		}
		return quiet
	}
	top := m.dialogs.Top()
	typing := m.capturing()
	if typing && msg.Type == tea.KeyRunes && len(msg.Runes) > 1 {
		// Text, like a paste: a read that is exactly "right", "enter" or "end" must be typed,
		// not taken for the key of that name.
		msg.Paste = true
	}
	if msg.Paste {
		if typing && top != nil && !m.dialogs.Swallow(m.now()) {
			res := top.Update(msg, m.keys)
			var cmd tea.Cmd
			if m.gate.admit(top, res, false) {
				cmd = m.carryOut(top, res)
			}
			return tea.Batch(quiet, cmd)
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

// input is the one question the root asks every component that takes keys: a dialog, the
// replay, a tab of the detail.
type input interface {
	// capturing reports whether keys are text right now (a form's field, a search box).
	capturing() bool
}

// pane is a component that can hold the keys when no dialog is open: the replay, or the
// selected task's tab (panes.go).
type pane interface {
	input
	// key handles one key; false hands it on to the dashboard's own keys.
	key(msg tea.KeyMsg) (tea.Cmd, bool)
}

// capturing reports whether keys are text right now: the top dialog's answer, or, with no
// dialog open, the focused pane's. It is the one question the key router and the prompt's
// opening ask.
func (m *Model) capturing() bool {
	if top := m.dialogs.Top(); top != nil {
		return top.Capturing()
	}
	if p := m.focused(); p != nil {
		return p.capturing()
	}
	return false
}

// handleKey routes one key: to the top dialog if any, else to the focused pane, else to the
// dashboard's own keys (actions.go). alone says it arrived by itself, the only way a key may
// answer a request (answer.go).
func (m *Model) handleKey(msg tea.KeyMsg, alone bool) tea.Cmd {
	if key.Matches(msg, m.keys.Suspend) {
		return m.askSuspend()
	}
	if top := m.dialogs.Top(); top != nil {
		return m.dialogKey(top, msg, alone)
	}
	if p := m.focused(); p != nil {
		if cmd, ok := p.key(msg); ok {
			return cmd
		}
	}
	return m.globalKey(msg)
}

// dialogKey gives a key to the top dialog, unless the stack keeps it (dialog.Stack.Key).
func (m *Model) dialogKey(top dialog.Dialog, msg tea.KeyMsg, alone bool) tea.Cmd {
	switch m.dialogs.Key(msg, m.keys, m.now()) {
	case dialog.Took:
		return nil
	case dialog.Quit:
		return tea.Quit
	case dialog.AskQuit:
		return m.askQuit()
	case dialog.ShowHelp:
		m.push(dialog.NewHelp(m.helpGroups()))
		return nil
	}
	res := top.Update(msg, m.keys)
	if d, ok := top.(*dialog.NewTask); ok && res.Close && res.Delegate == nil {
		// Closed without starting: the next form opens with what this one held (a path fixed
		// after a failed start, a drafted contract), not with the last submission's.
		m.lastForm = d.Value()
	}
	if !m.gate.admit(top, res, alone) {
		return nil
	}
	return m.carryOut(top, res)
}

// ui is what the parts of the dashboard share to draw and read keys: the theme, the key map
// (keys.go) and the clock, which tests move by hand.
type ui struct {
	theme term.Theme
	keys  bind.KeyMap
	now   func() time.Time
}
