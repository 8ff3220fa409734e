package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkMCPStartup measures what Codex waits for: spawning reasonixctl --mcp until the answer
// to tools/list, and the resident memory of the process right after it (and after a first tool
// call has opened the state directory).
func BenchmarkMCPStartup(b *testing.B) {
	bin, err := buildBinaries()
	if err != nil {
		b.Fatal(err)
	}
	var rssList, rssOpen, listBytes int
	for b.Loop() {
		state := privateDir(b)
		cmd := exec.Command(filepath.Join(bin, "reasonixctl"), "--mcp")
		cmd.Env = append(os.Environ(), "CODEX_REASONIX_STATE_DIR="+state)
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		send := func(id int, method string, params any) []byte {
			m, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
			in.Write(append(m, '\n'))
			for sc.Scan() {
				var r struct {
					ID int `json:"id"`
				}
				if json.Unmarshal(sc.Bytes(), &r) == nil && r.ID == id {
					return sc.Bytes()
				}
			}
			b.Fatalf("no answer to %s", method)
			return nil
		}
		send(1, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "bench", "version": "1"}})
		listBytes = len(send(2, "tools/list", map[string]any{}))
		elapsed := time.Since(start)
		b.StopTimer()
		rssList = rssKB(b, cmd.Process.Pid)
		send(3, "tools/call", map[string]any{"name": "reasonix_inspect", "arguments": map[string]any{"task_id": "none"}})
		rssOpen = rssKB(b, cmd.Process.Pid)
		in.Close()
		cmd.Wait()
		b.ReportMetric(float64(elapsed.Microseconds())/1000, "ms-to-tools/list")
		b.StartTimer()
	}
	b.ReportMetric(float64(rssList)/1024, "MB-rss-after-list")
	b.ReportMetric(float64(rssOpen)/1024, "MB-rss-store-open")
	b.ReportMetric(float64(listBytes), "tools/list-bytes")
}

func rssKB(b *testing.B, pid int) int {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return n
		}
	}
	return 0
}
