package engine

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
)

// An idle subscriber, one that waits for events that never come and never cancels, must not
// hold Close: the relay watches the engine closing while it waits, and its channel closes.
func TestCloseWithAnIdleSubscriberReturnsAtOnce(t *testing.T) {
	h := newHarness(t, &acptest.Scenario{})
	sub, err := h.e.Subscribe(context.Background(), core.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}

	closed := make(chan error, 1)
	start := time.Now()
	go func() { closed <- h.e.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(100 * time.Millisecond):
		t.Fatalf("Close still waiting after %v with an idle subscriber", time.Since(start))
	}
	select {
	case _, ok := <-sub.C:
		if ok {
			t.Fatal("an event reached a subscriber of an engine with no tasks")
		}
	case <-time.After(time.Second):
		t.Fatal("the subscription stayed open after Close")
	}
}

// The per-task lock still excludes, and its entry goes when its last holder or waiter leaves.
func TestTaskLocksExcludeAndAreDroppedWithTheirTask(t *testing.T) {
	h := newHarness(t, &acptest.Scenario{})
	if _, err := h.delegate("locked"); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var inside, most int
	var mu sync.Mutex
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			unlock := h.e.lockTask("locked")
			mu.Lock()
			inside++
			most = max(most, inside)
			mu.Unlock()
			runtime.Gosched()
			mu.Lock()
			inside--
			mu.Unlock()
			unlock()
		}()
	}
	wg.Wait()
	if most != 1 {
		t.Fatalf("%d goroutines held one task's lock at once", most)
	}
	h.e.locks.mu.Lock()
	n := len(h.e.locks.locks)
	h.e.locks.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d task locks kept after every operation ended", n)
	}
}
