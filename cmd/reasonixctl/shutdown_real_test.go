package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"reasonixctl/acp/acptest/mockllm"
	"reasonixctl/store"
)

// realReasonixBin is the real Reasonix worker the tests run: REASONIX_BIN when it is set (CI sets
// it through .ci/setup), else where .ci/setup installs it. The test is skipped without one.
func realReasonixBin(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("REASONIX_BIN")
	if bin == "" {
		cache := os.Getenv("REASONIXCTL_TEST_CACHE")
		if cache == "" {
			if x := os.Getenv("XDG_CACHE_HOME"); x != "" {
				cache = filepath.Join(x, "reasonixctl-test")
			} else if h, err := os.UserHomeDir(); err == nil {
				cache = filepath.Join(h, ".cache", "reasonixctl-test")
			}
		}
		bin = filepath.Join(cache, "reasonix-1.38.11", "node_modules", "@reasonix", "cli-linux-x64", "bin", "reasonix")
	}
	if fi, err := os.Stat(bin); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		t.Skipf("the real Reasonix worker is not installed (%s): run .ci/setup and set REASONIX_BIN to the path it prints", bin)
	}
	return bin
}

// realWorkerMCP starts reasonixctl --mcp on state with the real Reasonix worker talking to the
// mock model, and delegates one task whose turn the model holds open: it streams its answer a
// chunk every 100 ms for a minute. It returns once the worker is mid-turn, with the process
// groups of the processes working for the task.
func realWorkerMCP(t *testing.T, state string) (*mcpSession, []int) {
	t.Helper()
	bin := realReasonixBin(t)
	srv, err := mockllm.Start(mockllm.Script{Scenarios: []mockllm.Scenario{{
		Match: "result.txt",
		Steps: []mockllm.Step{{Text: strings.Repeat("Still working on it. ", 600), Chunks: 600, ChunkDelayMS: 100}},
	}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	env, err := mockllm.WriteReasonixHome(t.TempDir(), srv.BaseURL())
	if err != nil {
		t.Fatal(err)
	}
	repo := testRepo(t)
	env = append(env, "REASONIX_BIN="+bin, "CODEX_REASONIX_MODEL=mock/mock-model", "CODEX_REASONIX_ENV_ALLOWLIST=MOCK_API_KEY")
	s := startMCP(t, state, env...)
	s.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "codex", "version": "0.169.0"}})
	s.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	s.call("tools/list", map[string]any{})
	res := s.tool("reasonix_delegate", map[string]any{"task_id": "real-busy", "contract": e2eContract, "wait_mode": "background"}, codexMeta(repo, true))
	if res.IsError {
		t.Fatalf("delegate: %s", res.Content[0].Text)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	if _, err := srv.WaitFor(ctx, func(r []mockllm.Request) bool { return len(r) > 0 }); err != nil {
		t.Fatalf("the worker never asked the model: %v", err)
	}
	groups := map[int]bool{}
	for _, p := range processesUnder(state) {
		t.Logf("working for the task: pid %d group %d: %s", p.pid, p.pgid, p.cmdline)
		groups[p.pgid] = true
	}
	var out []int
	for g := range groups {
		out = append(out, g)
	}
	if len(out) == 0 {
		t.Fatal("no worker process found under the state directory while its turn streams")
	}
	return s, out
}

type proc struct {
	pid, pgid    int
	cwd, cmdline string
}

// processesUnder lists the live processes (not zombies, not being killed) whose working
// directory is state or under it: the workers and verifiers of its tasks.
func processesUnder(state string) []proc {
	real, err := filepath.EvalSymlinks(state)
	if err != nil {
		real = state
	}
	entries, _ := os.ReadDir("/proc")
	var out []proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		if err != nil || (cwd != real && !strings.HasPrefix(cwd, real+"/")) {
			continue
		}
		if pgid := groupOf(pid); pgid > 0 {
			cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			out = append(out, proc{pid: pid, pgid: pgid, cwd: cwd, cmdline: strings.ReplaceAll(strings.TrimRight(string(cmdline), "\x00"), "\x00", " ")})
		}
	}
	return out
}

// groupOf is pid's process group, or 0 when pid is gone, a zombie or has SIGKILL pending.
func groupOf(pid int) int {
	status, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil || dying(string(status)) {
		return 0
	}
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(stat[i+1:])) // state, ppid, pgrp, …
	if len(f) < 3 {
		return 0
	}
	g, _ := strconv.Atoi(f[2])
	return g
}

// membersOf lists the live processes of the given groups, wherever they run.
func membersOf(groups []int) []string {
	want := map[int]bool{}
	for _, g := range groups {
		want[g] = true
	}
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if g := groupOf(pid); want[g] {
			cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			out = append(out, fmt.Sprintf("pid %d (group %d): %s", pid, g, strings.ReplaceAll(strings.TrimRight(string(cmdline), "\x00"), "\x00", " ")))
		}
	}
	return out
}

// waitGone waits up to limit for the groups to have no live member, polling /proc (there is no
// event for the death of a process that is not our child), and returns what is left.
func waitGone(groups []int, limit time.Duration) []string {
	deadline := time.Now().Add(limit)
	for {
		left := membersOf(groups)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Issue 26 item 6 in the real chain: Codex 0.169 ends reasonixctl --mcp with SIGTERM and, about
// 50 ms later, SIGKILL, while the real Reasonix 1.38.11 is in the middle of a turn (its process
// group is the slowest part of the shutdown). Whether or not the process got to exit before the
// SIGKILL, no process of the worker's group is left; when it exited, owner.json is gone; and in
// every case the next start takes the directory over at once, says nothing alarming (no warning
// or error in its log, nothing on stderr, no owner for the doctor to report) and finds the task
// paused to be resumed.
//
// "patient" sends only SIGTERM and measures the whole shutdown with the real worker;
// "sigkill-at-once" stands for a machine so loaded that Codex's grace is spent before the
// signal is even handled.
func TestRealWorkerSigtermThenSigkillLikeCodex(t *testing.T) {
	for _, tc := range []struct {
		name  string
		grace time.Duration
	}{{"codex", codexGrace}, {"patient", 20 * time.Second}, {"sigkill-at-once", 0}} {
		t.Run(tc.name, func(t *testing.T) {
			state := t.TempDir()
			// The owner socket refuses a directory others can read, as a state directory is.
			if err := os.Chmod(state, 0o700); err != nil {
				t.Fatal(err)
			}
			s, groups := realWorkerMCP(t, state)
			killed := endLikeCodex(t, s.cmd, tc.grace) // the real worker is mid-turn
			if tc.name == "patient" && killed {
				t.Fatalf("no exit within %v of SIGTERM", tc.grace)
			}
			_, err := os.Stat(filepath.Join(state, "owner.json"))
			switch {
			case os.IsNotExist(err):
			case killed:
				t.Logf("owner.json left behind by the SIGKILL: %v", err)
			default:
				t.Fatalf("owner.json left behind after a clean exit: %v", err)
			}
			// After a SIGKILL the worker dies with its parent (Pdeathsig), a moment later.
			if left := waitGone(groups, 5*time.Second); len(left) > 0 {
				t.Fatalf("the worker's process group outlived reasonixctl (killed: %v): %v", killed, left)
			}
			if left := processesUnder(state); len(left) > 0 {
				t.Fatalf("processes left: %+v", left)
			}
			if o := store.CurrentOwner(state); o != nil {
				t.Fatalf("an owner is still recorded (the doctor would report it): %+v", o)
			}
			nextStartIsQuiet(t, state, "real-busy")
		})
	}
}

// nextStartIsQuiet starts reasonixctl --mcp on state as Codex's next session would, and checks
// that it takes the directory over at once, logs no warning or error, writes nothing to stderr
// (startMCP checks that) and finds task paused, to be resumed.
func nextStartIsQuiet(t *testing.T, state, task string) {
	t.Helper()
	logPath := filepath.Join(state, "logs", "reasonixctl.log")
	before, _ := os.ReadFile(logPath)
	s := startMCP(t, state)
	s.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "codex", "version": "0.169.0"}})
	s.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	start := time.Now()
	res := s.tool("reasonix_inspect", map[string]any{"task_id": task}, nil)
	took := time.Since(start)
	if res.IsError {
		t.Fatalf("inspect after the restart: %s", res.Content[0].Text)
	}
	var view struct {
		Sections struct {
			Status struct {
				State string `json:"state"`
			} `json:"status"`
		} `json:"sections"`
	}
	if err := json.Unmarshal(res.StructuredContent, &view); err != nil || view.Sections.Status.State != "paused" {
		t.Fatalf("task after the restart: %s", res.StructuredContent)
	}
	t.Logf("the next start answered its first inspect in %v", took.Round(100*time.Microsecond))
	if took > 3*time.Second {
		t.Fatalf("the next start took %v to open the directory", took)
	}
	after, _ := os.ReadFile(logPath)
	for _, line := range strings.Split(strings.TrimPrefix(string(after), string(before)), "\n") {
		if line == "" {
			continue
		}
		t.Logf("next start: %s", line)
		if strings.Contains(line, "level=WARN") || strings.Contains(line, "level=ERROR") {
			t.Errorf("the next start logs something alarming: %s", line)
		}
	}
}
