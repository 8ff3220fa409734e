package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
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
	if err != nil || res.State != core.StateReviewRequired {
		t.Fatalf("delegate: %v %+v", err, res)
	}
	before := res.ContractHash
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()

	_, err = h.e.AmendChecks(ctx, core.AmendChecks{TaskID: "amend", DropChecks: []string{"nope"}})
	mustCode(t, err, core.CodeInvalidRequest)
	_, err = h.e.AmendChecks(ctx, core.AmendChecks{TaskID: "amend", AddChecks: []core.AddedCheck{{ID: "net", Argv: []string{"curl", "example.com"}}}})
	mustCode(t, err, core.CodeInvalidContract)
	if d, _ := h.e.Get(t.Context(), "amend"); d.View.ContractHash != before {
		t.Fatal("a refused amendment changed the contract")
	}

	v, err := h.e.AmendChecks(ctx, core.AmendChecks{TaskID: "amend", DropChecks: []string{"check"},
		AddChecks: []core.AddedCheck{{ID: "non-empty", Argv: []string{"test", "-s", "result.txt"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if v.ContractHash == before || v.State != core.StateReviewRequired {
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
		if ev.Type == core.EventContractAmended {
			found = true
		}
	}
	if !found {
		t.Fatalf("no %s event in the journal", core.EventContractAmended)
	}

	// The next repair round's prompt tells the worker (the scripted turn matches on it).
	msg := "Keep going."
	if _, err := h.e.Control(ctx, core.Steer{TaskID: "amend", Message: msg}); err != nil {
		t.Fatal(err)
	}
	r, timedOut, err := h.e.waitFor(ctx, "amend", 30*time.Second, func(r *taskRecord) bool {
		return r.State == core.StateReviewRequired && !r.RepairActive
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
	if v.State != core.StateCompleted {
		t.Fatalf("not committed: %+v", v)
	}
}

// The same amendment through Control, an AmendChecks, as MCP and an attached dashboard send it:
// at least one check, an unknown id or a task out of review refused without a change. (Only
// AmendChecks has drop_checks and add_checks: its type says so, and mcp's tests check the wire.)
func TestAmendChecksThroughControl(t *testing.T) {
	scn := &acptest.Scenario{Name: "amend", Turns: []acptest.Turn{
		{Steps: []acptest.Step{{Write: &acptest.WriteFile{Path: "result.txt", Content: "ok\n"}}}, Summary: "Wrote result.txt."},
	}}
	h := newHarness(t, scn)
	res, err := h.delegate("ctl")
	if err != nil || res.State != core.StateReviewRequired {
		t.Fatalf("delegate: %v %+v", err, res)
	}
	before := res.ContractHash
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	issuePaths := func(err error) []string {
		t.Helper()
		e := mustCode(t, err, core.CodeInvalidRequest)
		issues, _ := e.Details["issues"].([]core.Issue)
		var paths []string
		for _, is := range issues {
			paths = append(paths, is.Path+": "+is.Message)
		}
		return paths
	}
	for _, tc := range []struct {
		name string
		req  core.AmendChecks
		want string
	}{
		{"amend_checks needs a check", core.AmendChecks{TaskID: "ctl", DropChecks: []string{}},
			"drop_checks: drop_checks or add_checks must name at least one check"},
		{"an unknown id", core.AmendChecks{TaskID: "ctl", DropChecks: []string{"nope"}},
			`drop_checks.0: "nope" is not a verification id of the contract`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := h.e.Control(ctx, tc.req)
			if got := issuePaths(err); !slices.Contains(got, tc.want) {
				t.Fatalf("issues %q, want %q among them", got, tc.want)
			}
		})
	}
	if d, _ := h.e.Get(t.Context(), "ctl"); d.View.ContractHash != before || d.View.State != core.StateReviewRequired {
		t.Fatalf("a refused request changed the task: %+v", d.View)
	}

	// Add first, then drop: two revisions, each journaled.
	v, err := h.e.Control(ctx, core.AmendChecks{TaskID: "ctl",
		AddChecks: []core.AddedCheck{{ID: "non-empty", Argv: []string{"test", "-s", "result.txt"}, TimeoutSeconds: 30}}})
	if err != nil {
		t.Fatal(err)
	}
	if v.ContractHash == before || v.State != core.StateReviewRequired {
		t.Fatalf("after adding: %+v", v)
	}
	added := v.ContractHash
	v, err = h.e.Control(ctx, core.AmendChecks{TaskID: "ctl", DropChecks: []string{"check"}})
	if err != nil {
		t.Fatal(err)
	}
	if v.ContractHash == added {
		t.Fatalf("dropping did not change the contract: %+v", v)
	}
	d, _ := h.e.Get(t.Context(), "ctl")
	var c struct {
		Verification []struct {
			ID             string   `json:"id"`
			Argv           []string `json:"argv"`
			TimeoutSeconds int      `json:"timeout_seconds"`
			Proves         []string `json:"proves"`
		} `json:"verification"`
	}
	if err := json.Unmarshal(d.Contract, &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Verification) != 1 || c.Verification[0].ID != "non-empty" || c.Verification[0].TimeoutSeconds != 30 ||
		!slices.Equal(c.Verification[0].Proves, []string{"non-empty-passes"}) {
		t.Fatalf("verification after amending: %+v", c.Verification)
	}
	var amended []core.ContractAmendedData
	for _, ev := range h.journal("ctl") {
		if ev.Type == core.EventContractAmended {
			var data core.ContractAmendedData
			if err := json.Unmarshal(ev.Data, &data); err != nil {
				t.Fatal(err)
			}
			amended = append(amended, data)
		}
	}
	if len(amended) != 2 || amended[0].Revision != 1 || !slices.Equal(amended[0].Added, []string{"non-empty"}) ||
		amended[1].Revision != 2 || !slices.Equal(amended[1].Dropped, []string{"check"}) || amended[1].PreviousHash != added ||
		!slices.Equal(amended[1].ToReview, []string{"result"}) {
		t.Fatalf("journal: %+v", amended)
	}

	// Finalize runs the amended check; a completed task's checks stay as they were.
	v, err = h.finalize(d.View, "looks-right", "result")
	if err != nil || v.State != core.StateCompleted {
		t.Fatalf("finalize: %v %+v", err, v)
	}
	_, err = h.e.Control(ctx, core.AmendChecks{TaskID: "ctl", DropChecks: []string{"non-empty"}})
	if e := mustCode(t, err, core.CodeInvalidState); e.Message != core.WhyNot(v, core.ActionAmendChecks) {
		t.Fatalf("outside review: %v", e)
	}
}
