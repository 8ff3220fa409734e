package acp

import "sync"

// maxQueuedBytes bounds the memory of one session's events waiting for its consumer, each
// counted by queuedSize. It is a budget of bytes, not of events: a worker faster than the
// consumer for a while (thousands of quick tool calls) only queues, while one that streams
// large payloads nobody reads is stopped before it costs much memory. Text chunks are merged
// while queued.
const maxQueuedBytes = 32 << 20

// queuedEventOverhead is what queuedSize counts for an event besides its text and raw JSON.
const queuedEventOverhead = 256

// queuedSize estimates the memory an event holds while queued.
func queuedSize(e Event) int {
	n := queuedEventOverhead
	switch e := e.(type) {
	case Chunk:
		n += len(e.Text) + len(e.Content)
	case ToolCall:
		n += len(e.ID) + len(e.Title) + len(e.RawInput) + stringsLen(e.Locations)
	case ToolCallUpdate:
		n += len(e.ID) + len(e.Title) + len(e.Text) + len(e.Content) + len(e.RawOutput) + stringsLen(e.Locations)
	case Plan:
		for _, p := range e.Entries {
			n += len(p.Content)
		}
	case Unknown:
		n += len(e.Raw)
	case ConfigUpdate:
		n += 64 * len(e.Options)
	case CommandsUpdate:
		n += stringsLen(e.Commands)
	}
	return n
}

func stringsLen(ss []string) int {
	n := 0
	for _, s := range ss {
		n += len(s)
	}
	return n
}

// eventQueue hands a session's events to its consumer without ever blocking the producer: the
// reader of the worker's pipe must keep going whatever the consumer does. The consumer takes
// them with next, waiting on wake between them, or reads out, which run feeds (Events): a
// channel costs a goroutine per session, and the engine's pump, the one consumer of a running
// task, takes them itself.
type eventQueue struct {
	mu      sync.Mutex
	buf     []Event
	bytes   int // queuedSize of what buf holds
	limit   int
	ended   bool
	offered bool // run holds an event it is offering on out, not yet taken
	wake    chan struct{}
	out     chan Event
	runOnce sync.Once
}

// newEventQueue returns a queue whose events are delivered on out.
func newEventQueue(limit int) *eventQueue {
	q := newPullQueue(limit)
	q.startRun()
	return q
}

// newPullQueue returns a queue whose consumer takes events with next, or calls startRun to
// have them delivered on out.
func newPullQueue(limit int) *eventQueue {
	return &eventQueue{limit: limit, wake: make(chan struct{}, 1), out: make(chan Event)}
}

func (q *eventQueue) startRun() { q.runOnce.Do(func() { go q.run() }) }

// push queues e, merging it into a queued text chunk of the same stream where possible. It
// reports false, queuing nothing, when the queue is full or ended.
func (q *eventQueue) push(e Event) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.ended {
		return false
	}
	if c, ok := e.(Chunk); ok && c.Content == nil && len(q.buf) > 0 {
		if last, ok := q.buf[len(q.buf)-1].(Chunk); ok && last.Stream == c.Stream && last.Content == nil &&
			len(last.Text)+len(c.Text) <= maxMergedChunkLetters {
			if q.bytes+len(c.Text) > q.limit {
				return false
			}
			last.Text += c.Text
			q.buf[len(q.buf)-1] = last
			q.bytes += len(c.Text)
			return true
		}
	}
	size := queuedSize(e)
	if q.bytes+size > q.limit {
		return false
	}
	q.bytes += size
	q.buf = append(q.buf, e)
	q.signal()
	return true
}

// end queues final (if not nil) beyond the limit and closes the stream once it is delivered.
// Later calls do nothing.
func (q *eventQueue) end(final Event) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.ended {
		return
	}
	q.ended = true
	if final != nil {
		q.buf = append(q.buf, final)
		q.bytes += queuedSize(final)
	}
	q.signal()
}

func (q *eventQueue) backlog() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.buf)
}

func (q *eventQueue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// takeLocked removes the next event, closing the drain markers queued before it: everything
// queued before them has been taken. The caller holds q.mu and has no event on offer.
func (q *eventQueue) takeLocked() (Event, bool) {
	q.closeMarkersLocked()
	if len(q.buf) == 0 {
		return nil, false
	}
	e := q.buf[0]
	q.buf[0] = nil
	q.buf = q.buf[1:]
	q.bytes -= queuedSize(e)
	return e, true
}

// closeMarkersLocked closes the drain markers at the head of the queue.
func (q *eventQueue) closeMarkersLocked() {
	for len(q.buf) > 0 {
		m, ok := q.buf[0].(drainMarker)
		if !ok {
			return
		}
		close(m.done)
		q.buf[0] = nil
		q.buf = q.buf[1:]
	}
}

// next takes the next event without waiting: ok is false when none is queued, and closed then
// reports that the stream has ended and none will come.
func (q *eventQueue) next() (e Event, ok, closed bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if e, ok = q.takeLocked(); ok {
		// Taken as it is returned: the markers right behind it are passed.
		q.closeMarkersLocked()
		return e, true, false
	}
	return nil, false, q.ended
}

func (q *eventQueue) run() {
	for {
		q.mu.Lock()
		e, ok := q.takeLocked()
		for !ok && !q.ended {
			q.mu.Unlock()
			<-q.wake
			q.mu.Lock()
			e, ok = q.takeLocked()
		}
		if !ok {
			q.mu.Unlock()
			close(q.out)
			return
		}
		q.offered = true
		q.mu.Unlock()
		// out is unbuffered: the markers behind e are closed once it has been taken.
		q.out <- e
		q.mu.Lock()
		q.offered = false
		q.mu.Unlock()
	}
}

// drainMarker is queued behind the events already waiting; the queue closes done, without
// delivering the marker, once the consumer has taken every one of them.
type drainMarker struct{ done chan struct{} }

func (drainMarker) Kind() EventKind { return "" }
func (drainMarker) Session() string { return "" }

// drained returns a channel closed once the consumer has taken every event queued so far.
func (q *eventQueue) drained() <-chan struct{} {
	done := make(chan struct{})
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.ended || (q.bytes == 0 && !q.offered) {
		// Nothing is waiting to be taken (bytes counts the queued events, not the markers).
		close(done)
		return done
	}
	q.buf = append(q.buf, drainMarker{done})
	q.signal()
	return done
}
