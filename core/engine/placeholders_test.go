package engine

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
	"reasonixctl/core/scaffold"
)

// A draft still holding its placeholders starts no task: delegate names every field, and no
// task, branch or worktree is left behind.
func TestDelegateRefusesAnUnfinishedDraft(t *testing.T) {
	h := newHarness(t, &acptest.Scenario{Name: "never", Turns: []acptest.Turn{{Summary: "must not run"}}})
	before := sourceFingerprint(t, h.repo)
	draft, err := scaffold.New(scaffold.Options{Dir: h.repo})
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.delegate("todo", func(r *core.DelegateRequest) { r.Contract = draft.JSON })
	e := mustCode(t, err, core.CodeInvalidContract)
	if e.Details["reason"] != "unfinished_draft" {
		t.Errorf("details: %+v", e.Details)
	}
	got, _ := e.Details["placeholders"].([]string)
	if want := []string{"objective", "user_outcome", "write_scope.0"}; !slices.Equal(got, want) {
		t.Errorf("placeholders %v, want %v", got, want)
	}
	if _, err := h.e.Get(t.Context(), "todo"); core.AsError(err).Code != core.CodeTaskNotFound {
		t.Errorf("a task was stored: %v", err)
	}
	if after := sourceFingerprint(t, h.repo); after != before {
		t.Errorf("the checkout changed:\n%s\n%s", before, after)
	}
	if b := git(t, h.repo, "branch", "--list"); b != "* main" {
		t.Errorf("branches: %q", b)
	}

	// One placeholder left anywhere, deep in a list, is enough.
	var doc map[string]any
	if err := json.Unmarshal([]byte(happyContract), &doc); err != nil {
		t.Fatal(err)
	}
	doc["invariants"] = []string{"kept", "TODO: say what must stay true"}
	raw, _ := json.Marshal(doc)
	_, err = h.delegate("todo2", func(r *core.DelegateRequest) { r.Contract = raw })
	e = mustCode(t, err, core.CodeInvalidContract)
	if got, _ := e.Details["placeholders"].([]string); !slices.Equal(got, []string{"invariants.1"}) {
		t.Errorf("placeholders %v", got)
	}
	// Filled in, the same draft starts.
	filled, err := scaffold.New(scaffold.Options{Dir: h.repo, Objective: "Create result.txt", UserOutcome: "result.txt exists", WriteScope: []string{"result.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.delegate("done", func(r *core.DelegateRequest) { r.Contract = filled.JSON }); err != nil {
		t.Fatal(err)
	}
}

// A contract file left in the checkout makes it dirty; the error says where contracts belong.
func TestDirtyCheckoutNamesAContractFileLeftInIt(t *testing.T) {
	h := newHarness(t, &acptest.Scenario{Name: "never"})
	writeFile(t, h.repo+"/contract.json", []byte(happyContract))
	_, err := h.delegate("dirty")
	e := mustCode(t, err, core.CodeDirtyRepository)
	if !strings.Contains(e.Message, "contract.json looks like a contract: keep it outside the checkout") {
		t.Fatalf("message: %s", e.Message)
	}
}
