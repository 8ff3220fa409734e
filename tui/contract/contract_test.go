package contract

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
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

// detail is a task in review with everything the tab shows: scopes, criteria (one approved),
// verification, summaries, comments, risks, usage.
func detail() *core.TaskDetail {
	one, zero := 1, 0
	cost, usd, ratio := 0.0123, "USD", 0.5
	raw, _ := json.Marshal(map[string]any{"write_scope": []string{"internal/auth/**"}, "forbidden_scope": []string{"secrets/**"}})
	d := &core.TaskDetail{
		View: core.TaskView{TaskID: "login-fix", State: core.StateReviewRequired, Branch: "reasonix/login-fix",
			Worktree: "/state/worktrees/3ce0f10f/login-fix", ReviewRevision: 2, ReviewTreeHash: "4b825dc642cb", RepairRounds: 1},
		Repository: "/src/app",
		Objective:  "Return ErrEmptyUser from Login when the user name is empty, with a test.",
		Contract:   raw,
		Criteria: []core.Criterion{
			{ID: "ac_tests", Requirement: "go test ./internal/auth passes", Evidence: "automated"},
			{ID: "ac_readable", Requirement: "The error is documented and named clearly", Evidence: "review"},
		},
		Acceptance: []core.AcceptanceEvidence{{CriterionID: "ac_tests", Approved: true}},
		Verification: []core.VerificationResult{
			{ID: "unit", Argv: []string{"go", "test", "./internal/auth"}, ExitCode: &one},
			{ID: "vet", Argv: []string{"go", "vet", "./..."}, ExitCode: &zero, Passed: true},
		},
		Summary:       "Login now rejects empty users; added a test.",
		ReviewSummary: "Reads well; the audit call moved after the check.",
		Comments: []core.ReviewComment{{ID: "c1", Status: core.CommentOpen, Path: "internal/auth/login.go", Line: 12, Revision: 2,
			Body: "Name the error in the doc comment."}},
		Risks: []string{"internal/auth/login.go: a hidden character on line 3"},
		Usage: &core.Usage{PromptTokens: 12000, CompletionTokens: 3400, EstimatedCost: &cost, Currency: &usd, CacheHitRatio: &ratio},
	}
	// Enough comments that the tab pages at the wider size too.
	for i := 2; i <= 16; i++ {
		d.Comments = append(d.Comments, core.ReviewComment{ID: fmt.Sprintf("c%d", i), Status: core.CommentOutdated,
			Path: "internal/auth/login_test.go", Line: 10 + i, Revision: 1, Body: "Cover the empty user."})
	}
	return d
}

func newTab(d *core.TaskDetail, w, h int) Model {
	m := New(term.DefaultTheme(), bind.DefaultKeyMap()).Resize(w, h)
	if d != nil {
		m = m.Show(d)
	}
	return m
}

func keyMsg(k string) tea.KeyMsg {
	named := map[string]tea.KeyType{"pgdown": tea.KeyPgDown, "pgup": tea.KeyPgUp, "home": tea.KeyHome, "end": tea.KeyEnd, "esc": tea.KeyEsc}
	if t, ok := named[k]; ok {
		return tea.KeyMsg{Type: t}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

func press(m Model, keys ...string) (Model, Result) {
	var res Result
	for _, k := range keys {
		m, _, res = m.Update(keyMsg(k))
	}
	return m, res
}

func TestShowsTheContractAndItsEvidence(t *testing.T) {
	v := strings.Join(strings.Fields(newTab(detail(), 120, 60).View(120, 60)), " ")
	for _, want := range []string{
		"Objective Return ErrEmptyUser", "Scopes write: internal/auth/** forbidden: secrets/**",
		"[x] ac_tests (automated): go test ./internal/auth passes", "[ ] ac_readable (review)",
		"Verification FAILED unit: go test ./internal/auth (exit 1) passed vet: go vet ./... (exit 0)",
		"Worker summary Login now rejects", "Review summary Reads well", "Review comments c1 open internal/auth/login.go:12 (revision 2)",
		"Risks • internal/auth/login.go", "repository /src/app", "branch reasonix/login-fix · worktree /state/worktrees",
		fmt.Sprintf("review revision 2 · tree 4b825dc642cb · repair rounds 1/%d", core.MaxRepairRounds),
		"usage prompt 12k · completion 3.4k · cache 50% · $0.0123",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
}

// The criteria come from the contract when the detail lists none; no verification says so.
func TestCriteriaFromTheContract(t *testing.T) {
	d := detail()
	d.Criteria, d.Verification = nil, nil
	d.Contract, _ = json.Marshal(map[string]any{"acceptance_criteria": []core.Criterion{{ID: "from_contract", Requirement: "r", Evidence: "review"}}})
	v := strings.Join(strings.Fields(newTab(d, 100, 60).View(100, 60)), " ")
	for _, want := range []string{"[ ] from_contract (review): r", "Verification not run yet"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "Scopes") {
		t.Errorf("scopes shown for a contract without any:\n%s", v)
	}
}

// The tab pages with the detail keys and hands every other key on.
func TestPages(t *testing.T) {
	m := newTab(detail(), 80, 8)
	top := m.View(80, 8)
	m, res := press(m, "pgdown")
	if !res.Took || res.Status != "" || m.View(80, 8) == top {
		t.Fatalf("pgdown: %+v\n%s", res, m.View(80, 8))
	}
	m, _ = press(m, "G")
	if !strings.Contains(m.View(80, 8), "usage prompt") {
		t.Fatalf("G did not reach the end:\n%s", m.View(80, 8))
	}
	m, _ = press(m, "g")
	if m.View(80, 8) != top {
		t.Fatalf("g did not go back to the top:\n%s", m.View(80, 8))
	}
	for _, k := range []string{"n", "]", "/", "esc", "D"} {
		if _, res := press(m, k); res.Took {
			t.Errorf("%s was taken", k)
		}
	}
	if f := m.Footer(); len(f) != 0 {
		t.Errorf("footer: %v", f)
	}
	if h := m.Help(); len(h.Bindings) != 4 {
		t.Errorf("help: %v", h)
	}
}

func TestLoadingUntilTheDetailArrives(t *testing.T) {
	m := newTab(nil, 80, 20)
	if v := m.View(80, 20); v != " loading…" {
		t.Fatalf("before the detail: %q", v)
	}
	if _, res := press(m, "pgdown"); !res.Took || res.Status != "the contract is still loading" {
		t.Fatalf("pgdown before the detail: %+v", res)
	}
}

// Whatever the worker wrote reaches the screen sanitized: no escape sequence but the theme's.
func TestWorkerTextIsSanitized(t *testing.T) {
	d := detail()
	d.Objective = "evil\x1b]52;c;cGxhbnRlZA==\x07 \x1b[2J\u202e"
	d.Risks = []string{"\x1b[31mred\x1b[0m"}
	v := newTab(d, 100, 60).View(100, 60)
	if strings.ContainsAny(v, "\x1b\x07\u202e") {
		t.Fatalf("a control reached the view: %q", v)
	}
}

// TestGoldenView pins the tab's view at 80 columns and wider. Regenerate with
// `go test ./tui/contract -run TestGoldenView -update` and read the diff before committing.
func TestGoldenView(t *testing.T) {
	scenes := []struct {
		name string
		keys []string
		d    *core.TaskDetail
	}{
		{"loading", nil, nil},
		{"top", nil, detail()},
		{"paged", []string{"pgdown"}, detail()},
		{"bottom", []string{"G"}, detail()},
	}
	for _, size := range [][2]int{{80, 20}, {120, 36}} {
		for _, sc := range scenes {
			t.Run(fmt.Sprintf("%s_%dx%d", sc.name, size[0], size[1]), func(t *testing.T) {
				m, _ := press(newTab(sc.d, size[0], size[1]), sc.keys...)
				golden.RequireEqual(t, []byte(m.View(size[0], size[1])))
			})
		}
	}
	t.Run("dark_80x20", func(t *testing.T) {
		lipgloss.SetColorProfile(termenv.ANSI256)
		t.Cleanup(func() { lipgloss.SetColorProfile(termenv.Ascii) })
		golden.RequireEqual(t, []byte(newTab(detail(), 80, 20).View(80, 20)))
	})
}
