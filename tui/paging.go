package tui

import (
	"bytes"
	"context"

	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/tui/words"
)

const (
	// replayFirst is how many of a task's newest events the dashboard reads first when it
	// shows the task; pages before them follow, sized by the events seen, until the pane is
	// three quarters full. Older ones are read as the reader scrolls up.
	replayFirst = 256
	// pageEvents is the most events one page of scroll-back reads from the journal; pages of
	// long events are smaller, to hold about what the pane keeps.
	pageEvents    = 1000
	minPageEvents = 16
	// pageBytes bounds the event data a page forward holds before the pane takes it.
	pageBytes = 1 << 20
)

// hasOlder says whether the journal holds events older than what the pane shows.
func (p *eventsPane) hasOlder() bool { return p.lo > 1 || p.loPartial }

// olderEnd is the newest seq a page of older events reads: the oldest event shown, again, when
// only its end is shown (its text then shows twice at the seam rather than not at all).
func (p *eventsPane) olderEnd() uint64 {
	if p.loPartial {
		return p.lo
	}
	return p.lo - 1
}

// estLines guesses how many lines an event's text takes at width w, from its raw JSON: its
// escaped newlines and its length.
func estLines(ev core.Event, w int) uint64 {
	return uint64(bytes.Count(ev.Data, []byte(`\n`))+len(ev.Data)/max(w, 1)) + 1
}

// pageSize is how many events, of the sizes seen so far, fill about room lines.
func (p *eventsPane) pageSize(room int) uint64 {
	if p.dataEvents == 0 {
		return pageEvents
	}
	avg := max(p.dataLines/p.dataEvents, 1)
	n := uint64(max(room, 1))/avg + 1
	return min(max(n, minPageEvents), pageEvents)
}

// olderPage is the range of the page before the oldest event shown, sized for room lines.
func (p *eventsPane) olderPage(room int) (from, to uint64) {
	to = p.olderEnd()
	from = 1
	if n := p.pageSize(room); to > n {
		from = to - n + 1
	}
	return from, to
}

// buildPage reads events [from, to] into a pane of the given shape that keeps limit lines.
func buildPage(ctx context.Context, svc core.Service, id string, w, h int, f eventFilter, limit int, from, to uint64, each func(core.Event)) (*eventsPane, error) {
	q := newEventsPane()
	q.w, q.h, q.filter, q.limit = w, h, f, max(limit, 1)
	q.lo = from // events of the range that show nothing count as read too
	err := readRange(ctx, svc, id, from, to, func(ev core.Event) bool {
		q.add(ev)
		if each != nil {
			each(ev)
		}
		return true
	})
	return q, err
}

// live takes an event of the live stream: a detached pane only notes that it exists.
func (p *eventsPane) live(ev core.Event) {
	if p.detached {
		p.liveSeq = max(p.liveSeq, ev.Seq)
		return
	}
	p.add(ev)
}

// atTop says whether the window starts at the first line the pane keeps.
func (p *eventsPane) atTop(i, off int) bool {
	if off > 0 {
		return false
	}
	for j := i - 1; j >= p.head; j-- {
		if p.entries[j].n > 0 {
			return false
		}
	}
	return true
}

// atBottom says whether the window of bh lines from (i, off) reaches the pane's last line.
func (p *eventsPane) atBottom(i, off, bh int) bool {
	return p.linesFrom(i, off, bh) <= bh
}

// edges asks for a page when the reader's window touches an end the journal continues past.
func (p *eventsPane) edges() {
	if p.anchor == nil || p.empty() || p.loading || p.search.seeking || p.want != 0 {
		return // (a page asked for already, such as g's first page, stands)
	}
	bh := max(p.bodyHeight(), 1)
	i, off := p.top(bh)
	switch {
	case p.hasOlder() && p.atTop(i, off):
		p.want = -1
	case p.detached && p.atBottom(i, off, bh):
		p.want = 1
	}
}

// prepend puts a page of older events, read into q, in front of the pane's entries and drops
// entries at the newest end to stay within the bound; the reader's place does not move.
func (p *eventsPane) prepend(q *eventsPane) {
	q.interrupt()
	if p.loPartial && q.lastSeq >= p.lo {
		p.dropSeam()
	}
	live := q.entries[q.head:]
	p.lo, p.loPartial = q.lo, q.loPartial
	if len(live) == 0 {
		p.dataLines += q.dataLines
		p.dataEvents += q.dataEvents
		return
	}
	base := p.nextID + 1
	if !p.empty() {
		base = p.entries[p.head].id
	}
	base -= uint64(len(live))
	for i, e := range live {
		e.id = base + uint64(i)
	}
	ents := make([]*entry, 0, len(live)+len(p.entries)-p.head)
	ents = append(append(ents, live...), p.entries[p.head:]...)
	p.entries, p.head = ents, 0
	p.cost += q.cost
	p.dataLines += q.dataLines
	p.dataEvents += q.dataEvents
	for _, e := range live {
		p.measure(e) // with this pane's fold state: q's streaming reasoning is not this one's
	}
	p.version++
	p.trimNewest()
}

// dropSeam drops the lines of the oldest event shown, whose start was cut, before a page that
// holds all of it goes in front: only a line it shares with the next event stays, twice.
func (p *eventsPane) dropSeam() {
	if p.empty() {
		return
	}
	e := p.entries[p.head]
	if len(e.marks) < 2 {
		if len(e.marks) == 1 && len(p.entries)-p.head > 1 && e.marks[0].seq == p.lo {
			p.evict(e) // all of it is in the page
		}
		return
	}
	next := e.marks[1]
	n := 0
	for i, q := range e.paras {
		abs := e.dropped + i
		if abs < next.para {
			if len(q.lines) > 0 {
				n += len(q.lines) + 1
			}
			continue
		}
		if abs == next.para {
			for j := 0; j+1 < len(q.lines) && q.lines[j+1].start <= next.off; j++ {
				n++
			}
		}
		break
	}
	if n > 0 {
		p.cutLines(e, n)
	}
}

// trimNewest drops the newest entries beyond the bound; the pane then no longer follows the
// live stream.
func (p *eventsPane) trimNewest() {
	for (p.cost > p.limit || len(p.entries)-p.head > p.limit) && len(p.entries)-p.head > 1 {
		e := p.entries[len(p.entries)-1]
		if excess := p.cost - p.limit; len(p.entries)-p.head <= p.limit && e.cost > excess && p.cutTail(e, excess) {
			// A long message loses its newest events' lines, not all of it: the reader
			// is often in it.
			p.detached = true
			break
		}
		p.cost -= e.cost
		if e.tool != nil && p.tools[e.tool.ToolCallID] == e {
			delete(p.tools, e.tool.ToolCallID)
		}
		if p.sel == e.id {
			p.sel = 0
		}
		p.entries[len(p.entries)-1] = nil
		p.entries = p.entries[:len(p.entries)-1]
		p.liveSeq = max(p.liveSeq, p.lastSeq)
		if e.seq > 0 {
			p.lastSeq = min(p.lastSeq, e.seq-1)
		}
		p.detached = true
	}
	if p.detached {
		// What streamed into the last entries may continue in events not shown: a page forward
		// starts new ones.
		p.msg, p.thought, p.usage = nil, nil, nil
	}
}

// cutTail drops at least n of e's newest lines, from the start of an event's text on, and
// moves the pane's newest event back before that event; false when that would be all of e.
func (p *eventsPane) cutTail(e *entry, n int) bool {
	if len(e.marks) < 2 || n <= 0 {
		return false
	}
	// The first line to drop: n lines up from the end, blank lines between paragraphs counted.
	type at struct{ para, off int }
	var first at
	left := n
	for i := len(e.paras) - 1; i >= 0 && left > 0; i-- {
		q := e.paras[i]
		k := len(q.lines)
		if k == 0 {
			continue
		}
		if left <= k {
			first = at{e.dropped + i, q.lines[k-left].start}
			left = 0
			break
		}
		left -= k + 1 // its lines and the blank line above them
		first = at{e.dropped + i, q.base}
	}
	// Cut where the event holding that line begins.
	mi := len(e.marks) - 1
	for mi > 0 && !e.marks[mi].before(first.para, first.off+1) {
		mi--
	}
	if mi == 0 {
		return false
	}
	m := e.marks[mi]
	for i := len(e.paras) - 1; i >= 0; i-- {
		q := e.paras[i]
		abs := e.dropped + i
		if abs > m.para {
			e.paras = e.paras[:i]
			continue
		}
		if abs == m.para {
			j := len(q.lines)
			for j > 0 && q.lines[j-1].start >= m.off {
				j--
			}
			if j < len(q.lines) {
				q.text = q.text[:q.lines[j].start-q.base]
				q.lines = q.lines[:j]
				q.blanks = 0
			}
			if j == 0 && i > 0 {
				e.paras = e.paras[:i]
			}
		}
		break
	}
	e.marks = e.marks[:mi]
	e.lines, e.nonEmpty = 0, 0
	for _, q := range e.paras {
		e.lines += len(q.lines)
		if len(q.lines) > 0 {
			e.nonEmpty++
		}
	}
	p.measure(e)
	p.liveSeq = max(p.liveSeq, p.lastSeq)
	p.lastSeq = min(p.lastSeq, m.seq-1)
	return true
}

// appendPage adds a page of newer events to a detached pane; it follows the live stream again
// once it holds the newest event.
func (p *eventsPane) appendPage(evs []core.Event) {
	p.paging = true
	for _, ev := range evs {
		p.add(ev)
	}
	p.paging = false
	if p.lastSeq >= p.liveSeq {
		p.detached = false
	}
}

// pageMsg carries a page read from the journal to the pane that asked for it.
type pageMsg struct {
	taskID string
	pane   *eventsPane
	older  *eventsPane  // a page of older events, built off the event loop
	first  bool         // older is the journal's first page, to become the whole window
	newer  []core.Event // a page of newer events
	err    error
}

// pageCmd starts reading the page the selected task's pane asks for, if any.
func (m *Model) pageCmd(id string) tea.Cmd {
	ti := m.task(id)
	p := ti.events
	if p.search.seeking {
		p.want = 0 // the search reads the journal; scrolling pages once it is done
		return m.seekCmd(id, p)
	}
	want := p.want
	p.want = 0
	switch {
	case want == 2:
		// Back to the live tail: read the newest window again.
		if ti.replaying {
			return nil
		}
		ti.replayed = false
		return m.replay(id)
	case want == 0 || p.loading:
		return nil
	}
	p.loading = true
	ctx, svc := m.ctx, m.svc
	if want < 0 {
		limit := p.limit / 2
		from, to := p.olderPage(limit)
		first := want == -2 && from > 1
		if first {
			from, to = 1, min(p.pageSize(limit), to)
		}
		w, h, f := p.w, p.h, p.filter
		return func() tea.Msg {
			q, err := buildPage(ctx, svc, id, w, h, f, limit, from, to, nil)
			return pageMsg{taskID: id, pane: p, older: q, first: first, err: err}
		}
	}
	from, to := p.lastSeq+1, min(p.lastSeq+p.pageSize(p.limit/2), p.liveSeq)
	room, tw := uint64(p.limit/2), p.textWidth()
	return func() tea.Msg {
		var evs []core.Event
		size, lines := 0, uint64(0)
		err := readRange(ctx, svc, id, from, to, func(ev core.Event) bool {
			evs = append(evs, ev)
			size += len(ev.Data)
			lines += estLines(ev, tw)
			return size < pageBytes && lines < room
		})
		return pageMsg{taskID: id, pane: p, newer: evs, err: err}
	}
}

// readRange reads events [from, to] of a task's journal and ends the subscription; each stops
// early when it returns false.
func readRange(ctx context.Context, svc core.Service, id string, from, to uint64, each func(core.Event) bool) error {
	if to < from {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, replayTimeout)
	defer cancel()
	sub, err := svc.Subscribe(ctx, core.SubscribeOptions{TaskID: id, FromSeq: from})
	if err != nil {
		return err
	}
	for {
		select {
		case ev, ok := <-sub.C:
			if !ok {
				return sub.Err()
			}
			if ev.Seq > to {
				return nil
			}
			if !each(ev) || ev.Seq >= to {
				return nil
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// onPage hands a page read to the pane that asked for it, and shows a failed read.
func (m *Model) onPage(msg pageMsg) {
	if msg.err != nil && m.task(msg.taskID).events == msg.pane {
		m.setStatus("reading older events of "+msg.taskID+" failed: "+words.OneLine(msg.err), true, msg.taskID)
	}
	msg.pane.paged(msg, m.task(msg.taskID).events == msg.pane)
}

// paged takes a page read for the pane; current says the pane is still the task's (it may have
// been rebuilt meanwhile).
func (p *eventsPane) paged(msg pageMsg, current bool) {
	p.loading = false
	if !current || (msg.err != nil && msg.older == nil && len(msg.newer) == 0) {
		return
	}
	if msg.older != nil && msg.first {
		// The first page of a journal longer than the window: it becomes the window, read on
		// downwards as the reader scrolls, and G goes back to the live tail.
		p.adopt(msg.older)
		if !p.empty() {
			p.anchor = &pos{id: p.entries[p.head].id}
		}
		return
	}
	if msg.older != nil {
		p.prepend(msg.older)
		return
	}
	p.appendPage(msg.newer)
}
