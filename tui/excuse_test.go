package tui

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/core/baseline"
	"reasonixctl/core/doctor"
	"reasonixctl/tui/dialog"
)

// A check that fails before the change too, with the same failures: the checks tab says so and
// lists them one per line, and the finalize form's ctrl+x excuses it with a reason the request
// carries.
func TestChecksShowTheBaselineAndTheFormExcusesIt(t *testing.T) {
	svc := checksScenario()
	d := svc.details["login-fix"]
	one := 1
	d.Verification[0].Baseline = &core.BaselineResult{Status: core.BaselineFailed, Base: "0123456789abcdef0123456789abcdef01234567",
		ExitCode: &one, LogTail: "login_test.go:42: Login(\"\") = nil, want ErrEmptyUser\nFAIL\x1b]52;c;aGk=\x07\u202e",
		FailureFormat: core.FailureFormatGo, Failures: []core.CheckFailure{{ID: "example.com/app/internal/auth TestLogin"}}}
	d.Verification[0].FailureFormat = core.FailureFormatGo
	d.Verification[0].Failures = []core.CheckFailure{{ID: "example.com/app/internal/auth TestLogin", PreExisting: true,
		Message: "login_test.go:42: Login(\"\") = nil, want ErrEmptyUser\x1b]52;c;aGk=\x07\u202e"}}
	svc.details["login-fix"] = d
	svc.onControl = func(req core.Command) (core.TaskView, error) { return svc.tasks[0], nil }
	h := newChecksHarness(t, svc, svc.fakeService, 200, 40, false)
	h.press("4")
	h.requireView("before the change: ✗ fails too on 0123456789ab", "a pre-existing failure, with the same failures",
		"· pre_existing: true   example.com/app/internal/auth TestLogin — login_test.go:42")
	// The failures are the repository's bytes: nothing in them reaches the terminal as control.
	if v := h.view(); strings.Contains(v, "\x1b]52") || strings.Contains(v, "\u202e") || strings.Contains(v, "\x07") {
		t.Fatalf("control sequences from the base's output reached the view: %q", v)
	}

	h.press("F")
	h.requireView("Failing before the change too, with the same failures: unit", "ctrl+x excuses it")
	h.typeText("Checked it.")
	h.press("tab", "space", "tab", "space")
	h.press("ctrl+x")
	h.requireView("Excusing unit")
	h.press("ctrl+s", "ctrl+s")
	h.requireView("say why the pre-existing failure may stand")
	h.requireControls()
	h.typeText("fails on main since the auth rewrite")
	h.press("ctrl+s")
	got := svc.controls
	if f, ok := got[0].(core.Finalize); len(got) != 1 || !ok || len(f.ExcusedChecks) != 1 || f.ExcusedChecks[0] != (core.ExcusedCheck{ID: "unit", Reason: "fails on main since the auth rewrite"}) {
		t.Fatalf("controls: %+v", got)
	}
}

// A check that fails before the change too, but with a failure the base does not have (the
// change broke the build next to a known failing test): the checks tab lists the new failure
// first, pre_existing: false, and the form offers no excuse.
func TestChecksListNewFailuresAndTheFormExcusesNothing(t *testing.T) {
	svc := checksScenario()
	d := svc.details["login-fix"]
	one := 1
	d.Verification[0].Baseline = &core.BaselineResult{Status: core.BaselineFailed, Base: "0123456789abcdef0123456789abcdef01234567",
		ExitCode: &one, FailureFormat: core.FailureFormatGo, Failures: []core.CheckFailure{{ID: "example.com/app/internal/auth TestVendorAPI"}}}
	d.Verification[0].FailureFormat = core.FailureFormatGo
	d.Verification[0].Failures = []core.CheckFailure{
		{ID: "example.com/app/internal/auth TestVendorAPI", PreExisting: true},
		{ID: "example.com/app/internal/auth: login.go: undefined: undefinedSymbol", Message: "undefined: undefinedSymbol"},
	}
	svc.details["login-fix"] = d
	h := newChecksHarness(t, svc, svc.fakeService, 200, 40, false)
	h.press("4")
	h.requireView("but 1 failure(s) are new", "not excusable",
		"✗ pre_existing: false  example.com/app/internal/auth: login.go: undefined: undefinedSymbol",
		"· pre_existing: true   example.com/app/internal/auth TestVendorAPI")
	if v := h.view(); strings.Index(v, "pre_existing: false") > strings.Index(v, "pre_existing: true") {
		t.Fatalf("the new failure is not listed first:\n%s", v)
	}
	h.press("F")
	h.requireView("but with new failures the change causes: unit", "cannot be excused")
	if v := h.view(); strings.Contains(v, "ctrl+x") {
		t.Fatalf("the form offers an excuse:\n%s", v)
	}
}

// A check that passes before the change is the change's fault: nothing to excuse.
func TestChecksSayWhenTheChangeCausedTheFailure(t *testing.T) {
	svc := checksScenario()
	d := svc.details["login-fix"]
	zero := 0
	d.Verification[0].Baseline = &core.BaselineResult{Status: core.BaselinePassed, Base: "0123456789abcdef0123456789abcdef01234567", ExitCode: &zero}
	svc.details["login-fix"] = d
	h := newChecksHarness(t, svc, svc.fakeService, 120, 40, false)
	h.press("4")
	h.requireView("before the change: ✓ passes", "the change makes it")
	h.press("F")
	if v := h.view(); strings.Contains(v, "ctrl+x") {
		t.Fatalf("the form offers an excuse:\n%s", v)
	}
}

// With CheckDrafts (the real dashboard), ctrl+d runs the drafted checks on HEAD first: a Python
// project whose test_add fails keeps its unittest check with that failure named (finalize can
// excuse exactly it), and a `make check` that fails with output no reporter of ours reads is
// left out, saying so.
func TestNewTaskFormDraftLeavesOutChecksFailingOnHEAD(t *testing.T) {
	for _, tool := range []string{"python3", "make"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s: %v", tool, err)
		}
	}
	if !doctor.SandboxAvailable() {
		t.Fatal("bubblewrap is required for this test")
	}
	repo := gitRepo(t)
	for name, body := range map[string]string{
		"pyproject.toml": "[project]\nname = \"calc\"\nversion = \"0.1.0\"\n",
		"test_calc.py":   "import unittest\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(1 + 2, 4, 'off by one upstream')\n",
		"Makefile":       "check:\n\t@echo 'the linter crashed'; exit 3\n",
	} {
		if err := os.WriteFile(filepath.Join(repo, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"add", "-A"}, {"commit", "-q", "-m", "python"}} {
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	state := t.TempDir()
	clk := &clock{t: epoch}
	f := scenario()
	e := openEngine(t, state)
	t.Cleanup(func() { _ = e.Close() })
	f.onDraft = e.DraftContract
	m := newModel(t.Context(), f, Options{StateDir: state, Now: clk.Now, Dir: repo, CheckDrafts: true})
	h := &harness{t: t, m: m, svc: f, clk: clk}
	h.send(tea.WindowSizeMsg{Width: 100, Height: 40})
	h.run(m.Init())
	h.press("n", "ctrl+d")
	if got := f.draftLog(); !slices.Equal(got, []core.DraftRequest{{Dir: repo, Check: true}}) {
		t.Fatalf("draft requests %+v", got)
	}
	d := h.stack().top().(*dialog.NewTask)
	path := d.Value().ContractPath
	if filepath.Dir(path) != baseline.DraftDir(state, repo) {
		t.Fatalf("draft at %q", path)
	}
	raw, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(raw), `"unittest"`) || strings.Contains(string(raw), `"make-check"`) {
		t.Fatalf("the draft: %v\n%s", err, raw)
	}
	if note := d.Note(); !strings.Contains(note, "Left out, failing on HEAD already: make-check (the linter crashed)") ||
		!strings.Contains(note, "Kept, failing on HEAD with known failures that finalize can excuse (and no other): unittest (test_calc.T.test_add)") {
		t.Fatalf("note: %s", note)
	}
}
