package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"reasonixctl/acp/acptest/mockllm"
	"reasonixctl/acp/agents"
	"reasonixctl/core"
)

// A repository is the agent's input, not its configuration: its own `.claude/settings.json`
// allowing Write, Edit and Bash must not let Claude write or run anything without asking us.
func TestClaudeIgnoresTheRepositorysSettings(t *testing.T) {
	dir := agentsDir(t)
	p := agents.MustLookup(agents.Claude)
	if _, err := os.Stat(filepath.Join(dir, p.Command[0])); err != nil {
		t.Skipf("%s is not installed in %s", p.Command[0], dir)
	}
	m := newAgentMock(t)
	pointUserAt(t, m, dir)
	h := agentHarness(t)
	settings := filepath.Join(h.repo, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(`{"permissions":{"allow":["Write","Edit","Bash"]}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, h.repo, "add", ".claude/settings.json")
	git(t, h.repo, "commit", "-q", "-m", "pre-approve everything")

	tools := realAgentTools[agents.Claude]
	id := "agt-claude-projsettings"
	agentTask(t, h, m, agents.Claude, id, func(ws string) []mockllm.Step {
		return []mockllm.Step{
			// In the write scope: the policy allows it, once asked.
			{ToolCalls: []mockllm.ToolCall{tools.write(ws, "hello.txt", "hello from the mock model\n")}},
			// Outside it: refused, if asked.
			{ToolCalls: []mockllm.ToolCall{tools.write(ws, "notes.txt", "not in scope\n")}},
			// A command that changes files: the policy refuses it, if asked.
			{ToolCalls: []mockllm.ToolCall{tools.run(ws, "touch shell-ran.txt")}},
			{Text: "MOCK-DONE."},
		}
	})
	// Whatever reaches a person is refused too.
	var r *taskRecord
	for range 8 {
		r = settleAgent(t, h, m, id, 2*time.Minute)
		if r.State != core.StateWaitingPermission {
			break
		}
		answerPending(t, h, m, id, core.DecisionDeny)
	}
	ws := r.Worktree
	decided := map[string][]string{}
	for _, ev := range journal(t, h, id) {
		var d core.PermissionData
		if ev.Type == core.EventPermissionDecided && json.Unmarshal(ev.Data, &d) == nil {
			decided[d.Kind] = append(decided[d.Kind], d.Decision)
		}
	}
	t.Logf("ended %s %s (%s); decided %v", r.State, r.Phase, r.Reason, decided)
	if len(decided["edit"]) < 2 || len(decided["execute"]) == 0 {
		dumpAgentTask(t, h, m, id)
		t.Errorf("decisions by kind %v, want both writes and the command asked for", decided)
	}
	if got, err := os.ReadFile(filepath.Join(ws, "hello.txt")); err != nil || string(got) != "hello from the mock model\n" {
		t.Errorf("hello.txt, allowed, is %q (%v)", got, err)
	}
	for _, f := range []string{"notes.txt", "shell-ran.txt"} {
		if _, err := os.Stat(filepath.Join(ws, f)); err == nil {
			dumpAgentTask(t, h, m, id)
			t.Errorf("%s exists though it was refused: the repository's settings answered for us", f)
		}
	}
}
