package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"reasonixctl/acp/acptest/mockllm"
	"reasonixctl/acp/agents"
	"reasonixctl/sandbox"
)

// The five published ACP agents through `reasonixctl --mcp`: reasonix_delegate with `worker`
// runs the agent the product's way (its profile, a private home derived from the user's
// environment, the sandbox with the network proxy) against the mock model; the agent writes a
// file the policy allows; reasonix_control finalize makes one commit of it.

// agentWrite is each agent's tool call writing content to path in the worktree ws.
var agentWrite = map[string]func(ws, path, content string) mockllm.ToolCall{
	agents.Claude: func(ws, path, content string) mockllm.ToolCall {
		return mockllm.ToolCall{Name: "Write", Arguments: map[string]any{"file_path": filepath.Join(ws, path), "content": content}}
	},
	agents.Codex: func(ws, path, content string) mockllm.ToolCall {
		return mockllm.ToolCall{Name: "apply_patch", Arguments: "*** Begin Patch\n*** Add File: " + path + "\n+" + strings.TrimSuffix(content, "\n") + "\n*** End Patch\n"}
	},
	agents.Gemini: func(ws, path, content string) mockllm.ToolCall {
		return mockllm.ToolCall{Name: "write_file", Arguments: map[string]any{"file_path": filepath.Join(ws, path), "content": content}}
	},
	agents.Qwen: func(ws, path, content string) mockllm.ToolCall {
		return mockllm.ToolCall{Name: "write_file", Arguments: map[string]any{"file_path": filepath.Join(ws, path), "content": content}}
	},
	agents.Opencode: func(ws, path, content string) mockllm.ToolCall {
		return mockllm.ToolCall{Name: "write", Arguments: map[string]any{"filePath": filepath.Join(ws, path), "content": content}}
	},
}

// taskMock is a loopback model endpoint that answers each task with its own script, made at the
// task's first request from the worktree the state directory holds for it (the tool calls name
// it); requests naming no task get the side-call answers.
type taskMock struct{ *mockllm.Router }

func newTaskMock(t *testing.T) *taskMock {
	r, err := mockllm.NewRouter()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return &taskMock{r}
}

func (m *taskMock) add(id, state string, steps func(ws string) []mockllm.Step) {
	m.Add(id, func() ([]mockllm.Step, bool) {
		found, _ := filepath.Glob(filepath.Join(state, "worktrees", "*", id))
		if len(found) != 1 {
			return nil, false
		}
		return steps(found[0]), true
	})
}

// mockUserEnv is a user's environment with every agent configured for the mock: the variables
// Claude, Gemini and Qwen read, a home with Codex's and opencode's configuration, and the agents'
// folder first on PATH.
func mockUserEnv(t *testing.T, m *taskMock, agentsDir string) []string {
	home := t.TempDir()
	base := m.URL() + "/v1"
	codex := fmt.Sprintf("model = %q\nmodel_provider = \"mock\"\n\n[model_providers.mock]\nname = \"Mock\"\nbase_url = %q\nwire_api = \"responses\"\nenv_key = \"MOCK_API_KEY\"\nrequest_max_retries = 0\nstream_max_retries = 0\n",
		mockllm.CodexModel, base)
	opencode, _ := json.Marshal(map[string]any{
		"model": "mock/mock-model", "small_model": "mock/mock-model",
		"provider": map[string]any{"mock": map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": "Mock",
			"options": map[string]any{"baseURL": base, "apiKey": "{env:MOCK_API_KEY}"},
			"models":  map[string]any{"mock-model": map[string]any{"name": "Mock model", "tool_call": true}},
		}},
	})
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
	return []string{
		"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "CODEX_HOME=" + filepath.Join(home, ".codex"),
		"PATH=" + agentsDir + string(os.PathListSeparator) + os.Getenv("PATH"),
		"ANTHROPIC_BASE_URL=" + m.URL(), "ANTHROPIC_API_KEY=" + mockllm.MockAPIKey,
		"GOOGLE_GEMINI_BASE_URL=" + m.URL(), "GEMINI_API_KEY=" + mockllm.MockAPIKey,
		"OPENAI_BASE_URL=" + base, "OPENAI_API_KEY=" + mockllm.MockAPIKey, "OPENAI_MODEL=mock-model",
		"MOCK_API_KEY=" + mockllm.MockAPIKey,
	}
}

func TestRealAgentsOverMCP(t *testing.T) {
	dir := os.Getenv("REASONIXCTL_AGENTS")
	if dir == "" {
		t.Skip("REASONIXCTL_AGENTS is not set: run .ci/setup-agents and set it to the folder it prints")
	}
	if p := (&sandbox.Runner{}).Probe(); !p.Available {
		t.Skipf("the worker's sandbox does not work here: %s", p.Detail)
	}
	m := newTaskMock(t)
	for _, name := range []string{agents.Claude, agents.Codex, agents.Gemini, agents.Qwen, agents.Opencode} {
		t.Run(name, func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(dir, agents.MustLookup(name).Command[0])); err != nil {
				t.Skipf("%s is not installed in %s", agents.MustLookup(name).Command[0], dir)
			}
			t.Parallel()
			mcpAgentHappyPath(t, m, dir, name)
		})
	}
}

func mcpAgentHappyPath(t *testing.T, m *taskMock, agentsDir, name string) {
	repo := testRepo(t)
	base := gitIn(t, repo, "rev-parse", "HEAD")
	state := t.TempDir()
	id := "mcp-" + name
	m.add(id, state, func(ws string) []mockllm.Step {
		return []mockllm.Step{
			{ToolCalls: []mockllm.ToolCall{agentWrite[name](ws, "result.txt", "ok\n")}},
			{Text: "MOCK-DONE: wrote result.txt."},
		}
	})
	// The user's environment replaces this process's HOME and PATH for reasonixctl.
	s := startMCP(t, state, mockUserEnv(t, m, agentsDir)...)
	s.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "e2e", "version": "1"}})
	s.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	contract := map[string]any{}
	for k, v := range e2eContract {
		contract[k] = v
	}
	contract["objective"] = "SCENARIO:" + id + " Create result.txt"
	res := s.tool("reasonix_delegate", map[string]any{"task_id": id, "contract": contract, "worker": name}, codexMeta(repo, true))
	if res.IsError {
		t.Fatalf("delegate: %s", res.Content[0].Text)
	}
	var view struct {
		State                  string   `json:"state"`
		Phase                  string   `json:"phase"`
		Reason                 string   `json:"reason"`
		Worker                 string   `json:"worker"`
		ReviewRevision         int      `json:"review_revision"`
		ReviewTreeHash         string   `json:"review_tree_hash"`
		RequiredReviewCriteria []string `json:"required_review_criteria"`
		CommitHash             string   `json:"commit_hash"`
	}
	if err := json.Unmarshal(res.StructuredContent, &view); err != nil {
		t.Fatal(err)
	}
	if view.State != "review_required" || view.Worker != name {
		t.Fatalf("delegate view: %s", res.StructuredContent)
	}
	fin := s.tool("reasonix_control", map[string]any{
		"task_id": id, "action": "finalize", "review_summary": "ok", "approved_review_criteria": view.RequiredReviewCriteria,
		"expected_review_revision": view.ReviewRevision, "expected_review_tree_hash": view.ReviewTreeHash,
	}, codexMeta(repo, true))
	if fin.IsError {
		t.Fatalf("finalize: %s", fin.Content[0].Text)
	}
	if err := json.Unmarshal(fin.StructuredContent, &view); err != nil {
		t.Fatal(err)
	}
	if view.State != "completed" || view.CommitHash == "" {
		t.Fatalf("finalize view: %s", fin.StructuredContent)
	}
	if parent := gitIn(t, repo, "rev-parse", view.CommitHash+"^"); parent != base {
		t.Errorf("the commit's parent is %s, want the base %s", parent, base)
	}
	if got := gitIn(t, repo, "show", view.CommitHash+":result.txt"); got != "ok" {
		t.Errorf("committed result.txt %q", got)
	}
	if gitIn(t, repo, "rev-parse", "reasonix/"+id) != view.CommitHash {
		t.Error("the task's branch does not point at the commit")
	}
}
