package store

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
)

// rssChild performs a small MCP-like workload and prints its resident set: the store must stay
// lean enough for the whole binary to remain under 20 MB RSS.
func rssChild(dir string) error {
	baseline := vmStatus("VmRSS:")
	// Unsynced only to keep the benchmark short: syncing does not change what stays resident.
	s, err := Open(Options{Dir: dir, Mode: "mcp", noSync: true})
	if err != nil {
		return err
	}
	defer s.Close()
	for task := range 20 {
		id := fmt.Sprintf("task-%d", task)
		for range 250 {
			if _, err := s.Update(id, increment); err != nil {
				return err
			}
		}
	}
	sub, err := s.Subscribe(context.Background(), "task-0", 1)
	if err != nil {
		return err
	}
	for ev := range sub.Events() {
		if ev.Seq == 250 {
			break
		}
	}
	sub.Close()
	if _, err := s.List(); err != nil {
		return err
	}
	debug.FreeOSMemory()
	fmt.Println(baseline, vmStatus("VmRSS:"), vmStatus("VmHWM:"))
	return nil
}

// vmStatus returns a kB field of /proc/self/status, "0" if it cannot be read.
func vmStatus(field string) string {
	status, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == field {
			return f[1]
		}
	}
	return "0"
}

// BenchmarkResidentMemory reports the resident set of a child process that opens the store and
// writes, replays and lists 5000 events over 20 tasks: before opening (the test binary alone),
// after the workload, and its peak. It runs one child whatever b.N is, so ns/op means nothing.
func BenchmarkResidentMemory(b *testing.B) {
	child, lines, _ := startChild(b, "rss", b.TempDir())
	f := strings.Fields(readLine(b, lines))
	if err := child.Wait(); err != nil || len(f) != 3 {
		b.Fatalf("child: %v %q", err, f)
	}
	var res [3]float64
	for i := range res {
		kb, _ := strconv.ParseFloat(f[i], 64)
		res[i] = kb / 1024
	}
	b.ReportMetric(res[0], "baseRSS-MiB")
	b.ReportMetric(res[1], "RSS-MiB")
	b.ReportMetric(res[2], "peakRSS-MiB")
}
