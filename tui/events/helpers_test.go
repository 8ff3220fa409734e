package events

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"reasonixctl/core"
	"reasonixctl/tui/bind"
	"reasonixctl/tui/term"
)

func TestMain(m *testing.M) {
	// Goldens and assertions compare plain text: no colour codes, whatever the terminal.
	lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
	os.Exit(m.Run())
}

// testEnv is the dashboard's theme and keys, with no journal to read.
func testEnv() *Env { return &Env{Theme: term.DefaultTheme(), Keys: bind.DefaultKeyMap()} }

// newTestPane is an empty pane of w×h with no journal behind it.
func newTestPane(w, h int) *Pane {
	p := New(testEnv(), "t")
	p.setSize(w, h)
	return p
}

// press gives the pane keys as the dashboard does, leaving out what they ask of it.
func press(p *Pane, keys ...string) {
	for _, k := range keys {
		p.Update(keyMsg(k))
	}
}

// typeText types s into the pane one rune at a time.
func typeText(p *Pane, s string) {
	for _, r := range s {
		p.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

func keyMsg(k string) tea.KeyMsg {
	named := map[string]tea.KeyType{
		"enter": tea.KeyEnter, "esc": tea.KeyEsc, "tab": tea.KeyTab, "pgdown": tea.KeyPgDown, "pgup": tea.KeyPgUp,
		"up": tea.KeyUp, "down": tea.KeyDown, "space": tea.KeySpace, "home": tea.KeyHome, "end": tea.KeyEnd,
		"backspace": tea.KeyBackspace, "left": tea.KeyLeft, "right": tea.KeyRight, "ctrl+c": tea.KeyCtrlC,
	}
	if t, ok := named[k]; ok {
		return tea.KeyMsg{Type: t}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

var epoch = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

func ev(task string, seq uint64, typ string, data any) core.Event {
	return core.Event{TaskID: task, Seq: seq, Time: epoch.Add(time.Duration(seq) * time.Second), Type: typ, Data: mustJSON(data)}
}
