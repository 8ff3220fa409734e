package engine

import (
	"reasonixctl/core"

	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Apply refuses a dirty checkout, a detached HEAD and a branch checked out in another
// worktree, each leaving the checkout as it was; a dry run changes nothing; --apply
// cherry-picks the commit onto the branch and journals it.
func TestApplyToCleanDirtyDetachedAndSharedCheckouts(t *testing.T) {
	h := newHarness(t, writeTurn(writeResult()))
	ctx := context.Background()
	if _, err := h.e.ApplyToCheckout(ctx, "nope", false); core.AsError(err).Code != core.CodeTaskNotFound {
		t.Fatalf("unknown task: %v", err)
	}
	completedTask(t, h, "landing")
	before := sourceFingerprint(t, h.repo)

	if err := os.WriteFile(filepath.Join(h.repo, "scratch.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := h.e.ApplyToCheckout(ctx, "landing", true)
	if ce := mustCode(t, err, core.CodeDirtyRepository); !strings.Contains(ce.Message, "scratch.txt") || !strings.Contains(ce.Message, "commit or stash") {
		t.Fatalf("dirty: %s", ce.Message)
	}
	os.Remove(filepath.Join(h.repo, "scratch.txt"))

	git(t, h.repo, "checkout", "-q", "--detach")
	_, err = h.e.ApplyToCheckout(ctx, "landing", true)
	if ce := mustCode(t, err, core.CodeInvalidState); !strings.Contains(ce.Message, "detached HEAD") || !strings.Contains(ce.Message, "git switch") {
		t.Fatalf("detached: %s", ce.Message)
	}
	git(t, h.repo, "checkout", "-q", "main")

	other := filepath.Join(t.TempDir(), "other")
	git(t, h.repo, "worktree", "add", "-q", "--force", other, "main")
	_, err = h.e.ApplyToCheckout(ctx, "landing", true)
	if ce := mustCode(t, err, core.CodeInvalidState); !strings.Contains(ce.Message, "also checked out at") {
		t.Fatalf("shared branch: %s", ce.Message)
	}
	git(t, h.repo, "worktree", "remove", "--force", other)
	if got := sourceFingerprint(t, h.repo); got != before {
		t.Fatalf("a refusal changed the checkout:\n%s\n%s", before, got)
	}

	dry, err := h.e.ApplyToCheckout(ctx, "landing", false)
	if err != nil || dry.Applied || dry.Branch != "main" || !strings.HasPrefix(dry.Command, "git cherry-pick ") {
		t.Fatalf("dry run: %v %+v", err, dry)
	}
	if got := sourceFingerprint(t, h.repo); got != before {
		t.Fatal("the dry run changed the checkout")
	}
	head := git(t, h.repo, "rev-parse", "HEAD")
	res, err := h.e.ApplyToCheckout(ctx, "landing", true)
	if err != nil || !res.Applied || res.Head != head {
		t.Fatalf("apply: %v %+v", err, res)
	}
	if got := git(t, h.repo, "rev-parse", "HEAD"); got != res.NewHead || git(t, h.repo, "rev-parse", "HEAD^") != head {
		t.Fatalf("HEAD %s, want %s on top of %s", got, res.NewHead, head)
	}
	if b, _ := os.ReadFile(filepath.Join(h.repo, "result.txt")); string(b) != "ok\n" {
		t.Fatalf("result.txt in the checkout: %q", b)
	}
	if st := git(t, h.repo, "status", "--porcelain"); st != "" {
		t.Fatalf("the checkout is not clean after the apply: %s", st)
	}
	_, err = h.e.ApplyToCheckout(ctx, "landing", true)
	if ce := mustCode(t, err, core.CodeInvalidState); !strings.Contains(ce.Message, "already on main") {
		t.Fatalf("a second apply: %s", ce.Message)
	}
	var applied *core.AppliedData
	for _, ev := range journal(t, h, "landing") {
		if ev.Type == core.EventAppliedToCheckout {
			applied = &core.AppliedData{}
			json.Unmarshal(ev.Data, applied)
		}
	}
	if applied == nil || applied.Applied != res.NewHead || applied.Before != head || applied.Branch != "main" {
		t.Fatalf("journal: %+v", applied)
	}
}

// A commit that no longer applies to the checkout's HEAD is refused with the conflicting files,
// and the checkout is left as it was.
func TestApplyToAConflictingCheckoutListsTheConflicts(t *testing.T) {
	h := newHarness(t, writeTurn(writeResult()))
	completedTask(t, h, "late")
	if err := os.WriteFile(filepath.Join(h.repo, "result.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, h.repo, "add", "result.txt")
	git(t, h.repo, "commit", "-q", "-m", "mine")
	before := sourceFingerprint(t, h.repo)
	for _, apply := range []bool{false, true} {
		_, err := h.e.ApplyToCheckout(context.Background(), "late", apply)
		ce := mustCode(t, err, core.CodeInvalidState)
		if c, _ := ce.Details["conflicts"].([]string); len(c) != 1 || c[0] != "result.txt" || !strings.Contains(ce.Message, "result.txt conflict") {
			t.Fatalf("conflict: %s %v", ce.Message, ce.Details)
		}
	}
	if got := sourceFingerprint(t, h.repo); got != before {
		t.Fatal("a refused apply changed the checkout")
	}
	// A task in review has nothing to apply yet.
	if res, err := h.delegate("open"); err != nil || res.State != core.StateReviewRequired {
		t.Fatalf("delegate: %v %+v", err, res.TaskView)
	}
	_, err := h.e.ApplyToCheckout(context.Background(), "open", true)
	if ce := mustCode(t, err, core.CodeInvalidState); !strings.Contains(ce.Message, "finalize it first") {
		t.Fatalf("in review: %s", ce.Message)
	}
}
