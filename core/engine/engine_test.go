package engine

import (
	"reasonixctl/core"

	"os"
	"path/filepath"
	"testing"
)

func TestHappyPathMakesOneCommitAndLeavesTheSourceAlone(t *testing.T) {
	h := newHarness(t, nil)
	before := sourceFingerprint(t, h.repo)
	base := git(t, h.repo, "rev-parse", "HEAD")

	res, err := h.delegate("happy-1")
	if err != nil {
		t.Fatal(err)
	}
	if res.State != core.StateReviewRequired || res.TimedOut {
		t.Fatalf("state %s phase %s reason %q timed out %v", res.State, res.Phase, res.Reason, res.TimedOut)
	}
	if res.ReviewBundle == nil || len(res.ChangedFiles) != 1 || res.ChangedFiles[0] != "result.txt" {
		t.Fatalf("bundle: %+v", res.ReviewBundle)
	}
	if len(res.RequiredReviewCriteria) != 1 || res.RequiredReviewCriteria[0] != "looks-right" {
		t.Fatalf("required criteria %v", res.RequiredReviewCriteria)
	}
	v, err := h.finalize(res.TaskView, "looks-right")
	if err != nil {
		t.Fatal(err)
	}
	if v.State != core.StateCompleted || v.CommitHash == "" || v.IntegrationCommand != "git cherry-pick "+v.CommitHash {
		t.Fatalf("finalized view: %+v", v)
	}
	if parent := git(t, h.repo, "rev-parse", v.CommitHash+"^"); parent != base {
		t.Fatalf("parent %s, want base %s", parent, base)
	}
	if got := git(t, h.repo, "rev-parse", "refs/heads/reasonix/happy-1"); got != v.CommitHash {
		t.Fatalf("branch at %s, want %s", got, v.CommitHash)
	}
	if files := git(t, h.repo, "show", "--name-only", "--format=", v.CommitHash); files != "result.txt" {
		t.Fatalf("commit files %q", files)
	}
	if after := sourceFingerprint(t, h.repo); after != before {
		t.Fatalf("source changed:\n%s\n%s", before, after)
	}
	if _, err := os.Stat(filepath.Join(h.repo, "result.txt")); !os.IsNotExist(err) {
		t.Fatal("result.txt appeared in the source checkout")
	}
}
