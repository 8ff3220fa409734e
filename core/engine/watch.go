package engine

import (
	"reasonixctl/core"

	"context"
	"sync"
	"time"
)

// changes lets waiters block until a task's record changes: every committed update closes the
// task's current channel and installs a fresh one, so a waiter that took the channel before
// reading the record cannot miss an update that lands in between.
type changes struct {
	mu sync.Mutex
	ch map[string]chan struct{}
}

func newChanges() *changes { return &changes{ch: map[string]chan struct{}{}} }

// watch returns the channel that closes at the next change of task id.
func (c *changes) watch(id string) <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch, ok := c.ch[id]
	if !ok {
		ch = make(chan struct{})
		c.ch[id] = ch
	}
	return ch
}

func (c *changes) notify(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ch, ok := c.ch[id]; ok {
		close(ch)
		delete(c.ch, id)
	}
}

// waitFor re-reads the task after every change until done reports true, the timeout passes
// (timedOut = true) or ctx ends (the context's error). It returns the last record read.
func (e *Engine) waitFor(ctx context.Context, id string, timeout time.Duration, done func(*taskRecord) bool) (r *taskRecord, timedOut bool, err error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		changed := e.changes.watch(id)
		r, err = e.load(id)
		if err != nil {
			return nil, false, err
		}
		if done(r) {
			return r, false, nil
		}
		select {
		case <-changed:
		case <-deadline.C:
			return r, true, nil
		case <-ctx.Done():
			return r, false, ctx.Err()
		case <-e.closing:
			return r, false, core.Errorf(core.CodeReasonixUnavailable, nil, "reasonixctl is shutting down")
		}
	}
}
