package remote

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"reasonixctl/core"
)

// An attached client amends a task's checks with Control, action amend_checks, as the owner's
// engine would: drop_checks and add_checks cross the socket, the refusals keep their codes.
func TestAttachedClientAmendsChecks(t *testing.T) {
	o := newOwner(t, nil)
	c := o.dial(t, RoleDashboard)
	ctx := ctxT(t, 60*time.Second)
	res, err := c.Delegate(ctx, o.request("amend"))
	if err != nil || res.State != core.StateReviewRequired {
		t.Fatalf("delegate %v %+v", err, res)
	}
	_, err = c.Control(ctx, core.AmendChecks{TaskID: "amend", DropChecks: []string{"nope"}})
	mustCode(t, err, core.CodeInvalidRequest)

	v, err := c.Control(ctx, core.AmendChecks{TaskID: "amend", DropChecks: []string{"check"},
		AddChecks: []core.AddedCheck{{ID: "non-empty", Argv: []string{"test", "-s", "result.txt"}, Cwd: ".", TimeoutSeconds: 30}}})
	if err != nil {
		t.Fatal(err)
	}
	if v.ContractHash == res.ContractHash || v.State != core.StateReviewRequired {
		t.Fatalf("after amending %+v", v)
	}
	d, err := o.e.Get(ctx, "amend")
	if err != nil || d.View.ContractHash != v.ContractHash {
		t.Fatalf("the owner's engine does not hold the amended contract: %v %+v", err, d.View)
	}
	var contract struct {
		Verification []struct {
			ID             string   `json:"id"`
			Argv           []string `json:"argv"`
			TimeoutSeconds int      `json:"timeout_seconds"`
		} `json:"verification"`
	}
	if err := json.Unmarshal(d.Contract, &contract); err != nil {
		t.Fatal(err)
	}
	if len(contract.Verification) != 1 || contract.Verification[0].ID != "non-empty" || contract.Verification[0].TimeoutSeconds != 30 ||
		!slices.Equal(contract.Verification[0].Argv, []string{"test", "-s", "result.txt"}) {
		t.Fatalf("verification %+v", contract.Verification)
	}
	rev := v.ReviewRevision
	v, err = c.Control(ctx, core.Finalize{TaskID: "amend", ReviewSummary: "fine",
		ApprovedReviewCriteria: []string{"looks-right", "result"}, ExpectedReviewRevision: &rev, ExpectedReviewTreeHash: v.ReviewTreeHash})
	if err != nil || v.State != core.StateCompleted {
		t.Fatalf("finalize %v %+v", err, v)
	}
}
