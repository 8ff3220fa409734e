package tui

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"reasonixctl/core"
)

// TestGolden pins the screen at the two reference sizes. Regenerate with
// `go test ./tui -run TestGolden -update` and read the diff before committing.
func TestGolden(t *testing.T) {
	scenes := []struct {
		name  string
		setup func(h *harness)
	}{
		{"events", func(h *harness) {}},
		{"diff", func(h *harness) { h.press("2", "]", "]") }},
		{"contract", func(h *harness) { h.press("3") }},
		{"prompt", func(h *harness) {
			h.send(ev("docs-typo", 7, core.EventInteractionWaiting, permissionIA("ia-1")))
			h.press("i")
			h.clk.advance(time.Second)
		}},
		{"question", func(h *harness) {
			h.send(ev("login-fix", 11, core.EventInteractionWaiting, questionIA("q-1")))
		}},
		{"finalize", func(h *harness) {
			h.press("F")
			h.typeText("Checked the empty-user path.")
			h.press("tab", "space")
		}},
		{"all_tasks", func(h *harness) { h.press("A", "j", "j") }},
	}
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		for _, sc := range scenes {
			t.Run(fmt.Sprintf("%s_%dx%d", sc.name, size[0], size[1]), func(t *testing.T) {
				h := newHarness(t, scenario(), size[0], size[1])
				sc.setup(h)
				golden.RequireEqual(t, []byte(h.view()))
			})
		}
	}
	// Palettes: a light background picks the light variant of every colour; NO_COLOR keeps
	// no colour at all but still marks the selection and the active tab.
	palettes := []struct {
		name       string
		profile    termenv.Profile
		dark, mono bool
	}{{"light", termenv.ANSI256, false, false}, {"dark", termenv.ANSI256, true, false}, {"no_color", termenv.ANSI, true, true}}
	for _, p := range palettes {
		t.Run("palette_"+p.name+"_80x24", func(t *testing.T) {
			lipgloss.SetColorProfile(p.profile)
			lipgloss.SetHasDarkBackground(p.dark)
			t.Cleanup(func() {
				lipgloss.SetColorProfile(termenv.Ascii)
				lipgloss.SetHasDarkBackground(true)
			})
			clk := &clock{t: epoch}
			m := newModel(context.Background(), scenario(), Options{StateDir: "/state", WorkerVersion: "1.38.11", Now: clk.Now, Dir: "/src/app", Monochrome: p.mono})
			h := &harness{t: t, m: m, svc: nil, clk: clk}
			h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
			h.run(m.Init())
			h.press("2")
			golden.RequireEqual(t, []byte(h.view()))
		})
	}
	t.Run("too_small_59x15", func(t *testing.T) {
		h := newHarness(t, scenario(), 59, 15)
		golden.RequireEqual(t, []byte(h.view()))
	})
}

// TestProgramStreamsThroughTheRelay runs the real program loop with the same relay Run uses.
func TestProgramStreamsThroughTheRelay(t *testing.T) {
	f := scenario()
	live := make(chan core.Event, 4)
	f.live = []chan core.Event{live}
	clk := &clock{t: epoch}
	m := newModel(context.Background(), f, Options{StateDir: "/state", WorkerVersion: "1.38.11", Now: clk.Now, Dir: "/src/app"})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(80, 24))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); relay(ctx, f, tm.Send, time.Hour) }()
	t.Cleanup(func() { cancel(); <-done })

	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("login-fix")) },
		teatest.WithDuration(20*time.Second))
	live <- core.Event{TaskID: "login-fix", Seq: 11, Time: epoch, Type: core.EventAgentMessage, Data: mustJSON(core.TextData{Text: "streamed live through the relay"})}
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("streamed live through the relay")) },
		teatest.WithDuration(20*time.Second))
	// A task still runs: quitting asks first.
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("y")})
	tm.WaitFinished(t, teatest.WithFinalTimeout(20*time.Second))
	fm := tm.FinalModel(t).(*Model)
	if got := fm.info.task("login-fix").lastAgent; got != "streamed live through the relay" {
		t.Fatalf("the model's last agent text is %q", got)
	}
}
