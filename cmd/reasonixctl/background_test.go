package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"reasonixctl/core/remote"
	"reasonixctl/store"
)

// stopServe ends the background owner of state, if one runs, and waits for it to have closed
// the store: the owner lock it holds is released then (a closed socket is not enough: the test
// removing the directory under a store still closing would leave the process retrying).
func stopServe(t testing.TB, state string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := remote.Dial(ctx, state, remote.RoleCLI)
	if err != nil {
		return
	}
	c.Close()
	if c.Owner().Mode != "serve" {
		t.Errorf("the owner of %s is %+v, not a serve", state, c.Owner())
		return
	}
	lock, err := os.Open(filepath.Join(state, "owner.lock"))
	if err != nil {
		t.Errorf("owner lock: %v", err)
		return
	}
	defer lock.Close()
	if err := syscall.Kill(c.Owner().PID, syscall.SIGTERM); err != nil {
		t.Errorf("stopping serve: %v", err)
		return
	}
	released := make(chan error, 1)
	go func() { released <- syscall.Flock(int(lock.Fd()), syscall.LOCK_EX) }()
	select {
	case err := <-released:
		if err != nil {
			t.Errorf("waiting for serve's owner lock: %v", err)
		}
	case <-ctx.Done():
		t.Errorf("reasonixctl serve (pid %d) did not stop on SIGTERM", c.Owner().PID)
		_ = syscall.Kill(c.Owner().PID, syscall.SIGKILL)
	}
}

// killLikeCodex ends an --mcp server as Codex ends a session: SIGTERM, SIGKILL 50 ms later.
func killLikeCodex(t testing.TB, s *mcpSession) {
	t.Helper()
	exited := make(chan error, 1)
	go func() { exited <- s.cmd.Wait() }()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(codexGrace):
		_ = s.cmd.Process.Signal(syscall.SIGKILL)
		<-exited
	}
}

func initMCP(s *mcpSession) {
	s.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "codex", "version": "0.169.0"}})
	s.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
}

func inspectState(t *testing.T, s *mcpSession, id string, args map[string]any) string {
	t.Helper()
	a := map[string]any{"task_id": id, "include": []string{"status"}}
	for k, v := range args {
		a[k] = v
	}
	res := s.tool("reasonix_inspect", a, nil)
	if res.IsError {
		t.Fatalf("inspect: %s", res.Content[0].Text)
	}
	var out struct {
		Sections struct {
			Status struct {
				State string `json:"state"`
			} `json:"status"`
		} `json:"sections"`
	}
	if err := json.Unmarshal(res.StructuredContent, &out); err != nil {
		t.Fatal(err)
	}
	return out.Sections.Status.State
}

// The Codex-like flow with CODEX_REASONIX_OWNER=serve: the first --mcp starts a background
// owner and delegates; Codex ends it (SIGTERM, SIGKILL 50 ms later) while the worker is in the
// middle of its turn; a new --mcp attaches to the same owner and finds the task still running,
// steers it, and sees it reach review.
func TestServeKeepsTasksRunningWhenCodexExits(t *testing.T) {
	state := privateDir(t)
	t.Cleanup(func() { stopServe(t, state) })
	scenario := filepath.Join(t.TempDir(), "steer.json")
	script := `{"name": "steer", "turns": [{"steps": [{"text": "Working."}, {"wait_steer": true},
		{"write": {"path": "result.txt", "content": "ok\n"}}, {"text": "Done."}]}]}`
	if err := os.WriteFile(scenario, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"CODEX_REASONIX_OWNER=serve", "FAKE_REASONIX_SCENARIO=" + scenario, "CODEX_REASONIX_ENV_ALLOWLIST=FAKE_REASONIX_*"}
	repo := testRepo(t)

	first := startMCP(t, state, env...)
	initMCP(first)
	first.call("tools/list", map[string]any{})
	res := first.tool("reasonix_delegate", map[string]any{"task_id": "lasting", "contract": e2eContract, "wait_mode": "background"}, codexMeta(repo, true))
	if res.IsError {
		t.Fatalf("delegate: %s", res.Content[0].Text)
	}
	owner := store.CurrentOwner(state)
	if owner == nil || owner.Mode != "serve" || owner.PID == first.cmd.Process.Pid {
		t.Fatalf("owner while delegating: %+v (the --mcp is pid %d)", owner, first.cmd.Process.Pid)
	}
	killLikeCodex(t, first)
	if now := store.CurrentOwner(state); now == nil || now.PID != owner.PID {
		t.Fatalf("owner after Codex exited: %+v, was %+v", now, owner)
	}

	second := startMCP(t, state, env...)
	initMCP(second)
	if st := inspectState(t, second, "lasting", nil); st != "running" {
		t.Fatalf("the task after Codex restarted is %s, not running", st)
	}
	if res := second.tool("reasonix_control", map[string]any{"task_id": "lasting", "action": "steer", "message": "go on"}, codexMeta(repo, true)); res.IsError {
		t.Fatalf("steer: %s", res.Content[0].Text)
	}
	if st := inspectState(t, second, "lasting", map[string]any{"wait_until": "review_required", "wait_ms": 30000}); st != "review_required" {
		t.Fatalf("the task did not reach review: %s", st)
	}
	if now := store.CurrentOwner(state); now == nil || now.PID != owner.PID {
		t.Fatalf("owner changed: %+v, was %+v", now, owner)
	}
}

// A second serve on a directory that is owned exits with who holds it.
func TestSecondServeSaysWhoOwnsTheDirectory(t *testing.T) {
	state := privateDir(t)
	t.Cleanup(func() { stopServe(t, state) })
	bin, err := buildBinaries()
	if err != nil {
		t.Fatal(err)
	}
	first := exec.Command(filepath.Join(bin, "reasonixctl"), "serve")
	first.Env = append(os.Environ(), "CODEX_REASONIX_STATE_DIR="+state)
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- first.Wait() }()
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	c := dialUntil(t, ctx, state)
	defer c.Close()
	second := exec.Command(filepath.Join(bin, "reasonixctl"), "serve")
	second.Env = first.Env
	out, err := second.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "in use by reasonixctl pid") || !strings.Contains(string(out), "serve") {
		t.Fatalf("second serve: %v\n%s", err, out)
	}
	// doctor names the background owner.
	doc := exec.Command(filepath.Join(bin, "reasonixctl"), "doctor")
	doc.Env = first.Env
	dout, _ := doc.CombinedOutput()
	if !strings.Contains(string(dout), "owned by reasonixctl serve") {
		t.Fatalf("doctor does not name the owner:\n%s", dout)
	}
	if err := first.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("serve after SIGTERM: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("serve did not stop on SIGTERM")
	}
	if _, err := os.Stat(filepath.Join(state, "owner.json")); !os.IsNotExist(err) {
		t.Fatalf("owner.json left behind: %v", err)
	}
}

// serve exits by itself once it has had no working task and no client for its idle time, and
// not while a client is attached.
func TestServeExitsWhenIdle(t *testing.T) {
	state := privateDir(t)
	bin, err := buildBinaries()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(bin, "reasonixctl"), "serve", "--idle-exit", "300ms")
	cmd.Env = append(os.Environ(), "CODEX_REASONIX_STATE_DIR="+state)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	c := dialUntil(t, ctx, state)
	// Attached for three idle periods: it stays.
	select {
	case err := <-exited:
		t.Fatalf("serve exited with a client attached: %v", err)
	case <-time.After(900 * time.Millisecond):
	}
	// The client leaves as Close starts: serve may see its stream end before Close returns.
	start := time.Now()
	c.Close()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("serve's idle exit: %v", err)
		}
		if took := time.Since(start); took < 300*time.Millisecond {
			t.Fatalf("exited %v after the client left, before its idle time", took)
		}
	case <-ctx.Done():
		t.Fatal("serve did not exit when idle")
	}
	if store.CurrentOwner(state) != nil {
		t.Fatal("an owner record is left after the idle exit")
	}
	log, _ := os.ReadFile(filepath.Join(state, "logs", "reasonixctl.log"))
	if !strings.Contains(string(log), "no working task and no client") {
		t.Fatalf("the log does not say why serve stopped:\n%s", log)
	}
}

// dialUntil attaches to the owner of state once it answers, or fails at ctx's deadline.
func dialUntil(t testing.TB, ctx context.Context, state string) *remote.Client {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		c, err := remote.Dial(ctx, state, remote.RoleCLI)
		if err == nil {
			return c
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no owner answered on %s: %v", state, err)
		case <-tick.C:
		}
	}
}

func serveCmd(args []string, out, errb *bytes.Buffer) int {
	return run(append([]string{"serve"}, args...), out, errb)
}

// Bad settings of the background owner are refused with what to use, before anything starts.
func TestServeSettingsAreChecked(t *testing.T) {
	t.Setenv("CODEX_REASONIX_STATE_DIR", t.TempDir())
	t.Setenv("CODEX_REASONIX_OWNER", "daemon")
	if _, err := readSettings(); err == nil || !strings.Contains(err.Error(), "use mcp") {
		t.Fatalf("CODEX_REASONIX_OWNER=daemon: %v", err)
	}
	t.Setenv("CODEX_REASONIX_OWNER", "serve")
	t.Setenv("CODEX_REASONIX_SERVE_IDLE", "soon")
	code, _, errOut := runCmd(serveCmd)
	if code != 2 || !strings.Contains(errOut, "CODEX_REASONIX_SERVE_IDLE") {
		t.Fatalf("CODEX_REASONIX_SERVE_IDLE=soon: %d %q", code, errOut)
	}
	t.Setenv("CODEX_REASONIX_SERVE_IDLE", "")
	if code, _, errOut := runCmd(serveCmd, "--idle-exit", "-1s"); code != 2 || !strings.Contains(errOut, "--idle-exit") {
		t.Fatalf("--idle-exit -1s: %d %q", code, errOut)
	}
}

// With CODEX_REASONIX_OWNER=serve and CODEX_REASONIX_PERMISSIONS=ask, the engine runs in the
// background owner, which has no form to show: the --mcp attached to it asks Codex's user
// (elicitation/create) and the answer is recorded as theirs.
func TestServeAsksThroughTheAttachedCodex(t *testing.T) {
	state := privateDir(t)
	t.Cleanup(func() { stopServe(t, state) })
	scenario := filepath.Join(t.TempDir(), "ask.json")
	script := `{"name": "ask", "turns": [{"steps": [{"shell": {"command": "make lint", "output": "fine"}, "permission": "ask"},
		{"write": {"path": "result.txt", "content": "ok\n"}}, {"text": "Done."}]}]}`
	if err := os.WriteFile(scenario, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"CODEX_REASONIX_OWNER=serve", "CODEX_REASONIX_PERMISSIONS=ask", "FAKE_REASONIX_SCENARIO=" + scenario, "CODEX_REASONIX_ENV_ALLOWLIST=FAKE_REASONIX_*"}
	repo := testRepo(t)

	s := startMCP(t, state, env...)
	s.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"elicitation": map[string]any{}},
		"clientInfo": map[string]any{"name": "codex", "version": "0.169.0"}})
	s.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	s.send(map[string]any{"jsonrpc": "2.0", "id": 900, "method": "tools/call", "params": map[string]any{"name": "reasonix_delegate",
		"arguments": map[string]any{"task_id": "asked", "contract": e2eContract, "wait_mode": "background"}, "_meta": codexMeta(repo, true)}})
	var delegated, asked bool
	deadline := time.After(60 * time.Second)
	for !delegated || !asked {
		select {
		case line, ok := <-s.lines:
			if !ok {
				t.Fatal("stdout closed")
			}
			var msg struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(line, &msg); err != nil {
				t.Fatalf("non-protocol line: %q", line)
			}
			switch {
			case msg.Method == "elicitation/create":
				if !strings.Contains(string(line), "make lint") {
					t.Fatalf("the form does not name the command: %s", line)
				}
				asked = true
				s.send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": map[string]any{"action": "accept", "content": map[string]any{"decision": "allow_once"}}})
			case string(msg.ID) == "900":
				if msg.Error != nil || strings.Contains(string(msg.Result), `"isError":true`) {
					t.Fatalf("delegate: %s", line)
				}
				delegated = true
			}
		case <-deadline:
			t.Fatalf("delegated %v, asked %v", delegated, asked)
		}
	}
	if owner := store.CurrentOwner(state); owner == nil || owner.Mode != "serve" || owner.PID == s.cmd.Process.Pid {
		t.Fatalf("the engine is not in a background owner: %+v", owner)
	}
	if st := inspectState(t, s, "asked", map[string]any{"wait_until": "review_required", "wait_ms": 30000}); st != "review_required" {
		t.Fatalf("the task did not reach review: %s", st)
	}
	c, err := remote.Dial(context.Background(), state, remote.RoleCLI)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	d, err := c.Get(context.Background(), "asked")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Interactions) != 1 || d.Interactions[0].Response == nil || d.Interactions[0].Response.By != "asked_user" || d.Interactions[0].Response.Decision != "allow" {
		t.Fatalf("interactions: %+v", d.Interactions)
	}
}
