package events

import (
	"bytes"
	"context"
	"time"

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
func (p *Pane) hasOlder() bool { return p.lo > 1 || p.loPartial }

// olderEnd is the newest seq a page of older events reads: the oldest event shown, again, when
// only its end is shown (its text then shows twice at the seam rather than not at all).
func (p *Pane) olderEnd() uint64 {
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
func (p *Pane) pageSize(room int) uint64 {
	if p.dataEvents == 0 {
		return pageEvents
	}
	avg := max(p.dataLines/p.dataEvents, 1)
	n := uint64(max(room, 1))/avg + 1
	return min(max(n, minPageEvents), pageEvents)
}

// olderPage is the range of the page before the oldest event shown, sized for room lines.
func (p *Pane) olderPage(room int) (from, to uint64) {
	to = p.olderEnd()
	from = 1
	if n := p.pageSize(room); to > n {
		from = to - n + 1
	}
	return from, to
}

// buildPage reads events [from, to] of the task's journal into a pane of the given shape that
// keeps limit lines; each, when set, sees every event read. It runs in a command.
func buildPage(ctx context.Context, env *Env, id string, w, h int, f eventFilter, limit int, from, to uint64, each func(core.Event)) (*Pane, error) {
	q := New(env, id)
	q.w, q.h, q.filter, q.limit = w, h, f, max(limit, 1)
	q.lo = from // events of the range that show nothing count as read too
	err := readRange(ctx, env.Journal, id, from, to, func(ev core.Event) bool {
		q.add(ev)
		if each != nil {
			each(ev)
		}
		return true
	})
	return q, err
}

// TailRead reads the newest events of a task's journal, up to seq last, into a new pane: the
// newest replayFirst, then pages before them until the pane is three quarters full. first sees
// each event of the newest page, older each event of the pages before it. It returns the pane,
// the first seq it read, and the error that stopped it (the pane then holds what was read). It
// runs in a command, off the event loop.
type TailRead func(ctx context.Context, last uint64, first, older func(core.Event)) (*Pane, uint64, error)

// ReadTail is how to read the newest window of the task's journal into a pane shaped as p is
// now (its size and filter): the dashboard reads it when the task is first shown, after a lost
// subscription, and when G leaves a pane detached from the live stream.
func (p *Pane) ReadTail() TailRead {
	env, id, w, h, f := p.env, p.taskID, p.w, p.h, p.filter
	return func(ctx context.Context, last uint64, first, older func(core.Event)) (*Pane, uint64, error) {
		from := uint64(1)
		if last > replayFirst {
			from = last - replayFirst + 1
		}
		pane, err := buildPage(ctx, env, id, w, h, f, MaxLines, from, last, first)
		// Fill the pane backwards, a page at a time: how many events fit depends on their size.
		for err == nil && pane.hasOlder() {
			room := min(pane.limit-pane.cost, pane.limit-(len(pane.entries)-pane.head))
			if room < pane.limit/4 {
				break
			}
			start, end := pane.olderPage(room)
			var q *Pane
			q, err = buildPage(ctx, env, id, w, h, f, room, start, end, older)
			if err != nil {
				break
			}
			pane.prepend(q)
			from = start
		}
		return pane, from, err
	}
}

// HoldsTail says whether p, read by ReadTail, shows the journal's newest events: worth showing
// even when the read stopped on an error.
func (p *Pane) HoldsTail() bool { return p != nil && !p.empty() && !p.detached }

// Succeed is the pane that takes p's place once fresh, the tail read again (nil: the journal
// was empty), has arrived: at p's size, with p's filter (the reader's filter outlives a reload),
// and with early, the live events that arrived while it was read. A search of the journal p
// was running stops.
func (p *Pane) Succeed(fresh *Pane, early []core.Event) *Pane {
	if fresh == nil {
		fresh = New(p.env, p.taskID)
	}
	fresh.setSize(p.w, p.h)
	fresh.setFilter(p.filter)
	for _, ev := range early {
		fresh.add(ev)
	}
	p.search.stopSeek()
	return fresh
}

// Live takes an event of the live stream: a detached pane only notes that it exists.
func (p *Pane) Live(ev core.Event) {
	if p.detached {
		p.liveSeq = max(p.liveSeq, ev.Seq)
		return
	}
	p.add(ev)
}

// atTop says whether the window starts at the first line the pane keeps.
func (p *Pane) atTop(i, off int) bool {
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
func (p *Pane) atBottom(i, off, bh int) bool {
	return p.linesFrom(i, off, bh) <= bh
}

// edges asks for a page when the reader's window touches an end the journal continues past.
func (p *Pane) edges() {
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
func (p *Pane) prepend(q *Pane) {
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
func (p *Pane) dropSeam() {
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
func (p *Pane) trimNewest() {
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
func (p *Pane) cutTail(e *entry, n int) bool {
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
func (p *Pane) appendPage(evs []core.Event) {
	p.paging = true
	for _, ev := range evs {
		p.add(ev)
	}
	p.paging = false
	if p.lastSeq >= p.liveSeq {
		p.detached = false
	}
}

// PageMsg carries a page read from the journal to the pane of task TaskID that asked for it.
type PageMsg struct {
	TaskID string
	pane   *Pane
	older  *Pane        // a page of older events, built off the event loop
	first  bool         // older is the journal's first page, to become the whole window
	newer  []core.Event // a page of newer events
	err    error
}

// pageCmd starts reading the page the pane asks for, if any; back at the live tail of a pane
// detached from it, it asks the root to read the newest window again.
func (p *Pane) pageCmd() (tea.Cmd, Result) {
	if p.search.seeking {
		p.want = 0 // the search reads the journal; scrolling pages once it is done
		return p.seekCmd(), Result{}
	}
	want := p.want
	p.want = 0
	switch {
	case want == 2:
		// Back to the live tail: read the newest window again.
		return nil, Result{Reload: true}
	case want == 0 || p.loading:
		return nil, Result{}
	}
	p.loading = true
	ctx, env, id := p.env.ctx(), p.env, p.taskID
	if want < 0 {
		limit := p.limit / 2
		from, to := p.olderPage(limit)
		first := want == -2 && from > 1
		if first {
			from, to = 1, min(p.pageSize(limit), to)
		}
		w, h, f := p.w, p.h, p.filter
		return func() tea.Msg {
			q, err := buildPage(ctx, env, id, w, h, f, limit, from, to, nil)
			return PageMsg{TaskID: id, pane: p, older: q, first: first, err: err}
		}, Result{}
	}
	from, to := p.lastSeq+1, min(p.lastSeq+p.pageSize(p.limit/2), p.liveSeq)
	room, tw := uint64(p.limit/2), p.textWidth()
	return func() tea.Msg {
		var evs []core.Event
		size, lines := 0, uint64(0)
		err := readRange(ctx, env.Journal, id, from, to, func(ev core.Event) bool {
			evs = append(evs, ev)
			size += len(ev.Data)
			lines += estLines(ev, tw)
			return size < pageBytes && lines < room
		})
		return PageMsg{TaskID: id, pane: p, newer: evs, err: err}
	}, Result{}
}

// readTimeout bounds one read of the journal.
const readTimeout = 5 * time.Second

// readRange reads events [from, to] of a task's journal and ends the subscription; each stops
// early when it returns false.
func readRange(ctx context.Context, j Journal, id string, from, to uint64, each func(core.Event) bool) error {
	if to < from {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	sub, err := j.Subscribe(ctx, core.SubscribeOptions{TaskID: id, FromSeq: from})
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

// paged takes a page read for msg.pane; it is this pane's only while the task's pane was not
// rebuilt meanwhile. A failed read says so.
func (p *Pane) paged(msg PageMsg) Result {
	msg.pane.loading = false
	if msg.pane != p {
		return Result{}
	}
	var res Result
	if msg.err != nil {
		res = Result{Status: "reading older events of " + p.taskID + " failed: " + words.OneLine(msg.err), IsErr: true}
		if msg.older == nil && len(msg.newer) == 0 {
			return res
		}
	}
	switch {
	case msg.older != nil && msg.first:
		// The first page of a journal longer than the window: it becomes the window, read on
		// downwards as the reader scrolls, and G goes back to the live tail.
		p.adopt(msg.older)
		if !p.empty() {
			p.anchor = &pos{id: p.entries[p.head].id}
		}
	case msg.older != nil:
		p.prepend(msg.older)
	default:
		p.appendPage(msg.newer)
	}
	return res
}
