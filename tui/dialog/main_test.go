package dialog

import (
	"os"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"reasonixctl/core"
	"reasonixctl/tui/bind"
	"reasonixctl/tui/intent"
	"reasonixctl/tui/term"
)

func TestMain(m *testing.M) {
	// Goldens and assertions compare plain text: no colour codes, whatever the terminal.
	lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
	os.Exit(m.Run())
}

var (
	epoch  = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	keyMap = bind.DefaultKeyMap()
	theme  = term.DefaultTheme()
)

const treeHash = "4a7748752d0e678809fc033f586028da8e82c3c6"

func keyMsg(k string) tea.KeyMsg {
	named := map[string]tea.KeyType{
		"enter": tea.KeyEnter, "esc": tea.KeyEsc, "tab": tea.KeyTab, "shift+tab": tea.KeyShiftTab,
		"ctrl+s": tea.KeyCtrlS, "ctrl+d": tea.KeyCtrlD, "ctrl+e": tea.KeyCtrlE, "ctrl+x": tea.KeyCtrlX, "ctrl+o": tea.KeyCtrlO,
		"ctrl+c": tea.KeyCtrlC, "ctrl+r": tea.KeyCtrlR, "pgdown": tea.KeyPgDown, "pgup": tea.KeyPgUp, "up": tea.KeyUp,
		"down": tea.KeyDown, "home": tea.KeyHome, "end": tea.KeyEnd,
		"backspace": tea.KeyBackspace, "left": tea.KeyLeft, "right": tea.KeyRight,
	}
	if k == "space" {
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}} // as a terminal gives it
	}
	if t, ok := named[k]; ok {
		return tea.KeyMsg{Type: t}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// press gives d each key in turn and returns the last result.
func press(d Dialog, keys ...string) intent.Result {
	var res intent.Result
	for _, k := range keys {
		res = d.Update(keyMsg(k), keyMap)
	}
	return res
}

// typeText types s into d, a rune at a time.
func typeText(d Dialog, s string) {
	for _, r := range s {
		d.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}}, keyMap)
	}
}

// view is d's body and key line at width, as one text.
func view(d Dialog, width int) string {
	body, keys := d.View(theme, keyMap, width)
	return body + "\n\n" + keys
}

// flatten collapses whitespace, so wrapped text reads as one line.
func flatten(s string) string { return strings.Join(strings.Fields(s), " ") }

func requireView(t *testing.T, d Dialog, width int, want ...string) {
	t.Helper()
	v := view(d, width)
	for _, w := range want {
		if !strings.Contains(flatten(v), flatten(w)) {
			t.Fatalf("view lacks %q:\n%s", w, v)
		}
	}
}

func requireNotInView(t *testing.T, d Dialog, width int, text string) {
	t.Helper()
	if v := view(d, width); strings.Contains(flatten(v), flatten(text)) {
		t.Fatalf("view shows %q:\n%s", text, v)
	}
}

func permissionIA(id string) core.Interaction {
	return core.Interaction{ID: id, Kind: core.InteractionPermission, Status: core.InteractionPending, CreatedAt: epoch.Format(time.RFC3339),
		Request: core.InteractionRequest{
			Tool: "execute", Title: "make lint", Argv: []string{"make", "lint"}, Cwd: "/state/worktrees/9ab01c2d/docs-typo",
			Code: "unknown_executable", Reason: "make is not in the contract's verification commands",
			Options: []core.InteractionOption{
				{OptionID: "allow-once", Name: "Allow", Kind: "allow_once"},
				{OptionID: "allow-always", Name: "Allow Bash(make:*) for this session", Kind: "allow_always"},
				{OptionID: "reject-once", Name: "Reject", Kind: "reject_once"},
			},
		}}
}

func questionIA(id string) core.Interaction {
	return core.Interaction{ID: id, Kind: core.InteractionInput, Status: core.InteractionPending,
		Request: core.InteractionRequest{
			Tool: "other", Title: "ask", Question: "Which error name should I use?",
			Options: []core.InteractionOption{{OptionID: "o1", Name: "ErrEmptyUser"}, {OptionID: "o2", Name: "ErrNoUser"}},
		}}
}

// reviewDetail is a task in review with two review criteria, one automated, and a passed check.
func reviewDetail() core.TaskDetail {
	code := 0
	return core.TaskDetail{
		View: core.TaskView{TaskID: "login-fix", State: core.StateReviewRequired, Phase: "codex_review", WorkerLane: core.LaneFast,
			ReviewRevision: 2, ReviewTreeHash: treeHash},
		Repository: "/src/app", Objective: "Return ErrEmptyUser from Login when the user name is empty, with a test.",
		ChangedFiles: []string{"internal/auth/login.go", "internal/auth/login_test.go"},
		Criteria: []core.Criterion{
			{ID: "ac_tests", Requirement: "go test ./internal/auth passes", Evidence: "automated"},
			{ID: "ac_readable", Requirement: "The error is documented and named clearly", Evidence: "review"},
			{ID: "ac_audit", Requirement: "Audit happens only for non-empty users", Evidence: "review"},
		},
		Verification: []core.VerificationResult{{ID: "unit", Argv: []string{"go", "test", "./internal/auth"}, ExitCode: &code, Passed: true, Proves: []string{"ac_tests"}}},
	}
}
