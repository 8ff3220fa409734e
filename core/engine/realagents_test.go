package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"reasonixctl/acp/acptest/mockllm"
	"reasonixctl/acp/agents"
	"reasonixctl/core"
	"reasonixctl/sandbox"
)

// The published ACP agents as the dashboard's engine runs them: launched the product's way
// (BinaryWorker: the profile, the private home derived from the user's environment, the sandbox
// with the network proxy), against the mock model, for a happy path, a reject, a cancel and an
// attempt to escape the worktree and the model endpoint.

// agentTools are the tool calls of one agent's scripts, in its own tool names and shapes.
type agentTools struct {
	// write writes content to path, absolute or relative to the worktree ws.
	write func(ws, path, content string) mockllm.ToolCall
	// run runs a shell command line in ws.
	run func(ws, command string) mockllm.ToolCall
}

var realAgentTools = map[string]agentTools{
	agents.Claude: {
		write: func(ws, path, content string) mockllm.ToolCall {
			return mockllm.ToolCall{Name: "Write", Arguments: map[string]any{"file_path": absIn(ws, path), "content": content}}
		},
		run: func(ws, command string) mockllm.ToolCall {
			return mockllm.ToolCall{Name: "Bash", Arguments: map[string]any{"command": command, "description": "Run it"}}
		},
	},
	agents.Codex: {
		write: func(ws, path, content string) mockllm.ToolCall {
			var b strings.Builder
			for line := range strings.Lines(content) {
				b.WriteString("+" + line)
			}
			return mockllm.ToolCall{Name: "apply_patch", Arguments: "*** Begin Patch\n*** Add File: " + path + "\n" + b.String() + "*** End Patch\n"}
		},
		run: func(ws, command string) mockllm.ToolCall {
			return mockllm.ToolCall{Name: "exec_command", Arguments: map[string]any{"cmd": command, "workdir": ws}}
		},
	},
	agents.Gemini: {
		write: func(ws, path, content string) mockllm.ToolCall {
			return mockllm.ToolCall{Name: "write_file", Arguments: map[string]any{"file_path": absIn(ws, path), "content": content}}
		},
		run: func(ws, command string) mockllm.ToolCall {
			return mockllm.ToolCall{Name: "run_shell_command", Arguments: map[string]any{"command": command, "description": "Run it"}}
		},
	},
	agents.Qwen: {
		write: func(ws, path, content string) mockllm.ToolCall {
			return mockllm.ToolCall{Name: "write_file", Arguments: map[string]any{"file_path": absIn(ws, path), "content": content}}
		},
		run: func(ws, command string) mockllm.ToolCall {
			return mockllm.ToolCall{Name: "run_shell_command", Arguments: map[string]any{"command": command, "description": "Run it"}}
		},
	},
	agents.Opencode: {
		write: func(ws, path, content string) mockllm.ToolCall {
			p := absIn(ws, path)
			return mockllm.ToolCall{Name: "write", Arguments: map[string]any{"filePath": p, "content": content}}
		},
		run: func(ws, command string) mockllm.ToolCall {
			return mockllm.ToolCall{Name: "bash", Arguments: map[string]any{"command": command, "description": "Run it"}}
		},
	},
}

func absIn(ws, path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(ws, path)
}

// agentMock is the model endpoint every agent is pointed at: one loopback server that hands each
// request to the script of the task its prompt names. A task's script is made at its first
// request, when its worktree (which the tool calls name) is known.
type agentMock struct{ *mockllm.Router }

func newAgentMock(t *testing.T) *agentMock {
	r, err := mockllm.NewRouter()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return &agentMock{r}
}

// BaseURL is the mock's OpenAI-style base URL; Origin its scheme://host:port.
func (m *agentMock) BaseURL() string { return m.URL() + "/v1" }
func (m *agentMock) Origin() string  { return m.URL() }

func (m *agentMock) script(id string, worktree func() string, steps func(ws string) []mockllm.Step) {
	m.Add(id, func() ([]mockllm.Step, bool) { return steps(worktree()), true })
}

func (m *agentMock) requests(id string) []mockllm.Request { return m.Requests(id) }

// agentsDir is the folder of the agents' executables, or a skip.
func agentsDir(t *testing.T) string {
	dir := os.Getenv("REASONIXCTL_AGENTS")
	if dir == "" {
		t.Skip("REASONIXCTL_AGENTS is not set: run .ci/setup-agents and set it to the folder it prints")
	}
	if p := (&sandbox.Runner{}).Probe(); !p.Available {
		t.Skipf("the worker's sandbox does not work here: %s", p.Detail)
	}
	return dir
}

// pointUserAt makes the process's environment a user's whose every agent is configured for the
// mock: the variables Claude, Gemini and Qwen read, and a home holding Codex's and opencode's
// configuration with a mock provider. The agents' folder goes first on PATH. It uses t.Setenv, so
// the caller is not parallel (its subtests may be).
func pointUserAt(t *testing.T, m *agentMock, dir string) {
	home := t.TempDir()
	codex := fmt.Sprintf(`model = %q
model_provider = "mock"

[model_providers.mock]
name = "Mock"
base_url = %q
wire_api = "responses"
env_key = "MOCK_API_KEY"
request_max_retries = 0
stream_max_retries = 0
`, mockllm.CodexModel, m.BaseURL())
	opencode, _ := json.MarshalIndent(map[string]any{
		"model": "mock/mock-model", "small_model": "mock/mock-model",
		"provider": map[string]any{"mock": map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": "Mock",
			"options": map[string]any{"baseURL": m.BaseURL(), "apiKey": "{env:MOCK_API_KEY}"},
			"models":  map[string]any{"mock-model": map[string]any{"name": "Mock model", "tool_call": true}},
		}},
	}, "", "  ")
	for path, data := range map[string]string{
		filepath.Join(home, ".codex", "config.toml"):                codex,
		filepath.Join(home, ".config", "opencode", "opencode.json"): string(opencode),
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for k, v := range map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "CODEX_HOME": filepath.Join(home, ".codex"),
		"PATH":               dir + string(os.PathListSeparator) + os.Getenv("PATH"),
		"ANTHROPIC_BASE_URL": m.Origin(), "ANTHROPIC_API_KEY": mockllm.MockAPIKey,
		"GOOGLE_GEMINI_BASE_URL": m.Origin(), "GEMINI_API_KEY": mockllm.MockAPIKey,
		"OPENAI_BASE_URL": m.BaseURL(), "OPENAI_API_KEY": mockllm.MockAPIKey, "OPENAI_MODEL": "mock-model",
		"MOCK_API_KEY":    mockllm.MockAPIKey,
		"GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.com",
		"GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.com",
	} {
		t.Setenv(k, v)
	}
	for _, k := range []string{"ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_MODEL", "GEMINI_MODEL", "GOOGLE_API_KEY", "CODEX_API_KEY", "TMPDIR"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
}

// agentHarness is newHarness for a real agent, safe in parallel subtests (no t.Setenv): the
// product's launcher, tasks asking a supervisor about what the policy does not know.
func agentHarness(t *testing.T) *harness {
	t.Helper()
	repo := t.TempDir()
	git(t, repo, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(repo, "README"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "add", "README")
	git(t, repo, "commit", "-q", "-m", "initial")
	repo, _ = filepath.EvalSymlinks(repo)
	h := &harness{t: t, repo: repo, state: t.TempDir()}
	e, err := Open(Config{StateDir: h.state, Mode: "test", Worker: BinaryWorker("reasonix", nil, nil),
		PermissionMode: core.PermissionSupervised})
	if err != nil {
		t.Fatal(err)
	}
	h.e = e
	t.Cleanup(func() { e.Close() })
	return h
}

const agentContract = `{
  "schema_version": 1,
  "objective": "Create hello.txt",
  "user_outcome": "hello.txt says hello",
  "write_scope": ["hello.txt", "probe.js", "probe-report.txt"],
  "acceptance_criteria": [
    {"id": "hello", "requirement": "hello.txt exists", "evidence": "automated"},
    {"id": "looks-right", "requirement": "the change looks right", "evidence": "review"}
  ],
  "allowed_commands": [{"id": "toolchain", "argv": ["make", "--version"]}],
  "verification": [{"id": "check", "argv": ["test", "-f", "hello.txt"], "proves": ["hello"]}]
}`

// agentTask delegates task id to worker in the background, with the mock scripted by steps.
func agentTask(t *testing.T, h *harness, m *agentMock, worker, id string, steps func(ws string) []mockllm.Step) {
	t.Helper()
	m.script(id, func() string {
		r, err := h.e.load(id)
		if err != nil {
			return ""
		}
		return r.Worktree
	}, steps)
	contract := strings.Replace(agentContract, `"objective": "Create hello.txt"`,
		`"objective": "SCENARIO:`+id+` Create hello.txt, then run the command"`, 1)
	bg := 0
	if _, err := h.delegate(id, func(r *core.DelegateRequest) {
		r.Contract = json.RawMessage(contract)
		r.Worker = worker
		r.WaitTimeoutSeconds = &bg
	}); err != nil {
		t.Fatal(err)
	}
}

// settleAgent waits until task id is neither provisioning nor running (a pending question counts as
// settled).
func settleAgent(t *testing.T, h *harness, m *agentMock, id string, within time.Duration) *taskRecord {
	t.Helper()
	r, timedOut, err := h.e.waitFor(context.Background(), id, within, func(r *taskRecord) bool {
		return r.State != core.StateRunning && r.State != core.StateProvisioning
	})
	if err != nil || timedOut {
		dumpAgentTask(t, h, m, id)
		t.Fatalf("%s did not settle within %s: %v", id, within, err)
	}
	return r
}

func dumpAgentTask(t *testing.T, h *harness, m *agentMock, id string) {
	t.Helper()
	for _, ev := range journal(t, h, id) {
		t.Logf("%d %s %.800s", ev.Seq, ev.Type, ev.Data)
	}
	for _, r := range m.requests(id) {
		last := ""
		if n := len(r.Messages); n > 0 {
			last = r.Messages[n-1].Role + ": " + r.Messages[n-1].Text
		}
		t.Logf("mock saw %d %s %s aside=%v step=%d tools=%d last=%.300q", r.Seq, r.Path, r.Dialect, r.Aside, r.Step, len(r.Tools), last)
	}
}

// probeCutOff reports whether the escape probe's fetch of the second server was cut off: no
// connection, or a refusal by the sandbox's proxy.
func probeCutOff(report string) bool {
	for line := range strings.Lines(report) {
		if strings.HasPrefix(line, "unreachable ") {
			return true
		}
		if strings.HasPrefix(line, "answered ") && !strings.Contains(line, "refused-by:null") {
			return true
		}
	}
	return false
}

// allowAll answers every question of task id's with allow until the task settles otherwise.
func allowAll(t *testing.T, h *harness, m *agentMock, id string) *taskRecord {
	t.Helper()
	for range 8 {
		r := settleAgent(t, h, m, id, 2*time.Minute)
		if r.State != core.StateWaitingPermission {
			return r
		}
		answerPending(t, h, m, id, core.DecisionAllow)
	}
	t.Fatal("the agent kept asking")
	return nil
}

// answerPending answers task id's pending question with decision, and returns what it asked.
func answerPending(t *testing.T, h *harness, m *agentMock, id, decision string) core.Interaction {
	t.Helper()
	r := settleAgent(t, h, m, id, 90*time.Second)
	in := r.pendingInteraction()
	if r.State != core.StateWaitingPermission || in == nil {
		dumpAgentTask(t, h, m, id)
		t.Fatalf("%s is %s (%s: %s), want a pending permission", id, r.State, r.Phase, r.Reason)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := h.e.Control(ctx, core.Respond{TaskID: id, InteractionID: in.ID, Decision: decision}); err != nil {
		t.Fatalf("answering %s: %v", in.ID, err)
	}
	return *in
}

func TestRealAgentsInTheEngine(t *testing.T) {
	dir := agentsDir(t)
	m := newAgentMock(t)
	pointUserAt(t, m, dir)
	for _, name := range []string{agents.Claude, agents.Codex, agents.Gemini, agents.Qwen, agents.Opencode} {
		t.Run(name, func(t *testing.T) {
			p := agents.MustLookup(name)
			if _, err := os.Stat(filepath.Join(dir, p.Command[0])); err != nil {
				t.Skipf("%s is not installed in %s", p.Command[0], dir)
			}
			t.Parallel()
			tools := realAgentTools[name]
			h := agentHarness(t)
			// The four tasks share the engine, each with its own worktree and agent.
			for _, c := range []struct {
				name string
				run  func(*testing.T, *harness, *agentMock, string, agentTools)
			}{{"happy", agentHappy}, {"reject", agentReject}, {"cancel", agentCancel}, {"escape", agentEscape}} {
				t.Run(c.name, func(t *testing.T) {
					t.Parallel()
					c.run(t, h, m, name, tools)
				})
			}
		})
	}
}

// delegate → the agent asks to write hello.txt and to run `make --version` (an allowed command)
// → the policy allows both → review → finalize → one commit holding the agent's file.
func agentHappy(t *testing.T, h *harness, m *agentMock, name string, tools agentTools) {
	id := "agt-" + name + "-happy"
	base := git(t, h.repo, "rev-parse", "HEAD")
	agentTask(t, h, m, name, id, func(ws string) []mockllm.Step {
		return []mockllm.Step{
			{ToolCalls: []mockllm.ToolCall{tools.write(ws, "hello.txt", "hello from the mock model\n")}},
			{ToolCalls: []mockllm.ToolCall{tools.run(ws, "make --version")}},
			{Text: "MOCK-DONE: wrote hello.txt and ran make."},
		}
	})
	// What the policy cannot read (Gemini's command comes as a title only) a person allows.
	r := allowAll(t, h, m, id)
	if r.State != core.StateReviewRequired {
		dumpAgentTask(t, h, m, id)
		t.Fatalf("state %s phase %s (%s), want review_required", r.State, r.Phase, r.Reason)
	}
	// One edit and one command were asked and allowed: by the policy (a journal entry) or by
	// the supervisor (an answered interaction).
	allowed := map[string]int{}
	for _, ev := range journal(t, h, id) {
		var d core.PermissionData
		if ev.Type == core.EventPermissionDecided && json.Unmarshal(ev.Data, &d) == nil && d.Decision == core.DecisionAllow {
			allowed[d.Kind]++
		}
	}
	for _, in := range r.Interactions {
		if in.Response != nil && in.Response.Decision == core.DecisionAllow {
			allowed[in.Request.Tool]++
		}
	}
	if allowed["edit"] == 0 || allowed["execute"] == 0 {
		dumpAgentTask(t, h, m, id)
		t.Fatalf("allowed permissions by kind %v, want an edit and a command", allowed)
	}
	done, err := h.finalize(r.view(), "looks-right")
	if err != nil {
		t.Fatal(err)
	}
	if done.State != core.StateCompleted || done.CommitHash == "" {
		t.Fatalf("finalized: %+v", done)
	}
	if parent := git(t, h.repo, "rev-parse", done.CommitHash+"^"); parent != base {
		t.Errorf("the commit's parent is %s, want the base %s", parent, base)
	}
	if got := git(t, h.repo, "show", done.CommitHash+":hello.txt"); got != "hello from the mock model" {
		t.Errorf("committed hello.txt %q", got)
	}
	if tip := git(t, h.repo, "rev-parse", done.Branch); tip != done.CommitHash {
		t.Errorf("the branch %s is at %s, not at the commit %s", done.Branch, tip, done.CommitHash)
	}
}

// A command the policy does not know is asked; the supervisor's deny is recorded as a denial,
// and the task does not end as cancelled.
func agentReject(t *testing.T, h *harness, m *agentMock, name string, tools agentTools) {
	id := "agt-" + name + "-reject"
	agentTask(t, h, m, name, id, func(ws string) []mockllm.Step {
		return []mockllm.Step{
			{ToolCalls: []mockllm.ToolCall{tools.run(ws, "make -v")}},
			{Text: "MOCK-DONE: the command was refused."},
		}
	})
	answerPending(t, h, m, id, core.DecisionDeny)
	r := settleAgent(t, h, m, id, 90*time.Second)
	if r.State == core.StateCancelled || r.Phase == "turn_cancelled" {
		dumpAgentTask(t, h, m, id)
		t.Fatalf("a refusal was recorded as a cancellation: %s %s (%s)", r.State, r.Phase, r.Reason)
	}
	denied := false
	for _, ev := range journal(t, h, id) {
		if ev.Type == core.EventPermissionDecided && strings.Contains(string(ev.Data), `"decision":"deny"`) &&
			strings.Contains(string(ev.Data), `"by":"supervisor"`) {
			denied = true
		}
	}
	if !denied {
		dumpAgentTask(t, h, m, id)
		t.Error("the supervisor's denial is not in the journal")
	}
	t.Logf("after the refusal: %s %s", r.State, r.Phase)
}

// A task cancelled while its agent waits on a permission is recorded as cancelled.
func agentCancel(t *testing.T, h *harness, m *agentMock, name string, tools agentTools) {
	id := "agt-" + name + "-cancel"
	agentTask(t, h, m, name, id, func(ws string) []mockllm.Step {
		return []mockllm.Step{
			{ToolCalls: []mockllm.ToolCall{tools.run(ws, "make -v")}},
			{Text: "MOCK-DONE."},
		}
	})
	r := settleAgent(t, h, m, id, 90*time.Second)
	if r.State != core.StateWaitingPermission {
		dumpAgentTask(t, h, m, id)
		t.Fatalf("%s %s (%s), want waiting_permission", r.State, r.Phase, r.Reason)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	v, err := h.e.Control(ctx, core.Cancel{TaskID: id})
	if err != nil {
		t.Fatal(err)
	}
	if v.State != core.StateCancelled {
		t.Fatalf("after cancel: %s %s", v.State, v.Phase)
	}
	if r, err := h.e.load(id); err != nil || r.State != core.StateCancelled {
		t.Fatalf("recorded as %v (%v)", r, err)
	}
}

// The agent writes outside its worktree (an absolute path in the host's /tmp and ../, with its
// edit tool and with a command the supervisor allows) and connects to a second loopback port of
// the host: nothing is written outside and the second server sees no connection.
func agentEscape(t *testing.T, h *harness, m *agentMock, name string, tools agentTools) {
	id := "agt-" + name + "-escape"
	var hits atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(other.Close)
	outside := t.TempDir()
	agentTask(t, h, m, name, id, func(ws string) []mockllm.Step {
		// A program in the write scope, run by a plain argv the policy does not know, so the
		// supervisor is asked (and allows it): it writes to both places and fetches the second
		// server.
		probe := fmt.Sprintf(`const fs = require("fs");
const say = (...w) => fs.appendFileSync("probe-report.txt", w.join(" ") + "\n");
for (const p of [%q, "../escaped-by-command.txt"]) {
  try { fs.writeFileSync(p, "x"); say("wrote", p) } catch (e) { say("refused", p, e.code) }
}
fetch(%q).then((r) => say("answered", r.status, "refused-by:" + r.headers.get("x-sandbox-refused")), (e) => say("unreachable", e.cause && e.cause.code))
`, filepath.Join(outside, "by-command.txt"), other.URL)
		return []mockllm.Step{
			// The probe first: Codex ends its turn at the first refusal.
			{ToolCalls: []mockllm.ToolCall{tools.write(ws, "probe.js", probe)}},
			{ToolCalls: []mockllm.ToolCall{tools.run(ws, "node probe.js")}},
			{ToolCalls: []mockllm.ToolCall{tools.write(ws, filepath.Join(outside, "by-edit.txt"), "escaped\n")}},
			{ToolCalls: []mockllm.ToolCall{tools.write(ws, "../escaped-by-edit.txt", "escaped\n")}},
			{Text: "MOCK-DONE: tried."},
		}
	})
	// Whatever the agent asks is allowed; the policy denies what it never asks about.
	r := allowAll(t, h, m, id)
	answered := 0
	for _, in := range r.Interactions {
		if in.Response != nil && in.Response.Decision == core.DecisionAllow {
			answered++
		}
	}
	t.Logf("ended %s %s (%s) after %d allows", r.State, r.Phase, r.Reason, answered)
	ws, parent := r.Worktree, filepath.Dir(r.Worktree)
	if answered == 0 {
		dumpAgentTask(t, h, m, id)
		t.Error("the supervisor was never asked to allow the escaping command")
	}
	report, err := os.ReadFile(filepath.Join(ws, "probe-report.txt"))
	// The fetch fails to connect, or, when the agent's environment makes node use the sandbox's
	// proxy (HTTP_PROXY), gets the proxy's refusal; the second server is asked below.
	// Inside the sandbox ../ is a scratch folder of its own: writing there may succeed, and
	// must not reach the host (checked below).
	if err != nil || !strings.Contains(string(report), "refused "+filepath.Join(outside, "by-command.txt")) ||
		!strings.Contains(string(report), "escaped-by-command.txt") || !probeCutOff(string(report)) {
		dumpAgentTask(t, h, m, id)
		t.Errorf("the allowed probe did not run as planned (%v): %q", err, report)
	}
	t.Logf("probe: %q", report)
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("written outside the worktree: %v", entries)
	}
	for _, f := range []string{"escaped-by-edit.txt", "escaped-by-command.txt"} {
		if _, err := os.Stat(filepath.Join(parent, f)); err == nil {
			t.Errorf("%s written beside the worktree", f)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the second loopback server was reached %d times", n)
	}
}
