package tui

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
	"reasonixctl/tui/bind"
	"reasonixctl/tui/term"
	"reasonixctl/tui/words"
)

// maxCheckLogBytes bounds how much of one verification log the dashboard holds. Verification
// stores at most 4 MiB of a command's output, so this is the whole log.
const maxCheckLogBytes = 4 << 20

// checkLogMsg is a verification log read through core.Service.
type checkLogMsg struct {
	taskID, key string
	text        string
	size        int64
	truncated   bool
	err         error
}

// checkLog is one verification log as the checks view holds it.
type checkLog struct {
	loading   bool
	text      string
	size      int64
	truncated bool
	err       error

	lines []string // wrapped to width
	width int
}

// checksState is a task's checks view: the selected check, its log in a viewport, and a
// search in that log.
type checksState struct {
	sel     int
	attempt string               // the attempt sel belongs to: a new one starts on its first failed check
	logs    map[string]*checkLog // by logKey
	vp      viewport.Model
	shown   string // the log key and width the viewport holds
	search  logSearch
}

// logSearch is a find in a log: matches are wrapped line numbers.
type logSearch struct {
	typing     bool
	query      string
	needle     []byte
	origin     int // the viewport's offset when the search began
	matches    []int
	cur        int // index in matches, -1 for none
	wrapped    bool
	computedAt string // the log key and width matches belong to
}

func (s *logSearch) shown() bool { return s.typing || s.query != "" }

// logKey names one log of one attempt: a new finalize writes the log again.
func logKey(v core.VerificationResult) string {
	return v.ID + "\x00" + v.SHA256 + "\x00" + v.FinishedAt
}

// sync clamps the selection to the checks shown and moves it to the first failed check when a
// new attempt's results arrive.
func (cs *checksState) sync(vs []core.VerificationResult) {
	var b strings.Builder
	for _, v := range vs {
		b.WriteString(logKey(v) + "\x00")
	}
	if a := b.String(); a != cs.attempt {
		// The earlier attempt's logs are gone from the store too: keep none of them.
		cs.attempt, cs.sel, cs.search, cs.logs, cs.shown = a, 0, logSearch{}, nil, ""
		for i, v := range vs {
			if !v.Passed {
				cs.sel = i
				break
			}
		}
	}
	cs.sel = term.Clamp(cs.sel, 0, len(vs)-1)
}

// checksNeed starts reading the selected check's log when the checks view shows it.
func (m *Model) checksNeed() tea.Cmd {
	if m.tab != tabChecks || m.rp != nil {
		return nil
	}
	tv := m.list.selectedTask()
	if tv == nil {
		return nil
	}
	ti := m.task(tv.TaskID)
	if ti.detail == nil || len(ti.detail.Verification) == 0 {
		return nil
	}
	cs := &ti.checks
	cs.sync(ti.detail.Verification)
	v := ti.detail.Verification[cs.sel]
	k := logKey(v)
	if cs.logs == nil {
		cs.logs = map[string]*checkLog{}
	}
	if cs.logs[k] != nil {
		return nil
	}
	cs.logs[k] = &checkLog{loading: true}
	ctx, svc, id := m.ctx, m.svc, tv.TaskID
	return func() tea.Msg {
		return readCheckLog(ctx, svc, id, v.ID, k)
	}
}

// readCheckLog reads a log page by page, up to maxCheckLogBytes.
func readCheckLog(ctx context.Context, svc core.Service, taskID, id, key string) checkLogMsg {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var b strings.Builder
	var off int64
	for {
		page, err := svc.VerificationLog(ctx, taskID, id, off, core.MaxLogPage)
		if err != nil {
			return checkLogMsg{taskID: taskID, key: key, err: err}
		}
		b.WriteString(page.Data)
		off += int64(len(page.Data))
		if page.EOF || page.Data == "" {
			return checkLogMsg{taskID: taskID, key: key, text: b.String(), size: page.Size}
		}
		if off >= maxCheckLogBytes {
			return checkLogMsg{taskID: taskID, key: key, text: b.String(), size: page.Size, truncated: true}
		}
	}
}

// loaded keeps a check's log read for the task.
func (cs *checksState) loaded(msg checkLogMsg) {
	if cs.logs == nil {
		cs.logs = map[string]*checkLog{}
	}
	cs.logs[msg.key] = &checkLog{text: msg.text, size: msg.size, truncated: msg.truncated, err: msg.err}
}

// selectedCheck is the selected task's selected verification and its log, if loaded.
func (m *Model) selectedCheck() (*taskInfo, *core.VerificationResult, *checkLog) {
	tv := m.list.selectedTask()
	if tv == nil {
		return nil, nil, nil
	}
	ti := m.task(tv.TaskID)
	if ti.detail == nil || len(ti.detail.Verification) == 0 {
		return ti, nil, nil
	}
	cs := &ti.checks
	cs.sync(ti.detail.Verification)
	v := &ti.detail.Verification[cs.sel]
	return ti, v, cs.logs[logKey(*v)]
}

// checksTab is the checks tab: the last finalize's verification, its logs and their search.
type checksTab struct{ m *Model }

func (p checksTab) capturing() bool {
	_, ti := p.m.selectedInfo()
	return ti != nil && ti.checks.search.typing
}

// key gives a key to the selected task's checks; dropping a check is the dashboard's (it asks
// first and calls the engine).
func (p checksTab) key(msg tea.KeyMsg) (tea.Cmd, bool) {
	m := p.m
	ti, v, lg := m.selectedCheck()
	if v == nil {
		return nil, false
	}
	// Lay the log out at the current size first: paging and search work on its wrapped lines.
	_ = m.viewChecks(m.list.selectedTask(), ti, m.detailWidth(), m.detailHeight())
	took, drop := ti.checks.key(msg, m.keys, len(ti.detail.Verification), lg)
	if drop {
		m.dropCheck(ti, v.ID)
	}
	return nil, took
}

// key handles one key of the checks view, over n checks and the selected one's log lg: it
// reports whether it took the key, and whether the key asks to drop the selected check.
func (cs *checksState) key(msg tea.KeyMsg, k bind.KeyMap, n int, lg *checkLog) (took, drop bool) {
	s := &cs.search
	if s.typing {
		switch msg.Type {
		case tea.KeyEsc:
			cs.vp.SetYOffset(s.origin)
			*s = logSearch{}
		case tea.KeyEnter:
			s.typing = false
			if s.query == "" {
				*s = logSearch{}
			}
		case tea.KeyBackspace, tea.KeyCtrlH:
			if r := []rune(s.query); len(r) > 0 {
				cs.setQuery(string(r[:len(r)-1]), lg)
			}
		case tea.KeyCtrlU:
			cs.setQuery("", lg)
		case tea.KeyRunes, tea.KeySpace:
			cs.setQuery(s.query+safetext.Sanitize(string(msg.Runes)), lg)
		case tea.KeyCtrlC:
			return false, false
		}
		return true, false
	}
	switch {
	case key.Matches(msg, k.NextCheck):
		if cs.sel+1 < n {
			cs.sel++
			cs.search = logSearch{}
		}
	case key.Matches(msg, k.PrevCheck):
		if cs.sel > 0 {
			cs.sel--
			cs.search = logSearch{}
		}
	case key.Matches(msg, k.Search):
		*s = logSearch{typing: true, origin: cs.vp.YOffset, cur: -1}
	case key.Matches(msg, k.DropCheck):
		return true, true
	case key.Matches(msg, k.PageDown):
		cs.vp.PageDown()
	case key.Matches(msg, k.PageUp):
		cs.vp.PageUp()
	case key.Matches(msg, k.Top):
		cs.vp.GotoTop()
	case key.Matches(msg, k.Bottom):
		cs.vp.GotoBottom()
	case s.query == "":
		return false, false
	case key.Matches(msg, k.NextMatch):
		cs.nextMatch(1, lg)
	case key.Matches(msg, k.PrevMatch):
		cs.nextMatch(-1, lg)
	case msg.Type == tea.KeyEsc:
		*s = logSearch{}
	default:
		return false, false
	}
	return true, false
}

func (cs *checksState) refreshMatches(lg *checkLog) {
	s := &cs.search
	if lg == nil || len(s.needle) == 0 {
		s.matches, s.cur = nil, -1
		return
	}
	at := cs.shown
	if s.computedAt == at && at != "" {
		return
	}
	s.computedAt = at
	s.matches = s.matches[:0]
	for i, l := range lg.lines {
		if containsFold(l, s.needle) {
			s.matches = append(s.matches, i)
		}
	}
	s.cur = -1
}

// setQuery moves the log to the first match at or below where the search began.
func (cs *checksState) setQuery(q string, lg *checkLog) {
	s := &cs.search
	s.query, s.needle, s.computedAt = q, bytes.ToLower([]byte(q)), ""
	cs.refreshMatches(lg)
	if len(s.matches) == 0 {
		cs.vp.SetYOffset(s.origin)
		s.wrapped = false
		return
	}
	i := 0
	for i < len(s.matches) && s.matches[i] < s.origin {
		i++
	}
	s.wrapped = i == len(s.matches)
	if s.wrapped {
		i = 0
	}
	cs.goTo(i)
}

func (cs *checksState) nextMatch(dir int, lg *checkLog) {
	s := &cs.search
	cs.refreshMatches(lg)
	n := len(s.matches)
	if n == 0 {
		return
	}
	i := s.cur
	if i < 0 {
		// From the top of the window.
		i = 0
		for i < n && s.matches[i] < cs.vp.YOffset {
			i++
		}
		if dir < 0 {
			i--
		}
	} else {
		i += dir
	}
	s.wrapped = i < 0 || i >= n
	cs.goTo((i + n) % n)
}

// goTo makes match i current and shows it a couple of lines below the window's top.
func (cs *checksState) goTo(i int) {
	s := &cs.search
	s.cur = i
	cs.vp.SetYOffset(max(s.matches[i]-2, 0))
}

// hardWrap cuts a line into pieces of at most w columns.
func hardWrap(line string, w int, dst []string) []string {
	if term.TextWidth(line) <= w {
		return append(dst, line)
	}
	for line != "" {
		piece := ansi.Truncate(line, w, "")
		if piece == "" {
			piece = line[:1]
		}
		dst = append(dst, piece)
		line = line[len(piece):]
	}
	return dst
}

// wrapLog splits a log into display lines of at most w columns.
func wrapLog(text string, w int) []string {
	text = safetext.Sanitize(strings.TrimRight(text, "\n"))
	var out []string
	for _, l := range strings.Split(text, "\n") {
		out = hardWrap(l, max(w, 1), out)
	}
	return out
}

func checkStatus(v core.VerificationResult) string {
	switch {
	case v.TimedOut:
		return "✗ timed out"
	case v.Passed:
		return "✓ passed"
	case v.Excused:
		return "~ excused"
	}
	return "✗ failed"
}

func checkDuration(v core.VerificationResult) string {
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

// viewChecks lists the verification of the last finalize attempt and shows the selected
// check's whole log below, paged and searchable.
func (m *Model) viewChecks(tv *core.TaskView, ti *taskInfo, w, h int) string {
	t := m.theme
	d := ti.detail
	if d == nil {
		return t.Dim.Render(" loading…")
	}
	if len(d.Verification) == 0 {
		var out []string
		for _, l := range term.WrapLines("no checks yet: finalizing (F) runs the contract's verification commands and shows them here", w-2) {
			out = append(out, t.Dim.Render(" "+l))
		}
		return strings.Join(out, "\n")
	}
	cs := &ti.checks
	cs.sync(d.Verification)
	failed := 0
	for _, v := range d.Verification {
		if !v.Passed {
			failed++
		}
	}
	head := fmt.Sprintf(" last finalize attempt · %d check(s)", len(d.Verification))
	if failed > 0 {
		head += fmt.Sprintf(" · %d failed", failed)
	}
	lines := []string{t.Title.Render(ansi.Truncate(head, w, "…"))}
	idW := 0
	for _, v := range d.Verification {
		idW = max(idW, term.TextWidth(v.ID))
	}
	idW = min(idW, 24)
	var rows []string
	for i, v := range d.Verification {
		exit := "exit -"
		if v.ExitCode != nil {
			exit = fmt.Sprintf("exit %d", *v.ExitCode)
		}
		mark := "  "
		if i == cs.sel {
			mark = "› "
		}
		row := fmt.Sprintf("%s%-12s %s  %-8s %7s  %s", mark, checkStatus(v), term.PadRight(ansi.Truncate(safetext.Line(v.ID), idW, "…"), idW), exit,
			checkDuration(v), safetext.Line(core.ShellWords(v.Argv)))
		row = ansi.Truncate(row, w-1, "…")
		st := t.Good
		if !v.Passed {
			st = t.Error
		}
		if i == cs.sel {
			rows = append(rows, t.Selected.Render(term.PadRight(" "+row, w)))
		} else {
			rows = append(rows, " "+st.Render(row))
		}
	}
	lines = append(lines, term.WindowAround(rows, cs.sel, min(len(rows), max(h/4, 1)))...)
	v := d.Verification[cs.sel]
	lines = append(lines, baselineLines(t, v, w)...)
	lg := cs.logs[logKey(v)]
	bodyH := h - len(lines) - 2 // the log's line and its path
	if cs.search.shown() {
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
	textW := max(w-1, 1)
	if lg.width != textW || lg.lines == nil {
		lg.lines, lg.width = wrapLog(lg.text, textW), textW
	}
	if shown := logKey(v) + fmt.Sprint(textW); cs.shown != shown {
		cs.shown = shown
		cs.vp = viewport.New(textW, bodyH)
		cs.vp.SetContent(strings.Join(lg.lines, "\n"))
		cs.search.computedAt = ""
	}
	cs.vp.Width, cs.vp.Height = textW, bodyH
	cs.vp.SetYOffset(cs.vp.YOffset) // re-clamp after a resize
	total := len(lg.lines)
	first, last := cs.vp.YOffset+1, min(cs.vp.YOffset+bodyH, total)
	info += fmt.Sprintf(" · %s · lines %d–%d of %d", humanBytes(lg.size), first, last, total)
	if lg.truncated {
		info += fmt.Sprintf(" · first %s shown", humanBytes(maxCheckLogBytes))
	}
	lines = append(lines, t.Dim.Render(ansi.Truncate(info, w, "…")),
		t.Dim.Render(" "+ansi.TruncateLeft(safetext.Line(v.LogPath), max(term.TextWidth(safetext.Line(v.LogPath))-(w-2), 0), "…")))
	cs.refreshMatches(lg)
	s := &cs.search
	curLine := -1
	if s.cur >= 0 && s.cur < len(s.matches) {
		curLine = s.matches[s.cur]
	}
	for i := cs.vp.YOffset; i < cs.vp.YOffset+bodyH && i < total; i++ {
		l := lg.lines[i]
		if len(s.needle) > 0 {
			l = markMatches(t, l, t.DiffCtx, s.needle, i == curLine)
		} else {
			l = t.DiffCtx.Render(l)
		}
		lines = append(lines, " "+l)
	}
	if s.shown() {
		for len(lines) < h-1 {
			lines = append(lines, "")
		}
		lines = append(lines, searchBar(t, w, s.typing, s.query, len(s.needle) > 0, len(s.matches), s.cur, s.wrapped, ""))
	}
	return strings.Join(lines, "\n")
}

func (p checksTab) view(w, h int) string {
	tv, ti := p.m.selectedInfo()
	return p.m.viewChecks(tv, ti, w, h)
}
