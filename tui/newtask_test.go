package tui

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/tui/dialog"
)

func writeContract(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.json")
	if err := os.WriteFile(p, []byte(`{"schema_version":1,"objective":"x"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// After a start the form comes back with the contract and the repository, and no task id:
// the last one is taken now.
func TestNewTaskFormForgetsTheStartedID(t *testing.T) {
	f := scenario()
	h := newHarness(t, f, 100, 30)
	contract := writeContract(t)
	h.press("n")
	h.typeText(contract)
	h.press("tab", "tab")
	h.typeText("add-audit")
	h.press("ctrl+s")
	if len(f.delegates) != 1 {
		t.Fatalf("delegates: %+v", f.delegates)
	}
	h.press("n")
	got := h.stack().top().(*dialog.NewTask).Value()
	if got.ContractPath != contract || got.RepoDir != "/src/app" || got.TaskID != "" {
		t.Fatalf("reopened form: contract %q repo %q id %q", got.ContractPath, got.RepoDir, got.TaskID)
	}
}

// An id of a listed task is refused by the form itself, naming the id and the task's state.
func TestNewTaskFormRefusesAListedID(t *testing.T) {
	f := scenario()
	h := newHarness(t, f, 100, 30)
	h.press("n")
	h.typeText(writeContract(t))
	h.press("tab", "tab")
	h.typeText("login-fix")
	h.press("ctrl+s")
	h.requireView("New task", "task id login-fix exists (review required): choose another id", "› task id")
	if len(f.delegates) != 0 {
		t.Fatalf("a taken id reached Delegate: %+v", f.delegates)
	}
}

// Core's conflict for an id the list does not show (an ended task) names the first field that
// differs; the form says the id is taken instead.
func TestNewTaskConflictSaysTheIDIsTaken(t *testing.T) {
	f := scenario()
	h := newHarness(t, f, 100, 30)
	f.delegateErr = core.Errorf(core.CodeTaskConflict, &core.ConflictingTask{Field: "contract"},
		"task old-task already exists with a different contract; choose a new task_id")
	h.press("n")
	h.typeText(writeContract(t))
	h.press("tab", "tab")
	h.typeText("old-task")
	h.press("ctrl+s")
	h.requireView("New task", "task id old-task exists: choose another id")
	if v := flatten(h.view()); strings.Contains(v, "different contract") {
		t.Fatalf("the form blames the contract:\n%s", h.view())
	}
	if id := h.stack().top().(*dialog.NewTask).Value().TaskID; id != "old-task" {
		t.Fatalf("the form lost the id: %q", id)
	}
}

// The form's ctrl+d asks the service for the draft, with the check the dashboard was started
// with, and takes the service's answer in: the dashboard drafts nothing and runs no check itself.
func TestNewTaskFormDraftsThroughTheService(t *testing.T) {
	f := scenario()
	const path = "/state/drafts/app-0123456789ab/contract-20250101-120000.json"
	f.onDraft = func(_ context.Context, req core.DraftRequest) (core.DraftResult, error) {
		return core.DraftResult{
			Path:  path,
			Draft: core.ContractDraft{Root: req.Dir, Checks: []core.DraftCheck{{ID: "go-vet", Argv: []string{"go", "vet", "./..."}}}, Placeholders: []string{"objective"}},
			Checked: []core.BaseCheck{{ID: "go-test", Argv: []string{"go", "test", "./..."},
				Baseline: &core.BaselineResult{Status: core.BaselineFailed, LogTail: "--- FAIL: TestParse"}}},
		}, nil
	}
	clk := &clock{t: epoch}
	m := newModel(t.Context(), f, Options{StateDir: "/state", Now: clk.Now, Dir: "/src/app", CheckDrafts: true})
	h := &harness{t: t, m: m, svc: f, clk: clk}
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	h.run(m.Init())
	h.press("n", "ctrl+d")
	if got := f.draftLog(); !slices.Equal(got, []core.DraftRequest{{Dir: "/src/app", Check: true}}) {
		t.Fatalf("draft requests %+v", got)
	}
	if got := h.stack().top().(*dialog.NewTask).Value().ContractPath; got != path {
		t.Fatalf("contract field %q", got)
	}
	h.requireView("drafted", "go vet ./...", "Left out, failing on HEAD already: go-test")
}
