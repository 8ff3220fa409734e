package baseline

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"reasonixctl/core"
)

// Drafts of one repository share a folder under the state directory; a draft never replaces
// another written the same second.
func TestWriteDraftKeepsEveryDraft(t *testing.T) {
	state, at := t.TempDir(), time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	d := core.ContractDraft{Root: "/src/app", JSON: []byte("{}\n")}
	first, err := WriteDraft(state, d, at)
	if err != nil {
		t.Fatal(err)
	}
	second, err := WriteDraft(state, d, at)
	if err != nil {
		t.Fatal(err)
	}
	dir := DraftDir(state, "/src/app")
	if first != filepath.Join(dir, "contract-20250102-030405.json") || second != filepath.Join(dir, "contract-20250102-030405-2.json") {
		t.Fatalf("drafts at %s and %s", first, second)
	}
	if DraftDir(state, "/src/other") == dir {
		t.Fatal("two repositories share a draft folder")
	}
}

// A contract written into the checkout would make it dirty: refused unless git ignores it.
func TestCheckDraftOutputRefusesTheCheckout(t *testing.T) {
	repo := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	err := CheckDraftOutput(t.Context(), repo, filepath.Join(repo, "contract.json"))
	if e := core.AsError(err); e == nil || e.Code != core.CodeInvalidRequest || e.Details["reason"] != "inside_checkout" {
		t.Fatalf("inside the checkout: %v", err)
	}
	if err := os.WriteFile(filepath.Join(repo, ".git", "info", "exclude"), []byte("/contract.json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckDraftOutput(t.Context(), repo, filepath.Join(repo, "contract.json")); err != nil {
		t.Fatalf("ignored: %v", err)
	}
	if err := CheckDraftOutput(t.Context(), repo, filepath.Join(t.TempDir(), "contract.json")); err != nil {
		t.Fatalf("outside: %v", err)
	}
}
