package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"reasonixctl/core"
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
	d := h.stack().top().(*newTaskDialog)
	if d.inputs[0].Value() != contract || d.inputs[1].Value() != "/src/app" || d.inputs[2].Value() != "" {
		t.Fatalf("reopened form: contract %q repo %q id %q", d.inputs[0].Value(), d.inputs[1].Value(), d.inputs[2].Value())
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
	h.requireView("New task", "task id login-fix exists (review required): choose another id")
	if len(f.delegates) != 0 {
		t.Fatalf("a taken id reached Delegate: %+v", f.delegates)
	}
	if d := h.stack().top().(*newTaskDialog); d.focus != 2 {
		t.Fatalf("focus on field %d, want the task id", d.focus)
	}
}

// Core's conflict for an id the list does not show (an ended task) names the first field that
// differs; the form says the id is taken instead.
func TestNewTaskConflictSaysTheIDIsTaken(t *testing.T) {
	f := scenario()
	h := newHarness(t, f, 100, 30)
	f.delegateErr = core.Errorf(core.CodeTaskConflict, map[string]any{"field": "contract"},
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
	if d := h.stack().top().(*newTaskDialog); d.inputs[2].Value() != "old-task" {
		t.Fatalf("the form lost the id: %q", d.inputs[2].Value())
	}
}
