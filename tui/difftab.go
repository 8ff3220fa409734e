package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
	"reasonixctl/tui/term"
	"reasonixctl/tui/words"
)

// The diff tab: its layout, its view, the selected line and its keys. The review's comments,
// preview and other commands are in review.go, the diff's parsing and drawing in diffview.go
// and diffrender.go.

// fileColumn says whether the diff's file list sits beside the diff rather than above it: only
// where the diff keeps diffMinWidth beside it. Hidden, it gives the code the whole width.
func (m *Model) fileColumn() bool {
	return fileColumnWidth(m.detailWidth()) >= minFileColumn && !m.sbsActive() && !m.review.hideFiles
}

// minFileColumn is the narrowest file list drawn beside the diff.
const minFileColumn = 30

// fileColumnWidth is the width of the file list beside a diff pane w wide: a third, at most 40
// columns, and never so wide that the diff keeps less than diffMinWidth.
func fileColumnWidth(w int) int { return min(40, w/3, w-1-diffMinWidth) }

// diffBodyHeight is the number of diff lines the diff view shows.
func (m *Model) diffBodyHeight() int {
	h := m.detailHeight() - 1 // position line
	if tv := m.selectedTask(); tv != nil {
		ti := m.task(tv.TaskID)
		if d := ti.rv.diff; d != nil && !m.fileColumn() && !m.review.hideFiles {
			h -= min(len(d.files), 3)
		}
		if ti.rv.search.shown() {
			h-- // the search line
		}
	}
	return max(h, 1)
}

func (m *Model) viewDiff(tv *core.TaskView, ti *taskInfo, w, h int) string {
	t := m.theme
	if ti.rv.diff == nil || len(ti.rv.diff.files) == 0 {
		if ti.detail != nil && words.NothingChanged(ti.detail) {
			return t.Warn.Render(" the worker changed nothing: there is no commit to make.") + "\n" +
				t.Dim.Render(" X closes the task (F offers the same); s steers a repair round saying what is missing.")
		}
		return t.Dim.Render(" no review diff yet (the task is " + string(tv.State) + ")")
	}
	doc := ti.rv.diff
	c := doc.clamp(ti.rv.diffCur)
	ti.rv.diffCur = c
	m.placeSel(ti)
	c = ti.rv.diffCur
	counts := commentCounts(ti)
	f := doc.files[c.file]
	reviewed := 0
	for _, df := range doc.files {
		if ti.rv.reviewed[df.name] {
			reviewed++
		}
	}
	// The hunk is the selected line's: the one a comment or the editor would go to.
	at := c.top
	if ti.rv.sel >= 0 {
		at = ti.rv.sel
	}
	var parts []posPart
	add := func(long, short string, keep int) {
		parts = append(parts, posPart{long: long, short: short, keep: keep})
	}
	add(fmt.Sprintf("file %d/%d", c.file+1, len(doc.files)), fmt.Sprintf("%d/%d", c.file+1, len(doc.files)), 100)
	add(fmt.Sprintf("hunk %d/%d", f.hunkIndex(at), len(f.hunks)), fmt.Sprintf("h%d/%d", f.hunkIndex(at), len(f.hunks)), 90)
	cm := selectedComment(ti, &doc.files[c.file])
	if cm == nil {
		add(fmt.Sprintf("%d/%d reviewed", reviewed, len(doc.files)), fmt.Sprintf("%d/%d ✓", reviewed, len(doc.files)), 50)
		if ti.rv.reviewed[f.name] {
			add("this file ✓", "", 40)
		}
	} else {
		// On a commented line the position line reads the comment instead.
		body, _, _ := strings.Cut(cm.Body, "\n")
		glyph, state := commentGlyph(cm), commentState(cm)
		if ti.rv.editedSince[cm.ID] {
			glyph, state = "●", strings.TrimSuffix(state, ")")+", edited since)"
		}
		add(fmt.Sprintf("%s line %d%s: %s", glyph, cm.Line, state, body), "", 100)
		parts[len(parts)-1].flex = true
		add("c edits it", "", 20)
	}
	if tv.ReviewRevision > 0 {
		add(fmt.Sprintf("revision %d", tv.ReviewRevision), fmt.Sprintf("rev %d", tv.ReviewRevision), 60)
	}
	if ti.rv.xoff > 0 && !m.review.wrap {
		add(fmt.Sprintf("from column %d", ti.rv.xoff+1), fmt.Sprintf("col %d", ti.rv.xoff+1), 95)
	}
	if doc.err != nil && cm == nil {
		add("unparsed: "+doc.err.Error(), "unparsed", 80)
	}
	if m.review.sideBySide && !m.sbsActive() && cm == nil {
		add(fmt.Sprintf("side by side needs ≥%d columns", sideBySideMin), fmt.Sprintf("side by side ≥%d cols", sideBySideMin), 75)
	}
	if p := ti.rv.preview; p != nil && ti.rv.previewErr == "" && cm == nil {
		switch {
		case p.Clean && p.Refusal != "":
			add("merges onto HEAD "+term.Short(p.Head, 7)+", but apply refuses (see the task)", "apply refuses", 70)
		case p.Clean:
			add("applies to HEAD "+term.Short(p.Head, 7), "applies", 70)
		default:
			add("conflicts with HEAD "+term.Short(p.Head, 7)+": "+strings.Join(p.Conflicts, ", "), "conflicts with HEAD "+term.Short(p.Head, 7), 70)
		}
	}
	for i := range parts {
		parts[i].long, parts[i].short = safetext.Line(parts[i].long), safetext.Line(parts[i].short)
	}
	posStyle := t.Dim
	if r := ti.fileRisk(f.name); r != "" {
		// First, so no width cuts it off: the file hides characters, shown as markers below.
		parts = append([]posPart{{long: "⚠ " + safetext.Line(r) + " (F asks you to acknowledge)", keep: 100}}, parts...)
		posStyle = t.Warn
	}
	fileLine := func(i, width int) string {
		df := doc.files[i]
		mark, check := "  ", "  "
		if i == c.file {
			mark = "› "
		}
		if ti.rv.reviewed[df.name] {
			check = "✓ "
		}
		stats := fmt.Sprintf(" +%d -%d", df.added, df.deleted)
		if n := counts[df.name]; n > 0 {
			stats += fmt.Sprintf(" ●%d", n)
		}
		shown := safetext.Line(df.name)
		if ti.fileRisk(df.name) != "" {
			stats += " ⚠"
		}
		name := ansi.TruncateLeft(shown, max(lipgloss.Width(shown)-(width-4-len(stats)), 0), "…")
		if i == c.file {
			// Dim grey on the selection's background is too faint to read (2.8:1).
			return t.Selected.Render(term.PadRight(mark+check+name+stats, width))
		}
		return mark + check + name + t.Dim.Render(stats)
	}
	bodyH := m.diffBodyHeight()
	diffW := w
	var fileCol []string
	top := min(c.top, m.lastTop(doc, c, bodyH))
	if m.fileColumn() {
		listW := fileColumnWidth(w)
		diffW = w - listW - 1
		for i := range doc.files {
			fileCol = append(fileCol, fileLine(i, listW))
		}
		fileCol = term.WindowAround(fileCol, c.file, bodyH+1)
		body := term.FixBlock(strings.Join(fileCol, "\n"), listW, bodyH+1)
		lines := m.diffLines(ti, c.file, top, bodyH, diffW)
		sl := m.searchLine(ti, diffW)
		if sl != "" {
			// The search line sits at the bottom of the pane, under a short page too.
			lines = term.FixBlock(lines, diffW, bodyH)
		}
		right := posStyle.Render(fitPos(parts, diffW)) + "\n" + lines + sl
		return lipgloss.JoinHorizontal(lipgloss.Top, body, " ", right)
	}
	if m.review.hideFiles {
		return posStyle.Render(fitPos(parts, w)) + "\n" + term.FixBlock(m.diffLines(ti, c.file, top, bodyH, diffW), w, bodyH) + m.searchLine(ti, w)
	}
	n := min(len(doc.files), 3)
	for i := range doc.files {
		fileCol = append(fileCol, fileLine(i, w))
	}
	fileCol = term.WindowAround(fileCol, c.file, n)
	return strings.Join(fileCol, "\n") + "\n" + posStyle.Render(fitPos(parts, w)) + "\n" + term.FixBlock(m.diffLines(ti, c.file, top, bodyH, diffW), w, bodyH) + m.searchLine(ti, w)
}

// diffLines draws one page of a file: highlighted, with line numbers, unified or side by side.
func (m *Model) diffLines(ti *taskInfo, file, top, h, w int) string {
	p := diffPage{doc: ti.rv.diff, file: file, top: top, h: h, w: w, sel: ti.rv.sel,
		comments: commentLines(ti, &ti.rv.diff.files[file]), st: m.diffStyles(), t: m.theme,
		wrap: m.review.wrap, match: strings.ToLower(ti.rv.search.query)}
	if !p.wrap {
		p.skip = ti.rv.xoff
	}
	if m.sbsActive() {
		return p.sideBySide()
	}
	return p.unified()
}

// shownTop is the first line the view draws for the cursor.
func (m *Model) shownTop(ti *taskInfo) int {
	c := ti.rv.diffCur
	return min(c.top, m.lastTop(ti.rv.diff, c, m.diffBodyHeight()))
}

// placeSel keeps the selected line on the page: when the page moved by other means (hunk,
// file, page keys) the selection goes to the page's first changed line; otherwise the page
// follows the selection (a smaller window scrolls, it never moves the selected line).
func (m *Model) placeSel(ti *taskInfo) {
	doc := ti.rv.diff
	if doc == nil || len(doc.files) == 0 {
		return
	}
	c := doc.clamp(ti.rv.diffCur)
	f := &doc.files[c.file]
	rv := &ti.rv
	top := m.shownTop(ti)
	end := m.pageEnd(doc, c.file, top, m.diffBodyHeight())
	if !rv.placed || rv.seenFile != c.file || rv.seenTop != c.top {
		rv.placed, rv.seenFile, rv.seenTop = true, c.file, c.top
		rv.sel = -1
		for i := c.top; i < end; i++ {
			if k := f.lines[i].kind; k == '+' || k == '-' {
				rv.sel = i
				break
			}
		}
		if rv.sel < 0 {
			rv.sel = c.top
		}
	}
	rv.sel = term.Clamp(rv.sel, 0, max(len(f.lines)-1, 0))
	if rv.sel >= top && rv.sel < end {
		return
	}
	h := m.diffBodyHeight()
	if rv.sel < top {
		top = rv.sel
	}
	for rv.sel >= m.pageEnd(doc, c.file, top, h) && top < rv.sel {
		top++
	}
	c.top = top
	rv.diffCur = c
	rv.seenFile, rv.seenTop = c.file, c.top
}

// moveSel moves the selection by delta lines, scrolling the page to keep it in view.
func (m *Model) moveSel(ti *taskInfo, delta int) {
	m.placeSel(ti)
	doc := ti.rv.diff
	c := doc.clamp(ti.rv.diffCur)
	f := &doc.files[c.file]
	rv := &ti.rv
	rv.sel = term.Clamp(rv.sel+delta, 0, len(f.lines)-1)
	top := m.shownTop(ti)
	h := m.diffBodyHeight()
	moved := false
	if rv.sel < top {
		top, moved = rv.sel, true
	}
	for rv.sel >= m.pageEnd(doc, c.file, top, h) && top < rv.sel {
		top, moved = top+1, true
	}
	if moved {
		c.top = top
	}
	ti.rv.diffCur = c
	rv.seenFile, rv.seenTop = c.file, c.top
}

// diffTab is the diff tab: the selected task's review — the diff, side by side, the selected
// line, comments and the editor. Its copy key (y) works in every tab and is the dashboard's
// (actions.go).
type diffTab struct{ m *Model }

// capturing: while the search line takes text, every key is text.
func (p diffTab) capturing() bool {
	_, ti := p.m.selectedInfo()
	return ti != nil && ti.rv.search.typing
}

func (p diffTab) key(msg tea.KeyMsg) (tea.Cmd, bool) {
	m, k := p.m, p.m.keys
	t, ti := m.selectedInfo()
	if t == nil {
		return nil, false
	}
	if ti.rv.search.typing {
		// Every key is the search's while it takes text.
		return nil, p.searchKey(ti, msg)
	}
	if key.Matches(msg, k.SideBySide) {
		// Turning it off is always allowed: after a resize below the width it needs, side by
		// side stays chosen (the position line says so) and w must be able to let it go.
		if m.width < sideBySideMin && !m.review.sideBySide {
			m.setStatus(fmt.Sprintf("side by side needs a terminal at least %d columns wide; this one is %d", sideBySideMin, m.width), false, "")
			return nil, true
		}
		m.review.sideBySide = !m.review.sideBySide
		if ti.rv.diff != nil {
			m.placeSel(ti)
		}
		return nil, true
	}
	switch {
	case key.Matches(msg, k.Wrap):
		m.review.wrap = !m.review.wrap
		if ti.rv.diff != nil {
			m.placeSel(ti)
		}
		return nil, true
	case key.Matches(msg, k.HideFiles):
		m.review.hideFiles = !m.review.hideFiles
		if ti.rv.diff != nil {
			m.placeSel(ti)
		}
		return nil, true
	}
	if ti.rv.diff == nil || len(ti.rv.diff.files) == 0 {
		return nil, false
	}
	if p.searchKey(ti, msg) {
		return nil, true
	}
	f := &ti.rv.diff.files[ti.rv.diff.clamp(ti.rv.diffCur).file]
	switch {
	case key.Matches(msg, k.ScrollLeft), key.Matches(msg, k.ScrollRight):
		if m.review.wrap {
			m.setStatus("long lines wrap: W scrolls them sideways instead", false, t.TaskID)
			return nil, true
		}
		if key.Matches(msg, k.ScrollLeft) {
			ti.rv.xoff = max(ti.rv.xoff-hscrollStep, 0)
		} else {
			ti.rv.xoff = min(ti.rv.xoff+hscrollStep, max(m.longestShown(ti)-hscrollStep, 0))
		}
	case key.Matches(msg, k.LineDown):
		m.moveSel(ti, 1)
	case key.Matches(msg, k.LineUp):
		m.moveSel(ti, -1)
	case key.Matches(msg, k.OpenFile):
		c := ti.rv.diff.clamp(ti.rv.diffCur)
		if f.collapsed {
			f.expand()
		} else if f.full == nil && (f.generated || f.added+f.deleted > collapseOver) {
			f.collapse()
		} else {
			return nil, p.scroll(ti, msg)
		}
		delete(ti.rv.diff.caches, c.file)
		ti.rv.diffCur, ti.rv.placed = diffCursor{c.file, 0}, false
	case key.Matches(msg, k.Comment):
		m.placeSel(ti)
		return m.openComment(t, ti, f), true
	case key.Matches(msg, k.SendComments):
		return m.askSendComments(t, ti), true
	case key.Matches(msg, k.Editor):
		m.placeSel(ti)
		return m.openEditor(t, ti, f), true
	default:
		return nil, p.scroll(ti, msg)
	}
	return nil, true
}

// scroll moves the diff by hunks, files and pages, and marks files reviewed; it reports whether
// it took the key.
func (p diffTab) scroll(ti *taskInfo, msg tea.KeyMsg) bool {
	m, k := p.m, p.m.keys
	page := max(m.detailHeight()-2, 1)
	c := ti.rv.diffCur
	last := m.lastTop(ti.rv.diff, c, m.diffBodyHeight())
	took, entered := true, false
	switch {
	case key.Matches(msg, k.NextHunk):
		if e := ti.rv.entered; e != nil && *e == c {
			// The file was just entered with } or {: the selection is on its first hunk
			// already, and going "to" it moved nothing on screen.
			c.top = max(c.top, firstHunk(ti.rv.diff.files[c.file]))
		}
		c = ti.rv.diff.nextHunk(c)
	case key.Matches(msg, k.PrevHunk):
		c = ti.rv.diff.prevHunk(c)
	case key.Matches(msg, k.NextFile):
		if c.file+1 < len(ti.rv.diff.files) {
			c, entered = diffCursor{c.file + 1, 0}, true
		}
	case key.Matches(msg, k.PrevFile):
		if c.file > 0 {
			c, entered = diffCursor{c.file - 1, 0}, true
		}
	case key.Matches(msg, k.PageDown):
		c.top = min(c.top+page, max(last, c.top))
	case key.Matches(msg, k.PageUp):
		c.top = min(c.top, last) - page
	case key.Matches(msg, k.Top):
		c.top = 0
	case key.Matches(msg, k.Bottom):
		c.top = last
	case key.Matches(msg, k.Reviewed):
		name := ti.rv.diff.files[c.file].name
		ti.rv.reviewed[name] = !ti.rv.reviewed[name]
		// Said in the header too: the file list may be hidden (z) and the position line gives
		// its room to the comment of a commented line, and then nothing else showed the change.
		n := 0
		for _, df := range ti.rv.diff.files {
			if ti.rv.reviewed[df.name] {
				n++
			}
		}
		what := "marked reviewed"
		if !ti.rv.reviewed[name] {
			what = "no longer marked reviewed"
		}
		m.setStatus(fmt.Sprintf("%s %s · %d/%d files reviewed", name, what, n, len(ti.rv.diff.files)), false, "")
	default:
		took = false
	}
	ti.rv.diffCur = ti.rv.diff.clamp(c)
	if took {
		ti.rv.entered = nil
		if entered {
			e := ti.rv.diffCur
			ti.rv.entered = &e
		}
	}
	return took
}

// longestShown is the width of the longest code line on the page.
func (m *Model) longestShown(ti *taskInfo) int {
	doc := ti.rv.diff
	c := doc.clamp(ti.rv.diffCur)
	f := &doc.files[c.file]
	top := m.shownTop(ti)
	n := 0
	for i := top; i < m.pageEnd(doc, c.file, top, m.diffBodyHeight()); i++ {
		n = max(n, cellWidth(f.lines[i].text))
	}
	return n
}

func (p diffTab) view(w, h int) string {
	tv, ti := p.m.selectedInfo()
	return p.m.viewDiff(tv, ti, w, h)
}
