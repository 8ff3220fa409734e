package tui

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"reasonixctl/tui/review"
	"reasonixctl/tui/term"
)

// The smallest terminal the dashboard draws in; below it a message says so.
const (
	minWidth  = 60
	minHeight = 16
	// Side by side list and detail from this width on; stacked below it.
	wideWidth = 120
)

// layout is where the parts of the screen go at the terminal's size: the header's two lines and
// the footer's one around a body of the task list, the selected task's detail and, beside the
// list, its summary.
//
// Wide terminals put the list beside the detail; narrow ones stack them. The diff stays beside
// the list only where it keeps review.MinWidth there; on a wide terminal with less room the list
// and the selected task's summary share a band above a diff of the whole width (band). A
// side-by-side diff takes the whole width, under the list: beside it, each side would be cut at
// 45 columns.
type layout struct {
	width, height int
	diff          bool // the diff tab is the detail's
	sideBySide    bool // … and draws its diff side by side at this width (review.SideBySide)
	tasks         int  // the task list's rows
	// summary is the lines of the selected task's summary at width w; none without a task.
	summary func(w int) []string
}

// layout is the screen's layout as the dashboard stands now.
func (m *Model) layout() layout {
	summary := func(w int) []string {
		tv := m.list.selectedTask()
		if tv == nil {
			return nil
		}
		ti := m.info.task(tv.TaskID)
		return ti.summary(m.theme, *tv, m.waits.label(*tv, ti.since, m.now()), m.review.Preview(tv.TaskID).Line(), &m.requests, w)
	}
	return layout{width: m.width, height: m.height, diff: m.tab == tabDiff, sideBySide: m.review.SideBySide(m.width),
		tasks: len(m.list.tasks), summary: summary}
}

// tooSmall says the terminal is below the size the dashboard draws in: the screen shows only a
// notice saying so.
func (l layout) tooSmall() bool {
	return l.width > 0 && l.height > 0 && (l.width < minWidth || l.height < minHeight)
}

// bodyHeight is the rows between the header and the footer.
func (l layout) bodyHeight() int { return l.height - 3 }

// wide says the list (with the summary under it) stands beside the detail.
func (l layout) wide() bool {
	if l.width < wideWidth {
		return false
	}
	if l.diff {
		return !l.sideBySide && l.width-besideListWidth(l.width)-1 >= review.MinWidth
	}
	return true
}

// band says the list and the summary sit side by side above a diff of the whole width.
func (l layout) band() bool {
	return l.diff && l.width >= wideWidth && !l.sideBySide && !l.wide()
}

// listRows is how many tasks the list shows.
func (l layout) listRows() int {
	bodyH := l.bodyHeight()
	if l.wide() {
		// Leave room for the selected task's summary under the list.
		return term.Clamp(l.tasks, 1, max(bodyH/2-1, 1))
	}
	return term.Clamp(l.tasks, 1, max(bodyH/3, 3))
}

func (l layout) detailWidth() int {
	if l.wide() {
		return l.width - l.listWidth() - 1
	}
	return l.width
}

func (l layout) listWidth() int {
	if l.wide() || l.band() {
		return besideListWidth(l.width)
	}
	return l.width
}

// besideListWidth is the list's width beside the detail (or the summary) on a terminal w wide.
func besideListWidth(w int) int { return term.Clamp(w*2/5, 40, 64) }

// bandHeight is the band's height: the list's, or the summary's up to a third of the body.
func (l layout) bandHeight() int {
	bodyH := l.bodyHeight()
	list := l.listRows() + 1
	return max(list, min(len(l.summary(l.width-l.listWidth()-1)), max(bodyH/3, list)))
}

// detailHeight is the number of content lines under the detail's tab bar.
func (l layout) detailHeight() int {
	bodyH := l.bodyHeight()
	switch {
	case l.wide():
		return bodyH - 1
	case l.band():
		return bodyH - l.bandHeight() - 1
	}
	return bodyH - (l.listRows() + 1) - 1
}

// detail is the detail's size under its tab bar.
func (l layout) detail() (width, height int) { return l.detailWidth(), l.detailHeight() }

// body lays the drawn list and detail out in the body, with the selected task's summary beside
// or under the list where there is room for it, and border between the columns.
func (l layout) body(list, detail string, border lipgloss.Style) string {
	bodyH := l.bodyHeight()
	rows := l.listRows()
	sep := func(h int) string {
		return strings.TrimSuffix(strings.Repeat(border.Render("│")+"\n", h), "\n")
	}
	switch {
	case l.wide():
		list += "\n" + summaryBlock(l.summary, l.listWidth(), bodyH-rows-1)
		return lipgloss.JoinHorizontal(lipgloss.Top, term.FixBlock(list, l.listWidth(), bodyH), sep(bodyH), detail)
	case l.band():
		bh := l.bandHeight()
		sw := l.width - l.listWidth() - 1
		summary := term.FixBlock(strings.Join(l.summary(sw), "\n"), sw, bh)
		return lipgloss.JoinHorizontal(lipgloss.Top, term.FixBlock(list, l.listWidth(), bh), sep(bh), summary) + "\n" + detail
	}
	return list + "\n" + detail
}

// summaryBlock is the selected task at a glance, shown under the list on wide terminals.
func summaryBlock(summary func(w int) []string, w, h int) string {
	if h < 3 {
		return ""
	}
	lines := summary(w)
	if len(lines) == 0 {
		return ""
	}
	return term.FixBlock(strings.Join(append([]string{""}, lines...), "\n"), w, h)
}

// overlay draws a dialog's box over the body, which stays visible but dimmed (behind). Prompts
// sit at the top (atTop) so the newest events, at the bottom of the events view, stay readable
// beside them. What opens without being asked for (a worker's request, the first note) leaves
// the task list in view where it fits below it (belowList): which task asks, and what else is
// going on.
func (l layout) overlay(body, box string, atTop, belowList bool, behind lipgloss.Style) string {
	height := l.bodyHeight()
	boxLines := strings.Split(box, "\n")
	boxW := lipgloss.Width(box)
	x := max((l.width-boxW)/2, 0)
	y := 0
	if !atTop {
		y = max((height-len(boxLines))/2, 0)
	}
	if belowList {
		y = max(y, min(l.listRows()+1, height-len(boxLines)))
	}
	lines := strings.Split(body, "\n")
	for len(lines) < height {
		lines = append(lines, "")
	}
	for i := range lines {
		if i < y || i >= y+len(boxLines) {
			lines[i] = behind.Render(term.PadRight(ansi.Strip(lines[i]), l.width))
			continue
		}
		// The rows the box covers are cleared beside it: a fragment of the screen behind
		// ("╯ 7", "│ 1") next to a border reads as part of the dialog.
		box := boxLines[i-y]
		right := max(l.width-x-lipgloss.Width(box), 0)
		lines[i] = strings.Repeat(" ", x) + box + strings.Repeat(" ", right)
	}
	return strings.Join(lines[:height], "\n")
}
