package tui

import (
	"context"
	"reasonixctl/tui/words"

	tea "github.com/charmbracelet/bubbletea"
)

// The pane holds a window of the journal; a search for an older match than the oldest loaded
// one reads the pages before the window off the event loop, one at a time, and looks in each.
// The pane is left alone until a page holds a match: the page before the window is then put in
// front of it, as scrolling up does; one further back becomes the pane's whole window. When no
// page does, the window stays where it was and the search goes round as it always did.

// olderUnsearched says whether the journal before the window may hold a match the pane has not
// looked for.
func (p *eventsPane) olderUnsearched() bool {
	s := &p.search
	if !p.hasOlder() {
		return false
	}
	return !(s.clearSet && s.clearFilter == p.filter && s.clearTo >= p.olderEnd())
}

// startSeek asks for the page before the window, to look for the query in it.
func (p *eventsPane) startSeek() {
	s := &p.search
	p.seekGen++
	s.seeking, s.seekGen = true, p.seekGen
	s.seekStart = p.olderEnd()
	s.seekN = p.pageSize(p.limit / 2)
	s.seekFilter = p.filter
	s.seekPage(s.seekStart)
}

// seekPage asks for the page of seekN events that ends at to.
func (s *paneSearch) seekPage(to uint64) {
	s.seekTo, s.seekFrom = to, 1
	if to > s.seekN {
		s.seekFrom = to - s.seekN + 1
	}
	s.seekWant = true
}

// stopSeek ends a search of the journal, if one runs, and abandons the page being read.
func (s *paneSearch) stopSeek() {
	if s.cancel != nil {
		s.cancel()
	}
	s.cancel, s.seeking, s.seekWant = nil, false, false
}

// seekPageRead looks for the query in q, the events [from, to] read for the search.
func (p *eventsPane) seekPageRead(q *eventsPane, to uint64) {
	s := &p.search
	if to > p.olderEnd() {
		// The pane read some of these events itself meanwhile: look there first.
		s.stopSeek()
		p.nextMatch(-1)
		return
	}
	if pageHasMatch(q, s.needle) {
		s.stopSeek()
		var below uint64 = 1 << 63 // matches with smaller ids are in the page
		if to == p.olderEnd() {
			if !p.empty() {
				below = p.entries[p.head].id
			} else {
				below = p.nextID + 1
			}
			p.prepend(q)
		} else {
			p.adopt(q)
		}
		s.at = 0
		s.refresh(p)
		i := p.matchIndexFrom(below) - 1
		if i < 0 {
			return // cannot be: the page matched
		}
		s.wrapped = false
		p.goToMatch(s.matches[i])
		return
	}
	if q.lo > 1 || q.loPartial {
		next := q.olderEnd()
		if next >= to {
			next = to - 1 // an event longer than a page: on past it
		}
		if next > 0 {
			s.seekPage(next)
			return
		}
	}
	// The journal's first event: nothing older matches. Go round as the loaded matches do.
	s.stopSeek()
	s.clearSet, s.clearTo, s.clearFilter = true, s.seekStart, s.seekFilter
	s.refresh(p)
	if n := len(s.matches); n > 0 {
		s.wrapped = true
		p.goToMatch(s.matches[n-1])
	}
}

// pageHasMatch says whether an entry q shows holds the needle.
func pageHasMatch(q *eventsPane, needle []byte) bool {
	for _, e := range q.entries[q.head:] {
		if e.n > 0 && entryMatches(e, needle) {
			return true
		}
	}
	return false
}

// adopt makes a page of events long before the window the pane's whole window: the pane is
// detached from the live stream until the reader pages forward or goes back to the tail.
func (p *eventsPane) adopt(q *eventsPane) {
	q.interrupt()
	keep := *p
	*p = *q
	p.w, p.h, p.filter, p.limit = keep.w, keep.h, keep.filter, keep.limit
	p.search, p.seekGen = keep.search, keep.seekGen
	p.liveSeq = max(keep.liveSeq, keep.lastSeq)
	p.detached = true
	p.dataLines += keep.dataLines
	p.dataEvents += keep.dataEvents
	p.version += keep.version + 1
	p.want, p.loading, p.sel, p.anchor = 0, false, 0, nil
	p.msg, p.thought, p.usage = nil, nil, nil
	p.trimNewest()
}

// searchPageMsg carries a page the search read from the journal to the pane it looks in.
type searchPageMsg struct {
	taskID string
	pane   *eventsPane
	gen    uint64
	page   *eventsPane
	to     uint64
	err    error
}

// seekCmd starts reading the page the pane's search asks for, if any.
func (m *Model) seekCmd(id string, p *eventsPane) tea.Cmd {
	s := &p.search
	if !s.seekWant || !s.seeking {
		return nil
	}
	s.seekWant = false
	ctx, cancel := context.WithCancel(m.ctx)
	s.cancel = cancel
	svc, gen, from, to := m.svc, s.seekGen, s.seekFrom, s.seekTo
	w, h, f, limit := p.w, p.h, s.seekFilter, p.limit/2
	return func() tea.Msg {
		q, err := buildPage(ctx, svc, id, w, h, f, limit, from, to, nil)
		return searchPageMsg{taskID: id, pane: p, gen: gen, page: q, to: to, err: err}
	}
}

func (m *Model) onSearchPage(msg searchPageMsg) tea.Cmd {
	p := msg.pane
	s := &p.search
	if m.task(msg.taskID).events != p || !s.seeking || s.seekGen != msg.gen {
		return nil // stopped, or the pane was rebuilt meanwhile
	}
	if s.cancel != nil {
		s.cancel()
		s.cancel = nil
	}
	if msg.err != nil {
		s.stopSeek()
		m.setStatus("searching older events of "+msg.taskID+" failed: "+words.OneLine(msg.err), true, msg.taskID)
		return nil
	}
	p.seekPageRead(msg.page, msg.to)
	return m.seekCmd(msg.taskID, p)
}
