package events

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
)

// benchEvents is a realistic mix: agent text, tool calls that start and finish, policy
// decisions and usage reports.
func benchEvents(task string, n int) []core.Event {
	text := core.TextData{Text: "Reading the handler to see where the empty user slips through; then I will add the check and a table test for it."}
	out := make([]core.Event, 0, n)
	for i := 1; i <= n; i++ {
		seq := uint64(i)
		var e core.Event
		switch i % 5 {
		case 0:
			e = ev(task, seq, core.EventAgentMessage, text)
		case 1:
			e = ev(task, seq, core.EventToolCall, core.ToolCallData{ToolCallID: "c" + string(rune('a'+i%26)), Title: "bash go test ./internal/auth", Kind: "execute", Status: "in_progress"})
		case 2:
			e = ev(task, seq, core.EventToolCall, core.ToolCallData{ToolCallID: "c" + string(rune('a'+i%26)), Status: "completed"})
		case 3:
			e = ev(task, seq, core.EventPermissionDecided, core.PermissionData{Kind: "execute", Argv: []string{"go", "test", "./..."}, Decision: "allow", Code: "verification_command", By: "policy"})
		case 4:
			e = ev(task, seq, core.EventUsage, core.Usage{PromptTokens: int64(i * 10), CompletionTokens: int64(i)})
		}
		out = append(out, e)
	}
	return out
}

// BenchmarkEventSearch100k types a search into the events pane after 100,000 events streamed
// through it (the pane keeps the newest MaxLines lines of them): one op is the whole search,
// `/`, seven keystrokes each rescanning and moving to the first match, enter, ten n and esc.
func BenchmarkEventSearch100k(b *testing.B) {
	p := New(testEnv(), "login-fix")
	for _, e := range benchEvents("login-fix", 100000) {
		p.Live(e)
	}
	script := []tea.KeyMsg{keyMsg("/")}
	for _, r := range "go test" {
		script = append(script, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	script = append(script, keyMsg("enter"))
	for range 10 {
		script = append(script, keyMsg("n"))
	}
	script = append(script, keyMsg("esc"))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, k := range script {
			p.Update(k)
		}
		_ = p.view()
	}
	b.StopTimer()
	b.ReportMetric(float64(len(p.entries)-p.head), "entries-kept")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(len(script)), "µs/key")
}
