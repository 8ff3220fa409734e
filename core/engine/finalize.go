package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"reasonixctl/core"
	"reasonixctl/core/baseline"
	"reasonixctl/core/contract"
	"reasonixctl/core/gitx"
	"reasonixctl/core/redact"
	"reasonixctl/core/review"
	"reasonixctl/sandbox"
)

// finalize turns the reviewed tree into one commit on the task branch. It is bound to the
// review revision and tree hash the supervisor approved; every failure before the commit
// returns the task to a repairable review_required.
func (e *Engine) finalize(ctx context.Context, req core.Finalize) (core.TaskView, error) {
	id := req.TaskID
	unlock := e.lockTask(id)
	r, err := e.load(id)
	if err != nil {
		unlock()
		return core.TaskView{}, err
	}
	if err := refusal(r, core.ActionFinalize); err != nil {
		unlock()
		return core.TaskView{}, err
	}
	if err := e.collisionCheck(ctx, r, "finalize_start"); err != nil {
		unlock()
		return core.TaskView{}, err
	}
	c, msg, err := e.checkFinalize(r, req)
	if err != nil {
		unlock()
		return core.TaskView{}, err
	}
	if _, err := e.update(id, func(r *taskRecord) ([]newEvent, error) {
		r.ReviewSummary = strings.TrimSpace(req.ReviewSummary)
		ev, err := setState(r, core.StateVerifying, "preflight", "")
		return []newEvent{event(core.EventReviewSummary, core.ReviewSummaryData{
			Summary: r.ReviewSummary, ReviewRevision: r.ReviewRevision, ReviewTreeHash: r.ReviewTreeHash,
			ApprovedReviewCriteria: nonNil(req.ApprovedReviewCriteria),
		}), ev}, err
	}); err != nil {
		unlock()
		return core.TaskView{}, err
	}

	// The transaction runs to its end even if the caller stops waiting: a half-finished
	// finalize would leave the task in verifying.
	done := make(chan error, 1)
	if !e.spawn(func() {
		defer unlock()
		done <- e.finalizeTx(context.Background(), id, c, req, msg)
	}) {
		// Close began between the check and the transaction: the next start finds the task in
		// verifying and returns it to review.
		unlock()
		return core.TaskView{}, core.Errorf(core.CodeInternalError, nil, "reasonixctl is shutting down; finalize did not start")
	}
	wait := defaultWaitSeconds
	if req.WaitTimeoutSeconds != nil {
		wait = *req.WaitTimeoutSeconds
	}
	timer := time.NewTimer(time.Duration(wait) * time.Second)
	defer timer.Stop()
	select {
	case err := <-done:
		if err != nil {
			return core.TaskView{}, err
		}
		r, err := e.load(id)
		if err != nil {
			return core.TaskView{}, err
		}
		return r.view(), nil
	case <-timer.C:
	case <-ctx.Done():
	}
	r, _ = e.load(id)
	return core.TaskView{}, core.Errorf(core.CodeInvalidState, &core.FinalizeRunning{Task: r.view(), TimedOut: true, Recoverable: true},
		"finalize is still running; inspect the task for its result")
}

// checkFinalize is the synchronous part: state (the lifecycle's gate, refusal), approvals,
// commit message and the bound snapshot. It writes nothing.
func (e *Engine) checkFinalize(r *taskRecord, req core.Finalize) (*contract.Contract, string, error) {
	if err := refusal(r, core.ActionFinalize); err != nil {
		return nil, "", err
	}
	if len(r.RebaseConflicts) > 0 {
		return nil, "", core.Errorf(core.CodeInvalidState, &core.RebaseConflicts{Conflicts: r.RebaseConflicts},
			"task %s's rebase left conflicts in %s that no review has seen resolved: steer the worker to resolve them", r.TaskID, strings.Join(r.RebaseConflicts, ", "))
	}
	if req.Authority.Cwd != "" && !req.Authority.Writable {
		return nil, "", core.Errorf(core.CodeReadOnlySandbox, nil, "the supervisor's sandbox is read-only")
	}
	c, err := parseStoredContract(r.Contract)
	if err != nil {
		return nil, "", core.Errorf(core.CodeInvalidState, nil, "stored contract: %w", err)
	}
	required := c.CriteriaIDs(contract.EvidenceReview)
	var missing, foreign []string
	for _, id := range required {
		if !slices.Contains(req.ApprovedReviewCriteria, id) {
			missing = append(missing, id)
		}
	}
	for _, id := range req.ApprovedReviewCriteria {
		if _, ok := c.Criterion(id); !ok {
			foreign = append(foreign, id)
		}
	}
	if len(missing) > 0 || len(foreign) > 0 {
		return nil, "", core.Errorf(core.CodeInvalidRequest, &core.ApprovalMismatch{
			Required: nonNil(required), Missing: nonNil(missing), Foreign: nonNil(foreign),
		}, "approved_review_criteria must list every review criterion and only the contract's criteria")
	}
	if err := checkAcknowledged(r, req.AcknowledgedRisks); err != nil {
		return nil, "", err
	}
	msg := req.CommitMessage
	if msg == "" {
		msg = core.DefaultCommitMessage(r.TaskID, r.Objective)
	}
	if err := gitx.ValidateMessage(msg); err != nil {
		return nil, "", core.Errorf(core.CodeInvalidRequest, nil, "commit_message: %w", err)
	}
	if redact.ContainsSecret(msg) {
		return nil, "", core.Errorf(core.CodeSecretDetected, nil, "the commit message contains a secret")
	}
	if err := validateExcuses(c, req.ExcusedChecks, msg); err != nil {
		return nil, "", err
	}
	// A review taken on another base than the task's (a rebase not yet reviewed) binds nothing.
	if *req.ExpectedReviewRevision != r.ReviewRevision || req.ExpectedReviewTreeHash != r.ReviewTreeHash || reviewedBase(r) != r.BaseCommit {
		return nil, "", core.Errorf(core.CodeInvalidRequest, &core.StaleSnapshot{
			Checkpoint: "finalize_start",
			Expected:   core.ReviewSnapshot{ReviewRevision: *req.ExpectedReviewRevision, ReviewTreeHash: req.ExpectedReviewTreeHash},
			Current:    core.ReviewSnapshot{ReviewRevision: r.ReviewRevision, ReviewTreeHash: r.ReviewTreeHash},
		}, "Finalize approval is stale: the reviewed snapshot changed since approval; inspect and approve the current snapshot")
	}
	return c, msg, nil
}

// finalizeTx is the transaction: the reviewed tree judged from its objects (scope, type,
// target, size, secrets), verification, file assertions, evidence, the external scanner and the
// compare-and-swap commit, with a source-collision guard at each checkpoint of the
// specification. A collision pauses the task and ends the transaction.
func (e *Engine) finalizeTx(ctx context.Context, id string, c *contract.Contract, req core.Finalize, msg string) error {
	r, err := e.load(id)
	if err != nil {
		return err
	}
	// No writer exists while the reviewed tree is checked and committed.
	thaw, err := e.freezeWorker(id)
	if err != nil {
		return e.backToReview(ctx, id, err)
	}
	defer thaw()
	if err := e.judgeReviewed(ctx, r, c); err != nil {
		return e.backToReview(ctx, id, err)
	}
	results, err := e.verify(ctx, r, c)
	if err != nil {
		return e.backToReview(ctx, id, err)
	}
	results, failed := e.judgeFailures(ctx, r, c, results, req.ExcusedChecks)
	// Unsynced, like the staging phase below: nothing acts on either before the synced
	// "committing", and a finalize cut short by a crash verifies again.
	_, _ = e.updateUnsynced(id, func(r *taskRecord) ([]newEvent, error) {
		r.Verification = results
		evs := make([]newEvent, len(results))
		for i, v := range results {
			evs[i] = event(core.EventVerification, v)
		}
		ev, err := setState(r, core.StateVerifying, "assertions", "")
		return append(evs, ev), err
	})
	if err := e.collisionCheck(ctx, r, "after_verification"); err != nil {
		return err
	}
	if failed != nil {
		return e.backToReview(ctx, id, failed)
	}
	msg = withExcuseTrailers(msg, results)
	assertions, err := checkAssertions(ctx, r, c)
	if err != nil {
		return e.backToReview(ctx, id, err)
	}
	evidence, err := acceptanceEvidence(c, req.ApprovedReviewCriteria, results, assertions)
	if err != nil {
		return e.backToReview(ctx, id, err)
	}
	_, _ = e.updateUnsynced(id, func(r *taskRecord) ([]newEvent, error) {
		ev, err := setState(r, core.StateVerifying, "staging", "")
		return []newEvent{ev}, err
	})
	if err := e.collisionCheck(ctx, r, "before_staging"); err != nil {
		return err
	}
	diff, err := e.reviewDiff(ctx, r)
	if err != nil {
		return e.backToReview(ctx, id, core.Errorf(core.CodeInternalError, nil, "review diff: %w", err))
	}
	if bad := review.WhitespaceErrors([]byte(diff)); len(bad) > 0 {
		return e.backToReview(ctx, id, core.Errorf(core.CodeVerificationFailed, &core.WhitespaceErrors{Whitespace: bad},
			"the change adds whitespace errors at %s", strings.Join(bad, ", ")))
	}
	if err := e.externalScan(ctx, r); err != nil {
		return e.backToReview(ctx, id, err)
	}
	if err := e.collisionCheck(ctx, r, "before_commit"); err != nil {
		return err
	}
	_, _ = e.update(id, func(r *taskRecord) ([]newEvent, error) {
		r.Acceptance = evidence
		ev, err := setState(r, core.StateVerifying, "committing", "")
		return []newEvent{ev}, err
	})
	res, err := gitx.Commit(ctx, gitx.CommitRequest{
		Worktree: e.worktreeOf(r), Tree: r.ReviewTreeHash, Files: r.ChangedFiles, Message: msg,
		Author: gitx.Identity{Name: r.AuthorName, Email: r.AuthorEmail},
		Hooks:  e.hookRunner(r), ReviewIndex: e.reviewIndexPath(id),
		BeforeCommit: func(ctx context.Context) error {
			return e.collisionCheck(ctx, r, "immediately_before_commit")
		},
	})
	if err != nil {
		return e.commitFailed(ctx, id, err)
	}
	os.Remove(e.reviewIndexPath(id)) // it served the commit
	_, err = e.update(id, func(r *taskRecord) ([]newEvent, error) {
		r.CommitHash = res.Commit
		ev, err := setState(r, core.StateCompleted, "completed", "")
		return []newEvent{ev, event(core.EventCommitted, core.CommittedData{
			CommitHash: res.Commit, Branch: r.Branch, IntegrationCommand: "git cherry-pick " + res.Commit,
		})}, err
	})
	if err != nil {
		return err
	}
	e.detachLater(id)
	return nil
}

func exitText(code *int) string {
	if code == nil {
		return "none"
	}
	return fmt.Sprint(*code)
}

// sandbox is the runner for verification, the secret scanner and hooks. The state directory is
// private to it: its socket drives every task.
func (e *Engine) sandbox() *sandbox.Runner {
	return &sandbox.Runner{AllowUnsandboxed: e.cfg.AllowUnsandboxed, Logger: e.log, Ledger: e.procs, Private: []string{e.cfg.StateDir}}
}

// freezeWorker stops every process of the task's worker, if it has one, until thaw: the worker
// and whatever it left running cannot change the worktree while finalize checks and commits it.
// A worker that cannot be frozen is ended instead; a later steer starts a fresh one.
func (e *Engine) freezeWorker(id string) (thaw func(), err error) {
	t := e.liveTask(id)
	if t == nil {
		return func() {}, nil
	}
	t.mu.Lock()
	w := t.worker
	t.mu.Unlock()
	if w == nil {
		return func() {}, nil
	}
	resume, err := w.Suspend()
	if err == nil {
		return resume, nil
	}
	e.log.Warn("the worker could not be frozen for finalize; ending it", "task", id, "err", err)
	e.detachThis(t)
	return func() {}, nil
}

// verify runs every verification command in the sandbox and keeps each log as evidence. The
// commands read exactly the reviewed tree: the worker is frozen (finalizeTx), a worktree that
// drifted from the review is refused before anything runs, everything on disk that is not an
// entry of the tree is absent from their view, and the tree is read-only to them, so no file
// that is not committed — nor a file swapped while they run — can make a check pass. They
// write their outputs to their cache, HOME and /tmp.
func (e *Engine) verify(ctx context.Context, r *taskRecord, c *contract.Contract) (out []core.VerificationResult, err error) {
	if len(c.Verification) == 0 {
		return nil, nil
	}
	outside, err := gitx.Unreviewed(ctx, e.worktreeOf(r), r.ReviewTreeHash, e.reviewIndexPath(r.TaskID), nil)
	if gitx.IsTampered(err) {
		return nil, e.tampered(r.TaskID, "before_verification", err)
	}
	if err != nil {
		return nil, wrapError(core.CodeInternalError, err, "comparing the worktree with the review")
	}
	if len(outside.Drift) > 0 {
		return nil, core.Errorf(core.CodeOwnershipAmbiguous, &core.GitRefusal{Reason: gitx.ReasonTreeMoved, Paths: limitStrings(outside.Drift, 50)},
			"the worktree changed after the review (%s); review the new snapshot and finalize again", strings.Join(limitStrings(outside.Drift, 10), ", "))
	}
	// The drift check proved the entries of the reviewed tree hold its bytes; everything else on
	// disk — ignored, a nested .git, an empty folder, the .git link — is left out of the checks'
	// view, so that they read exactly the tree the commit records.
	hidden, err := gitx.NotInTree(ctx, r.RepoCommonDir, r.ReviewTreeHash, r.Worktree)
	if err != nil {
		return nil, wrapError(core.CodeInternalError, err, "listing what the review leaves out")
	}
	hidden = slices.DeleteFunc(hidden, func(p string) bool { return p == ".git" })
	restoreLink, err := gitx.SetLinkAside(e.worktreeOf(r))
	if gitx.IsTampered(err) {
		return nil, e.tampered(r.TaskID, "before_verification", err)
	}
	if err != nil {
		return nil, wrapError(core.CodeInternalError, err, "setting the worktree's .git link aside")
	}
	defer func() {
		if rerr := restoreLink(); rerr != nil && err == nil {
			out, err = nil, e.tampered(r.TaskID, "after_verification", rerr)
		}
	}()
	runner := e.sandbox()
	logDir := filepath.Join(e.cfg.StateDir, "verification", r.TaskID)
	if err := os.MkdirAll(logDir, 0o700); err != nil {
		return nil, core.Errorf(core.CodeInternalError, nil, "verification logs: %w", err)
	}
	for _, v := range c.Verification {
		started := e.now()
		res, err := runner.Run(ctx, sandbox.Spec{
			Argv: v.Argv, Dir: filepath.Join(r.Worktree, filepath.FromSlash(v.Cwd)), Worktree: r.Worktree,
			Timeout: time.Duration(v.TimeoutSeconds) * time.Second, MaxOutput: core.VerificationLogMax,
			CacheDir: e.taskCacheDir(r.TaskID), Binds: verificationBinds(r, c, hidden), Network: r.Network,
			Hidden: hidden, ReadOnly: true,
		})
		if err != nil {
			var se *sandbox.Error
			if errors.As(err, &se) && se.Code == sandbox.CodeUnavailable {
				return nil, core.Errorf(core.CodeSandboxUnavailable, nil, "%s", se.Message)
			}
			return nil, core.Errorf(core.CodeVerificationFailed, &core.CheckNotRun{Verification: v.ID}, "verification %s could not run: %w", v.ID, err)
		}
		text := baseline.CheckLog(v, fmt.Sprintf("exit: %d timeout: %v", res.ExitCode, res.TimedOut), res)
		logPath := e.verificationLogPath(r.TaskID, v.ID)
		if err := os.WriteFile(logPath, text, 0o600); err != nil {
			return nil, core.Errorf(core.CodeInternalError, nil, "verification log: %w", err)
		}
		sum := sha256.Sum256(text)
		var exit *int
		if !res.TimedOut {
			code := res.ExitCode
			exit = &code
		}
		out = append(out, core.VerificationResult{
			ID: v.ID, Argv: v.Argv, Cwd: v.Cwd, StartedAt: core.FormatTime(started), FinishedAt: core.FormatTime(e.now()),
			ExitCode: exit, TimedOut: res.TimedOut, Passed: res.Passed(), Proves: v.Proves,
			LogPath: logPath, SHA256: hex.EncodeToString(sum[:]), OutputBytes: int64(len(text)),
		})
	}
	return out, nil
}

type assertionResult struct {
	sha   string
	bytes int64
}

// checkAssertions compares each asserted file of the reviewed tree byte for byte: what the
// commit will hold, not what the worktree holds now.
func checkAssertions(ctx context.Context, r *taskRecord, c *contract.Contract) (map[string]assertionResult, error) {
	out := map[string]assertionResult{}
	for _, a := range c.FileAssertions {
		got, ok, err := gitx.FileAt(ctx, r.RepoCommonDir, r.ReviewTreeHash, a.Path, int64(len(a.ExpectedUTF8))+1)
		if err != nil || !ok || !bytes.Equal(got, []byte(a.ExpectedUTF8)) {
			return nil, core.Errorf(core.CodeVerificationFailed, &core.FailedAssertion{FileAssertion: a.ID, Path: a.Path},
				"file assertion %s failed: %s does not hold the expected content", a.ID, a.Path)
		}
		sum := sha256.Sum256(got)
		out[a.ID] = assertionResult{hex.EncodeToString(sum[:]), int64(len(got))}
	}
	return out, nil
}

// acceptanceEvidence proves every criterion: review criteria by approval, automated ones by
// file assertions or by the passing verifications that prove them.
func acceptanceEvidence(c *contract.Contract, approved []string, results []core.VerificationResult, assertions map[string]assertionResult) ([]core.AcceptanceEvidence, error) {
	var out []core.AcceptanceEvidence
	var unproved []string
	for _, cr := range c.AcceptanceCriteria {
		ev := core.AcceptanceEvidence{CriterionID: cr.ID, Evidence: cr.Evidence}
		if cr.Evidence == contract.EvidenceReview {
			ev.Approved = slices.Contains(approved, cr.ID)
			ev.Source = "review"
			if !ev.Approved {
				unproved = append(unproved, cr.ID)
			}
			out = append(out, ev)
			continue
		}
		var ids, hashes []string
		var size int64
		for _, a := range c.FileAssertions {
			if slices.Contains(a.Proves, cr.ID) {
				ids = append(ids, a.ID)
				hashes = append(hashes, assertions[a.ID].sha)
				size += assertions[a.ID].bytes
			}
		}
		if len(ids) > 0 {
			sum := sha256.Sum256([]byte(strings.Join(hashes, "")))
			ev.Approved, ev.Source, ev.SHA256, ev.OutputBytes = true, "file_assertion:"+strings.Join(ids, ","), hex.EncodeToString(sum[:]), size
			out = append(out, ev)
			continue
		}
		for _, v := range results {
			if v.Passed && slices.Contains(v.Proves, cr.ID) {
				ids = append(ids, v.ID)
			} else if v.Excused && slices.Contains(v.Proves, cr.ID) {
				ids = append(ids, v.ID+"(excused)")
			}
		}
		if len(ids) == 0 {
			unproved = append(unproved, cr.ID)
		} else {
			ev.Approved, ev.Source = true, "verification:"+strings.Join(ids, ",")
		}
		out = append(out, ev)
	}
	if len(unproved) > 0 {
		return nil, core.Errorf(core.CodeVerificationFailed, &core.UnprovedCriteria{Unproved: unproved}, "acceptance criteria without evidence: %s", strings.Join(unproved, ", "))
	}
	return out, nil
}

// externalScan runs the configured secret scanner, if any, over the changed files. The built-in
// scan has run by then on the objects the commit will hold (judgeReviewed).
func (e *Engine) externalScan(ctx context.Context, r *taskRecord) error {
	if len(e.cfg.SecretScannerArgv) == 0 || len(r.ChangedFiles) == 0 {
		return nil
	}
	runner := e.sandbox()
	res, err := runner.Run(ctx, sandbox.Spec{
		Argv: append(slices.Clone(e.cfg.SecretScannerArgv), r.ChangedFiles...), Worktree: r.Worktree, ReadOnly: true, Timeout: core.ScannerTimeout,
	})
	if err != nil || !res.Passed() {
		return core.Errorf(core.CodeSecretDetected, nil, "the secret scanner refused the change")
	}
	return nil
}

// hookRunner runs commit hooks in the sandbox when hooks are enabled.
func (e *Engine) hookRunner(r *taskRecord) gitx.HookRunner {
	if !e.cfg.RunGitHooks {
		return nil
	}
	runner := e.sandbox()
	return func(ctx context.Context, h gitx.HookRun) error {
		res, err := runner.Run(ctx, sandbox.Spec{
			Argv: h.Argv, Dir: h.Worktree, Worktree: h.Worktree, RepoRoot: r.RepoRoot, ExtraReadOnly: h.ReadOnly,
			Env: h.Env, Timeout: h.Timeout, MaxOutput: h.MaxOutput,
		})
		if err != nil {
			return err
		}
		if !res.Passed() {
			return fmt.Errorf("hook %s failed (exit %d)", h.Name, res.ExitCode)
		}
		return nil
	}
}

// backToReview returns a failed finalize to review_required, re-capturing the tree: if the
// worktree changed, the review revision moves on and the old approval no longer applies.
func (e *Engine) backToReview(ctx context.Context, id string, cause error) error {
	ce := core.AsError(cause)
	r, err := e.load(id)
	if err != nil {
		return ce
	}
	apply := func(r *taskRecord) ([]newEvent, error) {
		if r.State != core.StateVerifying {
			return nil, nil
		}
		ev, err := setState(r, core.StateReviewRequired, core.PhaseRepairRequired, string(ce.Code)+": "+ce.Message)
		return []newEvent{ev, event(core.EventError, core.ErrorData{Text: ce.Message})}, err
	}
	if rev, err := gitx.BuildReview(ctx, e.worktreeOf(r)); err == nil {
		_ = e.saveReview(ctx, id, rev, apply)
	} else {
		_, _ = e.update(id, apply)
	}
	return ce
}

// commitFailed maps a gitx commit error: a worktree that moved past the review is
// ownership_ambiguous with a fresh review; a collision stays paused; anything else is
// commit_failed, back in review.
func (e *Engine) commitFailed(ctx context.Context, id string, err error) error {
	var ce *core.Error
	if errors.As(err, &ce) && ce.Code == core.CodeOwnershipAmbiguous {
		return ce // collisionCheck paused the task already
	}
	if gitx.IsTampered(err) {
		return e.tampered(id, "commit", err)
	}
	var ge *gitx.Error
	if errors.As(err, &ge) && ge.Code == gitx.CodeOwnershipAmbiguous {
		return e.backToReview(ctx, id, core.Errorf(core.CodeOwnershipAmbiguous, &core.GitRefusal{Reason: ge.Reason},
			"the worktree changed after review (%s); review the new snapshot and finalize again", ge.Message))
	}
	return e.backToReview(ctx, id, wrapError(core.CodeCommitFailed, err, "the commit failed"))
}

// verificationTailLines is how much of a failed verification's log its error quotes.
const verificationTailLines = 20

// verificationFailure is the error of a failed verification command: the command, how it
// ended, the end of its log and where the whole log is, so the cause is in the error itself.
func verificationFailure(v core.VerificationResult, base *core.BaselineComparison) error {
	how := "exited " + exitText(v.ExitCode)
	if v.TimedOut {
		how = "timed out"
	}
	tail := logTail(v.LogPath, verificationTailLines, 2048)
	msg := fmt.Sprintf("verification %s failed: %s %s (log: %s)", v.ID, core.ShellWords(v.Argv), how, v.LogPath)
	if tail != "" {
		msg += "\n" + tail
	}
	return core.Errorf(core.CodeVerificationFailed, &core.FailedCheck{
		Verification: v.ID, Argv: v.Argv, ExitCode: v.ExitCode, TimedOut: v.TimedOut,
		LogPath: v.LogPath, LogTail: tail, BaselineComparison: base,
	}, "%s", msg)
}

// logTail is the last lines of a log, at most maxBytes, trailing blank lines dropped.
func logTail(path string, lines, maxBytes int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return core.TailOf(string(b), lines, maxBytes)
}
