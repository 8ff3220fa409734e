package acp

import "sync"

// maxQueuedEvents bounds the events of one session waiting for its consumer. Text chunks are
// merged while queued, so only a consumer that has stopped reading reaches it.
const maxQueuedEvents = 4096

// eventQueue hands a session's events to its consumer without ever blocking the producer: the
// reader of the worker's pipe must keep going whatever the consumer does.
type eventQueue struct {
	mu    sync.Mutex
	buf   []Event
	limit int
	ended bool
	wake  chan struct{}
	out   chan Event
}

func newEventQueue(limit int) *eventQueue {
	q := &eventQueue{limit: limit, wake: make(chan struct{}, 1), out: make(chan Event)}
	go q.run()
	return q
}

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
			last.Text += c.Text
			q.buf[len(q.buf)-1] = last
			return true
		}
	}
	if len(q.buf) >= q.limit {
		return false
	}
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
	}
	q.signal()
}

func (q *eventQueue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *eventQueue) run() {
	for {
		q.mu.Lock()
		for len(q.buf) == 0 && !q.ended {
			q.mu.Unlock()
			<-q.wake
			q.mu.Lock()
		}
		if len(q.buf) == 0 {
			q.mu.Unlock()
			close(q.out)
			return
		}
		e := q.buf[0]
		q.buf[0] = nil
		q.buf = q.buf[1:]
		q.mu.Unlock()
		if m, ok := e.(drainMarker); ok {
			// out is unbuffered: everything queued before the marker has been taken.
			close(m.done)
			continue
		}
		q.out <- e
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
	if q.ended {
		close(done)
		return done
	}
	q.buf = append(q.buf, drainMarker{done})
	q.signal()
	return done
}
