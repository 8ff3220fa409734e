package engine

import (
	"reasonixctl/core"

	"context"
	"reflect"
	"testing"
	"time"
)

// The engine itself refuses a finalize whose review summary is whitespace, whichever front end
// sent it: nothing is committed and the task stays in review.
func TestFinalizeRefusesABlankReviewSummary(t *testing.T) {
	h := newHarness(t, nil)
	res, err := h.delegate("blank-summary")
	if err != nil {
		t.Fatal(err)
	}
	if res.State != core.StateReviewRequired {
		t.Fatalf("state %s", res.State)
	}
	v := res.TaskView
	rev := v.ReviewRevision
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, err = h.e.Control(ctx, core.Finalize{
		TaskID: v.TaskID, ReviewSummary: "   ",
		ApprovedReviewCriteria: []string{"looks-right"}, ExpectedReviewRevision: &rev, ExpectedReviewTreeHash: v.ReviewTreeHash,
	})
	e := mustCode(t, err, core.CodeInvalidRequest)
	if want := []core.Issue{{Path: "review_summary", Message: "Must not be blank"}}; !reflect.DeepEqual(e.Issues(), want) {
		t.Fatalf("issues %+v, want %+v", e.Issues(), want)
	}
	d, err := h.e.Get(ctx, v.TaskID)
	if err != nil || d.View.State != core.StateReviewRequired || d.View.CommitHash != "" {
		t.Fatalf("after a refused finalize: %+v %v", d.View, err)
	}
	// The same task finalizes with a summary that says something.
	if v, err := h.finalize(v, "looks-right"); err != nil || v.State != core.StateCompleted {
		t.Fatalf("finalize after the refusal: %+v %v", v, err)
	}
}
