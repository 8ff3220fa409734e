package events

import (
	"bytes"
	"context"
	"fmt"

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
func (p *Pane) setFilter(f eventFilter) {
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

// typeKey takes a key typed into the search box: text, backspace, enter keeps the search, esc
// goes back to where it began. It reports whether it took the key: ctrl+c is the dashboard's.
func (p *Pane) typeKey(msg tea.KeyMsg) bool {
	s := &p.search
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

// startSearch opens the search box: the search starts at the top of the window, and esc goes
// back to the window and selection as they are now.
func (p *Pane) startSearch() {
	s := &p.search
	s.clear()
	*s = paneSearch{typing: true, origin: p.anchor, originSel: p.sel}
	if !p.empty() {
		i, _ := p.top(max(p.bodyHeight(), 1))
		s.from = p.entries[i].id
	}
}

// cycleFilter shows the next category of events (after the last, all of them).
func (p *Pane) cycleFilter() {
	p.search.stopSeek()
	p.setFilter((p.filter + 1) % filterCount)
}

// setQuery changes the query while typing: the window moves to the first match at or after
// the top of the window when the search began, going round to the oldest, or back to where it
// was when nothing matches.
func (p *Pane) setQuery(q string) {
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
func (p *Pane) matchIndexFrom(id uint64) int {
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
func (p *Pane) nextMatch(dir int) {
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
func (p *Pane) goToMatch(id uint64) {
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
		if term.ContainsFold(d.prefix+d.text, s.needle) {
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
func (s *paneSearch) refresh(p *Pane) {
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
	if term.ContainsFold(e.label, needle) {
		return true
	}
	if e.expandable && e.kind != kindThought {
		return term.ContainsFold(e.head, needle)
	}
	for _, q := range e.paras {
		if term.ContainsFold(q.text, needle) {
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
	return term.MarkMatches(t, line, base, s.needle, id == s.cur)
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
	return term.SearchBar(t, w, s.typing, s.query, len(s.needle) > 0, len(s.matches), cur, s.wrapped, scope)
}

// scopeNote says what a search of a pane that is a window on the journal does not cover.
func (p *Pane) scopeNote() string {
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

// Capturing says whether the pane takes every key as text: a search is being typed.
func (p *Pane) Capturing() bool { return p.search.typing }
