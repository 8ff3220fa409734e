package engine

import (
	"reasonixctl/core"

	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The long-lived state fixture: 1,000 tasks and 1,099,000 journal events. Task big-0000 has
// 100,000 events; big-0001…big-0099 are live (not archived) with 1,000 each; big-0100…big-0999
// are archived with 1,000 each, so that `task prune` drops 900,000 events and keeps 199,000.
// Generating it takes minutes, so the benchmarks run only with REASONIXCTL_BIG_STATE=1; with
// REASONIXCTL_BIG_STATE_DIR the fixture is kept there between runs (generated when missing).
const (
	bigTasks      = 1000
	bigLiveTasks  = 100
	bigTaskEvents = 100_000
	bigEachEvents = 1_000
)

func bigTaskID(i int) string { return fmt.Sprintf("big-%04d", i) }

var bigText = strings.Repeat("The worker explains what it is doing in a paragraph of agent text. ", 3)

// genBigState writes tasks [from, to) of the fixture into dir through the store APIs the engine
// uses: the record and task_created in one durable Update, then agent text appended in batches.
func genBigState(tb testing.TB, dir string, from, to int) {
	e, err := Open(Config{StateDir: dir, Mode: "bench"})
	if err != nil {
		tb.Fatal(err)
	}
	defer e.Close()
	var raw json.RawMessage
	if err := json.Unmarshal([]byte(happyContract), &raw); err != nil {
		tb.Fatal(err)
	}
	created := time.Now().Add(-48 * time.Hour).UTC()
	archived := created.Add(time.Hour)
	batch := make([]newEvent, 500)
	for i := range batch {
		batch[i] = event(core.EventAgentMessage, core.TextData{Text: bigText})
	}
	encoded := encodeEvents(batch)
	for i := from; i < to; i++ {
		r := &taskRecord{
			Version: recordVersion, TaskID: bigTaskID(i), Contract: raw, Objective: "Create result.txt",
			BaseRef: "HEAD", BaseCommit: strings.Repeat("a", 40), Branch: "reasonix/" + bigTaskID(i),
			State: core.StateCompleted, Phase: "completed", CreatedAt: created.Add(time.Duration(i) * time.Second),
			UpdatedAt: archived, CommitHash: strings.Repeat("b", 40), ChangedFiles: []string{"result.txt"},
		}
		if i >= bigLiveTasks {
			r.ArchivedAt = &archived
		}
		if err := e.create(r, []newEvent{event(core.EventTaskCreated, core.TextData{Text: "created"})}); err != nil {
			tb.Fatal(err)
		}
		n := bigEachEvents - 1
		if i == 0 {
			n = bigTaskEvents - 1
		}
		for n > 0 {
			k := min(n, len(encoded))
			if _, err := e.store.Append(r.TaskID, encoded[:k]...); err != nil {
				tb.Fatal(err)
			}
			n -= k
		}
	}
}

var bigStateDir = sync.OnceValues(func() (string, error) {
	dir := os.Getenv("REASONIXCTL_BIG_STATE_DIR")
	if dir == "" {
		d, err := os.MkdirTemp("", "reasonixctl-bigstate-")
		if err != nil {
			return "", err
		}
		dir = d
	}
	return dir, nil
})

func bigState(b *testing.B) string {
	if os.Getenv("REASONIXCTL_BIG_STATE") == "" {
		b.Skip("set REASONIXCTL_BIG_STATE=1 to generate and measure the 1,000,000-event state directory")
	}
	dir, err := bigStateDir()
	if err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "complete")); err != nil {
		start := time.Now()
		genBigState(b, dir, 0, bigTasks)
		if err := os.WriteFile(filepath.Join(dir, "complete"), nil, 0o600); err != nil {
			b.Fatal(err)
		}
		b.Logf("generated %s in %v: %d MiB", dir, time.Since(start).Round(time.Second), dirSize(b, dir)>>20)
	}
	return dir
}

func dirSize(tb testing.TB, dir string) int64 {
	var n int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			fi, err := d.Info()
			if err != nil {
				return err
			}
			n += fi.Size()
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// BenchmarkBigStateOpen opens the engine on the fixture (store, recovery over 1,000 records).
func BenchmarkBigStateOpen(b *testing.B) { benchOpen(b, false) }

// BenchmarkBigStateOpenCold opens the engine with none of the fixture in the page cache, as the
// first start after a reboot or a day of other work finds it: each file is evicted with
// posix_fadvise(DONTNEED) before each open.
func BenchmarkBigStateOpenCold(b *testing.B) { benchOpen(b, true) }

func benchOpen(b *testing.B, cold bool) {
	dir := bigState(b)
	for b.Loop() {
		if cold {
			b.StopTimer()
			evict(b, dir)
			b.StartTimer()
		}
		e, err := Open(Config{StateDir: dir, Mode: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		e.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(tableFiles(b, dir)), "tables")
}

// evict drops dir's files from the page cache.
func evict(tb testing.TB, dir string) {
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := f.Sync(); err != nil {
			return err
		}
		return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
	})
	if err != nil {
		tb.Fatal(err)
	}
}

func tableFiles(tb testing.TB, dir string) int {
	m, err := filepath.Glob(filepath.Join(dir, "badger", "*.sst"))
	if err != nil {
		tb.Fatal(err)
	}
	return len(m)
}

// BenchmarkBigStateList is `task list --all`: every stored task with its storage.
func BenchmarkBigStateList(b *testing.B) {
	e := openBig(b)
	for b.Loop() {
		ts, err := e.ListStored(context.Background(), core.ListFilter{All: true})
		if err != nil || len(ts) != bigTasks {
			b.Fatalf("%d tasks, %v", len(ts), err)
		}
	}
}

// BenchmarkBigStateReplay drains a subscription of the 100,000-event task from seq 1, as the
// dashboard does when it opens the task.
func BenchmarkBigStateReplay(b *testing.B) {
	e := openBig(b)
	for b.Loop() {
		ctx, cancel := context.WithCancel(context.Background())
		sub, err := e.Subscribe(ctx, core.SubscribeOptions{TaskID: bigTaskID(0), FromSeq: 1})
		if err != nil {
			b.Fatal(err)
		}
		var n int
		for ev := range sub.C {
			n++
			if ev.Seq == bigTaskEvents {
				break
			}
		}
		cancel()
		if n != bigTaskEvents {
			b.Fatalf("replayed %d events", n)
		}
	}
	b.ReportMetric(float64(bigTaskEvents)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

func openBig(b *testing.B) *Engine {
	dir := bigState(b)
	e, err := Open(Config{StateDir: dir, Mode: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	return e
}

// BenchmarkBigStatePrune prunes the 900 archived tasks of a fresh copy of the fixture, closes
// it, and compares the directory with one holding only the 100 live tasks, generated the same
// way: `bytes-after-prune / bytes-live` must be at most 2.
func BenchmarkBigStatePrune(b *testing.B) {
	src := bigState(b)
	for b.Loop() {
		b.StopTimer()
		dir := filepath.Join(b.TempDir(), "state")
		if out, err := copyDir(src, dir); err != nil {
			b.Fatalf("copy: %v %s", err, out)
		}
		before := dirSize(b, dir)
		b.StartTimer()
		e, err := Open(Config{StateDir: dir, Mode: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		res, err := e.Prune(context.Background(), 0, true)
		if err != nil || len(res) != bigTasks-bigLiveTasks {
			b.Fatalf("pruned %d: %v", len(res), err)
		}
		if err := e.Close(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		after := dirSize(b, dir)
		live := filepath.Join(b.TempDir(), "live")
		genBigState(b, live, 0, bigLiveTasks)
		liveSize := dirSize(b, live)
		b.ReportMetric(float64(before)/(1<<20), "MiB-before")
		b.ReportMetric(float64(after)/(1<<20), "MiB-after-prune")
		b.ReportMetric(float64(liveSize)/(1<<20), "MiB-live-only")
		b.ReportMetric(float64(after)/float64(liveSize), "after/live")
		b.StartTimer()
	}
}

func copyDir(src, dst string) ([]byte, error) {
	return exec.Command("cp", "-a", src, dst).CombinedOutput()
}
