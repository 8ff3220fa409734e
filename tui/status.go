package tui

import (
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/spinner"

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

// current is the message while it is still fresh at now: not expired, its task in the same
// state in l, and the terminal the size (width, height) it was when the message was set.
func (st status) current(now time.Time, l *taskList, width, height int) (string, bool) {
	if st.width != 0 && (st.width != width || st.height != height) {
		return "", false
	}
	return st.fresh(now, l)
}

// waits are what the person should see moving: the tasks in a wait (provisioning, running,
// verifying, or finalizing since the person asked), each with the spinner and its elapsed time.
type waits struct {
	finalizing map[string]time.Time // when each finalize in flight was asked for, by task id
	spin       spinner.Model
	spinning   bool // a spinner tick is on its way
}

// waiting reports whether a task is in a wait the person should see moving.
func (w *waits) waiting(tv core.TaskView) bool {
	if _, ok := w.finalizing[tv.TaskID]; ok {
		return true
	}
	switch tv.State {
	case core.StateProvisioning, core.StateRunning, core.StateVerifying:
		return true
	}
	return false
}

// any reports whether any of tasks, or a finalize, is in a wait.
func (w *waits) any(tasks []core.TaskView) bool {
	for _, tv := range tasks {
		if w.waiting(tv) {
			return true
		}
	}
	return len(w.finalizing) > 0
}

// label is the spinner and the elapsed time at now of a task's current wait, which it entered
// at since (zero when not known), or "".
func (w *waits) label(tv core.TaskView, since, now time.Time) string {
	if !w.waiting(tv) {
		return ""
	}
	what := strings.ReplaceAll(string(tv.State), "_", " ")
	if at, ok := w.finalizing[tv.TaskID]; ok {
		since, what = at, "finalizing"
	}
	if since.IsZero() {
		return w.spin.View() + " " + what
	}
	return w.spin.View() + " " + what + " " + term.HumanAge(now.Sub(since))
}
