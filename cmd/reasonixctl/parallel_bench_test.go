package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkParallelTasks100MCP delegates 100 tasks on 100 repositories at once over one
// `reasonixctl --mcp` process on real stdio, with the fake worker, and finalizes each as its
// review arrives; one iteration is the whole batch. It reports the server's peak resident
// memory, and its open file descriptors and threads before the batch, after it and after every
// task is finished, and fails if the batch left descriptors open (other than the store's own
// table files) or worker processes running.
func BenchmarkParallelTasks100MCP(b *testing.B) {
	const n = 100
	bin, err := buildBinaries()
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		repos := make([]string, n)
		for j := range repos {
			repos[j] = testRepo(b)
		}
		c := startParallelMCP(b, bin, b.TempDir())
		c.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "bench", "version": "1"}})
		c.call("tools/list", map[string]any{})
		// The first tool call opens the state directory; count after it so that the store's
		// own files are in the baseline.
		c.call("tools/call", map[string]any{"name": "reasonix_inspect", "arguments": map[string]any{"task_id": "none"}})
		fdsBefore, thrBefore := procCount(b, c.pid, "fd"), procThreads(b, c.pid)
		linksBefore := fdTargets(c.pid)
		b.StartTimer()
		var wg sync.WaitGroup
		errs := make(chan string, n)
		for j, repo := range repos {
			wg.Add(1)
			go func() {
				defer wg.Done()
				id := "m" + strconv.Itoa(i) + "-" + strconv.Itoa(j)
				if err := c.delegateAndFinalize(id, repo); err != nil {
					errs <- id + ": " + err.Error()
				}
			}()
		}
		wg.Wait()
		b.StopTimer()
		close(errs)
		var failed []string
		for e := range errs {
			failed = append(failed, e)
		}
		if len(failed) > 0 {
			b.Fatalf("%d of %d tasks failed: %v", len(failed), n, failed)
		}
		peak := procStatusKB(b, c.pid, "VmHWM:")
		fdsAfter, thrAfter := settleProc(b, c.pid, fdsBefore)
		workers := childProcesses(c.pid)
		linksAfter := fdTargets(c.pid)
		c.close(b)
		b.ReportMetric(float64(peak)/1024, "MB-peak-rss")
		b.ReportMetric(float64(fdsBefore), "fds-before")
		b.ReportMetric(float64(fdsAfter), "fds-after")
		b.ReportMetric(float64(thrBefore), "threads-before")
		b.ReportMetric(float64(thrAfter), "threads-after")
		// The store may have flushed a table or started a memtable meanwhile: its own files are
		// growth, not leaks.
		if leaked := newDescriptors(linksBefore, linksAfter); len(leaked) > 0 || len(workers) > 0 {
			b.Fatalf("left behind after the batch: file descriptors %v (%d before, %d after), child processes %v", leaked, fdsBefore, fdsAfter, workers)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N)/n, "ms/task")
}

// parallelMCP is an MCP client that can have many calls in flight: one reader hands each
// response to the call waiting for its id.
type parallelMCP struct {
	cmd    *exec.Cmd
	pid    int
	in     io.WriteCloser
	stderr *strings.Builder
	mu     sync.Mutex
	next   int
	wait   map[int]chan json.RawMessage
	done   chan struct{}
	// afterDelegate, when set, is called as delegate's answer arrives (sequential use only).
	afterDelegate func()
}

type rpcReply struct {
	ID     *int            `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

func startParallelMCP(b *testing.B, bin, state string) *parallelMCP {
	return startParallelMCPCmd(b, exec.Command(filepath.Join(bin, "reasonixctl"), "--mcp"),
		append(os.Environ(), "CODEX_REASONIX_STATE_DIR="+state, "REASONIX_BIN="+filepath.Join(bin, "fake-reasonix"),
			"GIT_AUTHOR_NAME=Bench", "GIT_AUTHOR_EMAIL=bench@example.com"))
}

func startParallelMCPCmd(b *testing.B, cmd *exec.Cmd, env []string) *parallelMCP {
	cmd.Env = env
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	c := &parallelMCP{cmd: cmd, in: in, stderr: &strings.Builder{}, wait: map[int]chan json.RawMessage{}, done: make(chan struct{})}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	c.pid = cmd.Process.Pid
	// A benchmark that fails before close leaves a server behind, and an older build measured
	// against this one may not end with its input: it would load every run after it.
	b.Cleanup(func() { cmd.Process.Kill() }) // os.ErrProcessDone once close has waited
	go func() {
		defer close(c.done)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var r rpcReply
			if json.Unmarshal(sc.Bytes(), &r) != nil || r.ID == nil {
				continue
			}
			c.mu.Lock()
			ch := c.wait[*r.ID]
			delete(c.wait, *r.ID)
			c.mu.Unlock()
			if ch != nil {
				raw := r.Result
				if r.Error != nil {
					raw = json.RawMessage(`{"rpcError":` + string(r.Error) + `}`)
				}
				ch <- raw
			}
		}
	}()
	return c
}

func (c *parallelMCP) send(method string, params any) (chan json.RawMessage, error) {
	c.mu.Lock()
	c.next++
	id := c.next
	ch := make(chan json.RawMessage, 1)
	c.wait[id] = ch
	m, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	_, err := c.in.Write(append(m, '\n'))
	c.mu.Unlock()
	return ch, err
}

func (c *parallelMCP) call(method string, params any) json.RawMessage {
	ch, err := c.send(method, params)
	if err != nil {
		panic(err)
	}
	select {
	case r := <-ch:
		return r
	case <-c.done:
		panic("reasonixctl --mcp closed stdout: " + c.stderr.String())
	case <-time.After(5 * time.Minute):
		panic("no answer to " + method)
	}
}

func (c *parallelMCP) tool(name string, args map[string]any, meta map[string]any) (toolResult, error) {
	params := map[string]any{"name": name, "arguments": args}
	if meta != nil {
		params["_meta"] = meta
	}
	var r toolResult
	if err := json.Unmarshal(c.call("tools/call", params), &r); err != nil {
		return r, err
	}
	if r.IsError {
		text := ""
		if len(r.Content) > 0 {
			text = r.Content[0].Text
		}
		return r, fmt.Errorf("%s: %s", name, text)
	}
	return r, nil
}

func (c *parallelMCP) delegateAndFinalize(id, repo string) error {
	res, err := c.tool("reasonix_delegate", map[string]any{"task_id": id, "contract": e2eContract}, codexMeta(repo, true))
	if c.afterDelegate != nil {
		c.afterDelegate()
	}
	if err != nil {
		return err
	}
	var view struct {
		State                  string   `json:"state"`
		ReviewRevision         int      `json:"review_revision"`
		ReviewTreeHash         string   `json:"review_tree_hash"`
		RequiredReviewCriteria []string `json:"required_review_criteria"`
	}
	json.Unmarshal(res.StructuredContent, &view)
	if view.State != "review_required" {
		return fmt.Errorf("delegate ended in %s", view.State)
	}
	fin, err := c.tool("reasonix_control", map[string]any{
		"task_id": id, "action": "finalize", "review_summary": "ok", "approved_review_criteria": view.RequiredReviewCriteria,
		"expected_review_revision": view.ReviewRevision, "expected_review_tree_hash": view.ReviewTreeHash,
	}, codexMeta(repo, true))
	if err != nil {
		return err
	}
	json.Unmarshal(fin.StructuredContent, &view)
	if view.State != "completed" {
		return fmt.Errorf("finalize ended in %s", view.State)
	}
	return nil
}

func (c *parallelMCP) close(b *testing.B) {
	c.closeStdinAndWait(b)
	if c.stderr.Len() > 0 {
		b.Fatalf("reasonixctl --mcp wrote to stderr: %s", c.stderr.String())
	}
}

func procCount(b *testing.B, pid int, sub string) int {
	ents, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/" + sub)
	if err != nil {
		b.Skip("no /proc: ", err)
	}
	return len(ents)
}

func procThreads(b *testing.B, pid int) int { return procCount(b, pid, "task") }

func procStatusKB(b *testing.B, pid int, field string) int {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			v, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return v
		}
	}
	return 0
}

// settleProc waits up to five seconds (workers of finished tasks detach in the background) for
// the server's descriptors to come back to fds and returns the counts it last saw.
func settleProc(b *testing.B, pid, fds int) (int, int) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		f := procCount(b, pid, "fd")
		if f <= fds && len(childProcesses(pid)) == 0 || time.Now().After(deadline) {
			return f, procThreads(b, pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// childProcesses lists the pids whose parent is pid.
func childProcesses(pid int) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The fields after the command name, which is in parentheses and may hold spaces.
		i := strings.LastIndexByte(string(stat), ')')
		f := strings.Fields(string(stat)[i+1:])
		if len(f) > 1 && f[1] == strconv.Itoa(pid) && f[0] != "Z" {
			out = append(out, p)
		}
	}
	return out
}

func newDescriptors(before, after []string) []string {
	var out []string
	for _, l := range after {
		if slices.Contains(before, l) {
			continue
		}
		if strings.Contains(l, "/badger/") && (strings.HasSuffix(l, ".sst") || strings.HasSuffix(l, ".mem") || strings.HasSuffix(l, ".vlog")) {
			continue
		}
		out = append(out, l)
	}
	return out
}

func fdTargets(pid int) []string {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	ents, _ := os.ReadDir(dir)
	var out []string
	for _, e := range ents {
		l, _ := os.Readlink(filepath.Join(dir, e.Name()))
		out = append(out, l)
	}
	return out
}

// closeStdinAndWait closes the owner's stdin, which ends it, and waits for it to exit.
func (c *parallelMCP) closeStdinAndWait(b *testing.B) {
	c.in.Close()
	exited := make(chan error, 1)
	go func() { exited <- c.cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(20 * time.Second):
		c.cmd.Process.Kill()
		b.Fatalf("reasonixctl --mcp did not exit after stdin closed")
	}
}
