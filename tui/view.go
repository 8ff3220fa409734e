package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
	"reasonixctl/tui/bind"
	"reasonixctl/tui/dialog"
	"reasonixctl/tui/term"
	"reasonixctl/tui/words"
)

// View draws the whole screen. The frame passes guardFrame on its way out: markers of hidden
// characters take the warning colour, and anything but SGR that reached the frame unsanitized
// is shown instead of sent.
func (m *Model) View() string {
	open, close := term.StyleCodes(m.theme.Warn.Render)
	return term.GuardFrame(m.frame(), open, close)
}

// frame is the screen as laid out, every foreign string already through sanitize.
func (m *Model) frame() string {
	if m.width == 0 || m.height == 0 {
		return ""
	}
	l := m.layout()
	if l.tooSmall() {
		return tooSmallNotice(m.width, m.height)
	}
	header := m.viewHeader()
	footer := m.viewFooter()
	bodyH := l.bodyHeight()
	list := m.list.view(m.theme, l.listWidth(), l.listRows(), &m.info, &m.requests, &m.waits, m.now())
	body := l.body(list, m.viewDetail(l.detailWidth(), l.detailHeight()), m.theme.Border)
	if m.rp != nil {
		body = m.rp.View(m.width, bodyH)
	}
	if d := m.dialogs.Top(); d != nil {
		body = l.overlay(body, m.viewDialog(d, bodyH), dialog.SitsAtTop(d), m.rp == nil && dialog.OpensByItself(d), m.theme.Behind)
	}
	return header + "\n" + body + "\n" + footer
}

// tooSmallNotice is the screen of a terminal smaller than the dashboard needs: the message wrapped
// to the width, a shorter one when the long one does not fit, each line centred, never wider or
// taller than the terminal.
func tooSmallNotice(w, h int) string {
	wrap := func(paras ...string) []string {
		var out []string
		for _, p := range paras {
			out = append(out, strings.Split(ansi.Wrap(p, w, ""), "\n")...)
		}
		return out
	}
	lines := wrap(fmt.Sprintf("reasonixctl needs a terminal of at least %d×%d;", minWidth, minHeight),
		fmt.Sprintf("this one is %d×%d. Enlarge it or press q to quit.", w, h))
	if len(lines) > h {
		lines = wrap(fmt.Sprintf("needs %d×%d, is %d×%d; q quits", minWidth, minHeight, w, h))
	}
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		l = strings.TrimSpace(l)
		pad := max(w-lipgloss.Width(l), 0)
		lines[i] = strings.Repeat(" ", pad/2) + l + strings.Repeat(" ", pad-pad/2)
	}
	top := (h - len(lines)) / 2
	out := make([]string, 0, h)
	for i := 0; i < h; i++ {
		if i >= top && i-top < len(lines) {
			out = append(out, lines[i-top])
		} else {
			out = append(out, strings.Repeat(" ", w))
		}
	}
	return strings.Join(out, "\n")
}

func (m *Model) viewHeader() string {
	t := m.theme
	left := " reasonixctl  state " + m.opts.StateDir + "  worker " + term.OrDash(m.opts.WorkerVersion)
	if a := m.attach.label(); a != "" {
		left = " reasonixctl  " + a + "  state " + m.opts.StateDir
	}
	var right []string
	if n := m.requests.count(); n > 0 {
		right = append(right, fmt.Sprintf("%d waiting for you (i)", n))
	}
	if n := m.list.resumable(); n > 0 {
		right = append(right, fmt.Sprintf("%d resumable (r)", n))
	}
	left = safetext.Line(left) // the state directory, the worker's version, the owner's name
	rightText := ""
	if len(right) > 0 {
		rightText = strings.Join(right, " · ") + " "
	}
	line1 := t.Header.Render(term.FitBetween(left, rightText, m.width))
	if msg, isErr := m.status.current(m.now(), &m.list, m.width, m.height); msg != "" {
		st := t.HeaderDim
		if isErr {
			st = t.Error
		}
		return line1 + "\n" + st.Render(term.PadRight(ansi.Truncate(" "+safetext.Line(msg), m.width, "…"), m.width))
	}

	// What needs the person comes first; fitBetween cuts the usage before the counts.
	stats := " " + attentionCounts(m.list.tasks, &m.requests) + "  │  " + safetext.Line(m.usage.header(m.info.byID, m.list.tasks, m.now())) // the worker names the currency
	scope := "active tasks "
	if m.list.showAll {
		scope = "all tasks "
	}
	return line1 + "\n" + t.HeaderDim.Render(term.FitBetween(stats, scope, m.width))
}

// viewFooter lists the keys that do something now: the top dialog's own keys are in the
// dialog, so the footer then only offers help; otherwise the selected task's actions as core
// allows them in its state, and the keys of the open view.
func (m *Model) viewFooter() string {
	t, k := m.theme, m.keys
	var keys []key.Binding
	if m.dialogs.Top() != nil {
		keys = append(keys, bind.Hint(k.Help, "help"))
		return " " + term.ShortHelp(t, m.width-1, keys...)
	}
	if m.rp != nil {
		return " " + term.ShortHelp(t, m.width-1, m.rp.Footer()...)
	}
	keys = append(keys, m.actionKeys().Footer()...)
	keys = append(keys, bind.Hint(k.Help, "help"))
	if tv := m.list.selectedTask(); tv != nil {
		switch m.tab {
		case tabDiff:
			keys = append(keys, m.review.Footer()...)
		case tabEvents:
			keys = append(keys, m.info.task(tv.TaskID).events.Footer()...)
		case tabContract:
			keys = append(keys, m.info.task(tv.TaskID).contract.Footer()...)
		case tabChecks:
			keys = append(keys, m.info.task(tv.TaskID).checks.Footer()...)
		}
	}
	keys = append(keys, m.dashKeys().Footer()...)
	return " " + term.ShortHelp(t, m.width-1, keys...)
}

// viewDialog frames the top dialog d (dialog.Stack.View), first giving it what the root knows
// that changed: that no owner answers an attached dashboard, the steered task's state.
func (m *Model) viewDialog(d dialog.Dialog, height int) string {
	if nd, ok := d.(*dialog.Notice); ok && nd.TellsError() {
		// The error came while no owner answers: say that, not the error's generic advice.
		m.attach.explain(nd)
	}
	if sd, ok := d.(*dialog.Steer); ok {
		if i := m.list.index(sd.TaskID()); i >= 0 {
			sd.Follow(m.list.tasks[i])
		}
	}
	return m.dialogs.View(m.theme, m.keys, m.width, height, m.now())
}

// summary is the lines of the task's summary at width w, shown beside the list: what ti keeps of
// tv, its wait (the spinner and the elapsed time), its apply line and its requests waiting in r.
func (ti *taskInfo) summary(t term.Theme, tv core.TaskView, wait, apply string, r *requests, w int) []string {
	lines := []string{t.Title.Render(" " + safetext.Line(tv.TaskID))}
	add := func(label, value string) {
		if value == "" {
			return
		}
		for i, l := range term.WrapLines(safetext.Sanitize(value), w-13) {
			if i == 0 {
				lines = append(lines, " "+t.Dim.Render(term.PadRight(label, 11))+l)
			} else {
				lines = append(lines, strings.Repeat(" ", 12)+l)
			}
		}
	}
	if d := ti.detail; d != nil {
		add("objective", d.Objective)
	}
	add("repository", ti.repository)
	add("branch", tv.Branch)
	add("lane", strings.TrimSpace(string(tv.WorkerLane)+" "+tv.EffectiveReasoningEffort))
	add("worker", tv.Worker)
	if tv.ReviewRevision > 0 {
		add("review", fmt.Sprintf("revision %d · repair rounds %d/%d", tv.ReviewRevision, tv.RepairRounds, core.MaxRepairRounds))
	}
	if d := ti.detail; d != nil && len(d.SourceRisks) > 0 {
		var names []string
		for _, r := range d.SourceRisks {
			names = append(names, r.Path)
		}
		add("risks", fmt.Sprintf("⚠ %d file(s) hold hidden characters, look-alikes or binary content: %s", len(names), strings.Join(names, ", ")))
	}
	if wait != "" {
		// The spinner is styled and the rest is ours (a state, an age): sanitizing it, as add
		// does with what a task says, would print the spinner's colour codes as text.
		lines = append(lines, " "+t.Dim.Render(term.PadRight("now", 11))+wait)
	}
	add("reason", tv.Reason)
	if tv.State == core.StatePaused {
		add("resume", "r resumes it where it stopped")
	}
	add("commit", tv.CommitHash)
	add("apply", apply)
	if u := ti.totalUsage(); u != nil {
		add("usage", words.Usage(u))
	}
	for _, p := range r.items {
		if p.taskID == tv.TaskID {
			add("waiting", p.ia.Kind+" "+p.ia.ID+": "+words.DescribeRequest(p.ia.Request).What+" (i)")
		}
	}
	return lines
}

func (m *Model) viewDetail(w, h int) string {
	t := m.theme
	tv := m.list.selectedTask()
	var tabs []string
	for i, name := range tabNames {
		if detailTab(i) == tabEvents && tv != nil {
			if f := m.info.task(tv.TaskID).events.Filtered(); f != "" {
				name += ": " + f
			}
		}
		if detailTab(i) == m.tab {
			// The brackets mark the active tab even where no style shows.
			tabs = append(tabs, t.TabActive.Render(fmt.Sprintf("[%d %s]", i+1, name)))
		} else {
			tabs = append(tabs, t.TabInactive.Render(fmt.Sprintf(" %d %s ", i+1, name)))
		}
	}
	bar := strings.Join(tabs, "")
	if tv == nil {
		return term.FixBlock(bar+"\n"+t.Dim.Render(" select a task"), w, h+1)
	}
	info := " " + tv.TaskID + " · " + string(tv.State)
	if tv.Phase != "" {
		info += " (" + tv.Phase + ")"
	}
	info = safetext.Line(info)
	if wl := m.waits.label(*tv, m.info.task(tv.TaskID).since, m.now()); wl != "" {
		info += " " + wl // the styled spinner: the dashboard's own, drawn, not sanitized
	}
	bar += t.Dim.Render(ansi.Truncate(info, max(w-lipgloss.Width(bar), 0), "…"))
	return term.FixBlock(bar+"\n"+m.tabPane().view(w, h), w, h+1)
}
