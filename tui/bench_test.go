package tui

import (
	"context"
	"fmt"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
)

// benchEvents is a realistic mix: agent text, tool calls that start and finish, policy
// decisions and usage reports.
func benchEvents(task string, n int) []tea.Msg {
	text := core.TextData{Text: "Reading the handler to see where the empty user slips through; then I will add the check and a table test for it."}
	out := make([]tea.Msg, 0, n)
	for i := 1; i <= n; i++ {
		seq := uint64(i)
		var m eventsMsg
		switch i % 5 {
		case 0:
			m = ev(task, seq, core.EventAgentMessage, text)
		case 1:
			m = ev(task, seq, core.EventToolCall, core.ToolCallData{ToolCallID: "c" + string(rune('a'+i%26)), Title: "bash go test ./internal/auth", Kind: "execute", Status: "in_progress"})
		case 2:
			m = ev(task, seq, core.EventToolCall, core.ToolCallData{ToolCallID: "c" + string(rune('a'+i%26)), Status: "completed"})
		case 3:
			m = ev(task, seq, core.EventPermissionDecided, core.PermissionData{Kind: "execute", Argv: []string{"go", "test", "./..."}, Decision: "allow", Code: "verification_command", By: "policy"})
		case 4:
			m = ev(task, seq, core.EventUsage, core.Usage{PromptTokens: int64(i * 10), CompletionTokens: int64(i)})
		}
		out = append(out, m)
	}
	return out
}

func benchModel(b *testing.B, w, h int) *Model {
	f := scenario()
	f.journals = map[string][]core.Event{}
	clk := &clock{t: epoch}
	m := newModel(context.Background(), f, Options{StateDir: "/state", WorkerVersion: "1.38.11", Now: clk.Now, Dir: "/src/app"})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	for _, msg := range runCmd(m.Init()) {
		m.Update(msg)
	}
	return m
}

// BenchmarkIngestWhileRendering feeds events through Update and draws the screen after every
// 320 events, i.e. one frame per 16 ms at 20,000 events per second. One op is one event.
func BenchmarkIngestWhileRendering(b *testing.B) {
	m := benchModel(b, 120, 40)
	msgs := benchEvents("login-fix", 20000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ev := msgs[i%len(msgs)].(eventsMsg)[0]
		ev.Seq = uint64(i + 1)
		m.Update(eventsMsg{ev})
		if i%320 == 319 {
			_ = m.View()
		}
	}
	b.StopTimer()
	perSec := float64(time.Second) / (float64(b.Elapsed()) / float64(b.N))
	b.ReportMetric(perSec, "events/s")
}

// BenchmarkViewWith10kEvents draws the screen with 10,000 events in the selected task's buffer.
func BenchmarkViewWith10kEvents(b *testing.B) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		b.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(b *testing.B) {
			m := benchModel(b, size[0], size[1])
			for _, msg := range benchEvents("login-fix", 10000) {
				m.Update(msg)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				_ = m.View()
			}
		})
	}
}
