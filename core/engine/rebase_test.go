package engine

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
)

// commitInSource commits content as path in the source checkout and returns the new HEAD.
func commitInSource(t *testing.T, repo, path, content string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(repo, path), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "add", path)
	git(t, repo, "commit", "-q", "-m", "source: "+path)
	return git(t, repo, "rev-parse", "HEAD")
}

func (h *harness) rebase(id string) (core.TaskView, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return h.e.Control(ctx, core.Rebase{TaskID: id})
}

func rebasedEvent(t *testing.T, h *harness, id string) *core.RebasedData {
	t.Helper()
	var out *core.RebasedData
	for _, ev := range h.journal(id) {
		if ev.Type == core.EventRebased {
			out = &core.RebasedData{}
			if err := json.Unmarshal(ev.Data, out); err != nil {
				t.Fatal(err)
			}
		}
	}
	return out
}

// A task in review whose change conflicts with a commit made since on the source branch is
// moved onto the new HEAD: the worktree gets the merge with conflict markers, the journal says
// so, a repair round asks the worker to resolve them (the fake worker does), the review is a
// new revision on the new base, finalize commits on it and the commit applies to the checkout.
func TestRebaseRoundWithTheWorkerResolvingAConflict(t *testing.T) {
	scn := &acptest.Scenario{Name: "rebase", Turns: []acptest.Turn{
		{Steps: []acptest.Step{{Write: &acptest.WriteFile{Path: "result.txt", Content: "ok\n"}}}, Summary: "Wrote result.txt."},
		{Match: "These files conflict: result.txt. Conflict markers mark each one",
			Steps:   []acptest.Step{{Write: &acptest.WriteFile{Path: "result.txt", Content: "theirs\nok\n"}}},
			Summary: "Kept both lines."},
	}}
	h := newHarness(t, scn)
	res, err := h.delegate("rb")
	if err != nil || res.State != core.StateReviewRequired {
		t.Fatalf("delegate: %v %+v", err, res.TaskView)
	}
	oldBase := git(t, h.repo, "rev-parse", "HEAD")

	// Still on the HEAD: nothing to rebase.
	_, err = h.rebase("rb")
	if ce := mustCode(t, err, core.CodeInvalidState); !strings.Contains(ce.Message, "nothing to rebase") {
		t.Fatalf("unmoved: %s", ce.Message)
	}
	// A moved HEAD the change still applies to: refused, finalize and apply do it.
	commitInSource(t, h.repo, "other.txt", "other\n")
	_, err = h.rebase("rb")
	if ce := mustCode(t, err, core.CodeInvalidState); !strings.Contains(ce.Message, "applies cleanly") || !strings.Contains(ce.Message, "task apply") {
		t.Fatalf("clean: %s", ce.Message)
	}
	head := commitInSource(t, h.repo, "result.txt", "theirs\n")
	before := sourceFingerprint(t, h.repo)
	v, err := h.rebase("rb")
	if err != nil {
		t.Fatal(err)
	}
	if v.State != core.StateRunning || v.RepairRounds != 1 {
		t.Fatalf("after the rebase: %+v", v)
	}
	if got := sourceFingerprint(t, h.repo); got != before {
		t.Fatal("the rebase changed the source checkout")
	}
	ev := rebasedEvent(t, h, "rb")
	if ev == nil || ev.From != oldBase || ev.To != head || !slices.Equal(ev.Conflicts, []string{"result.txt"}) || ev.Branch != "main" {
		t.Fatalf("journal: %+v", ev)
	}
	r, timedOut, err := h.e.waitFor(context.Background(), "rb", 30*time.Second, func(r *taskRecord) bool {
		return r.State == core.StateReviewRequired && !r.RepairActive
	})
	if err != nil || timedOut {
		t.Fatalf("no review after the rebase round: %v %+v", err, r.view())
	}
	if r.BaseCommit != head || r.ReviewRevision != res.ReviewRevision+1 || r.ReviewTreeHash == res.ReviewTreeHash || len(r.RebaseConflicts) != 0 || r.ContractNote != "" {
		t.Fatalf("review after the rebase: base %s rev %d tree %s conflicts %v note %q", r.BaseCommit, r.ReviewRevision, r.ReviewTreeHash, r.RebaseConflicts, r.ContractNote)
	}
	if r.ContractHash != res.ContractHash {
		t.Fatal("the rebase changed the contract")
	}
	if got := git(t, r.Worktree, "rev-parse", "HEAD"); got != head {
		t.Fatalf("the worktree's HEAD is %s, want %s", got, head)
	}
	if st := git(t, r.Worktree, "status", "--porcelain", "--", "other.txt"); st != "" {
		t.Fatalf("other.txt of the new base is not in the worktree as committed: %q", st)
	}
	// The stale binding is refused; the fresh one commits on the new base.
	if _, err := h.finalize(res.TaskView, "looks-right"); err == nil {
		t.Fatal("finalize bound to the review before the rebase succeeded")
	}
	done, err := h.finalize(r.view(), "looks-right")
	if err != nil || done.State != core.StateCompleted {
		t.Fatalf("finalize: %v %+v", err, done)
	}
	if parent := git(t, h.repo, "rev-parse", done.CommitHash+"^"); parent != head {
		t.Fatalf("the commit's parent is %s, want the new base %s", parent, head)
	}
	applied, err := h.e.ApplyToCheckout(context.Background(), "rb", true)
	if err != nil || !applied.Applied {
		t.Fatalf("apply after the rebase: %v %+v", err, applied)
	}
	if b, _ := os.ReadFile(filepath.Join(h.repo, "result.txt")); string(b) != "theirs\nok\n" {
		t.Fatalf("result.txt in the checkout: %q", b)
	}
}

// A worker that leaves the conflict markers in place gets another repair round, and when the
// rounds are spent the task pauses with the conflicted paths in its reason; a task with no
// round left cannot be rebased.
func TestRebaseUnresolvedWithinTheRepairLimitPauses(t *testing.T) {
	scn := &acptest.Scenario{Name: "rebase-stuck", Turns: []acptest.Turn{
		{Steps: []acptest.Step{{Write: &acptest.WriteFile{Path: "result.txt", Content: "ok\n"}}}, Summary: "Wrote result.txt."},
		{Match: "keeping both intents", Steps: []acptest.Step{{Text: "I cannot tell which side is right."}}, Summary: "Left it."},
	}}
	h := newHarness(t, scn)
	res, err := h.delegate("stuck")
	if err != nil || res.State != core.StateReviewRequired {
		t.Fatalf("delegate: %v %+v", err, res.TaskView)
	}
	commitInSource(t, h.repo, "result.txt", "theirs\n")
	if _, err := h.rebase("stuck"); err != nil {
		t.Fatal(err)
	}
	r, timedOut, err := h.e.waitFor(context.Background(), "stuck", 30*time.Second, func(r *taskRecord) bool {
		return r.State == core.StatePaused
	})
	if err != nil || timedOut {
		t.Fatalf("the task did not pause: %v %+v", err, r.view())
	}
	if r.Phase != core.PhaseRebaseConflicts || !strings.Contains(r.Reason, "result.txt") || r.RepairRounds != core.MaxRepairRounds {
		t.Fatalf("pause: phase %s rounds %d reason %q", r.Phase, r.RepairRounds, r.Reason)
	}
	if b, _ := os.ReadFile(filepath.Join(r.Worktree, "result.txt")); !strings.Contains(string(b), "<<<<<<< ") || !strings.Contains(string(b), "ok\n") || !strings.Contains(string(b), "theirs\n") {
		t.Fatalf("result.txt in the worktree: %q", b)
	}
	steers := 0
	for _, ev := range h.journal("stuck") {
		if ev.Type == core.EventSteered && strings.Contains(string(ev.Data), "Conflict markers of the rebase remain in result.txt") {
			steers++
		}
	}
	if steers != 1 {
		t.Fatalf("%d second rounds for the remaining markers, want 1", steers)
	}
	_, err = h.rebase("stuck")
	mustCode(t, err, core.CodeInvalidState)
}

// The usual way to learn that the source moved: finalize finds the source's HEAD changed the
// write scope and pauses the task (source_collision). That task is rebased like one in review;
// a worktree that no longer holds the reviewed tree is not.
func TestRebaseATaskPausedByASourceCollision(t *testing.T) {
	scn := &acptest.Scenario{Name: "rebase-paused", Turns: []acptest.Turn{
		{Steps: []acptest.Step{{Write: &acptest.WriteFile{Path: "result.txt", Content: "ok\n"}}}, Summary: "Wrote result.txt."},
		{Match: "These files conflict: result.txt.",
			Steps: []acptest.Step{{Write: &acptest.WriteFile{Path: "result.txt", Content: "theirs\nok\n"}}}, Summary: "Kept both lines."},
	}}
	h := newHarness(t, scn)
	res, err := h.delegate("col")
	if err != nil || res.State != core.StateReviewRequired {
		t.Fatalf("delegate: %v %+v", err, res.TaskView)
	}
	head := commitInSource(t, h.repo, "result.txt", "theirs\n")
	_, err = h.finalize(res.TaskView, "looks-right")
	mustCode(t, err, core.CodeOwnershipAmbiguous)
	r, _ := h.e.load("col")
	if r.State != core.StatePaused || r.Phase != core.PhaseSourceCollision {
		t.Fatalf("after finalize: %s %s", r.State, r.Phase)
	}
	// A worktree changed since the review is refused, and left as it is.
	p := filepath.Join(r.Worktree, "result.txt")
	if err := os.WriteFile(p, []byte("later\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = h.rebase("col")
	if ce := mustCode(t, err, core.CodeInvalidState); !strings.Contains(ce.Message, "changed since review revision") {
		t.Fatalf("changed worktree: %s", ce.Message)
	}
	if b, _ := os.ReadFile(p); string(b) != "later\n" {
		t.Fatalf("result.txt: %q", b)
	}
	if err := os.WriteFile(p, []byte("ok\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := h.rebase("col"); err != nil {
		t.Fatal(err)
	}
	r, timedOut, err := h.e.waitFor(context.Background(), "col", 30*time.Second, func(r *taskRecord) bool {
		return r.State == core.StateReviewRequired && !r.RepairActive
	})
	if err != nil || timedOut {
		t.Fatalf("no review after the rebase round: %v %+v", err, r.view())
	}
	if r.BaseCommit != head || r.Collision != nil || r.RepairRounds != 1 {
		t.Fatalf("after the round: base %s collision %+v rounds %d", r.BaseCommit, r.Collision, r.RepairRounds)
	}
	done, err := h.finalize(r.view(), "looks-right")
	if err != nil || done.State != core.StateCompleted {
		t.Fatalf("finalize: %v %+v", err, done)
	}
	if parent := git(t, h.repo, "rev-parse", done.CommitHash+"^"); parent != head {
		t.Fatalf("the commit's parent is %s, want %s", parent, head)
	}
}

// restartWith is restart with the worker playing scn.
func (h *harness) restartWith(scn *acptest.Scenario) {
	h.t.Helper()
	h.e.Close()
	e, err := Open(Config{StateDir: h.state, Mode: "test", Worker: inProcessWorker(scn)})
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { e.Close() })
	h.e = e
}

// Issue 30: a crash after the rebase moved the worktree and its branch onto the new HEAD, before
// the task's record said so, used to leave a branch off its recorded base, refused for good as
// head_moved. The plan is recorded first, so the next start records the rebase: the base is the
// new HEAD, the journal says rebased, the worker is told of the conflicts at the next steer, and
// the task finalizes on the new base.
func TestRebaseInterruptedAfterTheWorktreeMovedIsRecordedByTheNextStart(t *testing.T) {
	scn := &acptest.Scenario{Name: "rebase-crash", Turns: []acptest.Turn{
		{Steps: []acptest.Step{{Write: &acptest.WriteFile{Path: "result.txt", Content: "ok\n"}}}, Summary: "Wrote result.txt."},
		{Match: "These files conflict: result.txt. Conflict markers mark each one",
			Steps: []acptest.Step{{Write: &acptest.WriteFile{Path: "result.txt", Content: "theirs\nok\n"}}}, Summary: "Kept both lines."},
	}}
	h := newHarness(t, scn)
	res, err := h.delegate("rbc")
	if err != nil || res.State != core.StateReviewRequired {
		t.Fatalf("delegate: %v %+v", err, res.TaskView)
	}
	oldBase := git(t, h.repo, "rev-parse", "HEAD")
	head := commitInSource(t, h.repo, "result.txt", "theirs\n")
	rebaseCrash = func(stage string) bool { return stage == "moved" }
	t.Cleanup(func() { rebaseCrash = nil })
	if _, err := h.rebase("rbc"); !errors.Is(err, errSimulatedCrash) {
		t.Fatalf("rebase: %v", err)
	}
	rebaseCrash = nil
	// What the crash left: the worktree on the new HEAD, the record on the old base.
	r, _ := h.e.load("rbc")
	if got := git(t, r.Worktree, "rev-parse", "HEAD"); got != head || r.BaseCommit != oldBase || r.RebaseIntent == nil {
		t.Fatalf("before the restart: worktree HEAD %s, record base %s, plan %+v", got, r.BaseCommit, r.RebaseIntent)
	}
	h.restartWith(scn)
	r, _ = h.e.load("rbc")
	if r.BaseCommit != head || r.RebaseIntent != nil || !slices.Equal(r.RebaseConflicts, []string{"result.txt"}) ||
		!strings.Contains(r.ContractNote, "These files conflict: result.txt.") || r.State != core.StateReviewRequired {
		t.Fatalf("after the restart: base %s plan %+v conflicts %v state %s note %q", r.BaseCommit, r.RebaseIntent, r.RebaseConflicts, r.State, r.ContractNote)
	}
	ev := rebasedEvent(t, h, "rbc")
	if ev == nil || ev.From != oldBase || ev.To != head || ev.Branch != "main" || !slices.Equal(ev.Conflicts, []string{"result.txt"}) {
		t.Fatalf("journal: %+v", ev)
	}
	// The worker is told at the next steer, resolves the conflict, and the task finalizes on
	// the new base.
	msg := "Resolve them, then ask for review as before."
	if _, err := h.e.Control(context.Background(), core.Steer{TaskID: "rbc", Message: msg}); err != nil {
		t.Fatal(err)
	}
	r, timedOut, err := h.e.waitFor(context.Background(), "rbc", 30*time.Second, func(r *taskRecord) bool {
		return r.State == core.StateReviewRequired && !r.RepairActive
	})
	if err != nil || timedOut || len(r.RebaseConflicts) != 0 {
		t.Fatalf("no review after the repair round: %v %+v conflicts %v", err, r.view(), r.RebaseConflicts)
	}
	done, err := h.finalize(r.view(), "looks-right")
	if err != nil || done.State != core.StateCompleted {
		t.Fatalf("finalize: %v %+v", err, done)
	}
	if parent := git(t, h.repo, "rev-parse", done.CommitHash+"^"); parent != head {
		t.Fatalf("the commit's parent is %s, want the new base %s", parent, head)
	}
}

// A crash after the plan was recorded, before the worktree moved: the next start drops the plan,
// the task is in review on its old base as before, and it can be rebased again.
func TestRebaseInterruptedBeforeTheWorktreeMovedIsDropped(t *testing.T) {
	h := newHarness(t, &acptest.Scenario{Name: "rebase-early", Turns: []acptest.Turn{
		{Steps: []acptest.Step{{Write: &acptest.WriteFile{Path: "result.txt", Content: "ok\n"}}}, Summary: "Wrote result.txt."},
	}})
	res, err := h.delegate("rbe")
	if err != nil || res.State != core.StateReviewRequired {
		t.Fatalf("delegate: %v %+v", err, res.TaskView)
	}
	oldBase := git(t, h.repo, "rev-parse", "HEAD")
	head := commitInSource(t, h.repo, "result.txt", "theirs\n")
	rebaseCrash = func(stage string) bool { return stage == "planned" }
	t.Cleanup(func() { rebaseCrash = nil })
	if _, err := h.rebase("rbe"); !errors.Is(err, errSimulatedCrash) {
		t.Fatalf("rebase: %v", err)
	}
	rebaseCrash = nil
	h.restart()
	r, _ := h.e.load("rbe")
	if r.BaseCommit != oldBase || r.RebaseIntent != nil || r.State != core.StateReviewRequired || rebasedEvent(t, h, "rbe") != nil {
		t.Fatalf("after the restart: base %s plan %+v state %s", r.BaseCommit, r.RebaseIntent, r.State)
	}
	if got := git(t, r.Worktree, "rev-parse", "HEAD"); got != oldBase {
		t.Fatalf("the worktree's HEAD is %s, want the old base", got)
	}
	if _, err := h.rebase("rbe"); err != nil {
		t.Fatal(err)
	}
	if r, _ := h.e.load("rbe"); r.BaseCommit != head || r.RebaseIntent != nil {
		t.Fatalf("rebased again: base %s plan %+v", r.BaseCommit, r.RebaseIntent)
	}
}
