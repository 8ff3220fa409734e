package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
	"reasonixctl/core/engine"
	"reasonixctl/store"
)

// BenchmarkAttach100Tasks is "attach to first frame": what a dashboard started beside an owner
// pays before it can draw, Dial (socket checks, connect, Hello) plus List of 100 live tasks.
// Target ≤ 100 ms.
func BenchmarkAttach100Tasks(b *testing.B) {
	o := newOwner(b, &acptest.Scenario{Turns: []acptest.Turn{{Steps: []acptest.Step{{Hang: true}}}}})
	ctx := context.Background()
	bg := 0
	for i := range 100 {
		req := o.request(fmt.Sprintf("task-%03d", i))
		req.WaitTimeoutSeconds = &bg
		if _, err := o.e.Delegate(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
	var dial, list time.Duration
	for b.Loop() {
		start := time.Now()
		c, err := Dial(ctx, o.dir, RoleDashboard)
		if err != nil {
			b.Fatal(err)
		}
		dialed := time.Now()
		tasks, err := c.List(ctx, core.ListFilter{})
		if err != nil || len(tasks) != 100 {
			b.Fatalf("list: %v, %d tasks", err, len(tasks))
		}
		dial, list = dial+dialed.Sub(start), list+time.Since(dialed)
		c.Close()
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
	b.ReportMetric(ms(dial+list), "ms/attach")
	b.ReportMetric(ms(dial), "ms-dial")
	b.ReportMetric(ms(list), "ms-list")
	// The same List in the owner's process, for comparison.
	start := time.Now()
	for range 20 {
		o.e.List(ctx, core.ListFilter{})
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/1000/20, "ms-list-in-process")
}

// storeEvents is the engine with its Subscribe served from a store the benchmark appends to:
// core has no way to append journal events from outside a task's life, and a worker cannot be
// paced. The relay below is Engine.Subscribe's (one goroutine, a 256-event channel), so an
// event's path is the owner's: store commit → broker → relay → server queue → socket → client.
type storeEvents struct {
	*engine.Engine
	st *store.Store
}

func (b storeEvents) Subscribe(ctx context.Context, opts core.SubscribeOptions) (*core.Subscription, error) {
	sub, err := b.st.Subscribe(ctx, opts.TaskID, opts.FromSeq)
	if err != nil {
		return nil, err
	}
	out := make(chan core.Event, 256)
	go func() {
		defer close(out)
		for ev := range sub.Events() {
			select {
			case out <- core.Event{TaskID: ev.TaskID, Seq: ev.Seq, Time: ev.Time, Type: ev.Type, Data: ev.Data}:
			case <-ctx.Done():
				sub.Close()
				return
			}
		}
	}()
	return &core.Subscription{C: out, Err: sub.Err}, nil
}

var benchEvent = json.RawMessage(`{"kind":"agent_message_chunk","text":"Reading the repository layout before editing the parser."}`)

// BenchmarkEventLatency5000PerSecond appends one event every 200 µs (5,000 events/s) to the
// owner's journal and measures, for each, the time from its commit timestamp to its arrival on
// a dashboard's subscription channel: attached through the socket, and, for comparison, in the
// owner's own process. Target p99 ≤ 10 ms through the socket.
func BenchmarkEventLatency5000PerSecond(b *testing.B) {
	b.Run("socket", func(b *testing.B) { benchEventLatency(b, true) })
	b.Run("in-process", func(b *testing.B) { benchEventLatency(b, false) })
}

func benchEventLatency(b *testing.B, attached bool) {
	dir := shortDir(b)
	e, err := engine.Open(engine.Config{StateDir: dir, Mode: "mcp"})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	st, err := store.Open(store.Options{Dir: shortDir(b), Mode: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	backend := storeEvents{e, st}
	var svc core.Service = backend
	srv, err := serve(context.Background(), backend, dir, Info{Mode: "mcp"}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if attached {
		c, err := Dial(ctx, dir, RoleDashboard)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		svc = c
	}
	sub, err := svc.Subscribe(ctx, core.SubscribeOptions{})
	if err != nil {
		b.Fatal(err)
	}
	lat := make(chan []time.Duration, 1)
	want := make(chan int, 1)
	go func() {
		var got []time.Duration
		n := -1
		for n < 0 || len(got) < n {
			select {
			case ev, ok := <-sub.C:
				if !ok {
					lat <- got
					return
				}
				got = append(got, time.Since(ev.Time))
			case n = <-want:
			}
		}
		lat <- got
	}()
	const interval = time.Second / 5000
	start := time.Now()
	sent := 0
	for b.Loop() {
		if d := time.Until(start.Add(time.Duration(sent) * interval)); d > 0 {
			time.Sleep(d)
		}
		if _, err := st.Append("bench", store.NewEvent{Type: "session_update", Data: benchEvent}); err != nil {
			b.Fatal(err)
		}
		sent++
	}
	elapsed := time.Since(start)
	want <- sent
	var got []time.Duration
	select {
	case got = <-lat:
	case <-time.After(30 * time.Second):
		b.Fatal("events did not all arrive")
	}
	if len(got) != sent {
		b.Fatalf("%d of %d events arrived: %v (server drops %d)", len(got), sent, sub.Err(), srv.dropped.Load())
	}
	slices.Sort(got)
	pct := func(p float64) float64 {
		return float64(got[min(len(got)-1, int(p*float64(len(got))))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(got[len(got)-1].Microseconds())/1000, "max-ms")
	b.ReportMetric(float64(sent)/elapsed.Seconds(), "events/s")
}
