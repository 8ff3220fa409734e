package events

import (
	"fmt"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"reasonixctl/core"
)

// goldenPane is a pane holding a short task: its creation, reasoning, a message, tool calls, the
// policy's decisions, a question answered, usage, and its review.
func goldenPane() *Pane {
	p := New(testEnv(), "login-fix")
	cost, usd := 0.0123, "USD"
	evs := []struct {
		typ  string
		data any
	}{
		{core.EventTaskCreated, core.TaskCreatedData{State: core.StateProvisioning, Repository: "/src/app", Objective: "Return ErrEmptyUser"}},
		{core.EventStateChanged, core.StateChangedData{From: core.StateProvisioning, To: core.StateRunning, Phase: "goal_running"}},
		{core.EventAgentThought, core.TextData{Text: "The empty user slips through because the lookup runs first."}},
		{core.EventAgentMessage, core.TextData{Text: "I will read the login code first, then add the check and a test. "}},
		{core.EventAgentMessage, core.TextData{Text: "The handler returns early when the user is empty, so the check belongs before the lookup."}},
		{core.EventToolCall, core.ToolCallData{ToolCallID: "c1", Title: "read_file", Kind: "read", Status: "pending", Input: map[string]any{"path": "internal/auth/login.go"}}},
		{core.EventToolCall, core.ToolCallData{ToolCallID: "c1", Status: "completed", Output: "package auth\n\nfunc Login(user string) error {\n\treturn check(user)\n}"}},
		{core.EventPermissionDecided, core.PermissionData{Kind: "execute", Argv: []string{"go", "test", "./internal/auth"}, Decision: "allow", Code: "verification_command", Reason: "listed in the contract", By: "policy"}},
		{core.EventPermissionDecided, core.PermissionData{Kind: "execute", Argv: []string{"curl", "example.com"}, Decision: "deny", Code: "network_tool", Reason: "network tools are denied", Hint: "use the vendored copy", By: "policy"}},
		{core.EventToolCall, core.ToolCallData{ToolCallID: "c2", Title: "bash", Kind: "execute", Status: "failed", Input: map[string]any{"command": "go vet ./..."}, Output: "exit status 1"}},
		{core.EventUsage, core.Usage{PromptTokens: 12000, CompletionTokens: 3400, EstimatedCost: &cost, Currency: &usd}},
		{core.EventSteered, core.TextData{Text: "also cover the whitespace-only name"}},
		{core.EventPlan, core.PlanData{Entries: []core.PlanEntry{{Content: "read the handler", Status: "completed"}, {Content: "add the check", Status: "in_progress"}, {Content: "add a test"}}}},
		{core.EventStateChanged, core.StateChangedData{From: core.StateRunning, To: core.StateReviewRequired, Phase: "codex_review"}},
		{core.EventReviewReady, core.ReviewReadyData{ReviewRevision: 2, ReviewTreeHash: "4a7748752d0e678809fc", ChangedFiles: []string{"a", "b"}}},
	}
	for i, e := range evs {
		p.Live(ev("login-fix", uint64(i+1), e.typ, e.data))
	}
	return p
}

// TestGoldenPane pins the pane's drawing in a few states, at 80 columns and wider. Regenerate
// with `go test ./tui/events -run TestGoldenPane -update` and read the diff before committing.
func TestGoldenPane(t *testing.T) {
	scenes := []struct {
		name string
		keys []string
	}{
		{"tail", nil},
		{"expanded", []string{"[", "[", "enter", "[", "enter"}},
		{"scrolled", []string{"pgup"}},
		{"search", []string{"g", "/", "t", "e", "s", "t", "enter", "n"}},
		{"filter", []string{"f", "f"}},
	}
	for _, size := range [][2]int{{80, 16}, {120, 14}} {
		for _, sc := range scenes {
			t.Run(fmt.Sprintf("%s_%dx%d", sc.name, size[0], size[1]), func(t *testing.T) {
				p := goldenPane()
				p.setSize(size[0], size[1])
				press(p, sc.keys...)
				golden.RequireEqual(t, []byte(p.View(size[0], size[1])))
			})
		}
	}
}
