package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
)

// reviewBinding is what a finalize is bound to, with the base the review was captured on.
type reviewBinding struct {
	revision int
	tree     string
	base     string
}

// reviewReadyRevisions are the review revisions the journal announced, in order.
func reviewReadyRevisions(t *testing.T, h *harness, id string) []int {
	t.Helper()
	var out []int
	for _, ev := range h.journal(id) {
		if ev.Type != core.EventReviewReady {
			continue
		}
		var d core.ReviewReadyData
		if err := json.Unmarshal(ev.Data, &d); err != nil {
			t.Fatal(err)
		}
		out = append(out, d.ReviewRevision)
	}
	return out
}

// assertRebasedReview checks the review a rebase ended in: on the new base, a revision of its
// own whose binding differs from every earlier one, with the diff against the new base; a
// finalize bound to the review before the rebase is refused as stale and commits nothing, so
// main's edit is not reverted behind the reviewer's back.
func assertRebasedReview(t *testing.T, h *harness, id string, before core.TaskView, oldBase, head string, r *taskRecord) {
	t.Helper()
	// The premise of the defect: the worker's result is the task's original content, so the
	// tree is the one reviewed before the rebase.
	if r.ReviewTreeHash != before.ReviewTreeHash {
		t.Fatalf("the scenario should end in the pre-rebase tree %s, got %s", before.ReviewTreeHash, r.ReviewTreeHash)
	}
	if r.BaseCommit != head {
		t.Fatalf("the task's base is %s, want the new HEAD %s", r.BaseCommit, head)
	}
	branch := git(t, h.repo, "rev-parse", "refs/heads/"+r.Branch)
	v, err := h.finalize(before, "looks-right")
	if err == nil {
		t.Fatalf("a finalize bound to the review before the rebase committed %s: result.txt there is %q, main's edit reverted",
			v.CommitHash, git(t, h.repo, "show", v.CommitHash+":result.txt"))
	}
	ce := mustCode(t, err, core.CodeInvalidRequest)
	if ce.Stale() == nil || ce.Stale().Expected.ReviewRevision != before.ReviewRevision || ce.Stale().Current.ReviewRevision != r.ReviewRevision {
		t.Fatalf("the finalize bound to the review before the rebase was not refused as stale: %v (%+v)", err, ce.Stale())
	}
	after, _ := h.e.load(id)
	if after.CommitHash != "" || after.State != core.StateReviewRequired {
		t.Fatalf("after the stale finalize: commit %q state %s", after.CommitHash, after.State)
	}
	if got := git(t, h.repo, "rev-parse", "refs/heads/"+r.Branch); got != branch || got != head {
		t.Fatalf("the task branch moved to %s (was %s, the base %s)", got, branch, head)
	}
	if b, _ := os.ReadFile(filepath.Join(h.repo, "result.txt")); string(b) != "theirs\n" {
		t.Fatalf("result.txt in the source checkout: %q", b)
	}
	earlier := reviewBinding{before.ReviewRevision, before.ReviewTreeHash, oldBase}
	now := reviewBinding{r.ReviewRevision, r.ReviewTreeHash, r.BaseCommit}
	if now == earlier || now.revision <= earlier.revision {
		t.Fatalf("the rebase did not end in a new review: before %+v, after %+v", earlier, now)
	}
	if revs := reviewReadyRevisions(t, h, id); len(revs) < 2 || revs[len(revs)-1] != r.ReviewRevision {
		t.Fatalf("review_ready revisions journaled: %v, want the last to be %d", revs, r.ReviewRevision)
	}
	// The diff is against the new base: it shows main's line replaced.
	diff, err := h.e.reviewDiff(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(diff, "-theirs") || !strings.Contains(diff, "+ok") {
		t.Fatalf("the review's diff is not against the new base:\n%s", diff)
	}
	if !strings.Contains(r.DiffStat, "result.txt | +1 -1") {
		t.Fatalf("the review's diff stat is not against the new base: %q", r.DiffStat)
	}
}

// Issue 37: a task rebased onto a moved main whose repair round wrote the task's original
// content came back to review at the same revision with the same tree hash, so a finalize bound
// to the review before the rebase committed a change reverting main's edit.
func TestRebaseRepairWritingTheOriginalContentIsANewReview(t *testing.T) {
	scn := &acptest.Scenario{Name: "rebase-same-tree", Turns: []acptest.Turn{
		{Steps: []acptest.Step{{Write: &acptest.WriteFile{Path: "result.txt", Content: "ok\n"}}}, Summary: "Wrote result.txt."},
		{Match: "These files conflict: result.txt.",
			Steps:   []acptest.Step{{Write: &acptest.WriteFile{Path: "result.txt", Content: "ok\n"}}},
			Summary: "Kept my version."},
	}}
	h := newHarness(t, scn)
	res, err := h.delegate("same")
	if err != nil || res.State != core.StateReviewRequired {
		t.Fatalf("delegate: %v %+v", err, res.TaskView)
	}
	oldBase := git(t, h.repo, "rev-parse", "HEAD")
	head := commitInSource(t, h.repo, "result.txt", "theirs\n")
	if _, err := h.rebase("same"); err != nil {
		t.Fatal(err)
	}
	r, timedOut, err := h.e.waitFor(context.Background(), "same", 30*time.Second, func(r *taskRecord) bool {
		return r.State == core.StateReviewRequired && !r.RepairActive
	})
	if err != nil || timedOut {
		t.Fatalf("no review after the rebase round: %v %+v", err, r.view())
	}
	assertRebasedReview(t, h, "same", res.TaskView, oldBase, head, r)
	// The review of the new base finalizes: what it commits is what the reviewer saw.
	done, err := h.finalize(r.view(), "looks-right")
	if err != nil || done.State != core.StateCompleted {
		t.Fatalf("finalize of the new review: %v %+v", err, done)
	}
	if parent := git(t, h.repo, "rev-parse", done.CommitHash+"^"); parent != head {
		t.Fatalf("the commit's parent is %s, want the new base %s", parent, head)
	}
}

// The same after the repair rounds left the conflicts (paused, rebase_conflicts), a person
// resolved them by hand with the task's original content, and resumed.
func TestRebaseConflictsResolvedByHandAndResumedIsANewReview(t *testing.T) {
	scn := &acptest.Scenario{Name: "rebase-by-hand", Turns: []acptest.Turn{
		{Steps: []acptest.Step{{Write: &acptest.WriteFile{Path: "result.txt", Content: "ok\n"}}}, Summary: "Wrote result.txt."},
		{Match: "keeping both intents", Steps: []acptest.Step{{Text: "I cannot tell which side is right."}}, Summary: "Left it."},
		{Steps: []acptest.Step{{Text: "The conflict is resolved."}}, Summary: "Nothing left to do."},
	}}
	h := newHarness(t, scn)
	res, err := h.delegate("hand")
	if err != nil || res.State != core.StateReviewRequired {
		t.Fatalf("delegate: %v %+v", err, res.TaskView)
	}
	oldBase := git(t, h.repo, "rev-parse", "HEAD")
	head := commitInSource(t, h.repo, "result.txt", "theirs\n")
	if _, err := h.rebase("hand"); err != nil {
		t.Fatal(err)
	}
	r, timedOut, err := h.e.waitFor(context.Background(), "hand", 30*time.Second, func(r *taskRecord) bool {
		return r.State == core.StatePaused
	})
	if err != nil || timedOut || r.Phase != core.PhaseRebaseConflicts {
		t.Fatalf("the task did not pause with its conflicts: %v %+v", err, r.view())
	}
	// Finalize is refused while paused, bound to the old review or not.
	_, err = h.finalize(res.TaskView, "looks-right")
	mustCode(t, err, core.CodeInvalidState)
	if err := os.WriteFile(filepath.Join(r.Worktree, "result.txt"), []byte("ok\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rev, hash := r.PauseRevision, r.PauseReasonHash
	resumed, err := h.delegate("hand", func(d *core.DelegateRequest) { d.PauseRevision, d.PauseReasonHash = &rev, hash })
	if err != nil || resumed.State != core.StateReviewRequired {
		t.Fatalf("resume: %v %+v", err, resumed.TaskView)
	}
	r, _ = h.e.load("hand")
	assertRebasedReview(t, h, "hand", res.TaskView, oldBase, head, r)
}
