package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"reasonixctl/core/safetext"
)

// The diff's find: / opens a search line under the diff and every key typed moves the
// selection to the first line at or after where the search began that contains the query
// (ignoring case), across files; enter keeps the query for n/N, esc goes back (typing) or
// clears it. While the line is open the tab captures keys, so none of them is a command.

// diffMatch is a line of the diff that holds the query.
type diffMatch struct{ file, line int }

type diffSearch struct {
	typing bool
	query  string
	// Where the search began, to go back to on esc and to search on from.
	originCur diffCursor
	originSel int
	matches   []diffMatch
	cur       int // index of the current match, -1 for none
}

func (s *diffSearch) shown() bool { return s.typing || s.query != "" }

// redo finds the query again in a new diff (a reload or a new revision).
func (s *diffSearch) redo(doc *diffDoc) {
	if s.query == "" || doc == nil {
		s.matches, s.cur = nil, -1
		return
	}
	s.matches, s.cur = doc.find(s.query), -1
}

// lowerLines are the diff's lines lower-cased, for the search: worked out once per diff.
func (d *diffDoc) lowerLines(file int) []string {
	if d.lower == nil {
		d.lower = make([][]string, len(d.files))
	}
	if d.lower[file] == nil {
		ls := fileLines(&d.files[file])
		low := make([]string, len(ls))
		for i, l := range ls {
			low[i] = strings.ToLower(l.text)
		}
		d.lower[file] = low
	}
	return d.lower[file]
}

// fileLines are all the lines of a file, collapsed or not.
func fileLines(f *diffFile) []diffLine {
	if f.collapsed {
		return f.full
	}
	return f.lines
}

// find lists the lines that hold q, ignoring case, in the diff's order.
func (d *diffDoc) find(q string) []diffMatch {
	q = strings.ToLower(q)
	if q == "" {
		return nil
	}
	var out []diffMatch
	for fi := range d.files {
		ls := fileLines(&d.files[fi])
		for i, l := range d.lowerLines(fi) {
			if ls[i].kind != 'i' && strings.Contains(l, q) {
				out = append(out, diffMatch{fi, i})
			}
		}
	}
	return out
}

// searchKey handles the diff's search keys; it reports whether it took the key.
func (p diffTab) searchKey(ti *taskInfo, msg tea.KeyMsg) bool {
	m, k := p.m, p.m.keys
	s := &ti.rv.search
	if s.typing {
		switch msg.Type {
		case tea.KeyEsc:
			// Back to where the search began, as if it never happened.
			ti.rv.diffCur, ti.rv.sel = s.originCur, s.originSel
			ti.rv.placed, ti.rv.seenFile, ti.rv.seenTop = true, s.originCur.file, s.originCur.top
			*s = diffSearch{}
		case tea.KeyEnter:
			s.typing = false
			if s.query == "" {
				*s = diffSearch{}
			}
		case tea.KeyBackspace, tea.KeyCtrlH:
			if r := []rune(s.query); len(r) > 0 {
				m.setDiffQuery(ti, string(r[:len(r)-1]))
			}
		case tea.KeyCtrlU:
			m.setDiffQuery(ti, "")
		case tea.KeyRunes, tea.KeySpace:
			m.setDiffQuery(ti, s.query+safetext.Line(string(msg.Runes)))
		case tea.KeyCtrlC:
			return false
		}
		return true
	}
	switch {
	case key.Matches(msg, k.Search):
		m.placeSel(ti)
		*s = diffSearch{typing: true, originCur: ti.rv.diffCur, originSel: ti.rv.sel, cur: -1}
	case s.query == "":
		return false
	case key.Matches(msg, k.NextMatch):
		m.nextDiffMatch(ti, 1)
	case key.Matches(msg, k.PrevMatch):
		m.nextDiffMatch(ti, -1)
	case msg.Type == tea.KeyEsc:
		*s = diffSearch{}
	default:
		return false
	}
	return true
}

// setDiffQuery searches for q from where the search began, going round the end.
func (m *Model) setDiffQuery(ti *taskInfo, q string) {
	s := &ti.rv.search
	s.query = q
	s.redo(ti.rv.diff)
	if len(s.matches) == 0 {
		ti.rv.diffCur, ti.rv.sel = s.originCur, s.originSel
		ti.rv.placed, ti.rv.seenFile, ti.rv.seenTop = true, s.originCur.file, s.originCur.top
		return
	}
	at := diffMatch{s.originCur.file, s.originSel}
	i := 0
	for i < len(s.matches) && (s.matches[i].file < at.file || (s.matches[i].file == at.file && s.matches[i].line < at.line)) {
		i++
	}
	if i == len(s.matches) {
		i = 0
	}
	m.goToMatch(ti, i)
}

// nextDiffMatch moves to the next (1) or previous (-1) match, going round the ends.
func (m *Model) nextDiffMatch(ti *taskInfo, dir int) {
	s := &ti.rv.search
	if len(s.matches) == 0 {
		m.setStatus("no line of the diff holds "+fmt.Sprintf("%q", s.query), false, "")
		return
	}
	i := s.cur
	if i < 0 {
		// After a reload: from the selected line.
		c := ti.rv.diffCur
		i = 0
		for i < len(s.matches) && (s.matches[i].file < c.file || (s.matches[i].file == c.file && s.matches[i].line <= ti.rv.sel)) {
			i++
		}
		if dir < 0 {
			i -= 2
		} else {
			i--
		}
	}
	m.goToMatch(ti, ((i+dir)%len(s.matches)+len(s.matches))%len(s.matches))
}

// goToMatch selects match i, opening its file if it is collapsed and scrolling the page only
// when the line is not on it.
func (m *Model) goToMatch(ti *taskInfo, i int) {
	s := &ti.rv.search
	s.cur = i
	mt := s.matches[i]
	doc := ti.rv.diff
	f := &doc.files[mt.file]
	if f.collapsed {
		f.expand()
		delete(doc.caches, mt.file)
	}
	c := doc.clamp(ti.rv.diffCur)
	h := m.diffBodyHeight()
	if c.file != mt.file {
		c = diffCursor{mt.file, max(mt.line-h/3, 0)}
	} else {
		top := min(c.top, m.lastTop(doc, c, h))
		if mt.line < top || mt.line >= m.pageEnd(doc, c.file, top, h) {
			c.top = max(mt.line-h/3, 0)
		}
	}
	ti.rv.diffCur = doc.clamp(c)
	ti.rv.sel = mt.line
	ti.rv.placed, ti.rv.seenFile, ti.rv.seenTop = true, ti.rv.diffCur.file, ti.rv.diffCur.top
	m.placeSel(ti)
	m.scrollToMatch(ti, mt, s.query)
}

// scrollToMatch scrolls unwrapped code sideways so that the match on its line is in view: a
// line is cut at the pane's edge, and a match past it was selected but never seen.
func (m *Model) scrollToMatch(ti *taskInfo, mt diffMatch, q string) {
	if m.review.wrap {
		return
	}
	f := &ti.rv.diff.files[mt.file]
	if mt.line >= len(f.lines) {
		return
	}
	l := f.lines[mt.line]
	if l.kind != '+' && l.kind != '-' && l.kind != ' ' {
		return // headers are drawn from their start, whatever the scroll
	}
	low := ti.rv.diff.lowerLines(mt.file)[mt.line]
	lq := strings.ToLower(q)
	at := strings.Index(low, lq)
	if at < 0 || len(low) != len(l.text) {
		return
	}
	from := cellWidth(l.text[:at])
	to := from + cellWidth(l.text[at:at+len(lq)])
	left, right := codeWidths(m.diffWidth(), f.numW, m.sbsActive())
	cw := right
	if l.kind == '-' && m.sbsActive() {
		cw = left
	}
	// The last cell of a cut line holds its …: what shows ends one cell before the edge.
	shown := max(cw-1, 1)
	x := ti.rv.xoff
	switch {
	case from < x:
		x = from / hscrollStep * hscrollStep
	case to > x+shown:
		x = (to - shown + hscrollStep - 1) / hscrollStep * hscrollStep
		if x > from {
			// A match wider than the pane shows from its start.
			x = from / hscrollStep * hscrollStep
		}
	}
	ti.rv.xoff = x
}

// searchLine is the search's line under the diff, with its newline; empty when closed.
func (m *Model) searchLine(ti *taskInfo, w int) string {
	s := &ti.rv.search
	if !s.shown() {
		return ""
	}
	t := m.theme
	line := "/" + s.query
	if s.typing {
		line += "█"
	}
	switch {
	case s.query == "":
	case len(s.matches) == 0:
		line += t.Warn.Render("  no match")
	case s.cur >= 0:
		line += t.Dim.Render(fmt.Sprintf("  %d/%d", s.cur+1, len(s.matches)))
	default:
		line += t.Dim.Render(fmt.Sprintf("  %d matches", len(s.matches)))
	}
	if s.typing {
		line += t.Dim.Render(" · enter keeps · esc goes back")
	} else {
		line += t.Dim.Render(" · n/N next/previous · esc clears")
	}
	return "\n" + ansi.Truncate(line, w, "…")
}
