package dialog

import (
	"errors"
	"strings"
	"testing"

	"reasonixctl/core"
	"reasonixctl/tui/intent"
)

func filledForm(taken map[string]core.State) *NewTask {
	return NewNewTask(intent.NewTask{ContractPath: "/c.json", RepoDir: "/src/app", TaskID: "login-fix"}, taken)
}

// An id of a listed task is refused by the form itself, naming the id and the task's state,
// with the focus on the id.
func TestNewTaskFormRefusesAListedID(t *testing.T) {
	d := filledForm(map[string]core.State{"login-fix": core.StateReviewRequired})
	if res := press(d, "ctrl+s"); res.Delegate != nil || res.Close {
		t.Fatalf("a taken id was started: %+v", res)
	}
	requireView(t, d, 80, "task id login-fix exists (review required): choose another id", "› task id")
	if d.focus != fieldTaskID {
		t.Fatalf("focus on field %d, want the task id", d.focus)
	}
	d.IDTaken("")
	requireView(t, d, 80, "task id login-fix exists: choose another id")
}

// enter goes to the next field and, on the lane, starts; space and ←/→ switch the lane there
// and are text in a field; an empty field is named and focused.
func TestNewTaskFormKeys(t *testing.T) {
	d := NewNewTask(intent.NewTask{RepoDir: "/src/app"}, nil)
	if res := press(d, "ctrl+s"); res.Delegate != nil {
		t.Fatalf("an empty form started: %+v", res)
	}
	requireView(t, d, 80, "contract is empty: type a contract file's path, or press ctrl+d to draft one")
	typeText(d, "/c.json")
	press(d, "enter", "enter")
	if d.focus != fieldTaskID {
		t.Fatalf("two enters: focus %d", d.focus)
	}
	typeText(d, "a b")
	press(d, "left", "left", "space")
	if got := d.Value().TaskID; got != "a  b" {
		t.Fatalf("space and ←: task id %q", got)
	}
	press(d, "tab")
	if d.Capturing() || !d.onLane() {
		t.Fatal("tab from the id does not reach the lane")
	}
	press(d, "space")
	if d.Value().Lane != core.LaneDeep {
		t.Fatalf("space on the lane: %s", d.Value().Lane)
	}
	press(d, "right")
	if d.Value().Lane != core.LaneFast {
		t.Fatalf("→ on the lane: %s", d.Value().Lane)
	}
	res := press(d, "enter")
	want := intent.NewTask{ContractPath: "/c.json", RepoDir: "/src/app", TaskID: "a  b", Lane: core.LaneFast, Worker: core.WorkerReasonix}
	if res.Delegate == nil || *res.Delegate != want || !res.Close {
		t.Fatalf("enter on the lane: %+v", res)
	}
	if res := press(NewNewTask(intent.NewTask{}, nil), "esc"); !res.Close || res.Delegate != nil {
		t.Fatalf("esc: %+v", res)
	}
	if got := keyLine(d, 100); got != "tab next field · ctrl+s start · ctrl+d draft contract · ctrl+e edit it · esc cancel" {
		t.Fatalf("key line %q", got)
	}
}

// ctrl+d asks for a draft of the repository, ctrl+e to edit the contract; each says what it
// needs first, and the answers come back into the form.
func TestNewTaskFormDraftsAndEdits(t *testing.T) {
	d := NewNewTask(intent.NewTask{}, nil)
	if res := press(d, "ctrl+d"); res.Draft != "" {
		t.Fatalf("a draft without a repository: %+v", res)
	}
	requireView(t, d, 80, "repo dir is empty")
	if d.focus != fieldRepo {
		t.Fatalf("focus %d, want the repository", d.focus)
	}
	typeText(d, "/src/app")
	if res := press(d, "ctrl+d"); res.Draft != "/src/app" {
		t.Fatalf("ctrl+d: %+v", res)
	}
	requireView(t, d, 80, "drafting a contract from the repository's toolchains…")
	d.Drafted(core.DraftResult{}, errors.New("no toolchain found"))
	requireView(t, d, 80, "drafting a contract failed: no toolchain found")

	one := 1
	d.Drafted(core.DraftResult{
		Path:  "/state/drafts/c.json",
		Draft: core.ContractDraft{Checks: []core.DraftCheck{{ID: "go-vet", Argv: []string{"go", "vet", "./..."}}}, Placeholders: []string{"objective"}},
		Checked: []core.BaseCheck{
			{ID: "go-test", Baseline: &core.BaselineResult{Status: core.BaselineFailed, ExitCode: &one, LogTail: "--- FAIL: TestParse"}},
			{ID: "unittest", Baseline: &core.BaselineResult{Status: core.BaselineFailed, ExitCode: &one, FailureFormat: core.FailureFormatGo,
				Failures: []core.CheckFailure{{ID: "a"}, {ID: "b"}, {ID: "c"}, {ID: "d\x1b[31m"}}}},
			{ID: "lint", Baseline: &core.BaselineResult{Status: core.BaselineUnknown, Reason: "no sandbox"}},
		},
	}, nil)
	if got := d.Value().ContractPath; got != "/state/drafts/c.json" {
		t.Fatalf("contract %q", got)
	}
	note := d.Note()
	for _, want := range []string{"drafted /state/drafts/c.json (verification: go vet ./...)", "TODO fields (objective)",
		"Left out, failing on HEAD already: go-test (--- FAIL: TestParse)",
		"Kept, failing on HEAD with known failures that finalize can excuse (and no other): unittest (a; b; c; 1 more)",
		"Not checked, kept: lint (no sandbox)"} {
		if !strings.Contains(note, want) {
			t.Fatalf("note lacks %q: %s", want, note)
		}
	}

	if res := press(d, "ctrl+e"); res.Do != (intent.EditContract{Path: "/state/drafts/c.json"}) {
		t.Fatalf("ctrl+e: %+v", res)
	}
	d.Edited("/state/drafts/c.json", nil)
	requireView(t, d, 80, "edited /state/drafts/c.json; ctrl+s starts the task")
	d.Edited("/state/drafts/c.json", errors.New("exit status 1"))
	requireView(t, d, 80, "the editor ended with: exit status 1")
	d.StartFailed([]string{"invalid_contract: bad", "", "Next: fix it"})
	requireView(t, d, 80, "invalid_contract: bad", "Next: fix it")
}

// The worker is the field after the lane: its default is the form's (CODEX_REASONIX_WORKER,
// else reasonix), space and → cycle it forward through core.WorkerNames and ← back, round;
// enter there starts the task with it. A name the form does not know falls back to reasonix.
func TestNewTaskFormWorker(t *testing.T) {
	d := NewNewTask(intent.NewTask{ContractPath: "/c.json", RepoDir: "/src/app", TaskID: "w", Worker: "codex"}, nil)
	if d.Value().Worker != "codex" {
		t.Fatalf("default worker %q", d.Value().Worker)
	}
	press(d, "tab", "tab", "tab", "tab")
	if d.focus != fieldWorker || d.Capturing() {
		t.Fatalf("four tabs: focus %d", d.focus)
	}
	press(d, "space")
	if got := d.Value(); got.Worker != "gemini" || got.Lane != core.LaneFast {
		t.Fatalf("space on the worker: %+v", got)
	}
	press(d, "right", "right", "right")
	if got := d.Value().Worker; got != core.WorkerReasonix {
		t.Fatalf("→ past the last worker: %q", got)
	}
	press(d, "left")
	if got := d.Value().Worker; got != "opencode" {
		t.Fatalf("← before the first worker: %q", got)
	}
	var seen []string
	for range core.WorkerNames {
		press(d, "space")
		seen = append(seen, d.Value().Worker)
	}
	if len(seen) != len(core.WorkerNames) || seen[len(seen)-1] != "opencode" {
		t.Fatalf("one round: %q", seen)
	}
	requireView(t, d, 80, "› worker", "(•) opencode")
	res := press(d, "enter")
	if res.Delegate == nil || res.Delegate.Worker != "opencode" || !res.Close {
		t.Fatalf("enter on the worker: %+v", res)
	}
	if w := NewNewTask(intent.NewTask{Worker: "cursor"}, nil).Value().Worker; w != core.WorkerReasonix {
		t.Fatalf("unknown default: %q", w)
	}
}
