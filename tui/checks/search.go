package checks

import (
	"bytes"

	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core/safetext"
	"reasonixctl/tui/term"
)

// logSearch is a find in the selected check's log: matches are wrapped line numbers.
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

// typeKey takes one key while the search's query is being typed: every key is text but enter
// (keep the search), esc (go back to where it began) and ctrl+c, which the dashboard keeps.
func (m *Model) typeKey(msg tea.KeyMsg, lg *checkLog) (took bool) {
	s := &m.search
	switch msg.Type {
	case tea.KeyEsc:
		m.vp.SetYOffset(s.origin)
		*s = logSearch{}
	case tea.KeyEnter:
		s.typing = false
		if s.query == "" {
			*s = logSearch{}
		}
	case tea.KeyBackspace, tea.KeyCtrlH:
		if r := []rune(s.query); len(r) > 0 {
			m.setQuery(string(r[:len(r)-1]), lg)
		}
	case tea.KeyCtrlU:
		m.setQuery("", lg)
	case tea.KeyRunes, tea.KeySpace:
		m.setQuery(s.query+safetext.Sanitize(string(msg.Runes)), lg)
	case tea.KeyCtrlC:
		return false
	}
	return true
}

// refreshMatches finds the query in the log as it is laid out now, unless it was found there
// already.
func (m *Model) refreshMatches(lg *checkLog) {
	s := &m.search
	if lg == nil || len(s.needle) == 0 {
		s.matches, s.cur = nil, -1
		return
	}
	at := m.shown
	if s.computedAt == at && at != "" {
		return
	}
	s.computedAt = at
	// A new slice: View lays out a copy of the tab, which must not write into this one's.
	s.matches = nil
	for i, l := range lg.lines {
		if term.ContainsFold(l, s.needle) {
			s.matches = append(s.matches, i)
		}
	}
	s.cur = -1
}

// setQuery moves the log to the first match at or below where the search began.
func (m *Model) setQuery(q string, lg *checkLog) {
	s := &m.search
	s.query, s.needle, s.computedAt = q, bytes.ToLower([]byte(q)), ""
	m.refreshMatches(lg)
	if len(s.matches) == 0 {
		m.vp.SetYOffset(s.origin)
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
	m.goTo(i)
}

// nextMatch moves to the next match in direction dir (1 or -1), round the ends.
func (m *Model) nextMatch(dir int, lg *checkLog) {
	s := &m.search
	m.refreshMatches(lg)
	n := len(s.matches)
	if n == 0 {
		return
	}
	i := s.cur
	if i < 0 {
		// From the top of the window.
		i = 0
		for i < n && s.matches[i] < m.vp.YOffset {
			i++
		}
		if dir < 0 {
			i--
		}
	} else {
		i += dir
	}
	s.wrapped = i < 0 || i >= n
	m.goTo((i + n) % n)
}

// goTo makes match i current and shows it a couple of lines below the window's top.
func (m *Model) goTo(i int) {
	s := &m.search
	s.cur = i
	m.vp.SetYOffset(max(s.matches[i]-2, 0))
}
