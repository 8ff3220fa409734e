package tui

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
	"reasonixctl/tui/term"
	"reasonixctl/tui/words"
)

// taskList is the list of tasks and which one is selected. The root keeps the tasks in
// attention order (attention.go): what waits for the person first, done last; the selection is
// a task id, so it stays on its task when the order changes.
type taskList struct {
	tasks    []core.TaskView
	listed   map[string]int // each task's place in the service's list (newest first)
	selected string
	showAll  bool
	listing  bool // a List is in flight
	again    bool // … and another is wanted when it answers
}

// fetch reports whether to start a List now: not while one is in flight, which is then
// followed by another.
func (l *taskList) fetch() bool {
	if l.listing {
		l.again = true
		return false
	}
	l.listing = true
	return true
}

// fetched notes a List's answer and reports whether another is wanted.
func (l *taskList) fetched() (again bool) {
	again, l.listing, l.again = l.again, false, false
	return again
}

func (l *taskList) index(id string) int {
	for i, t := range l.tasks {
		if t.TaskID == id {
			return i
		}
	}
	return -1
}

func (l *taskList) selectedTask() *core.TaskView {
	if i := l.index(l.selected); i >= 0 {
		return &l.tasks[i]
	}
	return nil
}

// set replaces the tasks, in the service's order, and puts them in attention order; it keeps
// the selection when the task is still listed, else selects the first (the most urgent).
func (l *taskList) set(tasks []core.TaskView, r *requests) {
	l.listed = make(map[string]int, len(tasks))
	for i, t := range tasks {
		l.listed[t.TaskID] = i
	}
	attentionOrder(tasks, r, l.listed)
	l.tasks = tasks
	if l.index(l.selected) < 0 {
		l.selected = ""
		if len(tasks) > 0 {
			l.selected = tasks[0].TaskID
		}
	}
}

// replace updates one task's view in place; a view of an unlisted task changes nothing.
func (l *taskList) replace(v core.TaskView) {
	if i := l.index(v.TaskID); i >= 0 && v.TaskID != "" {
		l.tasks[i] = v
	}
}

// move selects the task delta rows away and reports whether the selection changed.
func (l *taskList) move(delta int) bool {
	if len(l.tasks) == 0 {
		return false
	}
	i := term.Clamp(l.index(l.selected)+delta, 0, len(l.tasks)-1)
	changed := l.tasks[i].TaskID != l.selected
	l.selected = l.tasks[i].TaskID
	return changed
}

// working are the tasks that quitting would interrupt.
func (l *taskList) working() int {
	n := 0
	for _, t := range l.tasks {
		if t.State.Working() {
			n++
		}
	}
	return n
}

// resumable are the tasks core would let the person resume.
func (l *taskList) resumable() int {
	n := 0
	for _, t := range l.tasks {
		if core.Allows(t, core.ActionResume) {
			n++
		}
	}
	return n
}

// view draws the list w wide: its title and rows tasks around the selected one, each with what
// info keeps of it, the mark of a request waiting in r or of a wait (wt), and its age at now.
func (l *taskList) view(t term.Theme, w, rows int, info *taskData, r *requests, wt *waits, now time.Time) string {
	title := fmt.Sprintf(" Tasks (%d)", len(l.tasks))
	lines := []string{t.Title.Render(term.PadRight(title, w))}
	if len(l.tasks) == 0 {
		// Short enough for the narrowest list column (40).
		empty := "  no tasks yet · n starts one"
		if !l.showAll {
			empty = "  no active tasks · A all · n new"
		}
		lines = append(lines, t.Dim.Render(empty))
		return term.FixBlock(strings.Join(lines, "\n"), w, rows+1)
	}
	sel := max(l.index(l.selected), 0)
	start := term.Clamp(sel-rows+1, 0, max(len(l.tasks)-rows, 0))
	idW := 14
	if w < 70 {
		idW = 12
	}
	for i := start; i < len(l.tasks) && i < start+rows; i++ {
		tv := l.tasks[i]
		ti := info.task(tv.TaskID)
		mark := "  "
		if tv.TaskID == l.selected {
			mark = "› "
		}
		pend := " "
		switch {
		case attentionOf(tv, r) == attnWaiting:
			pend = t.Pending.Render("!")
		case wt.waiting(tv):
			pend = wt.spin.View()
		}
		badge := t.Badge(tv.State)
		if failedFinalize(tv) {
			// Back in review after a failed finalize: a repair comes before finalizing again.
			badge = t.Badges[core.StateCommitFailed].Render(term.PadRight("REPAIR", 6))
		}
		tokens := "-"
		if u := ti.totalUsage(); u != nil {
			tokens = term.HumanInt(u.PromptTokens + u.CompletionTokens)
		}
		repo := ti.repository
		if repo == "" {
			repo = tv.RepositoryID
		} else {
			repo = filepath.Base(repo)
		}
		fixed := fmt.Sprintf("%s%s %s %-4s %4s %s %6s ", mark, term.PadRight(ansi.Truncate(safetext.Line(tv.TaskID), idW, "…"), idW),
			badge, safetext.Line(string(tv.WorkerLane)), ti.age(tv, now), pend, tokens)
		line := fixed + ansi.Truncate(safetext.Line(repo), max(w-lipgloss.Width(fixed), 0), "…")
		if tv.TaskID == l.selected {
			line = t.Selected.Render(term.PadRight(ansi.Strip(line), w))
		}
		lines = append(lines, line)
	}
	return term.FixBlock(strings.Join(lines, "\n"), w, rows+1)
}

func (m *Model) onTasks(msg tasksMsg) tea.Cmd {
	var cmds []tea.Cmd
	if m.list.fetched() {
		cmds = append(cmds, m.cmds.refreshList(&m.list))
	}
	if msg.err != nil {
		m.setStatus("listing tasks failed: "+words.OneLine(msg.err), true, "")
		return tea.Batch(cmds...)
	}
	m.list.set(msg.tasks, &m.requests)
	for _, t := range m.list.tasks {
		ti := m.info.task(t.TaskID)
		// Details give the repository, age, usage and pending interactions the list lacks.
		if ti.detail == nil || (ti.stale && t.TaskID == m.list.selected) {
			cmds = append(cmds, m.info.fetchDetail(t.TaskID))
		}
	}
	if m.list.selected != "" {
		cmds = append(cmds, m.info.replay(m.list.selected))
	}
	return tea.Batch(cmds...)
}
