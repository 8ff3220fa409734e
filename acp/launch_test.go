package acp

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as a minimal worker when ACP_HELPER_AGENT is set (passed through the
// launcher's extra environment, as the mock provider's variables are).
func TestMain(m *testing.M) {
	if os.Getenv("ACP_HELPER_AGENT") != "" {
		os.Exit(helperAgent())
	}
	os.Exit(m.Run())
}

func helperAgent() int {
	args := os.Args[1:]
	if slices.Contains(args, "--help") {
		fmt.Fprintln(os.Stderr, "Usage of acp:\n  -model string\n    \tprovider name\n  -planner string\n    \tplanner policy\n"+
			"  -sandbox-bash string\n    \tbash sandbox policy\n  -sandbox-network string\n    \tnetwork\n  -workspace-only\n    \tconfine writes")
		return 0
	}
	record := os.Getenv("ACP_HELPER_RECORD")
	rec, _ := json.Marshal(map[string]any{"args": args, "env": os.Environ()})
	_ = os.WriteFile(record, rec, 0o600)
	fmt.Fprintln(os.Stderr, "provider call with Authorization: Bearer abc.def-123 and key sk-live1234567890")
	mode := os.Getenv("ACP_HELPER_MODE")
	if mode == "stubborn" {
		signal.Ignore(syscall.SIGTERM)
	}
	out := bufio.NewWriter(os.Stdout)
	reply := func(id json.RawMessage, result string) {
		fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", id, result)
		_ = out.Flush()
	}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		var m rpcMsg
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == nil {
			continue
		}
		switch m.Method {
		case "initialize":
			reply(m.ID, testInitResult)
		case "session/new":
			startTicker(mode)
			if mode == "stubborn" {
				child := exec.Command("sleep", "300")
				if err := child.Start(); err == nil {
					_ = os.WriteFile(record+".child", []byte(strconv.Itoa(child.Process.Pid)), 0o600)
				}
			}
			reply(m.ID, fmt.Sprintf(`{"sessionId":"h1","modes":%s,"configOptions":%s}`, testModes, testConfig))
		case "session/set_config_option":
			reply(m.ID, `{"configOptions":`+testConfig+`}`)
		case "session/prompt":
			if mode == "exit" {
				fmt.Fprintln(out, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"h1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"last words"}}}}`)
				_ = out.Flush()
				return 3
			}
			reply(m.ID, `{"stopReason":"end_turn"}`)
		default:
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`+"\n", m.ID)
			_ = out.Flush()
		}
	}
	if mode == "stubborn" {
		time.Sleep(time.Hour) // outlive the end of stdin: only SIGKILL ends this
	}
	return 0
}

// startTicker leaves a process behind that appends a line to $ACP_HELPER_TICK every 10 ms: in
// mode "ticker" a child of the worker, in its process group; in mode "orphan" one that left both
// (its parent exits, it runs in a session of its own), as a daemonised process does.
func startTicker(mode string) {
	const loop = `while :; do echo tick >> "$ACP_HELPER_TICK"; sleep 0.01; done`
	switch mode {
	case "ticker":
		_ = exec.Command("/bin/sh", "-c", loop).Start()
	case "orphan":
		_ = exec.Command("/bin/sh", "-c", `setsid /bin/sh -c "$0" </dev/null >/dev/null 2>&1 &`, loop).Run()
	case "spawner":
		// A shell that starts programs without pause: dash starts each with vfork.
		_ = exec.Command("/bin/sh", "-c", `while :; do /bin/true; echo tick >> "$ACP_HELPER_TICK"; done`).Start()
	}
}

func startHelper(t *testing.T, mode string) (*Worker, string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	record := filepath.Join(t.TempDir(), "record.json")
	w, err := Start(testCtx(t), LaunchConfig{
		Bin: self, Dir: t.TempDir(),
		Env: []string{"ACP_HELPER_AGENT=1", "ACP_HELPER_RECORD=" + record, "ACP_HELPER_MODE=" + mode, "NODE_OPTIONS=--require=/evil.js"},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return w, record
}

func TestStartFlagsEnvAndStderr(t *testing.T) {
	t.Setenv("BASH_ENV", "/evil.sh")
	t.Setenv("SOME_PROVIDER_TOKEN", "t0ken")
	t.Setenv("REASONIX_EXTRA", "kept")
	w, record := startHelper(t, "")
	if w.Info().AgentName != "reasonix" || w.Pid() <= 0 {
		t.Errorf("info = %+v", w.Info())
	}
	var rec struct {
		Args []string
		Env  []string
	}
	data, err := os.ReadFile(record)
	if err != nil || json.Unmarshal(data, &rec) != nil {
		t.Fatalf("record: %v %s", err, data)
	}
	wantArgs := []string{"acp", "--workspace-only", "--sandbox-network=off", "--sandbox-bash=enforce", "--planner=off"}
	if !slices.Equal(rec.Args, wantArgs) {
		t.Errorf("args = %q, want %q", rec.Args, wantArgs)
	}
	env := strings.Join(rec.Env, "\n")
	for _, want := range []string{"REASONIX_EXTRA=kept", "ACP_HELPER_AGENT=1", "PATH="} {
		if !strings.Contains(env, want) {
			t.Errorf("child env lacks %s:\n%s", want, env)
		}
	}
	for _, bad := range []string{"BASH_ENV", "SOME_PROVIDER_TOKEN", "NODE_OPTIONS"} {
		if strings.Contains(env, bad+"=") {
			t.Errorf("child env has %s:\n%s", bad, env)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(w.Stderr(), "Bearer") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // stderr is drained asynchronously; poll with a deadline
	}
	if s := w.Stderr(); !strings.Contains(s, "Bearer [REDACTED]") || strings.Contains(s, "abc.def") || strings.Contains(s, "sk-live") {
		t.Errorf("stderr = %q", s)
	}
}

func TestStartedWorkerExitFailsSession(t *testing.T) {
	w, _ := startHelper(t, "exit")
	s, err := w.NewSession(testCtx(t), SessionConfig{Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Prompt(testCtx(t), "go")
	if !errors.Is(err, ErrWorkerExited) || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("prompt err = %v", err)
	}
	var last Event
	for e := range timeoutEvents(t, s.Events(), 10*time.Second) {
		last = e
	}
	if ee, ok := last.(ErrorEvent); !ok || !errors.Is(ee.Err, ErrWorkerExited) {
		t.Errorf("last event = %#v", last)
	}
}

// A worker that ignores SIGTERM is killed after the grace period, with its whole process group.
func TestCloseKillsProcessGroup(t *testing.T) {
	w, record := startHelper(t, "stubborn")
	if _, err := w.NewSession(testCtx(t), SessionConfig{Cwd: "/w"}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(record + ".child")
	if err != nil {
		t.Fatal(err)
	}
	child, _ := strconv.Atoi(string(data))
	start := time.Now()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < killGrace || d > killGrace+3*time.Second {
		t.Errorf("close took %s, want about %s", d, killGrace)
	}
	if !errors.Is(w.Err(), ErrWorkerClosed) {
		t.Errorf("err = %v", w.Err())
	}
	deadline := time.Now().Add(5 * time.Second)
	for processAlive(child) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond) // the orphaned child is reaped by init asynchronously
	}
	if processAlive(child) {
		t.Errorf("grandchild %d survived", child)
	}
}

// processAlive reports a running (not zombie) process.
func processAlive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
}

func TestStartMissingBinary(t *testing.T) {
	_, err := Start(testCtx(t), LaunchConfig{Bin: filepath.Join(t.TempDir(), "nope")})
	if !errors.Is(err, ErrUnavailable) {
		t.Errorf("err = %v", err)
	}
}

func TestChildEnv(t *testing.T) {
	parent := []string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "REASONIX_HOME=/r", "LD_PRELOAD=x.so", "DYLD_INSERT=x",
		"npm_config_prefix=/p", "AWS_SECRET=s", "DEEPSEEK_API_KEY=k", "GIT_PAGER=less", "ODD"}
	got := childEnv(parent, []string{"DEEPSEEK_*"}, []string{"HOME=/mock", "LD_LIBRARY_PATH=/x", "MOCK_API_KEY=m"})
	want := []string{"PATH=/bin", "HOME=/mock", "LC_ALL=C", "REASONIX_HOME=/r", "DEEPSEEK_API_KEY=k", "MOCK_API_KEY=m"}
	if !slices.Equal(got, want) {
		t.Errorf("childEnv = %q, want %q", got, want)
	}
}

func TestStderrRing(t *testing.T) {
	var r stderrRing
	for i := range stderrLines + 10 {
		fmt.Fprintf(&r, "line %d\n", i)
	}
	_, _ = r.Write([]byte("api_key=hunter2 and part"))
	_, _ = r.Write([]byte("ial"))
	s := r.String()
	lines := strings.Split(s, "\n")
	if len(lines) != stderrLines+1 || lines[0] != "line 10" || lines[len(lines)-1] != "api_key=[REDACTED] and partial" {
		t.Errorf("ring = %q", s)
	}
	_, _ = r.Write([]byte(strings.Repeat("x", 3*stderrLineSize)))
	lines = strings.Split(r.String(), "\n")
	if len(lines) > stderrLines+1 {
		t.Errorf("%d lines kept", len(lines))
	}
	for _, l := range lines {
		if len(l) > stderrLineSize {
			t.Errorf("line of %d bytes kept", len(l))
		}
	}
}
