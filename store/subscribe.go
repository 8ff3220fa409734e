package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// ErrSubscriberOverflow ends a subscription whose consumer fell behind by more than
// Options.SubscriberBuffer live events. Writers never wait for subscribers; the consumer
// recovers by subscribing again from the sequence after the last event it received.
var ErrSubscriberOverflow = errors.New("store: subscriber fell behind and was dropped; subscribe again from the last seq received + 1")

// Subscription delivers journal events in order. Events is closed when the subscription ends;
// Err then tells why: ErrSubscriberOverflow, ErrClosed, the context's error, or nil after Close.
type Subscription struct {
	out   chan Event
	queue chan Event // live events from the broker; closed by the broker on overflow or Store close
	stop  chan struct{}

	stopOnce sync.Once
	stopErr  error // why stop was closed; written before close(stop)
	queueErr error // why queue was closed; written (under broker.mu) before close(queue)
	errMu    sync.Mutex
	err      error // final reason, set before out is closed
	taskID   string
}

// Events returns the channel of events; it is closed when the subscription ends.
func (sub *Subscription) Events() <-chan Event { return sub.out }

// Err returns why the subscription ended; only meaningful once Events is closed.
func (sub *Subscription) Err() error {
	sub.errMu.Lock()
	defer sub.errMu.Unlock()
	return sub.err
}

func (sub *Subscription) setErr(err error) {
	sub.errMu.Lock()
	defer sub.errMu.Unlock()
	sub.err = err
}

// Close ends the subscription; Events is closed shortly after.
func (sub *Subscription) Close() { sub.end(nil) }

func (sub *Subscription) end(err error) {
	sub.stopOnce.Do(func() {
		sub.stopErr = err
		close(sub.stop)
	})
}

// Subscribe delivers the events of taskID with Seq >= fromSeq: first those already in the
// journal, then live ones as they commit, with no gap and no duplicate between the two.
// fromSeq 0 means live events only. taskID "" subscribes to every task, live only: fromSeq must
// then be 0, and events of different tasks interleave in commit order (each task's in seq order).
//
// The subscription is registered with the broker before the journal is read, and live events
// at or below the last replayed seq are dropped, so an event committed during the hand-over is
// delivered exactly once.
func (s *Store) Subscribe(ctx context.Context, taskID string, fromSeq uint64) (*Subscription, error) {
	if taskID != "" {
		if err := checkID(taskID); err != nil {
			return nil, err
		}
	} else if fromSeq != 0 {
		return nil, fmt.Errorf("%w: a subscription to all tasks is live only; fromSeq must be 0, got %d", ErrInvalidArgument, fromSeq)
	}
	if err := s.enter(); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	sub := &Subscription{
		out:    make(chan Event),
		queue:  make(chan Event, s.opts.SubscriberBuffer),
		stop:   make(chan struct{}),
		taskID: taskID,
	}
	s.broker.add(sub)
	s.bg.Add(1)
	go s.forward(ctx, sub, fromSeq)
	return sub, nil
}

// forward replays the journal, then relays live events, until the subscription ends.
func (s *Store) forward(ctx context.Context, sub *Subscription, fromSeq uint64) {
	defer s.bg.Done()
	defer close(sub.out)
	defer s.broker.remove(sub)
	var delivered uint64 // highest seq sent; live events at or below it are duplicates
	send := func(ev Event) bool {
		select {
		case sub.out <- ev:
			delivered = ev.Seq
			return true
		case <-sub.stop:
			sub.setErr(sub.stopErr)
		case <-ctx.Done():
			sub.setErr(ctx.Err())
		}
		return false
	}
	if fromSeq > 0 {
		delivered = fromSeq - 1
		next := fromSeq
		for {
			batch, err := s.replayBatch(sub.taskID, next)
			if err != nil {
				sub.setErr(err)
				return
			}
			if len(batch) == 0 {
				break
			}
			for _, ev := range batch {
				if !send(ev) {
					return
				}
			}
			next = delivered + 1
		}
	}
	for {
		select {
		case ev, ok := <-sub.queue:
			if !ok {
				sub.setErr(sub.queueErr)
				return
			}
			if sub.taskID != "" && ev.Seq <= delivered {
				continue
			}
			if !send(ev) {
				return
			}
		case <-sub.stop:
			sub.setErr(sub.stopErr)
			return
		case <-ctx.Done():
			sub.setErr(ctx.Err())
			return
		}
	}
}

func (s *Store) replayBatch(id string, from uint64) ([]Event, error) {
	if err := s.enter(); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	return s.journal(id, from, 256)
}

// broker fans committed events out to subscriptions without ever blocking the writer.
type broker struct {
	mu     sync.Mutex
	byTask map[string]map[*Subscription]struct{} // key "" holds subscriptions to all tasks
}

func newBroker() *broker {
	return &broker{byTask: map[string]map[*Subscription]struct{}{}}
}

func (b *broker) add(sub *Subscription) {
	b.mu.Lock()
	defer b.mu.Unlock()
	set := b.byTask[sub.taskID]
	if set == nil {
		set = map[*Subscription]struct{}{}
		b.byTask[sub.taskID] = set
	}
	set[sub] = struct{}{}
}

func (b *broker) remove(sub *Subscription) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.detach(sub)
}

// detach must be called with b.mu held.
func (b *broker) detach(sub *Subscription) {
	set := b.byTask[sub.taskID]
	if _, ok := set[sub]; !ok {
		return
	}
	delete(set, sub)
	if len(set) == 0 {
		delete(b.byTask, sub.taskID)
	}
}

// drop closes the subscription's queue; its forwarder delivers what is queued, then ends with err.
func (b *broker) drop(sub *Subscription, err error) {
	b.detach(sub)
	sub.queueErr = err
	close(sub.queue)
}

func (b *broker) publish(events []Event) {
	if len(events) == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, key := range []string{events[0].TaskID, ""} {
		for sub := range b.byTask[key] {
			if !enqueue(sub, events) {
				b.drop(sub, ErrSubscriberOverflow)
			}
		}
	}
}

func enqueue(sub *Subscription, events []Event) bool {
	for _, ev := range events {
		select {
		case sub.queue <- ev:
		default:
			return false
		}
	}
	return true
}

func (b *broker) closeAll(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, set := range b.byTask {
		for sub := range set {
			b.drop(sub, err)
			sub.end(err) // unblocks a forwarder waiting on a consumer that stopped reading
		}
	}
}
