package checks

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/viewport"
	"github.com/charmbracelet/x/ansi"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
	"reasonixctl/tui/term"
	"reasonixctl/tui/words"
)

// View lists the verification of the last finalize attempt and shows the selected check's log
// below, paged and searchable, in width × height cells. It lays out a copy of the tab: what
// the tab keeps is laid out again at its own size before each key.
func (m Model) View(width, height int) string {
	return m.render(width, height)
}

// render draws the tab at w × h, laying the selected log out at that size: its wrapped lines,
// the viewport over them, the search's matches in them.
func (m *Model) render(w, h int) string {
	t := m.env.Theme
	if !m.loaded {
		return t.Dim.Render(" loading…")
	}
	if len(m.results) == 0 {
		var out []string
		for _, l := range term.WrapLines("no checks yet: finalizing (F) runs the contract's verification commands and shows them here", w-2) {
			out = append(out, t.Dim.Render(" "+l))
		}
		return strings.Join(out, "\n")
	}
	failed := 0
	for _, v := range m.results {
		if !v.Passed {
			failed++
		}
	}
	head := fmt.Sprintf(" last finalize attempt · %d check(s)", len(m.results))
	if failed > 0 {
		head += fmt.Sprintf(" · %d failed", failed)
	}
	lines := []string{t.Title.Render(ansi.Truncate(head, w, "…"))}
	lines = append(lines, term.WindowAround(m.rows(w), m.sel, min(len(m.results), max(h/4, 1)))...)
	v := m.results[m.sel]
	lines = append(lines, baselineLines(t, v, w)...)
	lg := m.logs[logKey(v)]
	bodyH := h - len(lines) - 2 // the log's line and its path
	if m.search.shown() {
		bodyH--
	}
	bodyH = max(bodyH, 1)
	info := " log " + safetext.Line(v.ID)
	switch {
	case lg == nil || lg.loading:
		lines = append(lines, t.Dim.Render(ansi.Truncate(info+" · reading…", w, "…")))
		return strings.Join(lines, "\n")
	case lg.err != nil:
		lines = append(lines, t.Dim.Render(ansi.Truncate(info, w, "…")))
		msg := []string{lg.err.Error()}
		if _, ok := lg.err.(*core.Error); ok {
			msg = words.DescribeError(lg.err)
		}
		for _, m := range msg {
			for _, l := range term.WrapLines(safetext.Sanitize(m), w-2) {
				lines = append(lines, t.Error.Render(" "+l))
			}
		}
		return strings.Join(lines, "\n")
	}
	textW := logWidth(w)
	if lg.width != textW || lg.lines == nil {
		lg.lines, lg.width = wrapLog(lg.text, textW), textW
	}
	if shown := shownKey(v, w); m.shown != shown {
		m.shown = shown
		m.vp = viewport.New(textW, bodyH)
		m.vp.SetContent(strings.Join(lg.lines, "\n"))
		m.search.computedAt = ""
	}
	m.vp.Width, m.vp.Height = textW, bodyH
	m.vp.SetYOffset(m.vp.YOffset) // re-clamp after a resize
	total := len(lg.lines)
	first, last := m.vp.YOffset+1, min(m.vp.YOffset+bodyH, total)
	info += fmt.Sprintf(" · %s · lines %d–%d of %d", humanBytes(lg.size), first, last, total)
	if lg.truncated {
		info += fmt.Sprintf(" · first %s shown", humanBytes(maxLogBytes))
	}
	lines = append(lines, t.Dim.Render(ansi.Truncate(info, w, "…")),
		t.Dim.Render(" "+ansi.TruncateLeft(safetext.Line(v.LogPath), max(term.TextWidth(safetext.Line(v.LogPath))-(w-2), 0), "…")))
	m.refreshMatches(lg)
	s := &m.search
	curLine := -1
	if s.cur >= 0 && s.cur < len(s.matches) {
		curLine = s.matches[s.cur]
	}
	for i := m.vp.YOffset; i < m.vp.YOffset+bodyH && i < total; i++ {
		l := lg.lines[i]
		if len(s.needle) > 0 {
			l = term.MarkMatches(t, l, t.DiffCtx, s.needle, i == curLine)
		} else {
			l = t.DiffCtx.Render(l)
		}
		lines = append(lines, " "+l)
	}
	if s.shown() {
		for len(lines) < h-1 {
			lines = append(lines, "")
		}
		lines = append(lines, term.SearchBar(t, w, s.typing, s.query, len(s.needle) > 0, len(s.matches), s.cur, s.wrapped, ""))
	}
	return strings.Join(lines, "\n")
}

// logWidth is the width of a log's lines in a tab w wide.
func logWidth(w int) int { return max(w-1, 1) }

// shownKey names check v's log laid out in a tab w wide.
func shownKey(v core.VerificationResult, w int) string { return logKey(v) + fmt.Sprint(logWidth(w)) }

// rows are the checks one per line, the selected one marked, w wide.
func (m *Model) rows(w int) []string {
	t := m.env.Theme
	idW := 0
	for _, v := range m.results {
		idW = max(idW, term.TextWidth(v.ID))
	}
	idW = min(idW, 24)
	var rows []string
	for i, v := range m.results {
		exit := "exit -"
		if v.ExitCode != nil {
			exit = fmt.Sprintf("exit %d", *v.ExitCode)
		}
		mark := "  "
		if i == m.sel {
			mark = "› "
		}
		row := fmt.Sprintf("%s%-12s %s  %-8s %7s  %s", mark, words.CheckStatus(v), term.PadRight(ansi.Truncate(safetext.Line(v.ID), idW, "…"), idW), exit,
			duration(v), safetext.Line(core.ShellWords(v.Argv)))
		row = ansi.Truncate(row, w-1, "…")
		st := t.Good
		if !v.Passed {
			st = t.Error
		}
		if i == m.sel {
			rows = append(rows, t.Selected.Render(term.PadRight(" "+row, w)))
		} else {
			rows = append(rows, " "+st.Render(row))
		}
	}
	return rows
}

// duration is how long a check ran, "-" when its times do not say.
func duration(v core.VerificationResult) string {
	a, err1 := time.Parse(time.RFC3339Nano, v.StartedAt)
	b, err2 := time.Parse(time.RFC3339Nano, v.FinishedAt)
	if err1 != nil || err2 != nil || b.Before(a) {
		return "-"
	}
	d := b.Sub(a)
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// maxFailureRows is how many of a check's failures the tab lists under it.
const maxFailureRows = 8

// baselineLines say how the selected failed check fares on the base commit, then its failures
// one per line, those the change causes first, each with pre_existing.
func baselineLines(t term.Theme, v core.VerificationResult, w int) []string {
	b := v.Baseline
	if v.Passed || (b == nil && len(v.Failures) == 0) {
		return nil
	}
	var text string
	st := t.Warn
	switch {
	case b == nil:
	case b.Status == core.BaselineFailed && v.Excusable():
		text = "before the change: ✗ fails too on " + shortHash(b.Base) + " — a pre-existing failure, with the same failures"
		if v.Excused {
			text += "; excused: " + v.ExcuseReason
		} else {
			text += "; ctrl+x in the finalize form excuses it, D drops the check"
		}
	case b.Status == core.BaselineFailed:
		text = fmt.Sprintf("before the change: ✗ fails too on %s, but %d failure(s) are new — the change causes them; not excusable (D drops the check)",
			shortHash(b.Base), v.NewFailures())
		st = t.Error
	case b.Status == core.BaselinePassed:
		text = "before the change: ✓ passes on " + shortHash(b.Base) + " — the change makes it fail (D drops the check)"
		st = t.Error
	default:
		text = "before the change: ? unknown — " + b.Reason
	}
	var out []string
	if text != "" {
		for _, l := range term.WrapLines(safetext.Line(text), max(w-2, 1)) {
			out = append(out, " "+st.Render(l))
		}
	}
	out = append(out, failureRows(t, v, w)...)
	if b != nil && b.Status == core.BaselineFailed && b.LogTail != "" && len(v.Failures) == 0 {
		tail := strings.Split(b.LogTail, "\n")
		if len(tail) > 3 {
			tail = tail[len(tail)-3:]
		}
		for _, l := range tail {
			out = append(out, " "+t.Dim.Render(ansi.Truncate("  base: "+safetext.Line(l), max(w-2, 1), "…")))
		}
	}
	return out
}

// failureRows list a check's failures one per line, new ones first: "✗ pre_existing: false  id —
// message" in the error colour, "· pre_existing: true   id" dimmed.
func failureRows(t term.Theme, v core.VerificationResult, w int) []string {
	var fresh, known []core.CheckFailure
	for _, f := range v.Failures {
		if f.PreExisting {
			known = append(known, f)
		} else {
			fresh = append(fresh, f)
		}
	}
	var out []string
	for i, f := range append(fresh, known...) {
		if i == maxFailureRows {
			out = append(out, " "+t.Dim.Render(fmt.Sprintf("   … and %d more failure(s): the log has them all", len(v.Failures)-i)))
			break
		}
		mark, st := "✗ pre_existing: false ", t.Error
		if f.PreExisting {
			mark, st = "· pre_existing: true  ", t.Dim
		}
		line := "  " + mark + " " + safetext.Line(f.ID)
		if f.Message != "" && f.Message != f.ID && !strings.Contains(f.ID, f.Message) {
			line += " — " + safetext.Line(f.Message)
		}
		out = append(out, " "+st.Render(ansi.Truncate(line, max(w-2, 1), "…")))
	}
	return out
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
