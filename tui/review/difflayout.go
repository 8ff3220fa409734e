package review

import (
	"reasonixctl/tui/term"
	"strings"

	"github.com/charmbracelet/lipgloss"
)

// The diff's layout at any width: long lines wrap or scroll sideways (the person's choice,
// kept for the session), the file list can be hidden, and the selected line is held by what it
// is — file, side and line number — so resizes, reloads and new revisions keep it.

// hscrollStep is how far ←/→ move the code sideways.
const hscrollStep = 8

// diffWidth is the width of the diff itself, beside the file list when that is a column.
func (r Review) diffWidth() int {
	w := r.place.Width
	if r.fileColumn() {
		w -= fileColumnWidth(w) + 1
	}
	return max(w, 1)
}

// codeWidths are the cells of code per row: unified, or the old and new sides of side by side.
func codeWidths(w, numW int, sbs bool) (int, int) {
	if !sbs {
		cw := max(w-2*numW-4, 1)
		return cw, cw
	}
	half := (w - 1) / 2
	return max(half-numW-3, 1), max(w-half-1-numW-3, 1)
}

// lineRows is how many rows line i of f takes at cw cells of code.
func lineRows(f *diffFile, i, cw int, wrap bool) int {
	if !wrap {
		return 1
	}
	l := &f.lines[i]
	if l.kind != '+' && l.kind != '-' && l.kind != ' ' {
		return 1
	}
	return max(1, (cellWidth(l.text)+cw-1)/cw)
}

// sbsRowHeight is how many rows a side-by-side row takes.
func sbsRowHeight(f *diffFile, r sbsRow, lw, rw int, wrap bool) int {
	if !wrap {
		return 1
	}
	if r.l >= 0 && r.l == r.r && f.lines[r.l].kind != ' ' {
		return 1
	}
	h := 1
	if r.l >= 0 {
		h = max(h, lineRows(f, int(r.l), lw, true))
	}
	if r.r >= 0 {
		h = max(h, lineRows(f, int(r.r), rw, true))
	}
	return h
}

// pageEnd is one past the last line of file f that the page from top shows whole (the first
// line always counts, however tall).
func (r Review) pageEnd(doc *diffDoc, file, top, h int) int {
	f := &doc.files[file]
	wrap := r.wrap
	lw, rw := codeWidths(r.diffWidth(), f.numW, r.sbsActive())
	if !r.sbsActive() {
		if !wrap {
			return min(top+h, len(f.lines))
		}
		used, i := 0, top
		for ; i < len(f.lines); i++ {
			n := lineRows(f, i, lw, true)
			if used+n > h && i > top {
				break
			}
			used += n
		}
		return i
	}
	rows, rowOf := doc.rows(file)
	if top >= len(rowOf) {
		return len(f.lines)
	}
	first := int(rowOf[top])
	last, used := first, 0
	for ; last < len(rows); last++ {
		n := sbsRowHeight(f, rows[last], lw, rw, wrap)
		if used+n > h && last > first {
			break
		}
		used += n
	}
	end := top
	for _, row := range rows[first:last] {
		end = max(end, int(row.l)+1, int(row.r)+1)
	}
	return min(end, len(f.lines))
}

// lastTop is the first line of the last full page of the cursor's file.
func (r Review) lastTop(doc *diffDoc, c diffCursor, h int) int {
	if len(doc.files) == 0 {
		return 0
	}
	if !r.wrap {
		return doc.maxTop(c, h)
	}
	f := &doc.files[c.file]
	if r.sbsActive() {
		lw, rw := codeWidths(r.diffWidth(), f.numW, true)
		rows, _ := doc.rows(c.file)
		used, k := 0, len(rows)-1
		for ; k >= 0; k-- {
			n := sbsRowHeight(f, rows[k], lw, rw, true)
			if used+n > h {
				break
			}
			used += n
		}
		if k+1 >= len(rows) {
			return max(len(f.lines)-1, 0)
		}
		top := len(f.lines)
		for _, row := range rows[k+1:] {
			for _, i := range []int32{row.l, row.r} {
				if i >= 0 {
					top = min(top, int(i))
				}
			}
		}
		return term.Clamp(top, 0, max(len(f.lines)-1, 0))
	}
	cw, _ := codeWidths(r.diffWidth(), f.numW, false)
	used, i := 0, len(f.lines)-1
	for ; i >= 0; i-- {
		n := lineRows(f, i, cw, true)
		if used+n > h {
			break
		}
		used += n
	}
	return term.Clamp(i+1, 0, max(len(f.lines)-1, 0))
}

// ---- the selection, held by content ----

// lineKey names a diff line by what it is: its file, its side ('+' the new side, for added
// and context lines; '-' the old side) and line number there. Lines without a number (headers,
// notes) are held by their index. off is the line's distance from the top of the page.
type lineKey struct {
	file string
	side byte
	no   int32
	idx  int
	off  int
}

func keyOf(f *diffFile, i, top int) lineKey {
	k := lineKey{file: f.name, idx: i, off: max(i-top, 0)}
	if i < 0 || i >= len(f.lines) {
		return k
	}
	switch l := f.lines[i]; {
	case l.kind == '-':
		k.side, k.no = '-', l.oldNo
	case l.newNo > 0:
		k.side, k.no = '+', l.newNo
	}
	return k
}

// find is the index of the line k names in f, or the nearest line on its side when it is gone.
func (k lineKey) find(f *diffFile) int {
	if len(f.lines) == 0 {
		return 0
	}
	if k.side == 0 {
		return term.Clamp(k.idx, 0, len(f.lines)-1)
	}
	best, dist := -1, int32(1<<30)
	for i, l := range f.lines {
		var no int32
		switch {
		case k.side == '-' && l.kind == '-':
			no = l.oldNo
		case k.side == '+' && l.kind != '-' && l.newNo > 0:
			no = l.newNo
		default:
			continue
		}
		d := no - k.no
		if d < 0 {
			d = -d
		}
		if d < dist {
			best, dist = i, d
			if d == 0 {
				break
			}
		}
	}
	if best < 0 {
		return term.Clamp(k.idx, 0, len(f.lines)-1)
	}
	return best
}

// selKey is the selected line's key, ok when a line is selected.
func (rv *taskReview) selKey() (lineKey, bool) {
	if rv.diff == nil || len(rv.diff.files) == 0 || !rv.placed || rv.sel < 0 {
		return lineKey{}, false
	}
	c := rv.diff.clamp(rv.diffCur)
	return keyOf(&rv.diff.files[c.file], rv.sel, c.top), true
}

// restore selects the line k names in the current diff, keeping its place on the page.
func (rv *taskReview) restore(k lineKey) {
	doc := rv.diff
	if doc == nil || len(doc.files) == 0 {
		return
	}
	fi := doc.clamp(rv.diffCur).file
	for i := range doc.files {
		if doc.files[i].name == k.file {
			fi = i
			break
		}
	}
	f := &doc.files[fi]
	sel := k.find(f)
	top := max(sel-k.off, 0)
	rv.diffCur = doc.clamp(diffCursor{fi, top})
	rv.sel, rv.placed = sel, true
	rv.seenFile, rv.seenTop = rv.diffCur.file, rv.diffCur.top
}

// ---- the position line ----

// posPart is one part of the position line: its words, a shorter form for narrow panes
// (empty: none), and how long it stays when the line is too wide (higher stays longer).
type posPart struct {
	long, short string
	keep        int
	flex        bool // may be cut after a word to fit (a comment's text)
}

// fitPos joins the parts with " · " within w cells: hints go, a flexible part is cut after a
// word, long parts take their short form, remarks go, the least kept parts shorten, then go;
// what is left too wide is cut after a whole word.
func fitPos(parts []posPart, w int) string {
	use := make([]string, len(parts))
	for i, p := range parts {
		use[i] = p.long
	}
	join := func() string {
		var out []string
		for _, s := range use {
			if s != "" {
				out = append(out, s)
			}
		}
		return " " + strings.Join(out, " · ")
	}
	// Hints go first; then a flexible part gives what it can, keeping its first words.
	for i, p := range parts {
		if p.keep < 30 && lipgloss.Width(join()) > w {
			use[i] = ""
		}
	}
	for i, p := range parts {
		if over := lipgloss.Width(join()) - w; p.flex && over > 0 {
			if keep := lipgloss.Width(p.long) - over; keep >= 16 {
				use[i] = cutWords(p.long, keep)
			}
		}
	}
	// Parts that give a lot by their short form (a conflict's file list, a HEAD's hash) take it
	// first; then the least kept part takes its short form, or goes.
	for lipgloss.Width(join()) > w {
		at, save := -1, 0
		for i, p := range parts {
			if p.short == "" || use[i] != p.long {
				continue
			}
			if d := lipgloss.Width(p.long) - lipgloss.Width(p.short); d >= 10 && d > save {
				at, save = i, d
			}
		}
		if at < 0 {
			break
		}
		use[at] = parts[at].short
	}
	for i, p := range parts {
		if p.keep <= 40 && lipgloss.Width(join()) > w {
			use[i] = "" // remarks: this file ✓, side by side's width
		}
	}
	for lipgloss.Width(join()) > w {
		at := -1
		for i, p := range parts {
			if p.short != "" && use[i] == p.long && (at < 0 || p.keep < parts[at].keep) {
				at = i
			}
		}
		if at < 0 {
			break
		}
		use[at] = parts[at].short
	}
	for lipgloss.Width(join()) > w {
		at := -1
		for i, p := range parts {
			if use[i] != "" && p.keep < 100 && (at < 0 || p.keep < parts[at].keep) {
				at = i
			}
		}
		if at < 0 {
			break
		}
		use[at] = ""
	}
	return cutWords(join(), w)
}

// cutWords cuts s to w cells after a whole word, marking the cut with "…".
func cutWords(s string, w int) string {
	if lipgloss.Width(s) <= w {
		return s
	}
	rs := []rune(s)
	cut := 0
	for i := range rs {
		if lipgloss.Width(string(rs[:i]))+1 > w {
			break
		}
		if rs[i] == ' ' {
			cut = i
		}
	}
	return strings.TrimRight(string(rs[:cut]), " ·") + "…"
}
