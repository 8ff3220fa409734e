package core

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"reasonixctl/acp/acptest"
)

// In review the supervisor drops a check and adds another: a new contract revision and hash,
// journaled; the criterion the dropped check proved goes to review; the worker reads the change
// in its next prompt; a bad amendment changes nothing.
func TestAmendChecksInReview(t *testing.T) {
	scn := &acptest.Scenario{Name: "amend", Turns: []acptest.Turn{
		{Steps: []acptest.Step{{Write: &acptest.WriteFile{Path: "result.txt", Content: "ok\n"}}}, Summary: "Wrote result.txt."},
		{Match: "amended the contract's verification commands (revision 1): dropped check; added non-empty (test -s result.txt",
			Steps: []acptest.Step{{Write: &acptest.WriteFile{Path: "result.txt", Content: "ok, amended\n"}}}, Summary: "Saw the amendment."},
	}}
	h := newHarness(t, scn)
	res, err := h.delegate("amend")
	if err != nil || res.State != StateReviewRequired {
		t.Fatalf("delegate: %v %+v", err, res)
	}
	before := res.ContractHash
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()

	_, err = h.e.AmendChecks(ctx, AmendChecksRequest{TaskID: "amend", Drop: []string{"nope"}})
	mustCode(t, err, CodeInvalidRequest)
	_, err = h.e.AmendChecks(ctx, AmendChecksRequest{TaskID: "amend", Add: []AddedCheck{{ID: "net", Argv: []string{"curl", "example.com"}}}})
	mustCode(t, err, CodeInvalidContract)
	if d, _ := h.e.Get(t.Context(), "amend"); d.View.ContractHash != before {
		t.Fatal("a refused amendment changed the contract")
	}

	v, err := h.e.AmendChecks(ctx, AmendChecksRequest{TaskID: "amend", Drop: []string{"check"},
		Add: []AddedCheck{{ID: "non-empty", Argv: []string{"test", "-s", "result.txt"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if v.ContractHash == before || v.State != StateReviewRequired {
		t.Fatalf("after amending: %+v", v)
	}
	d, _ := h.e.Get(t.Context(), "amend")
	var ids []string
	for _, c := range d.Criteria {
		ids = append(ids, c.ID+":"+c.Evidence)
	}
	if !slices.Contains(ids, "result:review") || !slices.Contains(ids, "non-empty-passes:automated") {
		t.Fatalf("criteria after amending: %v", ids)
	}
	found := false
	for _, ev := range h.journal("amend") {
		if ev.Type == EventContractAmended {
			found = true
		}
	}
	if !found {
		t.Fatalf("no %s event in the journal", EventContractAmended)
	}

	// The next repair round's prompt tells the worker (the scripted turn matches on it).
	msg := "Keep going."
	if _, err := h.e.Control(ctx, ControlRequest{TaskID: "amend", Action: ActionSteer, Message: &msg}); err != nil {
		t.Fatal(err)
	}
	r, timedOut, err := h.e.waitFor(ctx, "amend", 30*time.Second, func(r *taskRecord) bool {
		return r.State == StateReviewRequired && !r.RepairActive
	})
	if err != nil || timedOut {
		t.Fatalf("no review after the repair round: %v", err)
	}
	// Only the turn that matches the note writes this.
	if got, _ := os.ReadFile(filepath.Join(r.Worktree, "result.txt")); string(got) != "ok, amended\n" || r.ContractNote != "" {
		t.Fatalf("the worker did not see the amendment: %q (note %q)", got, r.ContractNote)
	}
	d, _ = h.e.Get(t.Context(), "amend")
	// Finalize runs the amended checks and needs the moved criterion approved by review.
	v, err = h.finalize(d.View, "looks-right", "result")
	if err != nil {
		t.Fatal(err)
	}
	if v.State != StateCompleted {
		t.Fatalf("not committed: %+v", v)
	}
}
