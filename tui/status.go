package tui

import (
	"strings"
	"time"

	"reasonixctl/core"
	"reasonixctl/tui/term"
)

// statusTTL is how long a status message stays in the header.
const statusTTL = 5 * time.Second

// status is the one-line message in the header; it expires after statusTTL, when its task
// changes state, or when the terminal is resized: a message speaks of the screen it was shown
// on ("side by side needs 160 columns; this one is 120" is false at 170).
type status struct {
	text   string
	isErr  bool
	at     time.Time
	taskID string
	state  core.State
	// width and height are the terminal's size when it was set; 0 while none is known.
	width, height int
}

// newStatus is a message about task taskID (or none), shown until it expires or the task
// leaves the state it has in l.
func newStatus(text string, isErr bool, at time.Time, taskID string, l *taskList) status {
	st := status{text: text, isErr: isErr, at: at, taskID: taskID}
	if t := l.index(taskID); t >= 0 {
		st.state = l.tasks[t].State
	}
	return st
}

// fresh is the message while it still stands at now, given the tasks in l.
func (st status) fresh(now time.Time, l *taskList) (string, bool) {
	if st.text == "" || now.Sub(st.at) >= statusTTL {
		return "", false
	}
	if i := l.index(st.taskID); st.taskID != "" && i >= 0 && l.tasks[i].State != st.state {
		return "", false
	}
	return st.text, st.isErr
}

// setStatus shows a message in the header until it expires or, when taskID is set, until that
// task changes state.
func (m *Model) setStatus(s string, isErr bool, taskID string) {
	m.status = newStatus(s, isErr, m.now(), taskID, &m.list)
	m.status.width, m.status.height = m.width, m.height
	if isErr {
		m.log.Warn("dashboard", "status", s)
	}
}

// currentStatus is the status message while it is still fresh: not expired, its task in the
// same state, and the terminal the size it was when the message was set.
func (m *Model) currentStatus() (string, bool) {
	if st := m.status; st.width != 0 && (st.width != m.width || st.height != m.height) {
		return "", false
	}
	return m.status.fresh(m.now(), &m.list)
}

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
	since := m.info.task(tv.TaskID).since
	what := strings.ReplaceAll(string(tv.State), "_", " ")
	if at, ok := m.finalizing[tv.TaskID]; ok {
		since, what = at, "finalizing"
	}
	if since.IsZero() {
		return m.spin.View() + " " + what
	}
	return m.spin.View() + " " + what + " " + term.HumanAge(m.now().Sub(since))
}
