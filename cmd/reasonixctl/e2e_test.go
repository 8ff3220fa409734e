package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"reasonixctl/sandbox"
)

// builtDir is where buildBinaries put its binaries, removed when the tests end: 35 MB a run.
var builtDir string

func TestMain(m *testing.M) {
	// The engine's workers run their network's forwarder from this binary, as from reasonixctl.
	if len(os.Args) > 1 && os.Args[1] == sandbox.ForwardCommand {
		os.Exit(sandbox.ForwardMain(os.Args[2:]))
	}
	code := m.Run()
	if builtDir != "" {
		os.RemoveAll(builtDir)
	}
	os.Exit(code)
}

// buildBinaries builds reasonixctl and the fake worker once per test binary run.
var buildBinaries = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "reasonixctl-e2e-")
	if err != nil {
		return "", err
	}
	builtDir = dir
	for _, pkg := range []string{"./", "../fake-reasonix"} {
		out := filepath.Join(dir, filepath.Base(filepath.Clean(pkg)))
		if pkg == "./" {
			out = filepath.Join(dir, "reasonixctl")
		}
		cmd := exec.Command("go", "build", "-o", out, pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0") // as the README installs it
		if b, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
		}
	}
	return dir, nil
})

// mcpSession is reasonixctl --mcp over real stdio, spoken to as raw JSON-RPC lines.
type mcpSession struct {
	t      testing.TB
	cmd    *exec.Cmd
	in     io.WriteCloser
	lines  chan []byte
	nextID int
}

// startMCP starts reasonixctl --mcp on stateDir and, when the test ends, checks that it exits
// once stdin closes without writing to stderr. stateDir is made 0700 first, as reasonixctl makes
// its own: t.TempDir's are 0755, which every mode refuses.
func startMCP(t testing.TB, stateDir string, extraEnv ...string) *mcpSession {
	t.Helper()
	if err := os.Chmod(stateDir, 0o700); err != nil {
		t.Fatal(err)
	}
	s, stderr := spawnMCP(t, stateDir, extraEnv...)
	t.Cleanup(func() {
		if _, ok := s.exit(20 * time.Second); !ok {
			t.Errorf("reasonixctl --mcp did not exit after stdin closed")
		}
		if stderr.Len() > 0 {
			t.Errorf("reasonixctl --mcp wrote to stderr: %s", stderr.String())
		}
	})
	return s
}

// spawnMCP starts reasonixctl --mcp on stateDir as it is, returning the session and what the
// process writes to stderr.
func spawnMCP(t testing.TB, stateDir string, extraEnv ...string) (*mcpSession, *strings.Builder) {
	t.Helper()
	bin, err := buildBinaries()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(bin, "reasonixctl"), "--mcp")
	cmd.Env = append(os.Environ(),
		"CODEX_REASONIX_STATE_DIR="+stateDir,
		"REASONIX_BIN="+filepath.Join(bin, "fake-reasonix"),
		"GIT_AUTHOR_NAME=E2E", "GIT_AUTHOR_EMAIL=e2e@example.com")
	cmd.Env = append(cmd.Env, workerVisible(t, bin, extraEnv)...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	stderr := &strings.Builder{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &mcpSession{t: t, cmd: cmd, in: in, lines: make(chan []byte, 64)}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			s.lines <- append([]byte(nil), sc.Bytes()...)
		}
		close(s.lines)
	}()
	return s, stderr
}

// workerVisible returns env with the fake worker's scenario file (FAKE_REASONIX_SCENARIO) copied
// beside the fake worker's binary: the worker runs in a sandbox that shows its own folder, never
// the test's temporary folders under /tmp.
func workerVisible(t testing.TB, bin string, env []string) []string {
	t.Helper()
	out := make([]string, len(env))
	copy(out, env)
	for i, kv := range out {
		path, ok := strings.CutPrefix(kv, "FAKE_REASONIX_SCENARIO=")
		if !ok || filepath.Dir(path) == bin {
			continue
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = "FAKE_REASONIX_SCENARIO=" + scenarioBeside(t, bin, raw)
	}
	return out
}

// scenarioBeside writes a scenario into bin, the fake worker's folder, for the test's length.
func scenarioBeside(t testing.TB, bin string, raw []byte) string {
	t.Helper()
	f, err := os.CreateTemp(bin, "scenario-*.json")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(f.Name()) })
	if _, err := f.Write(raw); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return f.Name()
}

// exit closes stdin and waits up to d for the process to exit, killing it if it does not;
// ok says whether it exited by itself.
func (s *mcpSession) exit(d time.Duration) (code int, ok bool) {
	s.in.Close()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case <-done:
		return s.cmd.ProcessState.ExitCode(), true
	case <-time.After(d):
		s.cmd.Process.Kill()
		<-done
		return -1, false
	}
}

func (s *mcpSession) send(v any) {
	b, _ := json.Marshal(v)
	if _, err := s.in.Write(append(b, '\n')); err != nil {
		s.t.Fatal(err)
	}
}

// call sends a request and returns its result, failing on a JSON-RPC error. Every stdout line
// must be JSON-RPC: anything else breaks the protocol.
func (s *mcpSession) call(method string, params any) json.RawMessage {
	s.t.Helper()
	s.nextID++
	id := s.nextID
	s.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	deadline := time.After(60 * time.Second)
	for {
		select {
		case line, ok := <-s.lines:
			if !ok {
				s.t.Fatalf("stdout closed while waiting for %s", method)
			}
			var msg struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      *int            `json:"id"`
				Result  json.RawMessage `json:"result"`
				Error   json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(line, &msg); err != nil || msg.JSONRPC != "2.0" {
				s.t.Fatalf("non-protocol line on stdout: %q", line)
			}
			if msg.ID == nil || *msg.ID != id {
				continue
			}
			if msg.Error != nil {
				s.t.Fatalf("%s: %s", method, msg.Error)
			}
			return msg.Result
		case <-deadline:
			s.t.Fatalf("no answer to %s", method)
		}
	}
}

type toolResult struct {
	IsError           bool            `json:"isError"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	Content           []struct {
		Text string `json:"text"`
	} `json:"content"`
}

func (s *mcpSession) tool(name string, args map[string]any, meta map[string]any) toolResult {
	s.t.Helper()
	params := map[string]any{"name": name, "arguments": args}
	if meta != nil {
		params["_meta"] = meta
	}
	var r toolResult
	if err := json.Unmarshal(s.call("tools/call", params), &r); err != nil {
		s.t.Fatal(err)
	}
	return r
}

func (r toolResult) errorCode(t *testing.T) string {
	t.Helper()
	if !r.IsError || len(r.Content) == 0 {
		t.Fatalf("expected an error, got %s", r.StructuredContent)
	}
	var env struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.Content[0].Text), &env); err != nil {
		t.Fatalf("error is not an envelope: %s", r.Content[0].Text)
	}
	return env.Error.Code
}

func codexMeta(cwd string, writable bool) map[string]any {
	access := "write"
	if !writable {
		access = "read"
	}
	return map[string]any{"codex/sandbox-state-meta": map[string]any{
		"sandboxCwd": "file://" + cwd,
		"permissionProfile": map[string]any{
			"type":        "managed",
			"network":     "restricted",
			"file_system": map[string]any{"type": "restricted", "entries": []any{map[string]any{"path": map[string]any{"type": "special", "value": map[string]any{"kind": "project_roots"}}, "access": access}}},
		},
	}}
}

func gitIn(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func testRepo(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(dir, "README"), []byte("hello\n"), 0o644)
	gitIn(t, dir, "add", "README")
	gitIn(t, dir, "commit", "-q", "-m", "initial")
	real, _ := filepath.EvalSymlinks(dir)
	return real
}

var e2eContract = map[string]any{
	"schema_version": 1,
	"objective":      "Create result.txt",
	"user_outcome":   "result.txt holds ok",
	"write_scope":    []string{"result.txt"},
	"acceptance_criteria": []any{
		map[string]any{"id": "result", "requirement": "result.txt exists", "evidence": "automated"},
		map[string]any{"id": "reviewed", "requirement": "the change reads well", "evidence": "review"},
	},
	"verification": []any{map[string]any{"id": "exists", "argv": []string{"test", "-f", "result.txt"}, "proves": []string{"result"}}},
}

func TestMCPTwoCallHappyPathOverRealStdio(t *testing.T) {
	repo := testRepo(t)
	before := gitIn(t, repo, "status", "--porcelain") + gitIn(t, repo, "rev-parse", "HEAD")
	base := gitIn(t, repo, "rev-parse", "HEAD")
	s := startMCP(t, t.TempDir())
	s.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "e2e", "version": "1"}})
	s.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	var list struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	json.Unmarshal(s.call("tools/list", map[string]any{}), &list)
	if len(list.Tools) != 3 {
		t.Fatalf("tools: %+v", list.Tools)
	}

	res := s.tool("reasonix_delegate", map[string]any{"task_id": "e2e-1", "contract": e2eContract}, codexMeta(repo, true))
	if res.IsError {
		t.Fatalf("delegate: %s", res.Content[0].Text)
	}
	var view struct {
		State                  string   `json:"state"`
		ReviewRevision         int      `json:"review_revision"`
		ReviewTreeHash         string   `json:"review_tree_hash"`
		RequiredReviewCriteria []string `json:"required_review_criteria"`
		CommitHash             string   `json:"commit_hash"`
	}
	json.Unmarshal(res.StructuredContent, &view)
	if view.State != "review_required" || view.ReviewTreeHash == "" {
		t.Fatalf("delegate view: %s", res.StructuredContent)
	}
	if text := res.Content[0].Text; text != string(res.StructuredContent) && !jsonEqual(text, res.StructuredContent) {
		t.Fatalf("text and structuredContent differ")
	}

	stale := s.tool("reasonix_control", map[string]any{
		"task_id": "e2e-1", "action": "finalize", "review_summary": "ok", "approved_review_criteria": view.RequiredReviewCriteria,
		"expected_review_revision": view.ReviewRevision + 1, "expected_review_tree_hash": view.ReviewTreeHash,
	}, codexMeta(repo, true))
	if code := stale.errorCode(t); code != "invalid_request" {
		t.Fatalf("stale finalize: %s", code)
	}

	fin := s.tool("reasonix_control", map[string]any{
		"task_id": "e2e-1", "action": "finalize", "review_summary": "ok", "approved_review_criteria": view.RequiredReviewCriteria,
		"expected_review_revision": view.ReviewRevision, "expected_review_tree_hash": view.ReviewTreeHash,
	}, codexMeta(repo, true))
	if fin.IsError {
		t.Fatalf("finalize: %s", fin.Content[0].Text)
	}
	json.Unmarshal(fin.StructuredContent, &view)
	if view.State != "completed" || view.CommitHash == "" {
		t.Fatalf("finalize view: %s", fin.StructuredContent)
	}
	if parent := gitIn(t, repo, "rev-parse", view.CommitHash+"^"); parent != base {
		t.Fatalf("parent %s, base %s", parent, base)
	}
	if gitIn(t, repo, "rev-parse", "reasonix/e2e-1") != view.CommitHash {
		t.Fatal("branch does not point at the commit")
	}
	if after := gitIn(t, repo, "status", "--porcelain") + gitIn(t, repo, "rev-parse", "HEAD"); after != before {
		t.Fatalf("source checkout changed")
	}

	if code := s.tool("reasonix_inspect", map[string]any{"task_id": "no-such-task"}, nil).errorCode(t); code != "task_not_found" {
		t.Fatalf("unknown task: %s", code)
	}
	if code := s.tool("reasonix_delegate", map[string]any{"task_id": "e2e-2", "contract": e2eContract}, nil).errorCode(t); code != "missing_sandbox_metadata" {
		t.Fatalf("no metadata: %s", code)
	}
	if code := s.tool("reasonix_delegate", map[string]any{"task_id": "e2e-3", "contract": e2eContract}, codexMeta(repo, false)).errorCode(t); code != "read_only_sandbox" {
		t.Fatalf("read-only: %s", code)
	}
	os.WriteFile(filepath.Join(repo, "dirty.txt"), []byte("x"), 0o644)
	if code := s.tool("reasonix_delegate", map[string]any{"task_id": "e2e-4", "contract": e2eContract}, codexMeta(repo, true)).errorCode(t); code != "dirty_repository" {
		t.Fatalf("dirty: %s", code)
	}
}

func jsonEqual(a string, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal(b, &y) == nil && fmt.Sprint(x) == fmt.Sprint(y)
}

// A second process that cannot attach to the owner (its socket gone) names the owner.
func TestSecondProcessNamesTheOwner(t *testing.T) {
	state := t.TempDir()
	s := startMCP(t, state)
	s.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "e2e", "version": "1"}})
	// A tool call makes the first process open the state directory.
	s.tool("reasonix_inspect", map[string]any{"task_id": "none"}, nil)
	if err := os.Remove(filepath.Join(state, "owner.sock")); err != nil {
		t.Fatal(err)
	}
	bin, _ := buildBinaries()
	cmd := exec.Command(filepath.Join(bin, "reasonixctl"), "task", "list")
	cmd.Env = append(os.Environ(), "CODEX_REASONIX_STATE_DIR="+state)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "pid") || !strings.Contains(string(out), "mcp") {
		t.Fatalf("second process: %v\n%s", err, out)
	}
}
