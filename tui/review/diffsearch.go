package review

import (
	"fmt"
	"strings"

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

// searchTyping takes a key while the search line takes text: every key is the search's, but
// ctrl+c, which it hands on (false).
func (r Review) searchTyping(rv *taskReview, msg tea.KeyMsg) bool {
	s := &rv.search
	switch msg.Type {
	case tea.KeyEsc:
		// Back to where the search began, as if it never happened.
		rv.diffCur, rv.sel = s.originCur, s.originSel
		rv.placed, rv.seenFile, rv.seenTop = true, s.originCur.file, s.originCur.top
		*s = diffSearch{}
	case tea.KeyEnter:
		s.typing = false
		if s.query == "" {
			*s = diffSearch{}
		}
	case tea.KeyBackspace, tea.KeyCtrlH:
		if q := []rune(s.query); len(q) > 0 {
			r.setDiffQuery(rv, string(q[:len(q)-1]))
		}
	case tea.KeyCtrlU:
		r.setDiffQuery(rv, "")
	case tea.KeyRunes, tea.KeySpace:
		r.setDiffQuery(rv, s.query+safetext.Line(string(msg.Runes)))
	case tea.KeyCtrlC:
		return false
	}
	return true
}

// startSearch opens the search line where the selection is.
func (r Review) startSearch(rv *taskReview) {
	r.placeSel(rv)
	rv.search = diffSearch{typing: true, originCur: rv.diffCur, originSel: rv.sel, cur: -1}
}

// setDiffQuery searches for q from where the search began, going round the end.
func (r Review) setDiffQuery(rv *taskReview, q string) {
	s := &rv.search
	s.query = q
	s.redo(rv.diff)
	if len(s.matches) == 0 {
		rv.diffCur, rv.sel = s.originCur, s.originSel
		rv.placed, rv.seenFile, rv.seenTop = true, s.originCur.file, s.originCur.top
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
	r.goToMatch(rv, i)
}

// nextDiffMatch moves to the next (1) or previous (-1) match, going round the ends.
func (r Review) nextDiffMatch(rv *taskReview, dir int) Result {
	s := &rv.search
	if len(s.matches) == 0 {
		return say("no line of the diff holds "+fmt.Sprintf("%q", s.query), false, "")
	}
	i := s.cur
	if i < 0 {
		// After a reload: from the selected line.
		c := rv.diffCur
		i = 0
		for i < len(s.matches) && (s.matches[i].file < c.file || (s.matches[i].file == c.file && s.matches[i].line <= rv.sel)) {
			i++
		}
		if dir < 0 {
			i -= 2
		} else {
			i--
		}
	}
	r.goToMatch(rv, ((i+dir)%len(s.matches)+len(s.matches))%len(s.matches))
	return Result{}
}

// goToMatch selects match i, opening its file if it is collapsed and scrolling the page only
// when the line is not on it.
func (r Review) goToMatch(rv *taskReview, i int) {
	s := &rv.search
	s.cur = i
	mt := s.matches[i]
	doc := rv.diff
	f := &doc.files[mt.file]
	if f.collapsed {
		f.expand()
		delete(doc.caches, mt.file)
	}
	c := doc.clamp(rv.diffCur)
	h := r.diffBodyHeight(rv)
	if c.file != mt.file {
		c = diffCursor{mt.file, max(mt.line-h/3, 0)}
	} else {
		top := min(c.top, r.lastTop(doc, c, h))
		if mt.line < top || mt.line >= r.pageEnd(doc, c.file, top, h) {
			c.top = max(mt.line-h/3, 0)
		}
	}
	rv.diffCur = doc.clamp(c)
	rv.sel = mt.line
	rv.placed, rv.seenFile, rv.seenTop = true, rv.diffCur.file, rv.diffCur.top
	r.placeSel(rv)
	r.scrollToMatch(rv, mt, s.query)
}

// scrollToMatch scrolls unwrapped code sideways so that the match on its line is in view: a
// line is cut at the pane's edge, and a match past it was selected but never seen.
func (r Review) scrollToMatch(rv *taskReview, mt diffMatch, q string) {
	if r.wrap {
		return
	}
	f := &rv.diff.files[mt.file]
	if mt.line >= len(f.lines) {
		return
	}
	l := f.lines[mt.line]
	if l.kind != '+' && l.kind != '-' && l.kind != ' ' {
		return // headers are drawn from their start, whatever the scroll
	}
	low := rv.diff.lowerLines(mt.file)[mt.line]
	lq := strings.ToLower(q)
	at := strings.Index(low, lq)
	if at < 0 || len(low) != len(l.text) {
		return
	}
	from := cellWidth(l.text[:at])
	to := from + cellWidth(l.text[at:at+len(lq)])
	left, right := codeWidths(r.diffWidth(), f.numW, r.sbsActive())
	cw := right
	if l.kind == '-' && r.sbsActive() {
		cw = left
	}
	// The last cell of a cut line holds its …: what shows ends one cell before the edge.
	shown := max(cw-1, 1)
	x := rv.xoff
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
	rv.xoff = x
}

// searchLine is the search's line under the diff, with its newline; empty when closed.
func (r Review) searchLine(rv *taskReview, w int) string {
	s := &rv.search
	if !s.shown() {
		return ""
	}
	t := r.cfg.Theme
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
