package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"reasonixctl/core"
	"reasonixctl/core/contract"
	"reasonixctl/core/gitx"
	"reasonixctl/core/policy"
)

const (
	defaultWaitSeconds    = core.DefaultWaitSeconds
	maxWaitSeconds        = core.MaxWaitSeconds
	defaultFastTimeout    = core.DefaultFastTimeoutSeconds
	defaultDeepTimeout    = core.DefaultDeepTimeoutSeconds
	minExecutionTimeout   = core.MinExecutionTimeoutSeconds
	maxExecutionTimeout   = core.MaxExecutionTimeoutSeconds
	workerStartTimeout    = 60 * time.Second
	provisioningGitBudget = 30 * time.Second
	// worktreeBudget bounds the checkout of the task's worktree on its own: it takes as long as
	// the repository is large (≈ 45 s for 100,000 files on the project's virtual disk), which
	// the provisioning budget of the other git steps must not refuse.
	worktreeBudget = 10 * time.Minute
)

var hex64 = regexp.MustCompile(core.PauseReasonPattern)

var efforts = []string{"low", "medium", "high", "max"}

func validateDelegate(req *core.DelegateRequest) error {
	var issues []core.Issue
	add := func(path, msg string) { issues = append(issues, core.Issue{Path: path, Message: msg}) }
	if !core.ValidTaskID(req.TaskID) {
		add("task_id", "must match "+core.TaskIDPattern+", without '..' or a trailing '.' or '.lock'")
	}
	if len(req.Contract) == 0 {
		add("contract", "Required")
	}
	if len(req.BaseRef) > core.MaxBaseRefLen {
		add("base_ref", fmt.Sprintf("at most %d characters", core.MaxBaseRefLen))
	}
	if req.WorkerLane != "" && req.WorkerLane != core.LaneFast && req.WorkerLane != core.LaneDeep {
		add("worker_lane", "must be fast or deep")
	}
	if req.ReasoningEffort != "" && !slices.Contains(efforts, req.ReasoningEffort) {
		add("reasoning_effort", "must be low, medium, high or max")
	}
	if t := req.ExecutionTimeoutSeconds; t != 0 && (t < minExecutionTimeout || t > maxExecutionTimeout) {
		add("execution_timeout_seconds", fmt.Sprintf("must be %d..%d", minExecutionTimeout, maxExecutionTimeout))
	}
	if req.WaitMode != "" && req.WaitMode != core.WaitReview && req.WaitMode != core.WaitBackground {
		add("wait_mode", "must be review or background")
	}
	if w := req.WaitTimeoutSeconds; w != nil && (*w < 0 || *w > maxWaitSeconds) {
		add("wait_timeout_seconds", fmt.Sprintf("must be 0..%d", maxWaitSeconds))
	}
	if p := req.PauseRevision; p != nil && *p < 0 {
		add("pause_revision", "must be ≥ 0")
	}
	if req.PauseReasonHash != "" && !hex64.MatchString(req.PauseReasonHash) {
		add("pause_reason_hash", "must be 64 lowercase hex digits")
	}
	if req.PathBase != "" && req.PathBase != contract.PathBaseCwd && req.PathBase != contract.PathBaseRepository {
		add("path_base", "must be cwd or repository")
	}
	if len(issues) > 0 {
		return core.InvalidRequest("reasonix_delegate input validation failed", issues)
	}
	_, err := core.CheckWorker(req.Worker, "worker")
	return err
}

// Delegate implements Service.
func (e *Engine) Delegate(ctx context.Context, req core.DelegateRequest) (core.DelegateResult, error) {
	if err := validateDelegate(&req); err != nil {
		return core.DelegateResult{}, err
	}
	if runtime.GOOS == "windows" {
		return core.DelegateResult{}, core.Errorf(core.CodeUnsupportedPlatform, nil, "reasonixctl runs on Linux and macOS")
	}
	if !req.Authority.Writable {
		return core.DelegateResult{}, core.Errorf(core.CodeReadOnlySandbox, nil, "the supervisor's sandbox cannot write to %s", req.Authority.Cwd)
	}
	if !filepath.IsAbs(req.Authority.Cwd) {
		return core.DelegateResult{}, core.Errorf(core.CodeInvalidRequest, nil, "the invocation directory must be absolute")
	}
	cwd, err := filepath.EvalSymlinks(req.Authority.Cwd)
	if err != nil {
		return core.DelegateResult{}, core.Errorf(core.CodeNotGitRepository, nil, "%s cannot be resolved: %w", req.Authority.Cwd, err)
	}
	parsed, err := contract.Parse(req.Contract)
	if err != nil {
		return core.DelegateResult{}, contractError(err)
	}

	unlock := e.lockTask(req.TaskID)
	existing, err := e.load(req.TaskID)
	switch {
	case err == nil:
		unlock()
		return e.redelegate(ctx, req, existing, parsed, cwd)
	case core.AsError(err).Code != core.CodeTaskNotFound:
		unlock()
		return core.DelegateResult{}, err
	}
	if err := unfinished(parsed); err != nil {
		unlock()
		return core.DelegateResult{}, err
	}
	r, c, err := e.provision(ctx, req, parsed, cwd)
	unlock()
	if err != nil {
		return core.DelegateResult{}, err
	}
	if err := e.launch(ctx, r, c, false); err != nil {
		return core.DelegateResult{}, err
	}
	return e.waitDelegate(ctx, req, r.TaskID, -1, -1)
}

func contractError(err error) error {
	var inv *contract.InvalidError
	if errors.As(err, &inv) {
		return core.Errorf(core.CodeInvalidContract, &core.IssueList{Issues: toIssues(inv.Issues)}, "The contract is invalid")
	}
	return core.Errorf(core.CodeInvalidContract, nil, "The contract is invalid: %w", err)
}

func toIssues(in []contract.Issue) []core.Issue {
	out := make([]core.Issue, len(in))
	for i, is := range in {
		out[i] = core.Issue{Path: is.Path, Message: is.Message}
	}
	return out
}

// provision checks the source, creates the branch and worktree and stores the task. Nothing is
// stored unless every check passed, and a failure after the worktree exists removes it again.
func (e *Engine) provision(ctx context.Context, req core.DelegateRequest, parsed *contract.Contract, cwd string) (*taskRecord, *contract.Contract, error) {
	gctx, cancel := context.WithTimeout(ctx, provisioningGitBudget)
	defer cancel()
	baseRef := req.BaseRef
	if baseRef == "" {
		baseRef = "HEAD"
	}
	src, err := e.openSource(gctx, cwd, baseRef)
	if err != nil {
		return nil, nil, err
	}
	base := req.PathBase
	if base == "" {
		base = contract.PathBaseCwd
	}
	c, err := contract.ApplyPathBase(parsed, base, src.Root, cwd)
	if err != nil {
		return nil, nil, core.Errorf(core.CodeInvalidRequest, nil, "%w", err)
	}
	if issues := policy.GateContract(c); len(issues) > 0 {
		return nil, nil, core.Errorf(core.CodeInvalidContract, &core.IssueList{Issues: toIssues(issues)},
			"Verification commands are incompatible with immutable command policy")
	}
	// A clean checkout at the base is a clean collision scan for any scope: its stamp, taken
	// before the status, lets before_worker_start skip git when nothing moved since.
	stamp, stamped := gitx.ReadStamp(src.Root, src.CommonDir, c.WritePrefixes())
	head, err := src.CleanHead(gctx)
	if err != nil {
		return nil, nil, gitError(err)
	}
	author, err := gitx.ResolveAuthor(gctx, src.Root)
	if err != nil {
		return nil, nil, gitError(err)
	}

	lane := req.WorkerLane
	if lane == "" {
		lane = core.LaneFast
	}
	effort := req.ReasoningEffort
	if effort == "" {
		effort = e.cfg.DefaultEffort
	}
	timeout := req.ExecutionTimeoutSeconds
	if timeout == 0 {
		timeout = defaultFastTimeout
		if lane == core.LaneDeep {
			timeout = defaultDeepTimeout
		}
	}
	mode := req.PermissionMode
	if mode == "" {
		mode = e.cfg.PermissionMode
	}
	worker := cmp.Or(req.Worker, e.cfg.DefaultWorker, core.WorkerReasonix)
	now := e.now()
	r := &taskRecord{
		Version: recordVersion, TaskID: req.TaskID,
		Contract: c.CanonicalJSON(), ContractHash: c.Hash(), PathBase: string(base), Objective: c.Objective,
		RepoID: src.ID, RepoRoot: src.Root, RepoCommonDir: src.CommonDir, BaseRef: baseRef, BaseCommit: src.Base,
		Branch: gitx.BranchPrefix + req.TaskID, Network: req.Authority.Network,
		AuthorName: author.Name, AuthorEmail: author.Email,
		Lane: lane, RequestedEffort: effort, EffectiveEffort: effort, ExecutionTimeout: timeout, PermissionMode: mode,
		Worker: worker, State: core.StateProvisioning, Phase: "creating_worktree", CreatedAt: now, UpdatedAt: now,
	}
	// The task is stored before its branch and worktree exist, so that an owner killed while
	// creating them leaves a record from which the next start undoes them (see recover).
	root := filepath.Join(e.cfg.StateDir, "worktrees")
	r.Worktree, err = plannedWorktree(root, src.ID, req.TaskID)
	if err != nil {
		return nil, nil, err
	}
	created := event(core.EventTaskCreated, core.TaskCreatedData{
		State: core.StateProvisioning, ContractHash: r.ContractHash, RepositoryID: r.RepoID, Repository: r.RepoRoot, Objective: core.TruncateText(r.Objective, 2048),
	})
	if err := e.create(r, []newEvent{created}); err != nil {
		return nil, nil, err
	}
	if stamped && stamp.Settled() && head == src.Base {
		e.stamps.put(r.TaskID, src.Base, stamp)
	}
	wctx, wcancel := context.WithTimeout(ctx, worktreeBudget)
	defer wcancel()
	wt, err := gitx.CreateWorktree(wctx, src, root, req.TaskID)
	if err == nil && wt.Path != r.Worktree {
		_ = gitx.DiscardWorktree(context.Background(), wt)
		err = core.Errorf(core.CodeInternalError, nil, "the worktree was created at %s, not at %s", wt.Path, r.Worktree)
	}
	if err != nil {
		// CreateWorktree left nothing (it never adopts an existing path or branch): only the
		// record goes.
		if derr := e.store.Delete(r.TaskID); derr != nil {
			e.log.Warn("could not remove the record of a task whose worktree failed", "task", r.TaskID, "err", derr)
		}
		e.changed(r.TaskID)
		return nil, nil, gitError(err)
	}
	// Stored with the worker's start (launch), the next write of the record.
	r.WorktreeGitDir, r.WorktreeGitLink = wt.AdminDir, wt.GitLink
	return r, c, nil
}

// plannedWorktree is where CreateWorktree puts a task's worktree: <root>/<repo id>/<task>, with
// the parent's symbolic links resolved.
func plannedWorktree(root, repoID, task string) (string, error) {
	parent := filepath.Join(root, repoID)
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return "", core.Errorf(core.CodeInternalError, nil, "worktree folder: %w", err)
	}
	real, err := filepath.EvalSymlinks(parent)
	if err != nil {
		return "", core.Errorf(core.CodeInternalError, nil, "worktree folder: %w", err)
	}
	return filepath.Join(real, task), nil
}

// worktreeOf rebuilds the gitx handle of a task's worktree from its record.
func (e *Engine) worktreeOf(r *taskRecord) gitx.Worktree {
	return gitx.Worktree{Path: r.Worktree, Task: r.TaskID, Base: r.BaseCommit, RepoRoot: r.RepoRoot, CommonDir: r.RepoCommonDir,
		AdminDir: r.WorktreeGitDir, GitLink: r.WorktreeGitLink}
}

// launch starts the task's worker and its first turn (or, resuming, a continuation turn). A
// worker that cannot start leaves a new task failed and a resumed task paused: never stuck.
func (e *Engine) launch(ctx context.Context, r *taskRecord, c *contract.Contract, resuming bool) error {
	t := e.attach(r.TaskID, c, r.Worktree)
	sctx, cancel := context.WithTimeout(ctx, workerStartTimeout)
	defer cancel()
	if !resuming {
		gitDir, gitLink := r.WorktreeGitDir, r.WorktreeGitLink
		if _, err := e.update(r.TaskID, func(r *taskRecord) ([]newEvent, error) {
			r.WorktreeGitDir, r.WorktreeGitLink = gitDir, gitLink
			ev, err := setState(r, core.StateProvisioning, "starting_reasonix", "")
			return []newEvent{ev}, err
		}); err != nil {
			return err
		}
	}
	if err := e.collisionCheck(ctx, r, "before_worker_start"); err != nil {
		e.detachThis(t)
		return err
	}
	if err := e.startWorker(sctx, t, r); err != nil {
		e.detachThis(t)
		ce := core.AsError(err)
		if resuming {
			e.pause(r.TaskID, core.PhaseWorkerCrashed, "the worker could not start: "+ce.Message)
		} else if derr := e.discard(r); derr != nil {
			e.log.Warn("could not undo a task whose worker never started", "task", r.TaskID, "err", derr)
			e.fail(r.TaskID, "reasonix_unavailable", "the worker could not start: "+ce.Message)
		}
		return ce
	}
	prompt := contract.PromptWithDeadline(c, string(r.Lane), r.ExecutionTimeout)
	if resuming {
		prompt = resumePrompt(r) + "\n\n" + prompt
	}
	if _, err := e.update(r.TaskID, func(r *taskRecord) ([]newEvent, error) {
		ev, err := setState(r, core.StateRunning, "implementing", "")
		return []newEvent{ev}, err
	}); err != nil {
		e.detachThis(t)
		return err
	}
	e.startTurn(t, prompt, time.Duration(r.ExecutionTimeout)*time.Second)
	return nil
}

func resumePrompt(r *taskRecord) string {
	why := r.Reason
	if why == "" {
		why = r.Phase
	}
	return "The supervisor resumed this task after a pause (" + why + "). Continue from the current worktree state."
}

// waitDelegate waits per the request's wait mode. pausePhase/pauseSeq identify the pause a
// resume started from, so only a new pause ends the wait (-1: none).
func (e *Engine) waitDelegate(ctx context.Context, req core.DelegateRequest, id string, pauseRev, statusSeq int) (core.DelegateResult, error) {
	wait := defaultWaitSeconds
	if req.WaitTimeoutSeconds != nil {
		wait = *req.WaitTimeoutSeconds
	}
	var r *taskRecord
	var timedOut bool
	var err error
	if req.WaitMode == core.WaitBackground {
		r, err = e.load(id)
	} else {
		r, timedOut, err = e.waitFor(ctx, id, time.Duration(wait)*time.Second, func(r *taskRecord) bool {
			switch {
			case r.State == core.StateReviewRequired, r.State.Terminal(), r.pendingInteraction() != nil:
				return true
			case r.State == core.StatePaused:
				return r.PauseRevision != pauseRev || r.StatusSequence != statusSeq
			}
			return false
		})
	}
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return core.DelegateResult{}, core.Errorf(core.CodeInvalidState, &core.WaitAborted{Aborted: true}, "the wait was aborted; the task continues")
		}
		return core.DelegateResult{}, core.AsError(err)
	}
	return e.delegateResult(ctx, r, timedOut), nil
}

// openSource opens the person's checkout at cwd. A task's worktree is the worker's to write,
// .git included: it is never the source of a task, or git would find its repository through a
// link the worker chose.
func (e *Engine) openSource(ctx context.Context, cwd, ref string) (gitx.Source, error) {
	if realRoot, err := filepath.EvalSymlinks(filepath.Join(e.cfg.StateDir, "worktrees")); err == nil {
		if realCwd, err := filepath.EvalSymlinks(cwd); err == nil && (realCwd == realRoot || strings.HasPrefix(realCwd, realRoot+string(filepath.Separator))) {
			return gitx.Source{}, core.Errorf(core.CodeInvalidRequest, &core.InsideWorktree{Cwd: cwd},
				"%s is inside a task's worktree; delegate from the repository's own checkout", cwd)
		}
	}
	src, err := gitx.OpenSource(ctx, cwd, ref)
	if err != nil {
		return gitx.Source{}, gitError(err)
	}
	return src, nil
}

// redelegate handles a delegate for an existing task id: conflicts are refused, a task in
// flight is waited on, and a paused task is resumed when the caller acknowledges the pause.
func (e *Engine) redelegate(ctx context.Context, req core.DelegateRequest, r *taskRecord, parsed *contract.Contract, cwd string) (core.DelegateResult, error) {
	if r.PrunedAt != nil || r.ArchivedAt != nil {
		return core.DelegateResult{}, core.Errorf(core.CodeTaskConflict, nil, "task %s was archived; task ids are never reused, choose a new task_id", r.TaskID)
	}
	src, err := e.openSource(ctx, cwd, r.BaseCommit)
	if err != nil {
		return core.DelegateResult{}, err
	}
	conflict := func(what string) (core.DelegateResult, error) {
		return core.DelegateResult{}, core.Errorf(core.CodeTaskConflict, &core.ConflictingTask{Field: what},
			"task %s already exists with a different %s; choose a new task_id", r.TaskID, what)
	}
	if src.ID != r.RepoID {
		return conflict("repository")
	}
	bases := []contract.PathBase{req.PathBase}
	if req.PathBase == "" {
		bases = []contract.PathBase{contract.PathBase(r.PathBase), contract.PathBaseCwd, contract.PathBaseRepository}
	}
	var c *contract.Contract
	for _, b := range bases {
		if cc, err := contract.ApplyPathBase(parsed, b, src.Root, cwd); err == nil && cc.Hash() == r.ContractHash {
			c = cc
			break
		}
	}
	switch {
	case c == nil:
		return conflict("contract")
	case req.BaseRef != "" && req.BaseRef != r.BaseRef:
		return conflict("base_ref")
	case req.WorkerLane != "" && req.WorkerLane != r.Lane:
		return conflict("worker_lane")
	case req.Worker != "" && req.Worker != r.worker():
		return conflict("worker")
	case req.ReasoningEffort != "" && req.ReasoningEffort != r.RequestedEffort:
		return conflict("reasoning_effort")
	case req.ExecutionTimeoutSeconds != 0 && req.ExecutionTimeoutSeconds != r.ExecutionTimeout:
		return conflict("execution_timeout_seconds")
	}
	if !core.Allows(r.view(), core.ActionResume) || (req.Resume != nil && !*req.Resume) {
		return e.waitDelegate(ctx, req, r.TaskID, r.PauseRevision, r.StatusSequence)
	}
	if r.PauseRevision > 0 && (req.PauseRevision == nil || *req.PauseRevision != r.PauseRevision || req.PauseReasonHash != r.PauseReasonHash) {
		return core.DelegateResult{}, core.Errorf(core.CodeInvalidRequest, &core.StalePause{
			PauseRevision: r.PauseRevision, PauseReasonHash: r.PauseReasonHash, Reason: r.Reason, Phase: r.Phase,
		}, "Resuming a paused task needs its current pause_revision and pause_reason_hash; inspect the pause and send them")
	}
	if req.Authority.Network != r.Network {
		return core.DelegateResult{}, core.Errorf(core.CodeReasonixIncompatible, nil, "the network setting changed since the task was created")
	}
	if err := e.collisionCheck(ctx, r, "resume"); err != nil {
		return core.DelegateResult{}, err
	}
	e.detach(r.TaskID)
	pauseRev, seq := r.PauseRevision, r.StatusSequence
	if err := e.launch(ctx, r, c, true); err != nil {
		return core.DelegateResult{}, err
	}
	return e.waitDelegate(ctx, req, r.TaskID, pauseRev, seq+1)
}

// gitError maps a gitx error onto the closed code set; an error that has a code already keeps
// it (wrapError).
func gitError(err error) error {
	var ge *gitx.Error
	var ce *core.Error
	if errors.As(err, &ce) || !errors.As(err, &ge) {
		return wrapError(core.CodeInternalError, err, "git")
	}
	var details core.Detail
	if len(ge.Paths) > 0 {
		details = &core.GitRefusal{Paths: ge.Paths}
	}
	switch ge.Code {
	case gitx.CodeDirtyRepository:
		return core.Errorf(core.CodeDirtyRepository, details, "The source checkout must be clean before delegation%s", core.ContractFileHint(ge.Paths))
	case gitx.CodeNotGitRepository:
		return core.Errorf(core.CodeNotGitRepository, details, "%s", ge.Message)
	case gitx.CodeInvalidRequest:
		return core.Errorf(core.CodeInvalidRequest, details, "%s", ge.Message)
	case gitx.CodeOwnershipAmbiguous:
		return core.Errorf(core.CodeOwnershipAmbiguous, details, "%s", ge.Message)
	case gitx.CodeCommitFailed:
		return core.Errorf(core.CodeCommitFailed, details, "%s", ge.Message)
	}
	return core.Errorf(core.CodeInternalError, details, "%s", ge.Error())
}

// storedContracts remembers the contracts parsed from stored records: a task's contract is
// parsed at each of its checkpoints and views, and it is the same bytes every time. A parsed
// contract is shared between its callers, who only read it.
var storedContracts struct {
	mu    sync.Mutex
	byRaw map[string]*contract.Contract
}

// maxStoredContracts bounds the memo; it is emptied when full (a contract is at most 64 KiB).
const maxStoredContracts = 32

// parseStoredContract parses a record's contract. The result is shared: never change it.
func parseStoredContract(raw json.RawMessage) (*contract.Contract, error) {
	storedContracts.mu.Lock()
	c, ok := storedContracts.byRaw[string(raw)]
	storedContracts.mu.Unlock()
	if ok {
		return c, nil
	}
	c, err := contract.Parse(raw)
	if err != nil {
		return nil, err
	}
	storedContracts.mu.Lock()
	if storedContracts.byRaw == nil || len(storedContracts.byRaw) >= maxStoredContracts {
		storedContracts.byRaw = make(map[string]*contract.Contract, maxStoredContracts)
	}
	storedContracts.byRaw[string(raw)] = c
	storedContracts.mu.Unlock()
	return c, nil
}

// discard undoes a task whose worker never started — its worktree, its branch (still at the
// base) and its record — so that retrying the same request with the same task_id works.
func (e *Engine) discard(r *taskRecord) error {
	ctx, cancel := context.WithTimeout(context.Background(), provisioningGitBudget)
	defer cancel()
	if err := gitx.DiscardWorktree(ctx, e.worktreeOf(r)); err != nil {
		return err
	}
	if err := e.store.Delete(r.TaskID); err != nil {
		return err
	}
	e.changed(r.TaskID)
	return nil
}
