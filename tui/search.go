package tui

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
	"reasonixctl/tui/term"
)

// category is what the events filter sorts an entry under.
type category uint8

const (
	catOther category = iota
	catAgent
	catTool
	catDecision
	catState
	catInteraction
)

func categoryOf(eventType string) category {
	switch eventType {
	case core.EventAgentMessage, core.EventAgentThought:
		return catAgent
	case core.EventToolCall:
		return catTool
	case core.EventPermissionDecided:
		return catDecision
	case core.EventTaskCreated, core.EventStateChanged, core.EventReviewReady, core.EventVerification, core.EventCommitted:
		return catState
	case core.EventInteractionWaiting, core.EventInteractionResolved:
		return catInteraction
	}
	return catOther
}

// eventFilter narrows the pane to one category; the zero value shows everything.
type eventFilter uint8

const filterCount = 6

var filterNames = [filterCount]string{"all events", "agent text", "tool calls", "policy decisions", "state changes", "interactions"}

func (f eventFilter) name() string { return filterNames[f] }

func (f eventFilter) shows(e *entry) bool { return f == 0 || category(f) == e.cat }

// setFilter shows only one category (0: all). Hidden entries keep their lines (and their cost
// against the buffer bound) but take no room on screen.
func (p *eventsPane) setFilter(f eventFilter) {
	if f == p.filter {
		return
	}
	p.filter = f
	p.version++
	for _, e := range p.entries[p.head:] {
		p.measure(e)
	}
	if i := p.selected(); i >= 0 && p.entries[i].n == 0 {
		p.sel = 0
	}
}

// paneSearch is the pane's find: a query typed at the bottom line moves the window to the first
// match at or after where the search began; enter keeps it for n/N, esc goes back.
type paneSearch struct {
	typing bool
	query  string // as typed
	needle []byte // lower-cased query

	origin    *pos   // the window when the search began; nil when it followed the tail
	originSel uint64 // the selection then
	from      uint64 // the id of the entry at the top of the window then

	matches []uint64 // ids of the shown entries that contain the query, oldest first
	at      uint64   // the pane version matches belong to
	filter  eventFilter
	cur     uint64 // the current match's id, 0 for none
	wrapped bool   // the last move went round an end

	// A search of the journal before the window: pages [seekFrom, seekTo] of seekN events,
	// read back from seekStart; seekWant asks for the next one, cancel abandons it.
	seeking          bool
	seekWant         bool
	seekGen          uint64
	seekStart, seekN uint64
	seekFrom, seekTo uint64
	seekFilter       eventFilter
	cancel           context.CancelFunc
	// Events [1, clearTo] hold no match for the query under clearFilter.
	clearSet    bool
	clearTo     uint64
	clearFilter eventFilter
}

// shown says whether the search line takes the pane's last line.
func (s *paneSearch) shown() bool { return s.typing || s.query != "" }

func (s *paneSearch) clear() {
	s.stopSeek()
	*s = paneSearch{}
}

// searchKey handles the keys of the search and the filter; it reports whether it took the key.
func (p *eventsPane) searchKey(msg tea.KeyMsg, k EventKeys) bool {
	s := &p.search
	if s.typing {
		switch msg.Type {
		case tea.KeyEsc:
			// Back to where the search began, as if it never happened.
			p.anchor, p.sel = s.origin, s.originSel
			s.stopSeek()
			s.clear()
		case tea.KeyEnter:
			s.typing = false
			if s.query == "" {
				s.clear()
			}
		case tea.KeyBackspace, tea.KeyCtrlH:
			if r := []rune(s.query); len(r) > 0 {
				p.setQuery(string(r[:len(r)-1]))
			}
		case tea.KeyCtrlU:
			p.setQuery("")
		case tea.KeyRunes, tea.KeySpace:
			p.setQuery(s.query + safetext.Sanitize(string(msg.Runes)))
		case tea.KeyCtrlC:
			return false
		}
		return true
	}
	switch {
	case s.seeking && key.Matches(msg, k.ClearSearch):
		// Stop looking further back; the window and the search stay.
		s.stopSeek()
	case s.seeking && (key.Matches(msg, k.NextMatch) || key.Matches(msg, k.PrevMatch)):
		// Already looking.
	case key.Matches(msg, k.Search):
		s.clear()
		*s = paneSearch{typing: true, origin: p.anchor, originSel: p.sel}
		if !p.empty() {
			i, _ := p.top(max(p.bodyHeight(), 1))
			s.from = p.entries[i].id
		}
	case key.Matches(msg, k.Filter):
		s.stopSeek()
		p.setFilter((p.filter + 1) % filterCount)
	case s.query == "":
		return false
	case key.Matches(msg, k.NextMatch):
		p.nextMatch(1)
	case key.Matches(msg, k.PrevMatch):
		p.nextMatch(-1)
	case key.Matches(msg, k.ClearSearch):
		s.clear()
	default:
		return false
	}
	return true
}

// setQuery changes the query while typing: the window moves to the first match at or after
// the top of the window when the search began, going round to the oldest, or back to where it
// was when nothing matches.
func (p *eventsPane) setQuery(q string) {
	s := &p.search
	s.query = q
	s.needle = bytes.ToLower([]byte(q))
	s.at = 0
	s.stopSeek()
	s.clearSet = false
	s.refresh(p)
	if len(s.matches) == 0 {
		p.anchor, s.cur, s.wrapped = s.origin, 0, false
		return
	}
	i := p.matchIndexFrom(s.from)
	s.wrapped = i == len(s.matches)
	if s.wrapped {
		i = 0
	}
	p.goToMatch(s.matches[i])
}

// matchIndexFrom is the index of the first match with an id at or after id (len when none).
func (p *eventsPane) matchIndexFrom(id uint64) int {
	ms := p.search.matches
	lo, hi := 0, len(ms)
	for lo < hi {
		mid := (lo + hi) / 2
		if ms[mid] < id {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// nextMatch moves to the next (dir 1) or previous (dir -1) match, going round at either end.
// The previous match of the oldest loaded one is looked for in the journal before the window
// first.
func (p *eventsPane) nextMatch(dir int) {
	s := &p.search
	s.refresh(p)
	n := len(s.matches)
	i := p.matchIndexFrom(s.cur)
	found := i < n && s.matches[i] == s.cur
	switch {
	case dir > 0 && found:
		i++
	case dir < 0:
		i--
	}
	if i < 0 && p.olderUnsearched() {
		p.startSeek()
		return
	}
	if n == 0 {
		return
	}
	s.wrapped = i < 0 || i >= n
	i = (i + n) % n
	p.goToMatch(s.matches[i])
}

// goToMatch makes the entry with id the current match and scrolls so that its first matching
// line is near the top of the window, a few lines of context above it.
func (p *eventsPane) goToMatch(id uint64) {
	s := &p.search
	s.cur = id
	i := p.find(id)
	if i >= len(p.entries) || p.entries[i].id != id {
		return
	}
	e := p.entries[i]
	if e.kind == kindThought && !p.isOpen(e) {
		// The match is in folded reasoning: open it to show it.
		e.fold = foldOpen
		p.wrapAll(e)
	}
	off := 0
	for j, d := range p.entryLines(e, 0, e.n, nil) {
		if containsFold(d.prefix+d.text, s.needle) {
			off = j
			break
		}
	}
	bh := max(p.bodyHeight(), 1)
	if p.anchor == nil {
		bh-- // the note that appears once scrolled back
	}
	ti, toff := p.up(i, off, min(2, max(bh/3, 0)))
	a := p.posOf(ti, toff)
	p.anchor = &a
}

// refresh recomputes the matches when the entries, the filter or the query changed.
func (s *paneSearch) refresh(p *eventsPane) {
	if len(s.needle) == 0 {
		s.matches = s.matches[:0]
		return
	}
	if s.at == p.version && s.filter == p.filter && s.at != 0 {
		return
	}
	s.at, s.filter = p.version, p.filter
	s.matches = s.matches[:0]
	for _, e := range p.entries[p.head:] {
		if e.n > 0 && entryMatches(e, s.needle) {
			s.matches = append(s.matches, e.id)
		}
	}
}

// entryMatches looks for the needle in what the entry shows: its header and its text.
// Reasoning is searched folded too (a match opens it); tool calls and decisions by their line.
func entryMatches(e *entry, needle []byte) bool {
	if containsFold(e.label, needle) {
		return true
	}
	if e.expandable && e.kind != kindThought {
		return containsFold(e.head, needle)
	}
	for _, q := range e.paras {
		if containsFold(q.text, needle) {
			return true
		}
	}
	return false
}

// containsFold reports whether hay contains needle (lower case), ignoring case. ASCII is
// compared in place; other text is lowered first.
func containsFold[T string | []byte](hay T, needle []byte) bool {
	if len(needle) == 0 {
		return true
	}
	ascii := true
	for _, c := range needle {
		if c >= 0x80 {
			ascii = false
			break
		}
	}
	if !ascii {
		return bytes.Contains(bytes.ToLower([]byte(hay)), needle)
	}
	first := needle[0]
	upper := first
	if 'a' <= first && first <= 'z' {
		upper = first - 'a' + 'A'
	}
	for i := 0; i+len(needle) <= len(hay); i++ {
		c := hay[i]
		if c != first && c != upper {
			continue
		}
		j := 1
		for ; j < len(needle); j++ {
			h := hay[i+j]
			if 'A' <= h && h <= 'Z' {
				h += 'a' - 'A'
			}
			if h != needle[j] {
				break
			}
		}
		if j == len(needle) {
			return true
		}
	}
	return false
}

// highlight draws one pane line with every occurrence of the query marked, the current
// match's in the current-match style.
func (s *paneSearch) highlight(t term.Theme, line string, base lipgloss.Style, id uint64) string {
	if len(s.needle) == 0 || len(s.matches) == 0 {
		return base.Render(line)
	}
	return markMatches(t, line, base, s.needle, id == s.cur)
}

// markMatches renders line in base with each occurrence of needle (lower case) marked.
func markMatches(t term.Theme, line string, base lipgloss.Style, needle []byte, current bool) string {
	lower := strings.ToLower(line)
	if len(lower) != len(line) {
		// Lowering changed byte lengths: offsets would not line up; leave the line plain.
		return base.Render(line)
	}
	n := string(needle)
	mark := t.Match
	if current {
		mark = t.MatchCurrent
	}
	var b strings.Builder
	from := 0
	for {
		i := strings.Index(lower[from:], n)
		if i < 0 {
			break
		}
		i += from
		if i > from {
			b.WriteString(base.Render(line[from:i]))
		}
		b.WriteString(mark.Render(line[i : i+len(n)]))
		from = i + len(n)
	}
	if from == 0 {
		return base.Render(line)
	}
	if from < len(line) {
		b.WriteString(base.Render(line[from:]))
	}
	return b.String()
}

// bar is the search line of the pane.
func (s *paneSearch) bar(t term.Theme, w int, scope string) string {
	cur := -1
	for i, id := range s.matches {
		if id == s.cur {
			cur = i
		}
	}
	if s.seeking {
		line := fmt.Sprintf(" /%s  searching older events… (before event %d) · esc stops", s.query, s.seekTo+1)
		return t.Warn.Render(ansi.Truncate(safetext.Line(line), w, "…"))
	}
	return searchBar(t, w, s.typing, s.query, len(s.needle) > 0, len(s.matches), cur, s.wrapped, scope)
}

// scopeNote says what a search of a pane that is a window on the journal does not cover.
func (p *eventsPane) scopeNote() string {
	switch {
	case p.olderUnsearched():
		return " in the loaded events · N searches older ones"
	case p.detached:
		return " in the loaded events · newer ones load as you scroll down"
	case p.hasOlder():
		return " in the whole journal"
	}
	return ""
}

// searchBar is a search's line: the query being typed, or the kept search with where it is.
func searchBar(t term.Theme, w int, typing bool, query string, active bool, matches, cur int, wrapped bool, scope string) string {
	var where string
	switch {
	case !active:
	case matches == 0:
		where = "no match"
	case cur < 0:
		where = fmt.Sprintf("%d matches", matches)
	default:
		where = fmt.Sprintf("match %d of %d", cur+1, matches)
	}
	if wrapped && matches > 0 {
		where += " (wrapped)"
	}
	if active {
		where += scope
	}
	var line string
	if typing {
		line = " /" + query + "▏"
		if where != "" {
			line += "  " + where
		}
		line += " · enter keeps · esc goes back"
	} else {
		line = fmt.Sprintf(" /%s  %s · n/N next/previous · esc clears", query, where)
	}
	st := t.Warn
	if where == "no match" {
		st = t.Error
	}
	return st.Render(ansi.Truncate(safetext.Line(line), w, "…"))
}

// typing says whether the pane takes every key as text.
func (p *eventsPane) capturing() bool { return p.search.typing }
