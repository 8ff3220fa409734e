package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/tui/replay"
)

// replayPane gives the keys to the replay on screen, which takes every key while it is open,
// and carries out what the replay asks of the dashboard.
type replayPane struct{ m *Model }

// open starts a replay of the selected task t (tui/replay), which takes the body and the keys
// until it is left.
func (p replayPane) open(t *core.TaskView) tea.Cmd {
	m := p.m
	if t == nil {
		m.setStatus("no task selected: nothing to replay", true, "")
		return nil
	}
	var cmd tea.Cmd
	m.rp, cmd = replay.Open(m.cmds.ctx, m.cmds.svc, t.TaskID, replay.Options{Theme: m.theme, Keys: m.keys})
	return cmd
}

func (p replayPane) capturing() bool { return false }

func (p replayPane) key(msg tea.KeyMsg) (tea.Cmd, bool) {
	m := p.m
	rp, cmd, res := m.rp.Update(msg)
	switch {
	case res.Pass:
		return nil, false
	case res.Leave:
		m.rp = nil
	default:
		m.rp = rp
	}
	if res.Status != "" {
		m.setStatus(res.Status, true, rp.TaskID())
	}
	return cmd, true
}
