package events

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
func (p *Pane) olderUnsearched() bool {
	s := &p.search
	if !p.hasOlder() {
		return false
	}
	return !(s.clearSet && s.clearFilter == p.filter && s.clearTo >= p.olderEnd())
}

// startSeek asks for the page before the window, to look for the query in it.
func (p *Pane) startSeek() {
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
func (p *Pane) seekPageRead(q *Pane, to uint64) {
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
func pageHasMatch(q *Pane, needle []byte) bool {
	for _, e := range q.entries[q.head:] {
		if e.n > 0 && entryMatches(e, needle) {
			return true
		}
	}
	return false
}

// adopt makes a page of events long before the window the pane's whole window: the pane is
// detached from the live stream until the reader pages forward or goes back to the tail.
func (p *Pane) adopt(q *Pane) {
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

// SearchPageMsg carries a page the search read from the journal to the pane of task TaskID
// that looks in it.
type SearchPageMsg struct {
	TaskID string
	pane   *Pane
	gen    uint64
	page   *Pane
	to     uint64
	err    error
}

// seekCmd starts reading the page the pane's search asks for, if any.
func (p *Pane) seekCmd() tea.Cmd {
	s := &p.search
	if !s.seekWant || !s.seeking {
		return nil
	}
	s.seekWant = false
	ctx, cancel := context.WithCancel(p.env.ctx())
	s.cancel = cancel
	env, id, gen, from, to := p.env, p.taskID, s.seekGen, s.seekFrom, s.seekTo
	w, h, f, limit := p.w, p.h, s.seekFilter, p.limit/2
	return func() tea.Msg {
		q, err := buildPage(ctx, env, id, w, h, f, limit, from, to, nil)
		return SearchPageMsg{TaskID: id, pane: p, gen: gen, page: q, to: to, err: err}
	}
}

// searchPaged looks in a page the search read, and asks for the next one while none matched;
// a page of a search since stopped, or of a pane since rebuilt, is dropped.
func (p *Pane) searchPaged(msg SearchPageMsg) (tea.Cmd, Result) {
	s := &p.search
	if msg.pane != p || !s.seeking || s.seekGen != msg.gen {
		return nil, Result{}
	}
	if s.cancel != nil {
		s.cancel()
		s.cancel = nil
	}
	if msg.err != nil {
		s.stopSeek()
		return nil, Result{Status: "searching older events of " + p.taskID + " failed: " + words.OneLine(msg.err), IsErr: true}
	}
	p.seekPageRead(msg.page, msg.to)
	return p.seekCmd(), Result{}
}
