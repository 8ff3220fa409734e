package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"golang.org/x/sys/unix"

	"reasonixctl/store"
)

// The streaming benchmarks run what a person with many tasks lives with: n tasks whose workers
// each stream four text chunks a second, an owner (reasonixctl --mcp) journaling them, and a
// dashboard attached to it in a pseudo-terminal, while keys are typed. They report, over a
// measured window after a warm-up:
//   - the owner's and the dashboard's CPU per 1,000 journal events (utime+stime from /proc,
//     events counted from the journal by their timestamps),
//   - the owner's peak RSS, and its collector's cycles per 1,000 events and the heap they left
//     live (from its gctrace),
//   - the key-to-frame latency p50/p99: from writing j or k to the terminal until the frame
//     that moves the selection has been read back from it.
//
// REASONIXCTL_BENCH_BIN measures another build of reasonixctl (both the owner and the dashboard)
// with this tree's driver and fake worker; REASONIXCTL_STREAM_SECONDS sets the window (30).
func BenchmarkStreaming100Tasks(b *testing.B) { benchStreaming(b, 100) }

// BenchmarkStreaming300Tasks is the same with 300 tasks.
func BenchmarkStreaming300Tasks(b *testing.B) { benchStreaming(b, 300) }

// streamingScenario streams one short chunk every 250 ms for long enough to outlast the window.
func streamingScenario(seconds int) []byte {
	steps := make([]map[string]any, 0, seconds*4)
	for i := range seconds * 4 {
		steps = append(steps, map[string]any{"text": fmt.Sprintf("word %d of the streamed answer. ", i), "chunks": 1, "delay_ms": 250})
	}
	raw, _ := json.Marshal(map[string]any{"name": "stream", "turns": []any{map[string]any{"steps": steps, "summary": "streamed"}}})
	return raw
}

func benchStreaming(b *testing.B, n int) {
	window := 30 * time.Second
	if s, err := strconv.Atoi(os.Getenv("REASONIXCTL_STREAM_SECONDS")); err == nil && s > 0 {
		window = time.Duration(s) * time.Second
	}
	const warmUp = 5 * time.Second
	dir, err := buildBinaries()
	if err != nil {
		b.Fatal(err)
	}
	bin := filepath.Join(dir, "reasonixctl")
	if alt := os.Getenv("REASONIXCTL_BENCH_BIN"); alt != "" {
		bin = alt
	}
	for range b.N {
		b.StopTimer()
		state, err := os.MkdirTemp("", "rxs")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { os.RemoveAll(state) })
		scenario := scenarioBeside(b, dir, streamingScenario(int(window/time.Second)+120))
		env := append(os.Environ(), "CODEX_REASONIX_STATE_DIR="+state, "REASONIX_BIN="+filepath.Join(dir, "fake-reasonix"),
			"FAKE_REASONIX_SCENARIO="+scenario, "CODEX_REASONIX_ENV_ALLOWLIST=FAKE_REASONIX_*",
			"GIT_AUTHOR_NAME=Bench", "GIT_AUTHOR_EMAIL=bench@example.com")
		// The owner's collector reports each cycle on stderr (gctrace), so that the cycles in the
		// window can be counted; ownerStart is when its clock began, near enough.
		ownerStart := time.Now()
		owner := startMCPWith(b, bin, append(slices.Clone(env), "GODEBUG=gctrace=1"))
		owner.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "bench", "version": "1"}})
		owner.call("tools/list", map[string]any{})
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := range n {
			repo := testRepo(b)
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := owner.tool("reasonix_delegate", map[string]any{"task_id": fmt.Sprintf("st-%03d", i), "contract": e2eContract, "wait_timeout_seconds": 1}, codexMeta(repo, true))
				if err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			b.Fatalf("delegate: %v", err)
		}

		dash := startDashboard(b, bin, env, 120, 40)
		dash.waitFor(b, fmt.Sprintf("Tasks (%d)", n), 60*time.Second)
		time.Sleep(warmUp) // pacing: let every worker reach its stream before measuring
		ownerCPU0, _ := cpuOf(b, []int{owner.pid})
		dashCPU0, _ := cpuOf(b, []int{dash.cmd.Process.Pid})
		start := time.Now()
		var lat []time.Duration
		keys := []string{"j", "k"}
		for i := 0; time.Since(start) < window; i++ {
			d, ok := dash.keyToSelection(keys[i%2], 5*time.Second)
			if !ok {
				b.Fatalf("key %d (%s) moved no selection within 5 s", i, keys[i%2])
			}
			lat = append(lat, d)
			time.Sleep(150 * time.Millisecond) // pacing, as a person types
		}
		end := time.Now()
		ownerCPU1, _ := cpuOf(b, []int{owner.pid})
		dashCPU1, _ := cpuOf(b, []int{dash.cmd.Process.Pid})
		peak := procStatusKB(b, owner.pid, "VmHWM:")
		dash.stop()
		gcs, live := owner.closeTraced(b, start.Sub(ownerStart), end.Sub(ownerStart))
		events := journalEventsBetween(b, state, start, end)
		if events == 0 {
			b.Fatal("no journal events in the window")
		}
		slices.Sort(lat)
		pct := func(p float64) float64 {
			return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
		}
		perK := func(d time.Duration) float64 { return float64(d.Milliseconds()) / (float64(events) / 1000) }
		b.ReportMetric(float64(events)/end.Sub(start).Seconds(), "events/s")
		b.ReportMetric(perK(ownerCPU1-ownerCPU0), "owner-cpu-ms/1k-events")
		b.ReportMetric(perK(dashCPU1-dashCPU0), "dash-cpu-ms/1k-events")
		b.ReportMetric(pct(0.5), "key-p50-ms")
		b.ReportMetric(pct(0.99), "key-p99-ms")
		b.ReportMetric(float64(len(lat)), "keys")
		b.ReportMetric(float64(peak)/1024, "owner-MB-peak-rss")
		b.ReportMetric(float64(gcs)/(float64(events)/1000), "owner-gc/1k-events")
		b.ReportMetric(live, "owner-MB-live-heap")
	}
}

// gcLine is one cycle of the collector's trace: its start since the process began, and the
// heap it left live.
var gcLine = regexp.MustCompile(`^gc \d+ @([0-9.]+)s .* (\d+)->(\d+)->(\d+) MB`)

// closeTraced ends the owner like close, and reads its collector's trace: the cycles that began
// between from and to after it started, and the mean heap they left live (MB). Anything on
// stderr besides the trace fails the benchmark, as close does.
func (c *parallelMCP) closeTraced(b *testing.B, from, to time.Duration) (int, float64) {
	c.closeStdinAndWait(b)
	var other []string
	cycles, live := 0, 0.0
	for line := range strings.SplitSeq(c.stderr.String(), "\n") {
		if line == "" {
			continue
		}
		if m := gcLine.FindStringSubmatch(line); m != nil {
			at, _ := strconv.ParseFloat(m[1], 64)
			if d := time.Duration(at * float64(time.Second)); d >= from && d <= to {
				mb, _ := strconv.Atoi(m[4])
				cycles, live = cycles+1, live+float64(mb)
			}
			continue
		}
		if strings.HasPrefix(line, "gc ") || strings.HasPrefix(line, "scvg") {
			continue
		}
		other = append(other, line)
	}
	if len(other) > 0 {
		b.Fatalf("reasonixctl --mcp wrote to stderr: %s", strings.Join(other, "\n"))
	}
	if cycles == 0 {
		return 0, 0
	}
	return cycles, live / float64(cycles)
}

// journalEventsBetween counts the events journaled in [from, to], read from the store once its
// owner has exited.
func journalEventsBetween(b *testing.B, state string, from, to time.Time) int {
	st, err := store.Open(store.Options{Dir: state, Mode: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	recs, err := st.List()
	if err != nil {
		b.Fatal(err)
	}
	count := 0
	for _, r := range recs {
		for seq := uint64(1); ; {
			evs, err := st.Journal(r.TaskID, seq, 4096)
			if err != nil {
				b.Fatal(err)
			}
			if len(evs) == 0 {
				break
			}
			for _, ev := range evs {
				if !ev.Time.Before(from) && !ev.Time.After(to) {
					count++
				}
			}
			seq = evs[len(evs)-1].Seq + 1
		}
	}
	return count
}

// ptyDashboard is the dashboard running in a pseudo-terminal; a reader keeps its output as
// plain text (escape sequences removed) and answers the terminal queries it makes.
type ptyDashboard struct {
	cmd    *exec.Cmd
	master *os.File
	mu     sync.Mutex
	text   []byte        // plain output since the last mark
	more   chan struct{} // signalled on each read
	done   chan struct{}
}

var selectedTask = regexp.MustCompile(`› (st-\d+)`)

func startDashboard(b *testing.B, bin string, env []string, cols, rows uint16) *ptyDashboard {
	master, slave := openPTY(b)
	if err := unix.IoctlSetWinsize(int(master.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: rows, Col: cols}); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(slices.Clone(env), "TERM=xterm-256color", "COLORTERM=truecolor")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	d := &ptyDashboard{cmd: cmd, master: master, more: make(chan struct{}, 1), done: make(chan struct{})}
	b.Cleanup(func() { cmd.Process.Kill() })
	go d.read()
	return d
}

// read keeps the plain text of what the dashboard draws and answers the background-colour and
// cursor-position queries a terminal would, so that start-up does not wait for them to time out.
func (d *ptyDashboard) read() {
	defer close(d.done)
	buf := make([]byte, 64<<10)
	for {
		n, err := d.master.Read(buf)
		if n > 0 {
			chunk := buf[:n]
			if bytes.Contains(chunk, []byte("\x1b]11;?")) {
				d.master.WriteString("\x1b]11;rgb:0000/0000/0000\x1b\\")
			}
			if bytes.Contains(chunk, []byte("\x1b[6n")) {
				d.master.WriteString("\x1b[1;1R")
			}
			d.mu.Lock()
			d.text = append(d.text, ansi.Strip(string(chunk))...)
			if len(d.text) > 1<<20 {
				d.text = d.text[len(d.text)-(64<<10):]
			}
			d.mu.Unlock()
			select {
			case d.more <- struct{}{}:
			default:
			}
		}
		if err != nil {
			return
		}
	}
}

// waitFor waits until the output shows s.
func (d *ptyDashboard) waitFor(b *testing.B, s string, within time.Duration) {
	deadline := time.After(within)
	for {
		d.mu.Lock()
		ok := strings.Contains(string(d.text), s)
		d.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-d.more:
		case <-deadline:
			d.mu.Lock()
			tail := string(d.text[max(0, len(d.text)-2000):])
			d.mu.Unlock()
			b.Fatalf("the dashboard never showed %q; last output:\n%s", s, tail)
		}
	}
}

// keyToSelection types key and returns how long until a frame showing the selection on another
// task than before arrived.
func (d *ptyDashboard) keyToSelection(key string, within time.Duration) (time.Duration, bool) {
	d.mu.Lock()
	before := ""
	if m := selectedTask.FindAllSubmatch(d.text, -1); len(m) > 0 {
		before = string(m[len(m)-1][1])
	}
	d.text = d.text[:0]
	d.mu.Unlock()
	start := time.Now()
	if _, err := d.master.WriteString(key); err != nil {
		return 0, false
	}
	deadline := time.After(within)
	for {
		d.mu.Lock()
		moved := false
		for _, m := range selectedTask.FindAllSubmatch(d.text, -1) {
			if string(m[1]) != before {
				moved = true
			}
		}
		d.mu.Unlock()
		if moved {
			return time.Since(start), true
		}
		select {
		case <-d.more:
		case <-deadline:
			return 0, false
		}
	}
}

// stop quits the dashboard (q, then ctrl+c) and waits for it.
func (d *ptyDashboard) stop() {
	d.master.WriteString("q")
	exited := make(chan struct{})
	go func() { d.cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		d.cmd.Process.Kill()
		<-exited
	}
}
