package mockllm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

// agentCase is one published ACP agent as these tests drive it: how it starts, how its home is
// written, and which dialect it speaks. Its turn (write hello.txt, run `touch shell-ran.txt`,
// say it is done) is what the reference mock answered it in the recorded fixtures, kept in
// testdata/agents/<name>/mock-decisions.jsonl, in the agent's own tool names.
type agentCase struct {
	name    string
	argv    []string
	home    func(dir, baseURL string) ([]string, error)
	dialect Dialect
}

var agentCases = []agentCase{
	{name: "claude", argv: []string{"claude-agent-acp"}, home: WriteClaudeHome, dialect: AnthropicMessages},
	{name: "codex", argv: []string{"codex-acp"}, home: WriteCodexHome, dialect: Responses},
	{name: "gemini", argv: []string{"gemini", "--acp"}, home: WriteGeminiHome, dialect: Gemini},
	{name: "qwen", argv: []string{"qwen", "--acp", "--auth-type", "openai"}, home: WriteQwenHome, dialect: ChatCompletions},
	{name: "opencode", argv: []string{"opencode", "acp"}, home: WriteOpencodeHome, dialect: ChatCompletions},
}

const (
	agentMatch   = "SCENARIO:hello"
	agentPrompt  = agentMatch + " Create hello.txt, then run a shell command that touches shell-ran.txt."
	helloContent = "hello from the mock model\n"
	finalText    = "MOCK-DONE: wrote hello.txt and ran touch."
)

// decision is one line of a fixture's mock-decisions.jsonl: what the reference mock answered.
type decision struct {
	N        int    `json:"n"`
	Method   string `json:"method"`
	URL      string `json:"url"`
	Decision *struct {
		Kind string `json:"kind"`
		Name string `json:"name"`
		Args any    `json:"args"`
		Text string `json:"text"`
		Why  string `json:"why"`
	} `json:"decision"`
}

// agentScript rebuilds the reference mock's answers as a Script: its "round N" decisions are the
// scenario's steps, in order, the last one also answering anything past the end as the
// reference did; its answers to requests offering no tools are the asides. "/WORKSPACE" in
// arguments becomes ws.
func agentScript(t *testing.T, name, ws string) Script {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "agents", name, "mock-decisions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	sc := Scenario{Match: agentMatch}
	var s Script
	rounds := map[int]bool{}
	for line := range strings.Lines(string(data)) {
		var d decision
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if d.Decision == nil {
			continue
		}
		dd := d.Decision
		var st Step
		if dd.Kind == "tool" {
			args := dd.Args
			if b, err := json.Marshal(args); err == nil && strings.Contains(string(b), "/WORKSPACE") {
				_ = json.Unmarshal([]byte(strings.ReplaceAll(string(b), "/WORKSPACE", ws)), &args)
			}
			st.ToolCalls = []ToolCall{{Name: dd.Name, Arguments: args}}
		} else {
			st.Text = dd.Text
		}
		var round int
		switch {
		case strings.HasPrefix(dd.Why, "no agent tools offered (json)"):
			s.AsideJSON = &st
		case strings.HasPrefix(dd.Why, "no agent tools offered"):
			s.Aside = &st
		case fmtSscanf(dd.Why, "round %d", &round):
			if !rounds[round] {
				rounds[round] = true
				sc.Steps = append(sc.Steps, st)
			}
		default:
			t.Fatalf("%s: decision %d: %q", name, d.N, dd.Why)
		}
	}
	if len(sc.Steps) == 0 {
		t.Fatalf("%s: no rounds", name)
	}
	last := sc.Steps[len(sc.Steps)-1]
	sc.After = &last
	s.Scenarios = []Scenario{sc}
	return s.WithAsides()
}

func fmtSscanf(s, format string, v *int) bool {
	_, err := fmt.Sscanf(s, format, v)
	return err == nil
}

// TestRealAgentsAgainstMock runs each published agent found in REASONIXCTL_AGENTS (the folder
// .ci/setup-agents prints: their executables and Node 22, at pinned versions) through one
// supervised turn: every permission request is allowed once. The folder goes first on the
// agent's PATH, so its scripts run on that Node. With MOCKLLM_RECORD set it rewrites the
// recordings TestReplayRecordedAgents plays.
func TestRealAgentsAgainstMock(t *testing.T) {
	bin := os.Getenv("REASONIXCTL_AGENTS")
	if bin == "" {
		t.Skip("REASONIXCTL_AGENTS is not set: run .ci/setup-agents and set it to the folder it prints")
	}
	for _, ac := range agentCases {
		t.Run(ac.name, func(t *testing.T) {
			exe := filepath.Join(bin, ac.argv[0])
			if _, err := os.Stat(exe); err != nil {
				t.Skipf("%s is not installed in %s", ac.argv[0], bin)
			}
			runAgentTurn(t, ac, bin, append([]string{exe}, ac.argv[1:]...))
		})
	}
}

func runAgentTurn(t *testing.T, ac agentCase, binDir string, argv []string) {
	// the workspace is a git repository, as a worker's worktree is
	ws := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	srv := start(t, agentScript(t, ac.name, ws))
	// under the caller's temporary directory is fine: each home sets a TMPDIR of its own, which
	// is what Codex checks its home against
	dir := t.TempDir()
	env, err := ac.home(dir, srv.BaseURL())
	if err != nil {
		t.Fatal(err)
	}
	for i, kv := range env {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			env[i] = "PATH=" + binDir + string(os.PathListSeparator) + p
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = ws, env
	// the agents start helpers of their own (Gemini CLI relaunches itself): they go with it
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // Claude does not exit when its input closes
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("agent stderr:\n%s", stderr.String())
			for _, r := range srv.Requests() {
				last := ""
				if n := len(r.Messages); n > 0 {
					last = r.Messages[n-1].Role + ": " + r.Messages[n-1].Text
				}
				t.Logf("mock saw %d %s %s %s aside=%v scenario=%q step=%d tools=%v last=%.300q", r.Seq, r.Method, r.Path, r.Dialect, r.Aside, r.Scenario, r.Step, r.Tools, last)
			}
		}
	})
	var permissions []string
	p := &rpcPeer{t: t, in: stdin, msgs: make(chan map[string]any, 256),
		answer: func(method string, params map[string]any) (any, bool) {
			if method != "session/request_permission" {
				return nil, false
			}
			tc, _ := params["toolCall"].(map[string]any)
			permissions = append(permissions, fmt.Sprint(tc["title"]))
			if b, err := json.Marshal(params); err == nil {
				t.Logf("permission request: %.1500s", b)
			}
			opts, _ := params["options"].([]any)
			for _, o := range opts {
				om, _ := o.(map[string]any)
				if om["kind"] == "allow_once" {
					return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": om["optionId"]}}, true
				}
			}
			return nil, false
		}}
	sid := p.start(ctx, stdout, ws)
	var text strings.Builder
	var updates []string
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("session updates:\n%s", strings.Join(updates, "\n"))
		}
	})
	res := p.call(ctx, "session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text",
		"text": agentPrompt}}}, func(m map[string]any) {
		if b, err := json.Marshal(m); err == nil {
			updates = append(updates, string(b))
		}
		params, _ := m["params"].(map[string]any)
		upd, _ := params["update"].(map[string]any)
		if upd["sessionUpdate"] == "agent_message_chunk" {
			content, _ := upd["content"].(map[string]any)
			if s, ok := content["text"].(string); ok {
				text.WriteString(s)
			}
		}
	})
	if res["stopReason"] != "end_turn" {
		t.Fatalf("prompt result %v", res)
	}
	if !strings.Contains(text.String(), finalText) {
		t.Errorf("agent said %q", text.String())
	}
	if b, err := os.ReadFile(filepath.Join(ws, "hello.txt")); err != nil || string(b) != helloContent {
		t.Errorf("hello.txt: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(ws, "shell-ran.txt")); err != nil {
		t.Errorf("shell-ran.txt: %v", err)
	}
	if len(permissions) < 2 {
		t.Errorf("permission requests %q, want one for the edit and one for the command", permissions)
	}
	var steps []int
	for _, r := range srv.Requests() {
		if r.Scenario == agentMatch && !r.Aside {
			if r.Dialect != ac.dialect {
				t.Errorf("request %d in %s, want %s", r.Seq, r.Dialect, ac.dialect)
			}
			steps = append(steps, r.Step)
		}
	}
	if len(steps) < 3 || steps[0] != 0 || steps[1] != 1 || steps[2] != 2 {
		t.Errorf("scenario steps %v", steps)
	}
	if os.Getenv("MOCKLLM_RECORD") != "" && !t.Failed() {
		recordRequests(t, ac.name, srv.Requests(), map[string]string{ws: "/WORKSPACE", filepath.Join(dir, "home"): "/HOME", dir: "/SCRATCH"})
	}
}

// recorded is one request of a real agent's turn as testdata/agents/<name>/requests.jsonl keeps
// it for TestReplayRecordedAgents: the body with its long strings (system prompts, tool
// descriptions) cut, private paths replaced, and the decision the mock took.
type recorded struct {
	Method string         `json:"method"`
	Path   string         `json:"path"`
	Query  string         `json:"query,omitempty"`
	Body   map[string]any `json:"body,omitempty"`
	Expect struct {
		Scenario string `json:"scenario,omitempty"`
		Step     int    `json:"step"`
		Aside    bool   `json:"aside,omitempty"`
	} `json:"expect"`
}

func recordRequests(t *testing.T, name string, reqs []Request, paths map[string]string) {
	var out strings.Builder
	for _, r := range reqs {
		rec := recorded{Method: r.Method, Path: r.Path, Query: r.Query}
		if r.Body != nil {
			rec.Body, _ = cutLong(r.Body).(map[string]any)
			// per-install and per-session identifiers, which decide nothing
			for _, k := range []string{"metadata", "client_metadata", "prompt_cache_key"} {
				delete(rec.Body, k)
			}
		}
		rec.Expect.Scenario, rec.Expect.Step, rec.Expect.Aside = r.Scenario, r.Step, r.Aside
		b, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		line := string(b)
		// longest first, so a folder inside another is replaced as itself
		keys := make([]string, 0, len(paths))
		for k := range paths {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b string) int { return len(b) - len(a) })
		for _, k := range keys {
			line = strings.ReplaceAll(line, k, paths[k])
		}
		out.WriteString(line + "\n")
	}
	path := filepath.Join("testdata", "agents", name, "requests.jsonl")
	if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded %d requests in %s", len(reqs), path)
}

// cutLong shortens every string over 400 bytes but those carrying the scenario token, which
// keeps a recorded request small and still decided as the real one was.
func cutLong(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = cutLong(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cutLong(e)
		}
		return out
	case string:
		if len(x) <= 400 || strings.Contains(x, agentMatch) {
			return x
		}
		head := []rune(x[:160])
		if !utf8.ValidString(x[:160]) {
			head = head[:len(head)-1]
		}
		return fmt.Sprintf("%s…[%d bytes cut]", string(head), len(x)-len(string(head)))
	}
	return v
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func send(t *testing.T, srv *Server, method, pathQuery string, body map[string]any) *http.Response {
	t.Helper()
	if method == http.MethodPost {
		return post(t, srv, pathQuery, body)
	}
	req, err := http.NewRequest(method, srv.Origin()+pathQuery, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// TestReplayRecordedAgents plays each real agent's recorded turn (testdata/agents/*/requests.jsonl,
// written by TestRealAgentsAgainstMock with MOCKLLM_RECORD set) against a mock scripted with the
// fixture's decisions: each request must be decided as it was live, and its answer must read, in
// the agent's dialect, as the scripted step.
func TestReplayRecordedAgents(t *testing.T) {
	for _, ac := range agentCases {
		t.Run(ac.name, func(t *testing.T) {
			script := agentScript(t, ac.name, "/WORKSPACE")
			srv := start(t, script)
			data, err := readTestdata("agents/" + ac.name + "/requests.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			var rounds []int
			asides := 0
			for line := range strings.Lines(data) {
				var rec recorded
				if err := json.Unmarshal([]byte(line), &rec); err != nil {
					t.Fatal(err)
				}
				pq := rec.Path
				if rec.Query != "" {
					pq += "?" + rec.Query
				}
				resp := send(t, srv, rec.Method, pq, rec.Body)
				reqs := srv.Requests()
				got := reqs[len(reqs)-1]
				if got.Scenario != rec.Expect.Scenario || got.Step != rec.Expect.Step || got.Aside != rec.Expect.Aside {
					t.Errorf("%s %s decided %q step %d aside %v, live it was %+v", rec.Method, pq, got.Scenario, got.Step, got.Aside, rec.Expect)
				}
				if got.Scenario == "" && !got.Aside {
					// the probe, a count or a listing: answered, not a round
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						t.Errorf("%s %s: status %d", rec.Method, pq, resp.StatusCode)
					}
					continue
				}
				if got.Dialect != ac.dialect {
					t.Errorf("%s routed to %s, want %s", pq, got.Dialect, ac.dialect)
				}
				checkRound(t, got.Dialect, roundOf(t, got.Dialect, resp), got.Response)
				if got.Aside {
					asides++
					if decodeConversation(got.Dialect, got.Body).wantsJSON && !json.Valid([]byte(got.Response.Text)) {
						t.Errorf("JSON side call answered %q", got.Response.Text)
					}
					continue
				}
				rounds = append(rounds, got.Step)
				want := script.Scenarios[0].After
				if got.Step < len(script.Scenarios[0].Steps) {
					want = &script.Scenarios[0].Steps[got.Step]
				}
				if !reflect.DeepEqual(got.Response, *want) {
					t.Errorf("step %d answered %+v, want %+v", got.Step, got.Response, *want)
				}
			}
			if len(rounds) < 3 || rounds[0] != 0 || rounds[1] != 1 || rounds[2] != 2 {
				t.Errorf("rounds %v", rounds)
			}
			t.Logf("%d rounds, %d side calls", len(rounds), asides)
		})
	}
}

func readTestdata(name string) (string, error) {
	b, err := os.ReadFile("testdata/" + name)
	return string(b), err
}
