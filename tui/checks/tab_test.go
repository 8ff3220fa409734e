package checks

import (
	"context"
	"fmt"
	"os"
	"strings"
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

var epoch = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// fakeLogs serves logs by task/id in small pages, so a log takes several reads, and counts
// the reads.
type fakeLogs struct {
	logs  map[string]string
	reads int
}

func (f *fakeLogs) VerificationLog(ctx context.Context, taskID, id string, offset, limit int64) (core.LogPage, error) {
	f.reads++
	text, ok := f.logs[taskID+"/"+id]
	if !ok {
		return core.LogPage{}, core.Errorf(core.CodeInvalidRequest, nil, "task %s has no verification %q", taskID, id)
	}
	limit = min(limit, 1000)
	end := min(offset+limit, int64(len(text)))
	return core.LogPage{TaskID: taskID, ID: id, Offset: offset, Data: text[offset:end], Size: int64(len(text)), EOF: end == int64(len(text))}, nil
}

// unitLog is a failing test run of 120 lines.
func unitLog() string {
	var b strings.Builder
	b.WriteString("$ [\"go\",\"test\",\"./internal/auth\"]\ncwd: .\nexit: 1 timeout: false\n")
	for i := 1; i <= 114; i++ {
		fmt.Fprintf(&b, "=== RUN   TestLogin/case_%03d\n", i)
	}
	b.WriteString("--- FAIL: TestLogin/case_042 (0.00s)\n    login_test.go:42: Login(\"\") = nil, want ErrEmptyUser\nFAIL\n")
	return b.String()
}

// inReview is login-fix as its detail has it: in review, where D may drop a check.
var inReview = core.TaskView{TaskID: "login-fix", State: core.StateReviewRequired}

// results are the last finalize attempt of login-fix: unit failed, vet passed.
func results() []core.VerificationResult {
	one, zero := 1, 0
	start := epoch.Add(-2 * time.Minute)
	return []core.VerificationResult{
		{ID: "unit", Argv: []string{"go", "test", "./internal/auth"}, Cwd: ".", ExitCode: &one, Proves: []string{"ac_tests"},
			StartedAt: start.Format(time.RFC3339Nano), FinishedAt: start.Add(3200 * time.Millisecond).Format(time.RFC3339Nano),
			LogPath: "/state/verification/login-fix/unit.log", SHA256: "u1", OutputBytes: int64(len(unitLog()))},
		{ID: "vet", Argv: []string{"go", "vet", "./..."}, Cwd: ".", ExitCode: &zero, Passed: true,
			StartedAt: start.Format(time.RFC3339Nano), FinishedAt: start.Add(450 * time.Millisecond).Format(time.RFC3339Nano),
			LogPath: "/state/verification/login-fix/vet.log", SHA256: "v1", OutputBytes: 40},
	}
}

func sampleLogs() *fakeLogs {
	return &fakeLogs{logs: map[string]string{
		"login-fix/unit": unitLog(),
		"login-fix/vet":  "$ [\"go\",\"vet\",\"./...\"]\ncwd: .\nexit: 0 timeout: false\n",
	}}
}

// tab drives one checks tab as the dashboard does while the tab is on screen: it gives it keys
// and log reads, and tells it it is on screen after each.
type tab struct {
	t    *testing.T
	m    Model
	w, h int
	last Result // the last key's
}

func newTab(t *testing.T, logs LogReader, view core.TaskView, rs []core.VerificationResult, w, h int) *tab {
	t.Helper()
	env := Env{Theme: term.DefaultTheme(), Keys: bind.DefaultKeyMap(), Ctx: context.Background(), Logs: logs}
	tb := &tab{t: t, m: New("login-fix", env).Resize(w, h), w: w, h: h}
	if rs != nil || view.TaskID != "" {
		tb.m = tb.m.Show(view, rs)
	}
	tb.load()
	return tb
}

func (tb *tab) load() {
	var cmd tea.Cmd
	tb.m, cmd = tb.m.OnScreen()
	tb.run(cmd)
}

// run runs a command to its messages and gives them to the tab.
func (tb *tab) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			tb.run(c)
		}
	case nil:
	default:
		var next tea.Cmd
		tb.m, next, _ = tb.m.Update(msg)
		tb.run(next)
		tb.load()
	}
}

func keyMsg(k string) tea.KeyMsg {
	named := map[string]tea.KeyType{
		"enter": tea.KeyEnter, "esc": tea.KeyEsc, "pgdown": tea.KeyPgDown, "pgup": tea.KeyPgUp,
		"home": tea.KeyHome, "end": tea.KeyEnd, "backspace": tea.KeyBackspace, "ctrl+c": tea.KeyCtrlC, "ctrl+u": tea.KeyCtrlU,
	}
	if t, ok := named[k]; ok {
		return tea.KeyMsg{Type: t}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

func (tb *tab) press(keys ...string) {
	tb.t.Helper()
	for _, k := range keys {
		var cmd tea.Cmd
		tb.m, cmd, tb.last = tb.m.Update(keyMsg(k))
		tb.run(cmd)
		tb.load()
	}
}

func (tb *tab) typeText(s string) {
	for _, r := range s {
		tb.press(string(r))
	}
}

func (tb *tab) view() string { return tb.m.View(tb.w, tb.h) }

// requireView checks that the tab shows each text, however the text was wrapped.
func (tb *tab) requireView(want ...string) {
	tb.t.Helper()
	v := tb.view()
	flat := strings.Join(strings.Fields(v), " ")
	for _, w := range want {
		if !strings.Contains(flat, strings.Join(strings.Fields(w), " ")) {
			tb.t.Fatalf("view lacks %q:\n%s", w, v)
		}
	}
}

func (tb *tab) requireNotInView(text string) {
	tb.t.Helper()
	if strings.Contains(tb.view(), text) {
		tb.t.Fatalf("view shows %q:\n%s", text, tb.view())
	}
}
