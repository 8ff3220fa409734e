package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/tui/dialog"
)

// pendingIA is an interaction waiting for the supervisor.
type pendingIA struct {
	taskID    string
	ia        core.Interaction
	deferred  bool // put aside with esc: it does not open by itself again
	answering bool // a respond is in flight
}

// requests are the workers' requests waiting for the person: which wait, and which were put
// aside (esc) or are being answered. The dialog stack shows them; the root opens them
// (surfacePrompt, openNextPending, intent.OpenRequest); a task that starts waiting is announced by attend
// (attention.go).
type requests struct {
	items []*pendingIA
}

func (r *requests) find(id string) *pendingIA {
	for _, p := range r.items {
		if p.ia.ID == id {
			return p
		}
	}
	return nil
}

func (r *requests) add(taskID string, ia core.Interaction) {
	if ia.ID == "" || r.find(ia.ID) != nil {
		return
	}
	r.items = append(r.items, &pendingIA{taskID: taskID, ia: ia})
}

func (r *requests) drop(id string) {
	for i, p := range r.items {
		if p.ia.ID == id {
			r.items = append(r.items[:i:i], r.items[i+1:]...)
			return
		}
	}
}

// handled notes what its prompt did with request id: put it aside (later), so that it no
// longer opens by itself, and whether an answer is now on its way.
func (r *requests) handled(id string, later, answering bool) {
	if p := r.find(id); p != nil {
		p.deferred = p.deferred || later
		p.answering = answering
	}
}

// waitingFor reports whether a request of the task waits for an answer.
func (r *requests) waitingFor(taskID string) bool { return r.waitingOf(taskID) != nil }

// waitingOf is the task's first request that waits for an answer, or nil.
func (r *requests) waitingOf(taskID string) *pendingIA {
	for _, p := range r.items {
		if p.taskID == taskID && !p.answering {
			return p
		}
	}
	return nil
}

// count is how many requests wait for an answer.
func (r *requests) count() int {
	n := 0
	for _, p := range r.items {
		if !p.answering {
			n++
		}
	}
	return n
}

// opening is the request of the selected task that opens by itself: waiting, not put aside.
func (r *requests) opening(selected string) *pendingIA {
	for _, p := range r.items {
		if p.taskID == selected && !p.deferred && !p.answering {
			return p
		}
	}
	return nil
}

// next is the request `i` opens: the selected task's first, else the oldest waiting one.
func (r *requests) next(selected string) *pendingIA {
	var next *pendingIA
	for _, p := range r.items {
		if p.answering {
			continue
		}
		if next == nil || (p.taskID == selected && next.taskID != selected) {
			next = p
		}
	}
	return next
}

// forget drops request id and closes its prompt in s.
func (r *requests) forget(id string, s *dialog.Stack) {
	r.drop(id)
	if d := s.Prompt(id); d != nil {
		s.Remove(d)
	}
}

// prompt is the dialog that asks the person request p, with lastAgent, the agent's latest words.
func (r *requests) prompt(p *pendingIA, lastAgent string) *dialog.Prompt {
	return dialog.NewPrompt(p.taskID, p.ia, lastAgent, r.count()-1)
}

// surfacePrompt opens the selected task's waiting request, but only when nothing else is open
// and nothing is taking text: a request of another task, or one arriving while the person uses
// a dialog, a form or a search box, is announced (header count, row marker, bell) and waits for
// `i`.
func (m *Model) surfacePrompt() {
	if !m.dialogs.Empty() || m.capturing() {
		return
	}
	if p := m.requests.opening(m.list.selected); p != nil {
		m.push(m.requests.prompt(p, m.info.task(p.taskID).lastAgent))
	}
}

// openNextPending is `i`: the selected task's request first, else the oldest waiting one.
func (m *Model) openNextPending() tea.Cmd {
	next := m.requests.next(m.list.selected)
	if next == nil {
		m.setStatus("nothing is waiting for you", false, "")
		return nil
	}
	next.deferred = false
	var cmd tea.Cmd
	if next.taskID != m.list.selected && m.list.index(next.taskID) >= 0 {
		m.list.selected = next.taskID
		cmd = m.info.selectionChanged(m.list.selected)
	}
	m.push(m.requests.prompt(next, m.info.task(next.taskID).lastAgent))
	return cmd
}
