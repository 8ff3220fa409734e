package engine

import (
	"strings"
	"testing"

	"reasonixctl/core"
)

// Issue 37: a worktree whose branch was switched, detached or committed to by hand after the
// review is refused at finalize as ownership_ambiguous — the reason in the details, what to do
// in the message, the next action to resolve it — not as an internal_error with nothing to act
// on; nothing is committed, the task is back in review, and once the worktree is put back the
// same approval finalizes.
func TestFinalizeRefusesAWorktreeMovedByHandAsOwnershipAmbiguous(t *testing.T) {
	for _, tc := range []struct {
		name, reason, found string
		move, undo          func(t *testing.T, wt, branch, base string)
	}{
		{"switched", core.RefusedWrongBranch, "the worktree is on elsewhere, not ",
			func(t *testing.T, wt, _, _ string) { git(t, wt, "switch", "-q", "-c", "elsewhere") },
			func(t *testing.T, wt, branch, _ string) { git(t, wt, "switch", "-q", branch) }},
		{"detached", core.RefusedWrongBranch, "the worktree's HEAD is detached",
			func(t *testing.T, wt, _, _ string) { git(t, wt, "switch", "-q", "--detach") },
			func(t *testing.T, wt, branch, _ string) { git(t, wt, "switch", "-q", branch) }},
		{"committed", core.RefusedHeadMoved, "the task branch has commits since the base",
			func(t *testing.T, wt, _, _ string) {
				git(t, wt, "add", "result.txt")
				git(t, wt, "commit", "-q", "-m", "committed by hand")
			},
			func(t *testing.T, wt, _, base string) { git(t, wt, "reset", "-q", "--soft", base) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil)
			id := "moved-" + tc.name
			res, err := h.delegate(id)
			if err != nil || res.State != core.StateReviewRequired {
				t.Fatalf("delegate: %v %+v", err, res.TaskView)
			}
			r, _ := h.e.load(id)
			ref := "refs/heads/" + r.Branch
			tc.move(t, r.Worktree, r.Branch, r.BaseCommit)
			before := git(t, h.repo, "rev-parse", ref)

			_, err = h.finalize(res.TaskView, "looks-right")
			ce := mustCode(t, err, core.CodeOwnershipAmbiguous)
			if ce.NextAction != core.NextResolveSourceCollision || ce.Retryable {
				t.Fatalf("next_action %s retryable %v", ce.NextAction, ce.Retryable)
			}
			if ce.Details["reason"] != tc.reason {
				t.Fatalf("details %v, want reason %s", ce.Details, tc.reason)
			}
			if !strings.Contains(ce.Message, tc.found) || !strings.Contains(ce.Message, core.RefusalHint(tc.reason)) {
				t.Fatalf("message %q: want %q and the hint %q", ce.Message, tc.found, core.RefusalHint(tc.reason))
			}
			after, _ := h.e.load(id)
			if after.State != core.StateReviewRequired || after.CommitHash != "" || !strings.HasPrefix(after.Reason, string(core.CodeOwnershipAmbiguous)+": ") {
				t.Fatalf("after the refusal: state %s commit %q reason %q", after.State, after.CommitHash, after.Reason)
			}
			if got := git(t, h.repo, "rev-parse", ref); got != before {
				t.Fatalf("the task branch moved from %s to %s", before, got)
			}

			// Following the hint: the worktree back on its branch at the base, the same review.
			tc.undo(t, r.Worktree, r.Branch, r.BaseCommit)
			done, err := h.finalize(res.TaskView, "looks-right")
			if err != nil || done.State != core.StateCompleted {
				t.Fatalf("finalize once the worktree is back: %v %+v", err, done)
			}
			if parent := git(t, h.repo, "rev-parse", done.CommitHash+"^"); parent != r.BaseCommit {
				t.Fatalf("the commit's parent is %s, want the base %s", parent, r.BaseCommit)
			}
		})
	}
}
