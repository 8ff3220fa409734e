package contract

import (
	"encoding/json"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/tui/bind"
	"reasonixctl/tui/term"
)

// Model is one task's contract tab: the detail it draws and the viewport that pages it.
type Model struct {
	theme  term.Theme
	keys   bind.KeyMap
	detail *core.TaskDetail // nil until it arrives
	vp     viewport.Model

	width, height int // what the dashboard gives the tab to draw in
}

// New is a contract tab drawing with theme and reading keys from keys, before its task's
// detail arrives.
func New(theme term.Theme, keys bind.KeyMap) Model {
	return Model{theme: theme, keys: keys}
}

// Result is what a key asks of the dashboard.
type Result struct {
	// Took says the tab took the key; false hands it on to the dashboard's own keys.
	Took bool
	// Status, when set, says why the key did nothing, for the status line.
	Status string
}

// Show gives the tab the task's detail as it stands now.
func (m Model) Show(d *core.TaskDetail) Model {
	m.detail = d
	return m
}

// Resize gives the tab the size it draws in: a page is its height.
func (m Model) Resize(width, height int) Model {
	m.width, m.height = width, height
	return m
}

// Update takes a key: the tab pages.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd, Result) {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return m, nil, Result{}
	}
	// Lay the text out at the tab's size first: a page is the viewport's height.
	_ = m.render(m.width, m.height)
	_, why, found := m.table().Dispatch(k)
	return m, nil, Result{Took: found, Status: why}
}

// table is the tab's keys: it pages, and says so while the detail is on its way.
func (m *Model) table() bind.Table[struct{}] {
	k := m.keys
	loading := func() string {
		if m.detail == nil {
			return "the contract is still loading"
		}
		return ""
	}
	step := func(f func()) func(tea.KeyMsg) struct{} {
		return func(tea.KeyMsg) struct{} { f(); return struct{}{} }
	}
	return bind.Table[struct{}]{
		{Key: k.PageUp, WhyNot: loading, Run: step(func() { m.vp.PageUp() })},
		{Key: k.PageDown, WhyNot: loading, Run: step(func() { m.vp.PageDown() })},
		{Key: k.Top, WhyNot: loading, Run: step(func() { m.vp.GotoTop() })},
		{Key: k.Bottom, WhyNot: loading, Run: step(func() { m.vp.GotoBottom() })},
	}
}

// Footer is the tab's keys that would run now, with their footer words: paging goes without
// saying.
func (m Model) Footer() []key.Binding { return m.table().Footer() }

// Help is the tab's group in the full help.
func (m Model) Help() bind.Group {
	return bind.Group{Title: "Contract", Bindings: m.table().Help()}
}

// contractView is the part of a task contract the tab shows; the engine owns validation.
type contractView struct {
	WriteScope     []string         `json:"write_scope"`
	ForbiddenScope []string         `json:"forbidden_scope"`
	Criteria       []core.Criterion `json:"acceptance_criteria"`
}

func parseContract(raw json.RawMessage) contractView {
	var c contractView
	_ = json.Unmarshal(raw, &c)
	return c
}
