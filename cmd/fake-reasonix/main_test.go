package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// buildFake builds the command once per test binary run.
func buildFake(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "fake-reasonix")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

type worker struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Scanner
	stderr bytes.Buffer
	id     int
}

func startWorker(t *testing.T, bin string, env []string, args ...string) *worker {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	w := &worker{t: t, cmd: exec.CommandContext(ctx, bin, args...)}
	w.cmd.Env = append(os.Environ(), env...)
	w.cmd.Stderr = &w.stderr
	var err error
	if w.stdin, err = w.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := w.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	w.out = bufio.NewScanner(stdout)
	w.out.Buffer(make([]byte, 1<<20), 16<<20)
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *worker) write(m map[string]any) {
	m["jsonrpc"] = "2.0"
	b, _ := json.Marshal(m)
	if _, err := w.stdin.Write(append(b, '\n')); err != nil {
		w.t.Fatal(err)
	}
}

// call sends a request, allows every permission request meanwhile, and returns the response.
func (w *worker) call(method string, params any) (map[string]any, int) {
	w.t.Helper()
	w.id++
	w.write(map[string]any{"id": w.id, "method": method, "params": params})
	perms := 0
	for w.out.Scan() {
		var m map[string]any
		if err := json.Unmarshal(w.out.Bytes(), &m); err != nil {
			w.t.Fatalf("bad line %q", w.out.Text())
		}
		if m["method"] == "session/request_permission" {
			perms++
			w.write(map[string]any{"id": m["id"], "result": map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "allow_once"}}})
			continue
		}
		if m["method"] == nil && m["id"] == float64(w.id) {
			return m, perms
		}
	}
	w.t.Fatalf("%s: output ended (stderr %q)", method, w.stderr.String())
	return nil, 0
}

func TestBinaryPlaysTheDefaultScenario(t *testing.T) {
	bin := buildFake(t)
	cwd := t.TempDir()
	// started the way the supervisor starts the real worker, flags included
	w := startWorker(t, bin, nil, "acp", "--profile", "delivery", "--planner=off", "--sandbox-network", "on", "--workspace-only", "--sandbox-bash", "enforce")
	init, _ := w.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	if v, _ := init["result"].(map[string]any)["agentInfo"].(map[string]any)["version"].(string); v != "v1.38.11" {
		t.Fatalf("initialize: %v", init)
	}
	sess, _ := w.call("session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}})
	sid := sess["result"].(map[string]any)["sessionId"]
	res, perms := w.call("session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "implement"}}})
	if res["result"].(map[string]any)["stopReason"] != "end_turn" || perms != 2 {
		t.Fatalf("prompt: %v after %d permission requests", res, perms)
	}
	if data, err := os.ReadFile(filepath.Join(cwd, "result.txt")); err != nil || string(data) != "ok\n" {
		t.Fatalf("result.txt %q %v", data, err)
	}
	_ = w.stdin.Close()
	if err := w.cmd.Wait(); err != nil {
		t.Fatalf("exit: %v (stderr %q)", err, w.stderr.String())
	}
}

func TestBinaryScenarioFromEnvironmentCrashes(t *testing.T) {
	bin := buildFake(t)
	path := filepath.Join(t.TempDir(), "crash.json")
	if err := os.WriteFile(path, []byte(`{"turns":[{"steps":[{"crash":{"exit_code":3,"stderr":"panic: scripted"}}]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	w := startWorker(t, bin, []string{"FAKE_REASONIX_SCENARIO=" + path}, "acp", "--legacy-options")
	w.call("initialize", map[string]any{"protocolVersion": 1})
	sess, _ := w.call("session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{}})
	opts, _ := json.Marshal(sess["result"].(map[string]any)["configOptions"])
	if !strings.Contains(string(opts), `"work_mode"`) {
		t.Fatalf("--legacy-options not applied: %s", opts)
	}
	w.id++
	w.write(map[string]any{"id": w.id, "method": "session/prompt", "params": map[string]any{"sessionId": sess["result"].(map[string]any)["sessionId"],
		"prompt": []any{map[string]any{"type": "text", "text": "go"}}}})
	for w.out.Scan() {
	}
	err := w.cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 || !strings.Contains(w.stderr.String(), "panic: scripted") {
		t.Fatalf("exit %v, stderr %q", err, w.stderr.String())
	}
}

func TestUsageErrors(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(nil, strings.NewReader(""), &out, &errb); code != 2 || !strings.Contains(errb.String(), "usage") {
		t.Fatalf("no subcommand: %d %q", code, errb.String())
	}
	errb.Reset()
	bad := filepath.Join(t.TempDir(), "bad.json")
	_ = os.WriteFile(bad, []byte(`{"turns":[{"steps":[{"nope":1}]}]}`), 0o600)
	if code := run([]string{"acp", "--scenario", bad}, strings.NewReader(""), &out, &errb); code != 2 || !strings.Contains(errb.String(), "scenario") {
		t.Fatalf("bad scenario: %d %q", code, errb.String())
	}
	out.Reset()
	if code := run([]string{"--version"}, strings.NewReader(""), &out, &errb); code != 0 || !strings.Contains(out.String(), "v1.38.11") {
		t.Fatalf("--version: %d %q", code, out.String())
	}
	// input that ends at once is a clean exit
	if code := run([]string{"acp"}, strings.NewReader(""), io.Discard, &errb); code != 0 {
		t.Fatalf("empty input: %d %q", code, errb.String())
	}
}
