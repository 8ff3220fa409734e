package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"reasonixctl/acp"
	"reasonixctl/acp/acptest"
	"reasonixctl/core"
	"reasonixctl/store"
)

func writeTurn(steps ...acptest.Step) *acptest.Scenario {
	return &acptest.Scenario{Turns: []acptest.Turn{{Steps: steps}}}
}

func writeResult() acptest.Step {
	return acptest.Step{Write: &acptest.WriteFile{Path: "result.txt", Content: "ok\n"}, Permission: "ask"}
}

// Scenario 2.
func TestDirtySourceIsRefusedWithoutATask(t *testing.T) {
	h := newHarness(t, nil)
	if err := os.WriteFile(filepath.Join(h.repo, "dirty.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := h.delegate("dirty")
	ce := mustCode(t, err, core.CodeDirtyRepository)
	if paths, _ := ce.Details["paths"].([]string); len(paths) != 1 || paths[0] != "dirty.txt" {
		t.Fatalf("details %v", ce.Details)
	}
	mustCode(t, func() error { _, err := h.e.Get(context.Background(), "dirty"); return err }(), core.CodeTaskNotFound)
}

// Scenario 3.
func TestForbiddenVerifierIsRefusedWithoutATask(t *testing.T) {
	h := newHarness(t, nil)
	c := strings.Replace(happyContract, `["test", "-f", "result.txt"]`, `["git", "commit", "-am", "x"]`, 1)
	_, err := h.delegate("forbidden", func(r *core.DelegateRequest) { r.Contract = json.RawMessage(c) })
	ce := mustCode(t, err, core.CodeInvalidContract)
	if !strings.Contains(toJSON(ce.Details), "git_mutation") {
		t.Fatalf("details %s", toJSON(ce.Details))
	}
	if _, err := h.e.Get(context.Background(), "forbidden"); core.AsError(err).Code != core.CodeTaskNotFound {
		t.Fatalf("a task was stored: %v", err)
	}
	if out := git(t, h.repo, "branch", "--list", "reasonix/*"); out != "" {
		t.Fatalf("branch created: %s", out)
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Scenario 4.
func TestStaleRevisionIsRefusedAndTheTaskStaysInReview(t *testing.T) {
	h := newHarness(t, nil)
	res, err := h.delegate("stale")
	if err != nil {
		t.Fatal(err)
	}
	v := res.TaskView
	v.ReviewRevision++
	_, err = h.finalize(v, "looks-right")
	ce := mustCode(t, err, core.CodeInvalidRequest)
	if ce.Details["checkpoint"] != "finalize_start" {
		t.Fatalf("details %v", ce.Details)
	}
	d, _ := h.e.Get(context.Background(), "stale")
	if d.View.State != core.StateReviewRequired {
		t.Fatalf("state %s", d.View.State)
	}
	// Missing review approval is refused too, naming what is missing.
	_, err = h.finalize(res.TaskView)
	ce = mustCode(t, err, core.CodeInvalidRequest)
	if !strings.Contains(toJSON(ce.Details), `"missing":["looks-right"]`) {
		t.Fatalf("details %s", toJSON(ce.Details))
	}
}

// Scenario 5.
func TestEditAfterReviewMovesTheRevisionAndTheNewApprovalCompletes(t *testing.T) {
	h := newHarness(t, nil)
	res, err := h.delegate("moved")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(res.Worktree, "result.txt"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = h.finalize(res.TaskView, "looks-right")
	mustCode(t, err, core.CodeOwnershipAmbiguous)
	d, _ := h.e.Get(context.Background(), "moved")
	if d.View.State != core.StateReviewRequired || d.View.Phase != core.PhaseRepairRequired || d.View.ReviewRevision != res.ReviewRevision+1 {
		t.Fatalf("after: %+v", d.View)
	}
	if _, err := h.finalize(res.TaskView, "looks-right"); core.AsError(err).Code != core.CodeInvalidRequest {
		t.Fatalf("old approval: %v", err)
	}
	v, err := h.finalize(d.View, "looks-right")
	if err != nil || v.State != core.StateCompleted {
		t.Fatalf("new approval: %v %+v", err, v)
	}
	if got := git(t, h.repo, "show", v.CommitHash+":result.txt"); got != "changed" {
		t.Fatalf("committed %q", got)
	}
}

// Scenario 7: two repair rounds, then the limit.
func TestRepairRoundsAreLimited(t *testing.T) {
	scn := &acptest.Scenario{
		Turns: []acptest.Turn{{Steps: []acptest.Step{writeResult()}}},
		After: &acptest.Turn{Steps: []acptest.Step{{Text: "Repaired."}}},
	}
	h := newHarness(t, scn)
	res, err := h.delegate("repair")
	if err != nil {
		t.Fatal(err)
	}
	msg := "please fix"
	for round := 1; round <= 2; round++ {
		v, err := h.e.Control(context.Background(), core.Steer{TaskID: "repair", Message: msg})
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if v.Phase != "repair_"+string(rune('0'+round)) || v.RepairRounds != round {
			t.Fatalf("round %d: %+v", round, v)
		}
		r, timedOut, err := h.e.waitFor(context.Background(), "repair", 30*time.Second, func(r *taskRecord) bool { return r.State == core.StateReviewRequired })
		if err != nil || timedOut {
			t.Fatalf("round %d did not return to review: %v %+v", round, err, r.view())
		}
	}
	_, err = h.e.Control(context.Background(), core.Steer{TaskID: "repair", Message: msg})
	mustCode(t, err, core.CodeRepairLimitReached)
	_ = res
}

// Scenario 8.
func TestFailingVerifierReturnsToReviewWithTheBranchAtBase(t *testing.T) {
	h := newHarness(t, nil)
	c := strings.Replace(happyContract, `["test", "-f", "result.txt"]`, `["test", "-f", "missing.txt"]`, 1)
	res, err := h.delegate("verify-fail", func(r *core.DelegateRequest) { r.Contract = json.RawMessage(c) })
	if err != nil {
		t.Fatal(err)
	}
	base := git(t, h.repo, "rev-parse", "HEAD")
	_, err = h.finalize(res.TaskView, "looks-right")
	mustCode(t, err, core.CodeVerificationFailed)
	d, _ := h.e.Get(context.Background(), "verify-fail")
	if d.View.State != core.StateReviewRequired || d.View.Phase != core.PhaseRepairRequired {
		t.Fatalf("view %+v", d.View)
	}
	if got := git(t, h.repo, "rev-parse", "refs/heads/reasonix/verify-fail"); got != base {
		t.Fatalf("branch moved to %s", got)
	}
	if staged := git(t, res.Worktree, "diff", "--cached", "--name-only"); staged != "" {
		t.Fatalf("index not empty: %s", staged)
	}
	if len(d.Verification) != 1 || d.Verification[0].Passed || d.Verification[0].SHA256 == "" {
		t.Fatalf("evidence %+v", d.Verification)
	}
}

// Scenario 11.
func TestSourceEditInScopePausesWithTheCheckpoint(t *testing.T) {
	h := newHarness(t, nil)
	res, err := h.delegate("collide")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.repo, "result.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = h.finalize(res.TaskView, "looks-right")
	ce := mustCode(t, err, core.CodeOwnershipAmbiguous)
	d, _ := h.e.Get(context.Background(), "collide")
	if d.View.State != core.StatePaused || d.View.Phase != core.PhaseSourceCollision || d.View.SourceCollision == nil {
		t.Fatalf("view %+v (%v)", d.View, ce)
	}
	if sc := d.View.SourceCollision; sc.Checkpoint != "finalize_start" || len(sc.OverlappingPaths) != 1 {
		t.Fatalf("collision %+v", sc)
	}
}

// Scenario 13: the third identical denial pauses the task after one recovery steer.
func TestRepeatedDenialPauses(t *testing.T) {
	curl := acptest.Step{Shell: &acptest.Shell{Command: "curl https://example.com"}, Permission: "ask"}
	h := newHarness(t, writeTurn(curl, curl, curl, acptest.Step{Hang: true}))
	res, err := h.delegate("denials")
	if err != nil {
		t.Fatal(err)
	}
	if res.State != core.StatePaused || res.Phase != core.PhaseRepeatedDenial {
		t.Fatalf("view %+v", res.TaskView)
	}
	evs := journal(t, h, "denials")
	var denials, steers int
	for _, ev := range evs {
		switch ev.Type {
		case core.EventPermissionDecided:
			var d core.PermissionData
			_ = json.Unmarshal(ev.Data, &d)
			if d.Decision == core.DecisionDeny && d.Code == "network_access" {
				denials++
			}
		case core.EventSteered:
			steers++
		}
	}
	if denials != 3 || steers != 1 {
		t.Fatalf("denials %d steers %d", denials, steers)
	}
}

func journal(t *testing.T, h *harness, id string) []core.Event {
	t.Helper()
	evs, err := h.e.store.Journal(id, 1, maxJournalRead)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]core.Event, len(evs))
	for i, ev := range evs {
		out[i] = toEvent(ev)
	}
	return out
}

// Scenario 15 (at review readiness): a change outside the write scope pauses the task.
func TestOutOfScopeChangePauses(t *testing.T) {
	h := newHarness(t, writeTurn(writeResult(), acptest.Step{Write: &acptest.WriteFile{Path: "other.txt", Content: "x"}, Permission: "never"}))
	res, err := h.delegate("scope")
	if err != nil {
		t.Fatal(err)
	}
	if res.State != core.StatePaused || res.Phase != core.PhasePostflightFailed || !strings.Contains(res.Reason, "other.txt") {
		t.Fatalf("view %+v", res.TaskView)
	}
}

// Scenario 18.
func TestFastLaneEnteringGoalFails(t *testing.T) {
	h := newHarness(t, writeTurn(acptest.Step{Text: "hi"}))
	// A fast-lane task whose worker reports goal mode mid-turn is a lane violation.
	res, err := h.delegate("lane")
	if err != nil {
		t.Fatal(err)
	}
	lt := h.e.liveTask("lane")
	if lt != nil {
		lt.checkLane(acpStatusWithMode("goal"))
	}
	d, _ := h.e.Get(context.Background(), "lane")
	if lt != nil && (d.View.State != core.StateFailed || d.View.Phase != "lane_policy_violation") {
		t.Fatalf("view %+v", d.View)
	}
	_ = res
}

// Scenario 19.
func TestRedelegateWithDifferentSettingsConflicts(t *testing.T) {
	h := newHarness(t, nil)
	if _, err := h.delegate("conflict"); err != nil {
		t.Fatal(err)
	}
	_, err := h.delegate("conflict", func(r *core.DelegateRequest) { r.WorkerLane = core.LaneDeep })
	mustCode(t, err, core.CodeTaskConflict)
	c := strings.Replace(happyContract, "Create result.txt", "Create another file", 1)
	_, err = h.delegate("conflict", func(r *core.DelegateRequest) { r.Contract = json.RawMessage(c) })
	mustCode(t, err, core.CodeTaskConflict)
	// The same contract with keys in another order is the same contract.
	var m map[string]any
	_ = json.Unmarshal([]byte(happyContract), &m)
	same, _ := json.Marshal(m)
	res, err := h.delegate("conflict", func(r *core.DelegateRequest) { r.Contract = same })
	if err != nil || res.State != core.StateReviewRequired {
		t.Fatalf("same contract: %v %+v", err, res.TaskView)
	}
}

// Scenario 21.
func TestReasonixDirIsExcludedFromReviewAndCommit(t *testing.T) {
	h := newHarness(t, writeTurn(writeResult(),
		acptest.Step{Write: &acptest.WriteFile{Path: ".reasonix/notes.md", Content: "scratch"}, Permission: "never"}))
	res, err := h.delegate("meta")
	if err != nil {
		t.Fatal(err)
	}
	if res.State != core.StateReviewRequired || len(res.ChangedFiles) != 1 || strings.Contains(res.Diff, ".reasonix") {
		t.Fatalf("view %+v files %v", res.TaskView, res.ChangedFiles)
	}
	v, err := h.finalize(res.TaskView, "looks-right")
	if err != nil {
		t.Fatal(err)
	}
	if files := git(t, h.repo, "show", "--name-only", "--format=", v.CommitHash); files != "result.txt" {
		t.Fatalf("commit files %q", files)
	}
}

// Scenario 24 and the restart rules: running tasks pause, review stays finalizable.
func TestRestartPausesRunningTasksAndKeepsReviewFinalizable(t *testing.T) {
	scnHang := writeTurn(acptest.Step{Hang: true})
	h := newHarness(t, scnHang)
	bg := 0
	res, err := h.delegate("running", func(r *core.DelegateRequest) { r.WaitTimeoutSeconds = &bg })
	if err != nil || res.State != core.StateRunning {
		t.Fatalf("%v %+v", err, res.TaskView)
	}
	h.e.cfg.Worker = inProcessWorker(nil)
	rev, err := h.delegate("reviewed")
	if err != nil || rev.State != core.StateReviewRequired {
		t.Fatalf("%v %+v", err, rev.TaskView)
	}
	h.e.Close()

	e2, err := Open(Config{StateDir: h.state, Mode: "test", Worker: inProcessWorker(nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	h.e = e2
	d, _ := e2.Get(context.Background(), "running")
	if d.View.State != core.StatePaused || d.View.Phase != core.PhaseRestartRecovery || d.View.PauseRevision != 1 || d.View.PauseReasonHash == "" {
		t.Fatalf("running after restart: %+v", d.View)
	}
	v, err := h.finalize(rev.TaskView, "looks-right")
	if err != nil || v.State != core.StateCompleted {
		t.Fatalf("finalize after restart: %v %+v", err, v)
	}
}

// Scenario 6: resuming needs the current pause tokens; with them the task runs again.
func TestResumeNeedsThePauseTokens(t *testing.T) {
	h := newHarness(t, writeTurn(acptest.Step{Hang: true}))
	bg := 0
	if _, err := h.delegate("resume", func(r *core.DelegateRequest) { r.WaitTimeoutSeconds = &bg }); err != nil {
		t.Fatal(err)
	}
	h.e.pause("resume", "test_pause", "paused by the test")
	_, err := h.delegate("resume")
	ce := mustCode(t, err, core.CodeInvalidRequest)
	if ce.Details["pause_revision"] != 1 || ce.Details["pause_reason_hash"] == "" {
		t.Fatalf("details %v", ce.Details)
	}
	h.e.cfg.Worker = inProcessWorker(nil)
	rev, hash := 1, ce.Details["pause_reason_hash"].(string)
	res, err := h.delegate("resume", func(r *core.DelegateRequest) { r.PauseRevision, r.PauseReasonHash = &rev, hash })
	if err != nil || res.State != core.StateReviewRequired {
		d, _ := h.e.Get(context.Background(), "resume")
		t.Fatalf("resume: %v %+v\nrecord: %+v\nevents: %s", err, res.TaskView, d.View, toJSON(journal(t, h, "resume")))
	}
}

// Supervised mode: a command the policy does not know becomes an interaction a person answers.
func TestSupervisedPermissionRoundTrip(t *testing.T) {
	h := newHarness(t, writeTurn(
		acptest.Step{Shell: &acptest.Shell{Command: "make lint", Output: "fine"}, Permission: "ask"},
		writeResult()))
	res, err := h.delegate("supervised", func(r *core.DelegateRequest) { r.PermissionMode = core.PermissionSupervised })
	if err != nil {
		t.Fatal(err)
	}
	if res.State != core.StateWaitingPermission || res.ActiveInteraction == nil {
		t.Fatalf("view %+v", res.TaskView)
	}
	ia := res.ActiveInteraction
	if ia.Kind != core.InteractionPermission || !strings.Contains(toJSON(ia.Request), `"argv":["make","lint"]`) {
		t.Fatalf("interaction %s", toJSON(ia))
	}
	if _, err := h.e.Control(context.Background(), core.Respond{TaskID: "supervised", InteractionID: "nope", Decision: "allow"}); core.AsError(err).Code != core.CodeInteractionNotFound {
		t.Fatalf("unknown interaction: %v", err)
	}
	v, err := h.e.Control(context.Background(), core.Respond{TaskID: "supervised", InteractionID: ia.ID, Decision: "allow"})
	if err != nil || v.State != core.StateRunning {
		t.Fatalf("respond: %v %+v", err, v)
	}
	r, timedOut, err := h.e.waitFor(context.Background(), "supervised", 30*time.Second, func(r *taskRecord) bool { return r.State == core.StateReviewRequired })
	if err != nil || timedOut {
		t.Fatalf("no review: %v %+v", err, r.view())
	}
}

// The worker's ask tool becomes an input interaction answered by option.
func TestQuestionIsAnsweredByOption(t *testing.T) {
	h := newHarness(t, writeTurn(
		acptest.Step{Ask: &acptest.Question{Question: "Which greeting?", Options: []acptest.Choice{{Label: "ok"}, {Label: "hello"}}}},
		writeResult()))
	res, err := h.delegate("question")
	if err != nil {
		t.Fatal(err)
	}
	if res.State != core.StateWaitingInput || res.ActiveInteraction == nil || res.ActiveInteraction.Kind != core.InteractionInput {
		t.Fatalf("view %+v", res.TaskView)
	}
	if _, err := h.e.Control(context.Background(), core.Respond{TaskID: "question", InteractionID: res.ActiveInteraction.ID, Decision: "allow", Answer: "hello"}); err != nil {
		t.Fatal(err)
	}
	if _, timedOut, err := h.e.waitFor(context.Background(), "question", 30*time.Second, func(r *taskRecord) bool { return r.State == core.StateReviewRequired }); err != nil || timedOut {
		t.Fatalf("no review: %v", err)
	}
}

// A worker crash mid-turn pauses its task only.
func TestWorkerCrashPausesOnlyItsTask(t *testing.T) {
	h := newHarness(t, writeTurn(acptest.Step{Crash: &acptest.Crash{ExitCode: 3}}))
	res, err := h.delegate("crash")
	if err != nil {
		t.Fatal(err)
	}
	if res.State != core.StatePaused || res.Phase != core.PhaseWorkerCrashed {
		t.Fatalf("view %+v", res.TaskView)
	}
	h.e.cfg.Worker = inProcessWorker(nil)
	other, err := h.delegate("healthy")
	if err != nil || other.State != core.StateReviewRequired {
		t.Fatalf("other task: %v %+v", err, other.TaskView)
	}
}

// Parallel tasks on different repositories never share anything and all complete.
func TestParallelTasksAcrossRepositoriesComplete(t *testing.T) {
	h := newHarness(t, nil)
	repos := make([]string, 8)
	for i := range repos {
		repos[i] = newRepo(t)
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(repos))
	for i, repo := range repos {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := "par-" + string(rune('a'+i))
			res, err := h.delegate(id, func(r *core.DelegateRequest) { r.Authority.Cwd = repo })
			if err != nil {
				errs <- err
				return
			}
			if _, err := h.finalize(res.TaskView, "looks-right"); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	views, _ := h.e.List(context.Background(), core.ListFilter{All: true})
	seen := map[string]bool{}
	for _, v := range views {
		if v.State != core.StateCompleted || seen[v.Worktree] || seen[v.SessionID] {
			t.Errorf("task %+v", v)
		}
		seen[v.Worktree], seen[v.SessionID] = true, true
	}
}

func TestCancelAndCloseAreTerminalAndIdempotent(t *testing.T) {
	h := newHarness(t, writeTurn(acptest.Step{Hang: true}))
	bg := 0
	if _, err := h.delegate("cancel", func(r *core.DelegateRequest) { r.WaitTimeoutSeconds = &bg }); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		v, err := h.e.Control(context.Background(), core.Cancel{TaskID: "cancel"})
		if err != nil || v.State != core.StateCancelled {
			t.Fatalf("cancel: %v %+v", err, v)
		}
	}
	msg := "x"
	_, err := h.e.Control(context.Background(), core.Steer{TaskID: "cancel", Message: msg})
	mustCode(t, err, core.CodeInvalidState)
}

func TestInspectPagesWithSignedCursors(t *testing.T) {
	h := newHarness(t, nil)
	if _, err := h.delegate("pages"); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := h.e.Inspect(ctx, core.InspectRequest{TaskID: "pages", Include: []string{"events"}, MaxBytes: 1024})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated || res.NextCursor == "" {
		t.Fatalf("no page: %+v", res)
	}
	var text string
	var page string
	_ = json.Unmarshal(res.Sections["events"], &page)
	text += page
	cursor := res.NextCursor
	for cursor != "" {
		res, err = h.e.Inspect(ctx, core.InspectRequest{TaskID: "pages", Include: []string{"events"}, MaxBytes: 1024, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		page = ""
		if err := json.Unmarshal(res.Sections["events"], &page); err != nil {
			t.Fatalf("page is not a string: %s", res.Sections["events"])
		}
		text += page
		cursor = res.NextCursor
	}
	var evs []map[string]any
	if err := json.Unmarshal([]byte(text), &evs); err != nil || len(evs) < 5 {
		t.Fatalf("pages do not join into the journal: %v (%d events)", err, len(evs))
	}
	tampered := cursor + "x"
	_, err = h.e.Inspect(ctx, core.InspectRequest{TaskID: "pages", Include: []string{"events"}, Cursor: res.NextCursor + tampered})
	mustCode(t, err, core.CodeInvalidRequest)
	_, err = h.e.Inspect(ctx, core.InspectRequest{TaskID: "nope"})
	mustCode(t, err, core.CodeTaskNotFound)
}

// Scenario 9.
func TestTrailingWhitespaceFailsVerification(t *testing.T) {
	h := newHarness(t, writeTurn(acptest.Step{Write: &acptest.WriteFile{Path: "result.txt", Content: "ok  \n"}, Permission: "ask"}))
	res, err := h.delegate("blanks")
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.finalize(res.TaskView, "looks-right")
	ce := mustCode(t, err, core.CodeVerificationFailed)
	if !strings.Contains(toJSON(ce.Details), "result.txt:1") {
		t.Fatalf("details %s", toJSON(ce.Details))
	}
	if staged := git(t, res.Worktree, "diff", "--cached", "--name-only"); staged != "" {
		t.Fatalf("staged: %s", staged)
	}
}

// Scenario 10.
func TestFailingPreCommitHookIsCommitFailedAndTheBranchStaysAtBase(t *testing.T) {
	h := newHarness(t, nil, func(c *Config) { c.RunGitHooks = true })
	hook := filepath.Join(h.repo, ".git", "hooks", "pre-commit")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\necho refused >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	base := git(t, h.repo, "rev-parse", "HEAD")
	res, err := h.delegate("hooked")
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.finalize(res.TaskView, "looks-right")
	mustCode(t, err, core.CodeCommitFailed)
	if got := git(t, h.repo, "rev-parse", "refs/heads/reasonix/hooked"); got != base {
		t.Fatalf("branch moved to %s", got)
	}
	d, _ := h.e.Get(context.Background(), "hooked")
	if d.View.State != core.StateReviewRequired {
		t.Fatalf("state %s", d.View.State)
	}
}

// Scenario 14, at the unit where it lives: an allowed command that outlives its watchdog pauses
// the task.
func TestWatchdogPausesACommandThatRunsTooLong(t *testing.T) {
	h := newHarness(t, writeTurn(acptest.Step{Hang: true}))
	bg := 0
	if _, err := h.delegate("watchdog", func(r *core.DelegateRequest) { r.WaitTimeoutSeconds = &bg }); err != nil {
		t.Fatal(err)
	}
	lt := h.e.liveTask("watchdog")
	lt.armWatchdog(acp.PermissionRequest{ToolCallID: "gate-9", Title: "bash make slow"}, 10*time.Millisecond)
	r, timedOut, err := h.e.waitFor(context.Background(), "watchdog", 10*time.Second, func(r *taskRecord) bool { return r.State == core.StatePaused })
	if err != nil || timedOut || r.Phase != core.PhaseCommandTimeout {
		t.Fatalf("%v %+v", err, r.view())
	}
	// A command that finishes in time clears its watchdog.
	lt.armWatchdog(acp.PermissionRequest{ToolCallID: "gate-10", CallID: "call_1"}, time.Hour)
	lt.commandFinished(acp.ToolCallUpdate{ID: "call_1", Status: "completed"})
	lt.mu.Lock()
	left := len(lt.watchdogs)
	lt.mu.Unlock()
	if left != 0 {
		t.Fatalf("%d watchdogs left", left)
	}
}

// Scenario 23: a record of an unknown schema version fails closed and is not rewritten.
func TestUnknownRecordVersionFailsClosed(t *testing.T) {
	h := newHarness(t, nil)
	if _, err := h.e.store.Update("future", func([]byte, bool) ([]byte, []store.NewEvent, error) {
		return []byte(`{"version":99,"task_id":"future"}`), nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	_, err := h.e.Get(context.Background(), "future")
	mustCode(t, err, core.CodeInvalidState)
	msg := "x"
	_, err = h.e.Control(context.Background(), core.Steer{TaskID: "future", Message: msg})
	mustCode(t, err, core.CodeInvalidState)
	raw, _ := h.e.store.Get("future")
	if string(raw) != `{"version":99,"task_id":"future"}` {
		t.Fatalf("record rewritten: %s", raw)
	}
}

// Scenario 25 at the engine: a verifier sees neither the user's HOME nor the supervisor's
// secrets. Its HOME is the task's private cache.
func TestVerifierSeesNoHomeAndNoSecrets(t *testing.T) {
	t.Setenv("SUPERVISOR_API_TOKEN", "sk-abcdefghijklmnopqrstuvwxyz")
	h := newHarness(t, nil)
	c := strings.Replace(happyContract, `["test", "-f", "result.txt"]`, `["printenv", "SUPERVISOR_API_TOKEN"]`, 1)
	res, err := h.delegate("env-secret", func(r *core.DelegateRequest) { r.Contract = json.RawMessage(c) })
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.finalize(res.TaskView, "looks-right")
	if e := mustCode(t, err, core.CodeVerificationFailed); !strings.Contains(e.Message, "printenv SUPERVISOR_API_TOKEN exited 1") {
		t.Fatalf("the secret is visible, or printenv failed otherwise: %s", e.Message)
	}

	h = newHarness(t, nil)
	c = strings.Replace(happyContract, `["test", "-f", "result.txt"]`, `["printenv", "HOME"]`, 1)
	res, err = h.delegate("env-home", func(r *core.DelegateRequest) { r.Contract = json.RawMessage(c) })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.finalize(res.TaskView, "looks-right"); err != nil {
		t.Fatal(err)
	}
	d, _ := h.e.Get(context.Background(), "env-home")
	log, _ := os.ReadFile(d.Verification[0].LogPath)
	userHome, _ := os.UserHomeDir()
	// A home of its own, made anew in the sandbox's /tmp for each command.
	if want := "/tmp/home"; !strings.Contains(string(log), "\n"+want+"\n") || strings.Contains(string(log), "\n"+userHome+"\n") {
		t.Fatalf("HOME inside the sandbox is not the private one %s:\n%s", want, log)
	}
}

// floodGate runs the scripted worker in process and holds its first flood update until the test
// has stalled the engine's consumer (by holding the engine's lock, which every event handler
// takes first). ended closes once the worker has written its answer to the prompt: every update
// before it has then been read and queued, because the pipe hands over a line only when the
// reader has handled the lines before it.
type floodGate struct {
	w                       io.Writer
	started, proceed, ended chan struct{}
	startOnce, endOnce      sync.Once
}

func (g *floodGate) Write(p []byte) (int, error) {
	line := string(p)
	if strings.Contains(line, `flood 0\n`) || strings.Contains(line, `"flood_0"`) {
		g.startOnce.Do(func() { close(g.started) })
		<-g.proceed
	}
	n, err := g.w.Write(p)
	if strings.Contains(line, `"stopReason"`) {
		g.endOnce.Do(func() { close(g.ended) })
	}
	return n, err
}

// floodWithStalledConsumer delegates a task whose worker floods while the engine reads none of
// its events, then lets the engine read again and returns the task once it settles.
func floodWithStalledConsumer(t *testing.T, flood acptest.Step) *taskRecord {
	t.Helper()
	g := &floodGate{started: make(chan struct{}), proceed: make(chan struct{}), ended: make(chan struct{})}
	scn := writeTurn(writeResult(), flood)
	h := newHarness(t, nil, func(c *Config) {
		c.Worker = PipeWorker(func(ctx context.Context, r io.Reader, w io.Writer) error {
			g.w = w
			return acptest.Serve(ctx, r, g, acptest.Options{Scenario: scn})
		})
	})
	bg := 0
	if _, err := h.delegate("flood", func(r *core.DelegateRequest) { r.WaitTimeoutSeconds = &bg }); err != nil {
		t.Fatal(err)
	}
	arrived := func(ch chan struct{}) bool {
		select {
		case <-ch:
			return true
		case <-time.After(30 * time.Second):
			return false
		}
	}
	if !arrived(g.started) {
		t.Fatal("the worker never started its flood")
	}
	h.e.mu.Lock()
	close(g.proceed)
	ended := arrived(g.ended)
	// Unlocked before failing: the cleanup closes the engine, which takes the lock.
	h.e.mu.Unlock()
	if !ended {
		t.Fatal("the worker never answered the prompt")
	}
	r, timedOut, err := h.e.waitFor(context.Background(), "flood", 30*time.Second, func(r *taskRecord) bool {
		return r.State == core.StatePaused || r.State == core.StateReviewRequired || r.State.Terminal()
	})
	if err != nil || timedOut {
		t.Fatalf("the task did not settle: %v, timed out %v", err, timedOut)
	}
	// Nothing hangs: the task still takes a supervisor's action.
	if _, err := h.e.Control(context.Background(), core.Cancel{TaskID: "flood"}); err != nil {
		t.Fatalf("cancel after the flood: %v", err)
	}
	return r
}

// A worker flooding updates the client cannot merge, while the engine reads none, overflows the
// session's queue (48 MiB of tool calls against its 32 MiB): the session is dropped and the task
// pauses as a crashed worker.
func TestFloodingWorkerPausesItsTask(t *testing.T) {
	r := floodWithStalledConsumer(t, acptest.Step{Flood: 3 * 1024, FloodKind: "tool_call", FloodBytes: 16 << 10})
	if r.State != core.StatePaused || r.Phase != core.PhaseWorkerCrashed || !strings.Contains(r.Reason, "event queue overflow") {
		t.Fatalf("state %s phase %s reason %q", r.State, r.Phase, r.Reason)
	}
}

// A flood of text, even unread, merges in the queue: the turn ends normally in review.
func TestFloodOfTextIsMergedAndReachesReview(t *testing.T) {
	r := floodWithStalledConsumer(t, acptest.Step{Flood: 3 * 4096})
	if r.State != core.StateReviewRequired || r.Phase != core.PhaseReview {
		t.Fatalf("state %s phase %s reason %q", r.State, r.Phase, r.Reason)
	}
}

// A worker that cannot start leaves nothing behind, so the same request can be retried.
func TestWorkerThatCannotStartLeavesNothingAndTheRetryWorks(t *testing.T) {
	h := newHarness(t, nil, func(c *Config) {
		c.Worker = func(context.Context, WorkerSpec) (*acp.Worker, error) {
			return nil, fmt.Errorf("%w: no such binary", acp.ErrUnavailable)
		}
	})
	_, err := h.delegate("retry")
	ce := mustCode(t, err, core.CodeReasonixUnavailable)
	if !ce.Retryable {
		t.Fatalf("not retryable: %+v", ce)
	}
	if out := git(t, h.repo, "branch", "--list", "reasonix/*"); out != "" {
		t.Fatalf("branch left behind: %s", out)
	}
	if out := git(t, h.repo, "worktree", "list", "--porcelain"); strings.Count(out, "worktree ") != 1 {
		t.Fatalf("worktree left behind:\n%s", out)
	}
	if _, err := h.e.Get(context.Background(), "retry"); core.AsError(err).Code != core.CodeTaskNotFound {
		t.Fatalf("record left behind: %v", err)
	}
	h.e.cfg.Worker = inProcessWorker(nil)
	res, err := h.delegate("retry")
	if err != nil || res.State != core.StateReviewRequired {
		t.Fatalf("retry: %v %+v", err, res.TaskView)
	}
	if evs := journal(t, h, "retry"); evs[0].Seq != 1 || evs[0].Type != core.EventTaskCreated {
		t.Fatalf("the retried task's journal starts at %d %s", evs[0].Seq, evs[0].Type)
	}
}
