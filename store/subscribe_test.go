package store

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

const waitLimit = 20 * time.Second

// receive reads the next event or fails the test when the subscription ends or stalls.
func receive(t *testing.T, sub *Subscription) Event {
	t.Helper()
	select {
	case ev, ok := <-sub.Events():
		if !ok {
			t.Fatalf("subscription ended early: %v", sub.Err())
		}
		return ev
	case <-time.After(waitLimit):
		t.Fatal("no event within the deadline")
	}
	panic("unreachable")
}

// waitEnd drains the subscription until it ends and returns the events it still delivered.
func waitEnd(t *testing.T, sub *Subscription) []Event {
	t.Helper()
	var got []Event
	deadline := time.After(waitLimit)
	for {
		select {
		case ev, ok := <-sub.Events():
			if !ok {
				return got
			}
			got = append(got, ev)
		case <-deadline:
			t.Fatal("subscription did not end within the deadline")
		}
	}
}

func appendN(t testing.TB, s *Store, id string, n int) {
	t.Helper()
	for range n {
		if _, err := s.Append(id, NewEvent{Type: "tick"}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestReplayThenLiveHandOverUnderConcurrentAppends(t *testing.T) {
	s := openTest(t, unsynced)
	const before, writers, each = 300, 4, 150
	const total = before + writers*each
	appendN(t, s, "t1", before)
	appendN(t, s, "other", 5)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	started := make(chan struct{}, writers)
	for range writers {
		wg.Go(func() {
			started <- struct{}{}
			appendN(t, s, "t1", each)
		})
	}
	for range writers {
		<-started
	}
	// Subscribers join at different points while the writers run: from the start, from the
	// middle of the existing journal, and live only.
	var subs []*Subscription
	var firsts []uint64
	for _, from := range []uint64{1, before / 2, 0} {
		sub, err := s.Subscribe(ctx, "t1", from)
		if err != nil {
			t.Fatal(err)
		}
		subs = append(subs, sub)
		firsts = append(firsts, from)
	}
	results := make([]chan error, len(subs))
	for i, sub := range subs {
		results[i] = make(chan error, 1)
		go func() {
			want := firsts[i]
			for ev := range sub.Events() {
				if want == 0 {
					want = ev.Seq // live only: starts wherever it joined
				}
				if ev.Seq != want || ev.TaskID != "t1" {
					results[i] <- errors.New("out of order, duplicated or foreign event")
					t.Errorf("subscriber %d (from %d): got seq %d of %q, want %d", i, firsts[i], ev.Seq, ev.TaskID, want)
					return
				}
				if ev.Seq == total {
					results[i] <- nil
					return
				}
				want++
			}
			results[i] <- sub.Err()
		}()
	}
	wg.Wait()
	for i, r := range results {
		select {
		case err := <-r:
			if err != nil {
				t.Fatalf("subscriber %d: %v", i, err)
			}
		case <-time.After(waitLimit):
			t.Fatalf("subscriber %d did not reach seq %d", i, total)
		}
	}
}

func TestSlowSubscriberOverflowsWithoutBlockingWriters(t *testing.T) {
	const buffer, n = 4, 50
	s := openTest(t, unsynced, func(o *Options) { o.SubscriberBuffer = buffer })
	// Live only, so everything it delivers comes through the bounded queue.
	sub, err := s.Subscribe(context.Background(), "t1", 0)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		appendN(t, s, "t1", n) // nobody reads the subscription meanwhile
	}()
	select {
	case <-done:
	case <-time.After(waitLimit):
		t.Fatal("a subscriber that does not read blocked the writer")
	}
	got := waitEnd(t, sub)
	if !errors.Is(sub.Err(), ErrSubscriberOverflow) {
		t.Fatalf("Err = %v, want ErrSubscriberOverflow", sub.Err())
	}
	if len(got) >= n || len(got) > buffer+1 {
		t.Fatalf("overflowed subscriber still delivered %d events (buffer %d)", len(got), buffer)
	}
	for i, ev := range got {
		if ev.Seq != uint64(i+1) {
			t.Fatalf("before overflow got seq %d at %d", ev.Seq, i)
		}
	}
	// Re-subscribing from the last seq received + 1 yields the rest, replayed.
	again, err := s.Subscribe(context.Background(), "t1", uint64(len(got))+1)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	for want := uint64(len(got)) + 1; want <= n; want++ {
		if ev := receive(t, again); ev.Seq != want {
			t.Fatalf("after re-subscribe got seq %d, want %d", ev.Seq, want)
		}
	}
}

func TestSubscribeFromAFutureSeqSkipsEarlierLiveEvents(t *testing.T) {
	s := openTest(t, unsynced)
	appendN(t, s, "t1", 3)
	sub, err := s.Subscribe(context.Background(), "t1", 5)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	appendN(t, s, "t1", 3)
	for _, want := range []uint64{5, 6} {
		if ev := receive(t, sub); ev.Seq != want {
			t.Fatalf("got seq %d, want %d", ev.Seq, want)
		}
	}
}

func TestSubscribeToAllTasksIsLive(t *testing.T) {
	s := openTest(t, unsynced)
	appendN(t, s, "old", 3)
	sub, err := s.Subscribe(context.Background(), "", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	appendN(t, s, "a", 1)
	appendN(t, s, "b", 2)
	appendN(t, s, "old", 1)
	want := []struct {
		id  string
		seq uint64
	}{{"a", 1}, {"b", 1}, {"b", 2}, {"old", 4}}
	for _, w := range want {
		if ev := receive(t, sub); ev.TaskID != w.id || ev.Seq != w.seq {
			t.Fatalf("got %s/%d, want %s/%d", ev.TaskID, ev.Seq, w.id, w.seq)
		}
	}
}

func TestSubscriptionEndReasons(t *testing.T) {
	s := openTest(t, unsynced)
	appendN(t, s, "t1", 3)

	ctx, cancel := context.WithCancel(context.Background())
	byCtx, _ := s.Subscribe(ctx, "t1", 1)
	receive(t, byCtx)
	cancel()
	waitEnd(t, byCtx)
	if !errors.Is(byCtx.Err(), context.Canceled) {
		t.Errorf("after cancel Err = %v", byCtx.Err())
	}

	byClose, _ := s.Subscribe(context.Background(), "t1", 1)
	byClose.Close()
	waitEnd(t, byClose)
	if byClose.Err() != nil {
		t.Errorf("after Close Err = %v, want nil", byClose.Err())
	}

	// A subscriber that never reads must not hold up Store.Close.
	stuck, _ := s.Subscribe(context.Background(), "t1", 1)
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(waitLimit):
		t.Fatal("Close blocked on a subscriber")
	}
	waitEnd(t, stuck)
	if !errors.Is(stuck.Err(), ErrClosed) {
		t.Errorf("after Store.Close Err = %v, want ErrClosed", stuck.Err())
	}
	if _, err := s.Subscribe(context.Background(), "t1", 1); !errors.Is(err, ErrClosed) {
		t.Errorf("Subscribe after Close = %v", err)
	}
}
