package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/tui/contract"
)

// contractTab is the selected task's contract tab (tui/contract) as the pane with the keys: it
// pages.
type contractTab struct{ m *Model }

func (p contractTab) capturing() bool { return false }

func (p contractTab) key(msg tea.KeyMsg) (tea.Cmd, bool) {
	m := p.m
	tv, ti := m.info.selected(&m.list)
	if ti == nil {
		return nil, false
	}
	var res contract.Result
	ti.contract, _, res = ti.contract.Resize(m.layout().detail()).Update(msg)
	if res.Status != "" {
		m.setStatus(res.Status, false, tv.TaskID)
	}
	return nil, res.Took
}

func (p contractTab) view(w, h int) string {
	_, ti := p.m.info.selected(&p.m.list)
	return ti.contract.View(w, h)
}
