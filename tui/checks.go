package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/tui/checks"
	"reasonixctl/tui/words"
)

// The checks tab (tui/checks) in the dashboard: each task keeps its own, which the root gives
// the task's detail (onDetail), the log reads it asked for (by task id), the keys while it has
// the focus, and the chance to read the selected log while it is on screen.

// checksTab is the selected task's checks tab as the pane with the keys.
type checksTab struct{ m *Model }

func (p checksTab) capturing() bool {
	_, ti := p.m.info.selected(&p.m.list)
	return ti != nil && ti.checks.Capturing()
}

// key gives a key to the selected task's checks; what the tab asks (a confirmation before
// dropping a check, a status saying why a key did nothing) the root carries out.
func (p checksTab) key(msg tea.KeyMsg) (tea.Cmd, bool) {
	m := p.m
	tv, ti := m.info.selected(&m.list)
	if ti == nil {
		return nil, false
	}
	var cmd tea.Cmd
	var res checks.Result
	ti.checks, cmd, res = ti.checks.Resize(m.layout().detail()).Update(msg)
	if res.Status != "" {
		m.setStatus(res.Status, false, tv.TaskID)
	}
	if res.Do != nil {
		cmd = tea.Batch(cmd, m.perform(res.Do))
	}
	return cmd, res.Took
}

func (p checksTab) view(w, h int) string {
	_, ti := p.m.info.selected(&p.m.list)
	return ti.checks.View(w, h)
}

// onScreen tells the selected task's checks tab, while it is on screen, its size and that it is
// seen: it reads the selected check's log then, and lays it out once rather than per frame.
func (p checksTab) onScreen() tea.Cmd {
	m := p.m
	if m.tab != tabChecks || m.rp != nil {
		return nil
	}
	_, ti := m.info.selected(&m.list)
	if ti == nil {
		return nil
	}
	var cmd tea.Cmd
	ti.checks, cmd = ti.checks.Resize(m.layout().detail()).OnScreen()
	return cmd
}

// checkStatus is how a check ended, as the replay's snapshot names it.
func checkStatus(v core.VerificationResult) string { return words.CheckStatus(v) }
