package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/tui/events"
)

// eventsTab is the events tab: the selected task's events pane (tui/events), with its search
// and filter; keys that scroll past what is loaded page the journal in.
type eventsTab struct{ m *Model }

func (p eventsTab) capturing() bool {
	_, ti := p.m.info.selected(&p.m.list)
	return ti != nil && ti.events.Capturing()
}

func (p eventsTab) key(msg tea.KeyMsg) (tea.Cmd, bool) {
	t, ti := p.m.info.selected(&p.m.list)
	if ti == nil {
		return nil, false
	}
	var cmd tea.Cmd
	var res events.Result
	ti.events, cmd, res = ti.events.Update(msg)
	if res.Pass {
		return nil, false
	}
	return p.did(t.TaskID, cmd, res), true
}

func (p eventsTab) view(w, h int) string {
	_, ti := p.m.info.selected(&p.m.list)
	if ti.replaying && ti.events.Empty() {
		return p.m.theme.Dim.Render(" reading the journal…")
	}
	return ti.events.View(w, h)
}

// deliver gives task id's events pane, on screen or not, a message of its own (a page of the
// journal it asked for).
func (p eventsTab) deliver(id string, msg tea.Msg) tea.Cmd {
	ti := p.m.info.task(id)
	var cmd tea.Cmd
	var res events.Result
	ti.events, cmd, res = ti.events.Update(msg)
	return p.did(id, cmd, res)
}

// did carries out what task id's events pane asked: a status line, or the newest window of the
// journal read again.
func (p eventsTab) did(id string, cmd tea.Cmd, res events.Result) tea.Cmd {
	m := p.m
	if res.Status != "" {
		m.setStatus(res.Status, res.IsErr, id)
	}
	if ti := m.info.task(id); res.Reload && !ti.replaying {
		ti.replayed = false
		cmd = tea.Batch(cmd, m.info.replay(id))
	}
	return cmd
}
