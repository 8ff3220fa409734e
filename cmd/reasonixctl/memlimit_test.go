package main

import (
	"context"
	"io"
	"runtime/debug"
	"testing"

	"reasonixctl/acp/acptest"
	"reasonixctl/core/engine"
)

// The soft memory limit grows by workerMemory while each worker runs and goes back once it
// has ended; GOMEMLIMIT leaves it alone.
func TestSoftLimitFollowsRunningWorkers(t *testing.T) {
	orig := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(orig) })
	t.Setenv("GOMEMLIMIT", "")
	const base = 24 << 20
	var l memoryLimit
	l.setBase(base)
	if got := debug.SetMemoryLimit(-1); got != base {
		t.Fatalf("limit %d, want %d", got, base)
	}
	launch := countedWorkers(engine.PipeWorker(func(ctx context.Context, r io.Reader, w io.Writer) error {
		return acptest.Serve(ctx, r, w, acptest.Options{Scenario: &acptest.Scenario{}})
	}), &l)
	w1, err := launch(context.Background(), engine.WorkerSpec{TaskID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	w2, err := launch(context.Background(), engine.WorkerSpec{TaskID: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if got := debug.SetMemoryLimit(-1); got != base+2*workerMemory {
		t.Fatalf("limit with two workers %d, want %d", got, base+2*workerMemory)
	}
	// OnDone runs its functions in turn: once this one runs, the count has gone down.
	ended := make(chan struct{})
	w1.OnDone(func() { close(ended) })
	w1.Close()
	<-ended
	if got := debug.SetMemoryLimit(-1); got != base+workerMemory {
		t.Fatalf("limit once one ended %d, want %d", got, base+workerMemory)
	}
	w2.Close()

	t.Setenv("GOMEMLIMIT", "100MiB")
	debug.SetMemoryLimit(100 << 20)
	var theirs memoryLimit
	theirs.setBase(base)
	theirs.add(3)
	if got := debug.SetMemoryLimit(-1); got != 100<<20 {
		t.Fatalf("GOMEMLIMIT's limit became %d", got)
	}
}
