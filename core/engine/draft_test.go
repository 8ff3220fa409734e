package engine

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
	"reasonixctl/core/baseline"
)

// The dashboard's draft is written under the state directory, in the folder `contract init`
// uses, and never into the repository, whose checkout a task needs clean; a second draft at
// the same second replaces nothing.
func TestDraftContractWritesUnderTheStateDirectory(t *testing.T) {
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	h := newHarness(t, &acptest.Scenario{Name: "never", Turns: []acptest.Turn{{Summary: "must not run"}}},
		func(c *Config) { c.Now = func() time.Time { return at } })
	if err := os.WriteFile(filepath.Join(h.repo, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, h.repo, "add", "go.mod")
	git(t, h.repo, "commit", "-q", "-m", "go")
	before := sourceFingerprint(t, h.repo)

	res, err := h.e.DraftContract(t.Context(), core.DraftRequest{Dir: h.repo})
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(baseline.DraftDir(h.state, h.repo), "contract-20250102-030405.json")
	if res.Path != want {
		t.Fatalf("draft at %s, want %s", res.Path, want)
	}
	if raw, err := os.ReadFile(res.Path); err != nil || string(raw) != string(res.Draft.JSON) {
		t.Fatalf("draft file %v:\n%s", err, raw)
	}
	if !slices.ContainsFunc(res.Draft.Checks, func(c core.DraftCheck) bool { return c.ID == "go-vet" }) || res.Checked != nil {
		t.Fatalf("draft %+v, checked %+v", res.Draft.Checks, res.Checked)
	}
	again, err := h.e.DraftContract(t.Context(), core.DraftRequest{Dir: h.repo})
	if err != nil || again.Path == res.Path || filepath.Dir(again.Path) != filepath.Dir(res.Path) {
		t.Fatalf("second draft %v at %s", err, again.Path)
	}
	if after := sourceFingerprint(t, h.repo); after != before {
		t.Errorf("the checkout changed:\n%s\n%s", before, after)
	}

	_, err = h.e.DraftContract(t.Context(), core.DraftRequest{Dir: "."})
	mustCode(t, err, core.CodeInvalidRequest)
}

// A folder that does not exist, or a relative one, is the request's fault, in words the
// dashboard can show as they are.
func TestDraftContractRefusesAFolderItCannotRead(t *testing.T) {
	h := newHarness(t, &acptest.Scenario{Name: "never", Turns: []acptest.Turn{{Summary: "must not run"}}})
	for _, dir := range []string{filepath.Join(t.TempDir(), "missing"), "relative/dir"} {
		_, err := h.e.DraftContract(t.Context(), core.DraftRequest{Dir: dir})
		if e := mustCode(t, err, core.CodeInvalidRequest); e.Message == "" {
			t.Fatalf("%s: no words for the dashboard", dir)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(h.state, "drafts")); len(entries) != 0 {
		t.Fatalf("a draft was stored for a refused request: %v", entries)
	}
}
