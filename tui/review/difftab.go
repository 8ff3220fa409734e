package review

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"reasonixctl/core/safetext"
	"reasonixctl/tui/term"
	"reasonixctl/tui/words"
)

// The tab's view: its layout, the position line, the file list and the selected line. Its keys
// are in keys.go, comments in comments.go, the diff's parsing and drawing in diffview.go and
// diffrender.go.

// sbsActive reports whether the diff is drawn side by side now.
func (r Review) sbsActive() bool { return r.SideBySide(r.place.Screen) }

// fileColumn says whether the diff's file list sits beside the diff rather than above it: only
// where the diff keeps MinWidth beside it. Hidden, it gives the code the whole width.
func (r Review) fileColumn() bool {
	return fileColumnWidth(r.place.Width) >= minFileColumn && !r.sbsActive() && !r.hideFiles
}

// minFileColumn is the narrowest file list drawn beside the diff.
const minFileColumn = 30

// fileColumnWidth is the width of the file list beside a diff pane w wide: a third, at most 40
// columns, and never so wide that the diff keeps less than MinWidth.
func fileColumnWidth(w int) int { return min(40, w/3, w-1-MinWidth) }

// diffBodyHeight is the number of diff lines the tab shows of rv.
func (r Review) diffBodyHeight(rv *taskReview) int {
	h := r.place.Height - 1 // position line
	if d := rv.diff; d != nil && !r.fileColumn() && !r.hideFiles {
		h -= min(len(d.files), 3)
	}
	if rv.search.shown() {
		h-- // the search line
	}
	return max(h, 1)
}

func (r Review) viewDiff(rv *taskReview) string {
	t, tv, w := r.cfg.Theme, r.place.Task, r.place.Width
	if rv.diff == nil || len(rv.diff.files) == 0 {
		if rv.detail != nil && words.NothingChanged(rv.detail) {
			return t.Warn.Render(" the worker changed nothing: there is no commit to make.") + "\n" +
				t.Dim.Render(" X closes the task (F offers the same); s steers a repair round saying what is missing.")
		}
		return t.Dim.Render(" no review diff yet (the task is " + string(tv.State) + ")")
	}
	doc := rv.diff
	c := doc.clamp(rv.diffCur)
	rv.diffCur = c
	r.placeSel(rv)
	c = rv.diffCur
	counts := commentCounts(rv)
	f := doc.files[c.file]
	reviewed := 0
	for _, df := range doc.files {
		if rv.reviewed[df.name] {
			reviewed++
		}
	}
	// The hunk is the selected line's: the one a comment or the editor would go to.
	at := c.top
	if rv.sel >= 0 {
		at = rv.sel
	}
	var parts []posPart
	add := func(long, short string, keep int) {
		parts = append(parts, posPart{long: long, short: short, keep: keep})
	}
	add(fmt.Sprintf("file %d/%d", c.file+1, len(doc.files)), fmt.Sprintf("%d/%d", c.file+1, len(doc.files)), 100)
	add(fmt.Sprintf("hunk %d/%d", f.hunkIndex(at), len(f.hunks)), fmt.Sprintf("h%d/%d", f.hunkIndex(at), len(f.hunks)), 90)
	cm := selectedComment(rv, &doc.files[c.file])
	if cm == nil {
		add(fmt.Sprintf("%d/%d reviewed", reviewed, len(doc.files)), fmt.Sprintf("%d/%d ✓", reviewed, len(doc.files)), 50)
		if rv.reviewed[f.name] {
			add("this file ✓", "", 40)
		}
	} else {
		// On a commented line the position line reads the comment instead.
		body, _, _ := strings.Cut(cm.Body, "\n")
		glyph, state := commentGlyph(cm), commentState(cm)
		if rv.editedSince[cm.ID] {
			glyph, state = "●", strings.TrimSuffix(state, ")")+", edited since)"
		}
		add(fmt.Sprintf("%s line %d%s: %s", glyph, cm.Line, state, body), "", 100)
		parts[len(parts)-1].flex = true
		add("c edits it", "", 20)
	}
	if tv.ReviewRevision > 0 {
		add(fmt.Sprintf("revision %d", tv.ReviewRevision), fmt.Sprintf("rev %d", tv.ReviewRevision), 60)
	}
	if rv.xoff > 0 && !r.wrap {
		add(fmt.Sprintf("from column %d", rv.xoff+1), fmt.Sprintf("col %d", rv.xoff+1), 95)
	}
	if doc.err != nil && cm == nil {
		add("unparsed: "+doc.err.Error(), "unparsed", 80)
	}
	if r.sideBySide && !r.sbsActive() && cm == nil {
		add(fmt.Sprintf("side by side needs ≥%d columns", sideBySideMin), fmt.Sprintf("side by side ≥%d cols", sideBySideMin), 75)
	}
	if p := rv.preview; p != nil && rv.previewErr == "" && cm == nil {
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
	if risk := rv.risks[f.name]; risk != "" {
		// First, so no width cuts it off: the file hides characters, shown as markers below.
		parts = append([]posPart{{long: "⚠ " + safetext.Line(risk) + " (F asks you to acknowledge)", keep: 100}}, parts...)
		posStyle = t.Warn
	}
	fileLine := func(i, width int) string {
		df := doc.files[i]
		mark, check := "  ", "  "
		if i == c.file {
			mark = "› "
		}
		if rv.reviewed[df.name] {
			check = "✓ "
		}
		stats := fmt.Sprintf(" +%d -%d", df.added, df.deleted)
		if n := counts[df.name]; n > 0 {
			stats += fmt.Sprintf(" ●%d", n)
		}
		shown := safetext.Line(df.name)
		if rv.risks[df.name] != "" {
			stats += " ⚠"
		}
		name := ansi.TruncateLeft(shown, max(lipgloss.Width(shown)-(width-4-len(stats)), 0), "…")
		if i == c.file {
			// Dim grey on the selection's background is too faint to read (2.8:1).
			return t.Selected.Render(term.PadRight(mark+check+name+stats, width))
		}
		return mark + check + name + t.Dim.Render(stats)
	}
	bodyH := r.diffBodyHeight(rv)
	diffW := w
	var fileCol []string
	top := min(c.top, r.lastTop(doc, c, bodyH))
	if r.fileColumn() {
		listW := fileColumnWidth(w)
		diffW = w - listW - 1
		for i := range doc.files {
			fileCol = append(fileCol, fileLine(i, listW))
		}
		fileCol = term.WindowAround(fileCol, c.file, bodyH+1)
		body := term.FixBlock(strings.Join(fileCol, "\n"), listW, bodyH+1)
		lines := r.diffLines(rv, c.file, top, bodyH, diffW)
		sl := r.searchLine(rv, diffW)
		if sl != "" {
			// The search line sits at the bottom of the pane, under a short page too.
			lines = term.FixBlock(lines, diffW, bodyH)
		}
		right := posStyle.Render(fitPos(parts, diffW)) + "\n" + lines + sl
		return lipgloss.JoinHorizontal(lipgloss.Top, body, " ", right)
	}
	if r.hideFiles {
		return posStyle.Render(fitPos(parts, w)) + "\n" + term.FixBlock(r.diffLines(rv, c.file, top, bodyH, diffW), w, bodyH) + r.searchLine(rv, w)
	}
	n := min(len(doc.files), 3)
	for i := range doc.files {
		fileCol = append(fileCol, fileLine(i, w))
	}
	fileCol = term.WindowAround(fileCol, c.file, n)
	return strings.Join(fileCol, "\n") + "\n" + posStyle.Render(fitPos(parts, w)) + "\n" + term.FixBlock(r.diffLines(rv, c.file, top, bodyH, diffW), w, bodyH) + r.searchLine(rv, w)
}

// diffLines draws one page of a file: highlighted, with line numbers, unified or side by side.
func (r Review) diffLines(rv *taskReview, file, top, h, w int) string {
	p := diffPage{doc: rv.diff, file: file, top: top, h: h, w: w, sel: rv.sel,
		comments: commentLines(rv, &rv.diff.files[file]), st: r.diffStyles(), t: r.cfg.Theme,
		wrap: r.wrap, match: strings.ToLower(rv.search.query)}
	if !p.wrap {
		p.skip = rv.xoff
	}
	if r.sbsActive() {
		return p.sideBySide()
	}
	return p.unified()
}

// shownTop is the first line the view draws for the cursor.
func (r Review) shownTop(rv *taskReview) int {
	c := rv.diffCur
	return min(c.top, r.lastTop(rv.diff, c, r.diffBodyHeight(rv)))
}

// placeSel keeps the selected line on the page: when the page moved by other means (hunk,
// file, page keys) the selection goes to the page's first changed line; otherwise the page
// follows the selection (a smaller window scrolls, it never moves the selected line).
func (r Review) placeSel(rv *taskReview) {
	doc := rv.diff
	if doc == nil || len(doc.files) == 0 {
		return
	}
	c := doc.clamp(rv.diffCur)
	f := &doc.files[c.file]
	top := r.shownTop(rv)
	end := r.pageEnd(doc, c.file, top, r.diffBodyHeight(rv))
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
	h := r.diffBodyHeight(rv)
	if rv.sel < top {
		top = rv.sel
	}
	for rv.sel >= r.pageEnd(doc, c.file, top, h) && top < rv.sel {
		top++
	}
	c.top = top
	rv.diffCur = c
	rv.seenFile, rv.seenTop = c.file, c.top
}

// moveSel moves the selection by delta lines, scrolling the page to keep it in view.
func (r Review) moveSel(rv *taskReview, delta int) {
	r.placeSel(rv)
	doc := rv.diff
	c := doc.clamp(rv.diffCur)
	f := &doc.files[c.file]
	rv.sel = term.Clamp(rv.sel+delta, 0, len(f.lines)-1)
	top := r.shownTop(rv)
	h := r.diffBodyHeight(rv)
	moved := false
	if rv.sel < top {
		top, moved = rv.sel, true
	}
	for rv.sel >= r.pageEnd(doc, c.file, top, h) && top < rv.sel {
		top, moved = top+1, true
	}
	if moved {
		c.top = top
	}
	rv.diffCur = c
	rv.seenFile, rv.seenTop = c.file, c.top
}

// longestShown is the width of the longest code line on the page.
func (r Review) longestShown(rv *taskReview) int {
	doc := rv.diff
	c := doc.clamp(rv.diffCur)
	f := &doc.files[c.file]
	top := r.shownTop(rv)
	n := 0
	for i := top; i < r.pageEnd(doc, c.file, top, r.diffBodyHeight(rv)); i++ {
		n = max(n, cellWidth(f.lines[i].text))
	}
	return n
}

// diffStyles is the diff's palette for the theme and the terminal's background, worked out
// again only when either changes.
func (r Review) diffStyles() *diffStyles {
	k := [2]bool{r.cfg.Monochrome, lipgloss.HasDarkBackground()}
	if c := r.styles; c.styles == nil || c.key != k {
		c.styles, c.key = newDiffStyles(r.cfg.Theme, k[0], k[1]), k
	}
	return r.styles.styles
}
