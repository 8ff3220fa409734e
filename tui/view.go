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
	"reasonixctl/tui/review"
	"reasonixctl/tui/term"
	"reasonixctl/tui/words"
)

// The smallest terminal the dashboard draws in; below it a message says so.
const (
	minWidth  = 60
	minHeight = 16
	// Side by side list and detail from this width on; stacked below it.
	wideWidth = 120
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
	if m.width < minWidth || m.height < minHeight {
		return tooSmall(m.width, m.height)
	}
	header := m.viewHeader()
	footer := m.viewFooter()
	bodyH := m.height - 3
	body := m.viewBody(bodyH)
	if m.rp != nil {
		body = m.rp.View(m.width, bodyH)
	}
	if d := m.dialogs.Top(); d != nil {
		body = m.overlayDialog(body, d, bodyH)
	}
	return header + "\n" + body + "\n" + footer
}

// tooSmall is the screen of a terminal smaller than the dashboard needs: the message wrapped
// to the width, a shorter one when the long one does not fit, each line centred, never wider or
// taller than the terminal.
func tooSmall(w, h int) string {
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
	if a := m.attachLabel(); a != "" {
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
	if msg, isErr := m.currentStatus(); msg != "" {
		st := t.HeaderDim
		if isErr {
			st = t.Error
		}
		return line1 + "\n" + st.Render(term.PadRight(ansi.Truncate(" "+safetext.Line(msg), m.width, "…"), m.width))
	}

	// What needs the person comes first; fitBetween cuts the usage before the counts.
	stats := " " + attentionCounts(m.list.tasks, &m.requests) + "  │  " + safetext.Line(m.usageHeader()) // the worker names the currency
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

// overlayDialog draws the top dialog d over the body, which stays visible but dimmed.
// Prompts sit at the top so the newest events, at the bottom of the events view, stay
// readable beside them.
func (m *Model) overlayDialog(body string, d dialog.Dialog, height int) string {
	box := m.viewDialog(d, height)
	boxLines := strings.Split(box, "\n")
	boxW := lipgloss.Width(box)
	x := max((m.width-boxW)/2, 0)
	y := 0
	if !dialog.SitsAtTop(d) {
		y = max((height-len(boxLines))/2, 0)
	}
	if m.rp == nil && dialog.OpensByItself(d) {
		// What opens without being asked for (a worker's request, the first note) leaves the
		// task list in view where it fits below it: which task asks, and what else is going on.
		y = max(y, min(m.listRows(height)+1, height-len(boxLines)))
	}
	lines := strings.Split(body, "\n")
	for len(lines) < height {
		lines = append(lines, "")
	}
	behind := m.theme.Behind
	for i := range lines {
		if i < y || i >= y+len(boxLines) {
			lines[i] = behind.Render(term.PadRight(ansi.Strip(lines[i]), m.width))
			continue
		}
		// The rows the box covers are cleared beside it: a fragment of the screen behind
		// ("╯ 7", "│ 1") next to a border reads as part of the dialog.
		box := boxLines[i-y]
		right := max(m.width-x-lipgloss.Width(box), 0)
		lines[i] = strings.Repeat(" ", x) + box + strings.Repeat(" ", right)
	}
	return strings.Join(lines[:height], "\n")
}

// viewDialog frames the top dialog d (dialog.Stack.View), first giving it what the root knows
// that changed: that no owner answers an attached dashboard, the steered task's state.
func (m *Model) viewDialog(d dialog.Dialog, height int) string {
	if nd, ok := d.(*dialog.Notice); ok && nd.TellsError() && m.attach.gone {
		// The error came while no owner answers: say that, not the error's generic advice.
		nd.NextInstead(ownerGoneNext(m.opts.StateDir))
	}
	if sd, ok := d.(*dialog.Steer); ok {
		if i := m.list.index(sd.TaskID()); i >= 0 {
			sd.Follow(m.list.tasks[i])
		}
	}
	return m.dialogs.View(m.theme, m.keys, m.width, height, m.now())
}

// Layout: wide terminals put the list beside the detail; narrow ones stack them. The diff stays
// beside the list only where it keeps review.MinWidth there; on a wide terminal with less room the
// list and the selected task's summary share a band above a diff of the whole width (band). A
// side-by-side diff takes the whole width, under the list: beside it, each side would be cut at
// 45 columns.
func (m *Model) wide() bool {
	if m.width < wideWidth {
		return false
	}
	if m.tab == tabDiff {
		return !m.review.SideBySide(m.width) && m.width-besideListWidth(m.width)-1 >= review.MinWidth
	}
	return true
}

// band says the list and the summary sit side by side above a diff of the whole width.
func (m *Model) band() bool {
	return m.tab == tabDiff && m.width >= wideWidth && !m.review.SideBySide(m.width) && !m.wide()
}

func (m *Model) listRows(bodyH int) int {
	if m.wide() {
		// Leave room for the selected task's summary under the list.
		return term.Clamp(len(m.list.tasks), 1, max(bodyH/2-1, 1))
	}
	return term.Clamp(len(m.list.tasks), 1, max(bodyH/3, 3))
}

func (m *Model) detailWidth() int {
	if m.wide() {
		return m.width - m.listWidth() - 1
	}
	return m.width
}

func (m *Model) listWidth() int {
	if m.wide() || m.band() {
		return besideListWidth(m.width)
	}
	return m.width
}

// besideListWidth is the list's width beside the detail (or the summary) on a terminal w wide.
func besideListWidth(w int) int { return term.Clamp(w*2/5, 40, 64) }

// bandHeight is the band's height: the list's, or the summary's up to a third of the body.
func (m *Model) bandHeight(bodyH int) int {
	list := m.listRows(bodyH) + 1
	return max(list, min(len(m.summaryLines(m.width-m.listWidth()-1)), max(bodyH/3, list)))
}

// detailHeight is the number of content lines under the detail's tab bar.
func (m *Model) detailHeight() int {
	bodyH := m.height - 3
	switch {
	case m.wide():
		return bodyH - 1
	case m.band():
		return bodyH - m.bandHeight(bodyH) - 1
	}
	return bodyH - (m.listRows(bodyH) + 1) - 1
}

func (m *Model) viewBody(bodyH int) string {
	rows := m.listRows(bodyH)
	list := m.viewList(rows)
	detail := m.viewDetail(m.detailWidth(), m.detailHeight())
	sep := func(h int) string {
		return strings.TrimSuffix(strings.Repeat(m.theme.Border.Render("│")+"\n", h), "\n")
	}
	switch {
	case m.wide():
		list += "\n" + m.viewSummary(m.listWidth(), bodyH-rows-1)
		return lipgloss.JoinHorizontal(lipgloss.Top, term.FixBlock(list, m.listWidth(), bodyH), sep(bodyH), detail)
	case m.band():
		bh := m.bandHeight(bodyH)
		sw := m.width - m.listWidth() - 1
		summary := term.FixBlock(strings.Join(m.summaryLines(sw), "\n"), sw, bh)
		return lipgloss.JoinHorizontal(lipgloss.Top, term.FixBlock(list, m.listWidth(), bh), sep(bh), summary) + "\n" + detail
	}
	return list + "\n" + detail
}

// viewSummary is the selected task at a glance, shown under the list on wide terminals.
func (m *Model) viewSummary(w, h int) string {
	if h < 3 {
		return ""
	}
	lines := m.summaryLines(w)
	if len(lines) == 0 {
		return ""
	}
	return term.FixBlock(strings.Join(append([]string{""}, lines...), "\n"), w, h)
}

// summaryLines are the lines of the selected task's summary at width w; none without a task.
func (m *Model) summaryLines(w int) []string {
	t := m.theme
	tv := m.selectedTask()
	if tv == nil {
		return nil
	}
	ti := m.info.task(tv.TaskID)
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
	if w := m.waitLabel(*tv); w != "" {
		// The spinner is styled and the rest is ours (a state, an age): sanitizing it, as add
		// does with what a task says, would print the spinner's colour codes as text.
		lines = append(lines, " "+t.Dim.Render(term.PadRight("now", 11))+w)
	}
	add("reason", tv.Reason)
	if tv.State == core.StatePaused {
		add("resume", "r resumes it where it stopped")
	}
	add("commit", tv.CommitHash)
	add("apply", m.review.Preview(tv.TaskID).Line())
	if u := ti.totalUsage(); u != nil {
		add("usage", words.Usage(u))
	}
	for _, p := range m.requests.items {
		if p.taskID == tv.TaskID {
			add("waiting", p.ia.Kind+" "+p.ia.ID+": "+words.DescribeRequest(p.ia.Request).What+" (i)")
		}
	}
	return lines
}

func (m *Model) viewDetail(w, h int) string {
	t := m.theme
	tv := m.selectedTask()
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
	if wl := m.waitLabel(*tv); wl != "" {
		info += " " + wl // the styled spinner: the dashboard's own, drawn, not sanitized
	}
	bar += t.Dim.Render(ansi.Truncate(info, max(w-lipgloss.Width(bar), 0), "…"))
	return term.FixBlock(bar+"\n"+m.tabPane().view(w, h), w, h+1)
}
