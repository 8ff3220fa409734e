package tui

import (
	"strings"
	"time"

	"reasonixctl/core"
)

// statusTTL is how long a status message stays in the header.
const statusTTL = 5 * time.Second

// status is the one-line message in the header; it expires after statusTTL or when its task
// changes state.
type status struct {
	text   string
	isErr  bool
	at     time.Time
	taskID string
	state  core.State
}

// setStatus shows a message in the header until it expires or, when taskID is set, until that
// task changes state.
func (m *Model) setStatus(s string, isErr bool, taskID string) {
	st := status{text: s, isErr: isErr, at: m.now(), taskID: taskID}
	if t := m.list.index(taskID); t >= 0 {
		st.state = m.list.tasks[t].State
	}
	m.status = st
	if isErr {
		m.log.Warn("dashboard", "status", s)
	}
}

// currentStatus is the status message while it is still fresh.
func (m *Model) currentStatus() (string, bool) {
	st := m.status
	if st.text == "" || m.now().Sub(st.at) >= statusTTL {
		return "", false
	}
	if i := m.list.index(st.taskID); st.taskID != "" && i >= 0 && m.list.tasks[i].State != st.state {
		return "", false
	}
	return st.text, st.isErr
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
	since := m.task(tv.TaskID).since
	what := strings.ReplaceAll(string(tv.State), "_", " ")
	if at, ok := m.finalizing[tv.TaskID]; ok {
		since, what = at, "finalizing"
	}
	if since.IsZero() {
		return m.spin.View() + " " + what
	}
	return m.spin.View() + " " + what + " " + humanAge(m.now().Sub(since))
}
