package main

import (
	"context"
	"os"
	"runtime/debug"
	"sync"

	"reasonixctl/acp"
	"reasonixctl/core/engine"
)

// workerMemory is what the collector counts for one running worker, which the soft memory limit
// adds for each: ≈ 1,225 KiB of heap and ≈ 80 KiB of goroutine stacks per live task
// (BenchmarkLiveTaskFootprint/process), rounded up to 1.3 MiB. 1 MiB of the heap is the ACP
// SDK's line buffer (acp-go-sdk Connection.receive), allocated whole for every connection
// though only its first pages are ever written, so it counts against the limit without being
// resident.
//
// A fixed limit does not hold a heap that grows with the tasks: with 100 tasks streaming, the
// owner's live heap was 120 MB against --mcp's 24 MiB, and the collector ran back to back
// (166–359 cycles per 1,000 journal events, 43–97 a second; ≈ 80 % of the owner's CPU in a
// profile), while its resident memory was 46–50 MB. Raising the limit by what each worker holds
// keeps the room for garbage the limit was chosen for: 1.1–1.5 cycles per 1,000 events, a peak
// of 60–63 MB (BENCHMARKS.md, "The owner's cost per event").
const workerMemory = 1<<20 + 300<<10

// softLimit is the process's soft memory limit: a base for the process and workerMemory for
// each running worker. It is not set when GOMEMLIMIT is.
var softLimit memoryLimit

type memoryLimit struct {
	mu      sync.Mutex
	base    int64 // 0: the limit is not ours to set
	workers int
}

// setBase sets the limit for the process without workers, unless GOMEMLIMIT decides it.
func (l *memoryLimit) setBase(base int64) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.base = base
	l.apply()
}

// add counts delta workers started (or ended, when negative).
func (l *memoryLimit) add(delta int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.workers += delta
	l.apply()
}

// apply must be called with l.mu held.
func (l *memoryLimit) apply() {
	if l.base > 0 {
		debug.SetMemoryLimit(l.limit())
	}
}

func (l *memoryLimit) limit() int64 { return l.base + int64(max(l.workers, 0))*workerMemory }

// countedWorkers raises the soft memory limit by workerMemory while each worker launch starts
// runs, until it has ended.
func countedWorkers(launch engine.WorkerLauncher, l *memoryLimit) engine.WorkerLauncher {
	return func(ctx context.Context, spec engine.WorkerSpec) (*acp.Worker, error) {
		w, err := launch(ctx, spec)
		if err != nil {
			return nil, err
		}
		l.add(1)
		w.OnDone(func() { l.add(-1) })
		return w, nil
	}
}
