package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"testing"

	"reasonixctl/acp"
	"reasonixctl/acp/acptest"
	"reasonixctl/core"
)

// BenchmarkLiveTaskFootprint starts footprintTasks tasks whose fake workers hold their turns
// open, as a streaming worker does between two chunks, and reports what each live task costs
// the owner: its goroutines (goroutines/task), the heap it keeps (heap-KiB/task, live after a
// collection) and their stacks (stack-KiB/task), as the collector counts them against a soft
// memory limit. With -v it lists the goroutines a task adds by the function that started them;
// REASONIXCTL_FOOTPRINT_HEAP=<path> writes the heap profile taken while the tasks are live
// (<path>.process, <path>.pipe).
//
// "process" runs cmd/fake-reasonix as a process, as the owner runs a worker (unsandboxed here:
// the sandbox adds no goroutine to the owner); "pipe" the scripted fake in process, whose own
// goroutines are told apart by their stacks and left out.
//
//	go test -run '^$' -bench LiveTaskFootprint -benchtime 1x -v ./core/engine
func BenchmarkLiveTaskFootprint(b *testing.B) {
	scn := &acptest.Scenario{Turns: []acptest.Turn{{Steps: []acptest.Step{{Text: "streaming", Chunks: 1}, {Hang: true}}}}}
	b.Run("process", func(b *testing.B) {
		if testing.Short() {
			b.Skip("builds cmd/fake-reasonix")
		}
		dir := b.TempDir()
		bin := filepath.Join(dir, "fake-reasonix")
		if out, err := exec.Command("go", "build", "-o", bin, "reasonixctl/cmd/fake-reasonix").CombinedOutput(); err != nil {
			b.Fatalf("go build: %v\n%s", err, out)
		}
		raw, _ := json.Marshal(scn)
		scenario := filepath.Join(dir, "scenario.json")
		if err := os.WriteFile(scenario, raw, 0o600); err != nil {
			b.Fatal(err)
		}
		benchFootprint(b, func(ctx context.Context, spec WorkerSpec) (*acp.Worker, error) {
			return acp.Start(ctx, acp.LaunchConfig{Bin: bin, Dir: spec.Worktree, Env: []string{"FAKE_REASONIX_SCENARIO=" + scenario}})
		})
	})
	b.Run("pipe", func(b *testing.B) { benchFootprint(b, inProcessWorker(scn)) })
}

const footprintTasks = 20

func benchFootprint(b *testing.B, worker WorkerLauncher) {
	b.Setenv("GIT_AUTHOR_NAME", "Bench")
	b.Setenv("GIT_AUTHOR_EMAIL", "bench@example.com")
	for range b.N {
		e, err := Open(Config{StateDir: b.TempDir(), Mode: "bench", Worker: worker})
		if err != nil {
			b.Fatal(err)
		}
		repos := make([]string, footprintTasks)
		for i := range repos {
			repos[i] = newRepo(b)
		}
		ctx, cancel := context.WithCancel(context.Background())
		sub, err := e.Subscribe(ctx, core.SubscribeOptions{})
		if err != nil {
			b.Fatal(err)
		}
		before := ownerGoroutines()
		heapBefore, stackBefore := liveHeap()
		bg := 0
		for i, repo := range repos {
			if _, err := e.Delegate(ctx, core.DelegateRequest{TaskID: "fp-" + strconv.Itoa(i), Contract: json.RawMessage(happyContract),
				Authority: core.Authority{Cwd: repo, Writable: true}, WaitTimeoutSeconds: &bg}); err != nil {
				b.Fatal(err)
			}
		}
		// Every worker has streamed its text, so its turn is open and the owner has journaled
		// what it sent.
		streaming := map[string]bool{}
		for len(streaming) < footprintTasks {
			ev, ok := <-sub.C
			if !ok {
				b.Fatalf("subscription ended: %v", sub.Err())
			}
			if ev.Type == core.EventAgentMessage {
				streaming[ev.TaskID] = true
			}
		}
		after := ownerGoroutines()
		heapAfter, stackAfter := liveHeap()
		if f := os.Getenv("REASONIXCTL_FOOTPRINT_HEAP"); f != "" {
			// The heap profile while the tasks are live, one file per variant.
			out, err := os.Create(f + "." + filepath.Base(b.Name()))
			if err != nil {
				b.Fatal(err)
			}
			pprof.Lookup("heap").WriteTo(out, 0)
			out.Close()
		}
		added := len(after) - len(before)
		b.ReportMetric(float64(added)/footprintTasks, "goroutines/task")
		b.ReportMetric(float64(heapAfter-heapBefore)/footprintTasks/1024, "heap-KiB/task")
		b.ReportMetric(float64(stackAfter-stackBefore)/footprintTasks/1024, "stack-KiB/task")
		b.Logf("goroutines a live task adds, by the function that started them:\n%s", goroutineDelta(before, after, footprintTasks))
		cancel()
		if err := e.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// ownerGoroutines lists the process's goroutines, each by the function that started it (and
// its top frame when the runtime started it), leaving out the in-process fake worker's.
func ownerGoroutines() []string {
	buf := make([]byte, 8<<20)
	dump := string(buf[:runtime.Stack(buf, true)])
	var out []string
	for g := range strings.SplitSeq(dump, "\n\n") {
		if strings.Contains(g, "reasonixctl/acp/acptest.") || strings.Contains(g, "engine.PipeWorker") {
			continue
		}
		lines := strings.Split(g, "\n")
		name := "?"
		for i, l := range lines {
			if by, ok := strings.CutPrefix(l, "created by "); ok {
				name = by
				if j := strings.Index(name, " in goroutine"); j >= 0 {
					name = name[:j]
				}
				break
			}
			if i == 1 {
				name = l
			}
		}
		out = append(out, name)
	}
	return out
}

// goroutineDelta lists by creator the goroutines in after and not in before, per task.
func goroutineDelta(before, after []string, tasks int) string {
	count := map[string]int{}
	for _, n := range after {
		count[n]++
	}
	for _, n := range before {
		count[n]--
	}
	var names []string
	for n, c := range count {
		if c != 0 {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "  %6.2f  %s\n", float64(count[n])/float64(tasks), n)
	}
	return b.String()
}

// liveHeap is the heap and the goroutine stacks in use after a full collection, as the
// collector counts them against a soft memory limit.
func liveHeap() (heap, stacks int64) {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse), int64(m.StackInuse)
}
