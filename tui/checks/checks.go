package checks

import (
	"context"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
	"reasonixctl/tui/bind"
	"reasonixctl/tui/intent"
	"reasonixctl/tui/term"
)

// Env is what the tab needs of the dashboard: how it draws and reads keys, and where logs come
// from. Ctx bounds each read.
type Env struct {
	Theme term.Theme
	Keys  bind.KeyMap
	Ctx   context.Context
	Logs  LogReader
}

// Model is one task's checks tab: the selected check, its log in a viewport, and a search in
// that log.
type Model struct {
	env    Env
	taskID string

	loaded  bool                      // the task's detail has arrived
	view    core.TaskView             // the task as its detail has it: what core lets D do
	results []core.VerificationResult // the last finalize attempt's

	sel     int
	attempt string               // the attempt sel belongs to: a new one starts on its first failed check
	logs    map[string]*checkLog // by logKey
	vp      viewport.Model
	shown   string // the log the viewport holds, as wrapped (shownKey)
	search  logSearch

	width, height int // what the dashboard gives the tab to draw in
}

// New is the checks tab of task taskID, before its detail arrives.
func New(taskID string, env Env) Model {
	return Model{env: env, taskID: taskID}
}

// Result is what a key asks of the dashboard.
type Result struct {
	// Took says the tab took the key; false hands it on to the dashboard's own keys.
	Took bool
	// Status, when set, says why the key did nothing, for the status line.
	Status string
	// Do, when set, is an action for the root to carry out: D asks, with an intent.Confirm,
	// before dropping the selected check.
	Do intent.Action
}

// Show gives the tab the task's detail as it stands now: its view and the last finalize
// attempt's verification. A new attempt's results open on their first failed check, and the
// earlier attempt's logs are dropped: the store has replaced them too.
func (m Model) Show(view core.TaskView, results []core.VerificationResult) Model {
	m.loaded, m.view, m.results = true, view, results
	m.sync()
	return m
}

// Resize gives the tab the size it draws in: paging and the log search work on the log's lines
// as wrapped to it.
func (m Model) Resize(width, height int) Model {
	m.width, m.height = width, height
	return m
}

// sync clamps the selection to the checks shown and moves it to the first failed check when a
// new attempt's results arrive.
func (m *Model) sync() {
	var b strings.Builder
	for _, v := range m.results {
		b.WriteString(logKey(v) + "\x00")
	}
	if a := b.String(); a != m.attempt {
		// The earlier attempt's logs are gone from the store too: keep none of them.
		m.attempt, m.sel, m.search, m.logs, m.shown = a, 0, logSearch{}, nil, ""
		for i, v := range m.results {
			if !v.Passed {
				m.sel = i
				break
			}
		}
	}
	m.sel = term.Clamp(m.sel, 0, len(m.results)-1)
}

// OnScreen is called by the dashboard while the tab is on screen, after the tab was given its
// size: it starts reading the selected check's log unless it is read or being read (a log is
// read only once someone looks at it), and lays a log that arrived out at the tab's size, so
// that each frame draws it without laying it out again.
func (m Model) OnScreen() (Model, tea.Cmd) {
	if len(m.results) == 0 {
		return m, nil
	}
	v := m.results[m.sel]
	k := logKey(v)
	if m.logs == nil {
		m.logs = map[string]*checkLog{}
	}
	if lg := m.logs[k]; lg != nil {
		if !lg.loading && lg.err == nil && m.shown != shownKey(v, m.width) {
			_ = m.render(m.width, m.height)
		}
		return m, nil
	}
	m.logs[k] = &checkLog{loading: true}
	return m, m.read(v.ID, k)
}

// Capturing says keys are text right now: the log search's query is being typed.
func (m Model) Capturing() bool { return m.search.typing }

// Update takes a key, or a log read for this task.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd, Result) {
	switch msg := msg.(type) {
	case LogRead:
		if msg.TaskID == m.taskID {
			m.keep(msg)
		}
	case tea.KeyMsg:
		return m.key(msg)
	}
	return m, nil, Result{}
}

// keep keeps a check's log as read.
func (m *Model) keep(msg LogRead) {
	if m.logs == nil {
		m.logs = map[string]*checkLog{}
	}
	m.logs[msg.key] = &checkLog{text: msg.text, size: msg.size, truncated: msg.truncated, err: msg.err}
}

// selected is the selected check and its log (nil until read), or nils with no checks.
func (m *Model) selected() (*core.VerificationResult, *checkLog) {
	if len(m.results) == 0 {
		return nil, nil
	}
	v := &m.results[m.sel]
	return v, m.logs[logKey(*v)]
}

func (m Model) key(msg tea.KeyMsg) (Model, tea.Cmd, Result) {
	// Lay the log out at the tab's size first: paging and search work on its wrapped lines.
	_ = m.render(m.width, m.height)
	if m.search.typing {
		_, lg := m.selected()
		return m, nil, Result{Took: m.typeKey(msg, lg)}
	}
	sel := m.sel
	res, why, found := m.table(false).Dispatch(msg)
	if !found {
		return m, nil, Result{}
	}
	res.Took, res.Status = true, why
	var cmd tea.Cmd
	if m.sel != sel {
		m, cmd = m.OnScreen()
	}
	return m, cmd, res
}

// table is the tab's keys as they stand: with no checks they say so; paging needs a log, and
// n, N and esc are the search's only while one is kept (else n starts a new task, as
// everywhere). every lists each key whatever the state, for the help.
func (m *Model) table(every bool) bind.Table[Result] {
	k := m.env.Keys
	v, lg := m.selected()
	var none, one func() string
	switch {
	case !m.loaded:
		none = func() string { return "the checks of " + m.taskID + " are still loading" }
		one = none
	case v == nil:
		none = func() string {
			return "no checks yet: finalizing (F) runs the contract's verification commands and shows them here"
		}
		one = none
	case len(m.results) == 1:
		one = func() string { return "there is only one check" }
	}
	step := func(f func()) func(tea.KeyMsg) Result {
		return func(tea.KeyMsg) Result { f(); return Result{} }
	}
	t := bind.Table[Result]{
		{Key: k.PrevCheck, WhyNot: one, Run: step(func() {
			if m.sel > 0 {
				m.sel--
				m.search = logSearch{}
			}
		})},
		{Key: k.NextCheck, Short: "check", WhyNot: one, Run: step(func() {
			if m.sel+1 < len(m.results) {
				m.sel++
				m.search = logSearch{}
			}
		})},
		{Key: k.DropCheck, WhyNot: func() string {
			if v == nil {
				return none()
			}
			return core.WhyNot(m.view, core.ActionAmendChecks)
		}, Run: func(tea.KeyMsg) Result {
			return Result{Do: m.askDrop(v.ID)}
		}},
		{Key: k.Search, Short: "search log", WhyNot: none, Run: step(func() {
			m.search = logSearch{typing: true, origin: m.vp.YOffset, cur: -1}
		})},
	}
	if v != nil || every {
		t = append(t,
			bind.Binding[Result]{Key: k.PageUp, Run: step(func() { m.vp.PageUp() })},
			bind.Binding[Result]{Key: k.PageDown, Run: step(func() { m.vp.PageDown() })},
			bind.Binding[Result]{Key: k.Top, Run: step(func() { m.vp.GotoTop() })},
			bind.Binding[Result]{Key: k.Bottom, Run: step(func() { m.vp.GotoBottom() })},
		)
	}
	if m.search.query != "" || every {
		t = append(t,
			bind.Binding[Result]{Key: k.NextMatch, Run: step(func() { m.nextMatch(1, lg) })},
			bind.Binding[Result]{Key: k.PrevMatch, Run: step(func() { m.nextMatch(-1, lg) })},
			bind.Binding[Result]{Key: k.ClearSearch, Run: step(func() { m.search = logSearch{} })},
		)
	}
	return t
}

// askDrop asks the root to ask the person before dropping check id from the contract.
func (m *Model) askDrop(id string) intent.Action {
	return intent.Confirm{
		Title: "Drop " + safetext.Line(id) + " from " + m.view.TaskID + "'s contract?",
		Body: "Finalize will no longer run it; a criterion only it proved becomes one you approve at finalize. " +
			"The contract gets a new revision, and the worker is told at its next prompt.",
		Yes: intent.DropCheck{TaskID: m.view.TaskID, Check: id},
	}
}

// Footer is the tab's keys that would run now, with their footer words.
func (m Model) Footer() []key.Binding { return m.table(false).Footer() }

// Help is the tab's group in the full help: every key it takes, whatever the state.
func (m Model) Help() bind.Group {
	return bind.Group{Title: "Checks", Bindings: m.table(true).Help()}
}
