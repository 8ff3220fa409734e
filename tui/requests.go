package tui

import (
	"io"

	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
)

// pendingIA is an interaction waiting for the supervisor.
type pendingIA struct {
	taskID    string
	ia        core.Interaction
	deferred  bool // put aside with esc: it does not open by itself again
	answering bool // a respond is in flight
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
