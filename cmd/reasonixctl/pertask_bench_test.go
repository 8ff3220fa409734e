package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkMCPPerTask runs tasks one after another through one `reasonixctl --mcp` on real
// stdio with the fake worker: each iteration is one task, reasonix_delegate to review and
// reasonix_control finalize to a commit, the sequential driver of issue 29. The repositories are
// made before the clock starts (a checkout exists before someone delegates in it). Besides
// ns/op (the mean) it reports the median per task, of delegate and of finalize, and the server's
// CPU per task (user+sys of the reasonixctl process from /proc, its own threads only;
// cpu-children-ms/task is what its git, verification and worker processes used), and its peak
// resident memory (the larger of the two processes' when attached to serve).
//
// REASONIXCTL_BENCH_BIN=<path> measures another build of reasonixctl with the same driver and
// the same fake worker (BENCHMARKS.md, "Per task through MCP", compares releases that way).
func BenchmarkMCPPerTask(b *testing.B) { benchPerTask(b, false) }

// BenchmarkMCPPerTaskAttachedToServe is BenchmarkMCPPerTask with CODEX_REASONIX_OWNER=serve and
// a `reasonixctl serve` owning the state directory: the --mcp process relays each call over the
// serve's socket. The CPU figures are the two processes' together.
func BenchmarkMCPPerTaskAttachedToServe(b *testing.B) { benchPerTask(b, true) }

func benchPerTask(b *testing.B, attached bool) {
	dir, err := buildBinaries()
	if err != nil {
		b.Fatal(err)
	}
	bin := filepath.Join(dir, "reasonixctl")
	if alt := os.Getenv("REASONIXCTL_BENCH_BIN"); alt != "" {
		bin = alt
	}
	fake := filepath.Join(dir, "fake-reasonix")
	state := privateDir(b)
	env := append(os.Environ(), "CODEX_REASONIX_STATE_DIR="+state, "REASONIX_BIN="+fake,
		"GIT_AUTHOR_NAME=Bench", "GIT_AUTHOR_EMAIL=bench@example.com")
	var pids []int
	if attached {
		serve := exec.Command(bin, "serve")
		serve.Env = env
		if err := serve.Start(); err != nil {
			b.Fatal(err)
		}
		defer func() { serve.Process.Signal(os.Interrupt); serve.Wait() }()
		waitServe(b, state)
		pids = append(pids, serve.Process.Pid)
		env = append(env, "CODEX_REASONIX_OWNER=serve")
	}
	c := startMCPWith(b, bin, env)
	pids = append(pids, c.pid)
	c.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "bench", "version": "1"}})
	c.call("tools/list", map[string]any{})
	// Open the state directory (or attach) and warm up with one task outside the clock.
	if err := c.delegateAndFinalize("warm", settledRepo(b)); err != nil {
		b.Fatal(err)
	}
	repos := make([]string, b.N)
	for i := range repos {
		repos[i] = testRepo(b)
	}
	// A checkout younger than 100 ms makes the collision checkpoints run git (RELIABILITY.md):
	// let the last one settle, as a real checkout has.
	time.Sleep(150 * time.Millisecond)
	// What the previous run left to write back (its folders removed, its repositories made)
	// would otherwise be flushed by this run's first syncs.
	syscall.Sync()
	var tasks, delegates, finalizes []time.Duration
	own0, kids0 := cpuOf(b, pids)
	b.ResetTimer()
	for i := range b.N {
		t0 := time.Now()
		d, err := c.delegateAndFinalizeTimed("t"+strconv.Itoa(i), repos[i])
		if err != nil {
			b.Fatal(err)
		}
		total := time.Since(t0)
		tasks, delegates, finalizes = append(tasks, total), append(delegates, d), append(finalizes, total-d)
	}
	b.StopTimer()
	own1, kids1 := cpuOf(b, pids)
	peak := 0
	for _, pid := range pids {
		peak = max(peak, procStatusKB(b, pid, "VmHWM:"))
	}
	c.close(b)
	n := float64(b.N)
	b.ReportMetric(median(tasks), "ms-median")
	b.ReportMetric(median(delegates), "ms-delegate")
	b.ReportMetric(median(finalizes), "ms-finalize")
	b.ReportMetric(float64((own1-own0).Microseconds())/1000/n, "cpu-ms/task")
	b.ReportMetric(float64((kids1-kids0).Microseconds())/1000/n, "cpu-children-ms/task")
	b.ReportMetric(float64(peak)/1024, "MB-peak-rss")
}

func settledRepo(b *testing.B) string {
	r := testRepo(b)
	time.Sleep(150 * time.Millisecond)
	return r
}

func median(ds []time.Duration) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return float64(m.Microseconds()) / 1000
}

// waitServe returns once the serve on state answers on its socket.
func waitServe(b *testing.B, state string) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	dialUntil(b, ctx, state).Close()
}

// cpuOf sums the user+sys time of the processes (all their threads) and of their waited-for
// children, from /proc/<pid>/stat.
func cpuOf(b *testing.B, pids []int) (own, children time.Duration) {
	tick := time.Second / 100 // USER_HZ on Linux
	for _, pid := range pids {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			b.Skip("no /proc: ", err)
		}
		i := strings.LastIndexByte(string(stat), ')')
		f := strings.Fields(string(stat)[i+1:])
		// Fields 14–17 of stat(5), counted from the state (field 3) here.
		v := func(k int) time.Duration { n, _ := strconv.ParseInt(f[k-3], 10, 64); return time.Duration(n) * tick }
		own += v(14) + v(15)
		children += v(16) + v(17)
	}
	return own, children
}

// startMCPWith starts `bin --mcp` with env as a parallelMCP client (sequential use is fine).
func startMCPWith(b *testing.B, bin string, env []string) *parallelMCP {
	c := startParallelMCPCmd(b, exec.Command(bin, "--mcp"), env)
	return c
}

// delegateAndFinalizeTimed is delegateAndFinalize that also returns how long delegate took.
func (c *parallelMCP) delegateAndFinalizeTimed(id, repo string) (time.Duration, error) {
	t0 := time.Now()
	var d time.Duration
	c.afterDelegate = func() { d = time.Since(t0) }
	defer func() { c.afterDelegate = nil }()
	if err := c.delegateAndFinalize(id, repo); err != nil {
		return 0, fmt.Errorf("%s: %w", id, err)
	}
	return d, nil
}
