package tui

import (
	"fmt"
	"io"
	"sort"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
)

// attention is what a task needs from the person. The task list shows the groups in this
// order, the header counts them in it, and a task entering waiting or ready is announced.
type attention int

const (
	attnWaiting attention = iota // a request waits for an answer
	attnStuck                    // a failed verification or commit, or paused: it moves only when the person acts
	attnReady                    // in review: ready to finalize
	attnWorking                  // provisioning, running, verifying
	attnDone                     // terminal
)

// attentionLabel is each group's word in the header.
var attentionLabel = [...]string{attnWaiting: "wait", attnStuck: "stuck", attnReady: "review", attnWorking: "run", attnDone: "done"}

// attentionOf is the group of a task: a request waiting for an answer comes before anything its
// state says.
func attentionOf(tv core.TaskView, r *requests) attention {
	switch {
	case tv.State == core.StateWaitingPermission || tv.State == core.StateWaitingInput ||
		(!tv.State.Terminal() && r.waitingFor(tv.TaskID)):
		return attnWaiting
	case failedFinalize(tv), tv.State == core.StateCommitFailed, tv.State == core.StatePaused:
		return attnStuck
	case tv.State == core.StateReviewRequired:
		return attnReady
	case tv.State.Terminal():
		return attnDone
	}
	return attnWorking
}

// failedFinalize reports whether a task is back in review because its finalize failed (a
// verification, the commit, or a restart during it): it needs a repair before it can finalize.
func failedFinalize(tv core.TaskView) bool {
	return tv.State == core.StateReviewRequired && tv.Phase == core.PhaseRepairRequired
}

// attentionOrder sorts tasks by group and, within one, by their place in the service's list
// (newest first), so that a task leaving a group and coming back finds its place again. The
// waiting ones are the exception: they come in the order their requests arrived, oldest first,
// the order in which `i` opens them, so that `i` takes the top waiting row. It runs after every
// message: each task's group is worked out once, and a list in order stays as it is.
func attentionOrder(tasks []core.TaskView, r *requests, listed map[string]int) {
	type key struct{ group, place int }
	var asked map[string]int
	if len(r.items) > 0 {
		asked = make(map[string]int, len(r.items))
	}
	for i, p := range r.items {
		if _, ok := asked[p.taskID]; !ok && !p.answering {
			asked[p.taskID] = i
		}
	}
	keys := make([]key, len(tasks))
	sorted := true
	for i, tv := range tasks {
		keys[i] = key{int(attentionOf(tv, r)), listed[tv.TaskID]}
		if keys[i].group == int(attnWaiting) {
			// A task waiting in its state whose request is not known yet comes after those
			// whose request is.
			if n, ok := asked[tv.TaskID]; ok {
				keys[i].place = n
			} else {
				keys[i].place = len(r.items) + keys[i].place
			}
		}
		if i > 0 && (keys[i].group < keys[i-1].group || (keys[i].group == keys[i-1].group && keys[i].place < keys[i-1].place)) {
			sorted = false
		}
	}
	if sorted {
		return
	}
	idx := make([]int, len(tasks))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool {
		a, b := keys[idx[i]], keys[idx[j]]
		if a.group != b.group {
			return a.group < b.group
		}
		return a.place < b.place
	})
	out := make([]core.TaskView, len(tasks))
	for i, k := range idx {
		out[i] = tasks[k]
	}
	copy(tasks, out)
}

// attentionCounts is the header's count per group, the groups that need the person first:
// "wait 1 · review 2 · run 1 · done 3".
func attentionCounts(tasks []core.TaskView, r *requests) string {
	var n [attnDone + 1]int
	for _, tv := range tasks {
		n[attentionOf(tv, r)]++
	}
	var parts []string
	for a, c := range n {
		if c > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", attentionLabel[a], c))
		}
	}
	if len(parts) == 0 {
		return "no tasks"
	}
	return strings.Join(parts, " · ")
}

// focus is what the terminal last said of its focus; most terminals say nothing unless asked
// (tea.WithReportFocus), and some never do.
type focus int

const (
	focusUnknown focus = iota
	focusIn
	focusOut
)

// attentionWatch remembers each task's group, to announce a task that starts needing the
// person once per change, and the terminal's focus, to announce only to a person looking away.
type attentionWatch struct {
	last  map[string]attention
	focus focus
	// notify rings the bell and sends an OSC 9 notification to out (Options.Notify, Output).
	notify bool
	out    io.Writer
}

// changed notes each task's group and returns the tasks that just entered waiting or ready. A
// task seen for the first time is noted only: it did not change under the person's eyes.
func (w *attentionWatch) changed(tasks []core.TaskView, r *requests) []core.TaskView {
	if w.last == nil {
		w.last = map[string]attention{}
	}
	var out []core.TaskView
	for _, tv := range tasks {
		a := attentionOf(tv, r)
		before, seen := w.last[tv.TaskID]
		if seen && before == a {
			continue
		}
		w.last[tv.TaskID] = a
		if seen && (a == attnWaiting || a == attnReady) {
			out = append(out, tv)
		}
	}
	return out
}

// announcing reports whether a change is worth the bell: unless the terminal said it has focus.
// A terminal that never reports focus is treated as unfocused, as before focus was asked for.
func (w *attentionWatch) announcing() bool { return w.focus != focusIn }

// onFocus notes a focus report.
func (w *attentionWatch) onFocus(msg tea.Msg) {
	switch msg.(type) {
	case tea.FocusMsg:
		w.focus = focusIn
	case tea.BlurMsg:
		w.focus = focusOut
	}
}

// attend runs after every message: it puts the list in attention order (the selection follows
// its task, by id) and announces the tasks that just started waiting or became ready.
func (w *attentionWatch) attend(l *taskList, r *requests) tea.Cmd {
	attentionOrder(l.tasks, r, l.listed)
	var cmds []tea.Cmd
	for _, tv := range w.changed(l.tasks, r) {
		if w.announcing() {
			cmds = append(cmds, w.notifyOf(tv, r))
		}
	}
	return tea.Batch(cmds...)
}

// notifyOf rings the bell and raises a desktop notification (OSC 9) for a task that needs the
// person: its waiting request in r when one is known, or that it is ready to finalize.
func (w *attentionWatch) notifyOf(tv core.TaskView, r *requests) tea.Cmd {
	if !w.notify || w.out == nil {
		return nil
	}
	var ia *core.Interaction
	if p := r.waitingOf(tv.TaskID); p != nil {
		ia = &p.ia
	}
	msg := notification(tv.TaskID, attentionOf(tv, r), ia)
	out := w.out
	return func() tea.Msg {
		_, _ = io.WriteString(out, msg)
		return nil
	}
}
