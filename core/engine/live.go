package engine

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"reasonixctl/acp"
	"reasonixctl/acp/agents"
	"reasonixctl/core"
	"reasonixctl/core/contract"
	"reasonixctl/sandbox"
)

// WorkerSpec says where a task's worker runs.
type WorkerSpec struct {
	TaskID string
	// Worker is the agent to start, one of core.WorkerNames as the task's record keeps it; ""
	// means reasonix.
	Worker   string
	Worktree string
	// Network is the task's network authority, for the commands the worker runs; the worker
	// itself always reaches its model endpoint.
	Network bool
	// Track records the worker's process group until it is killed, so that the next owner can
	// end it after a crash (see acp.LaunchConfig.Track).
	Track func(pgid int) (forget func())
	// StateDir is the state directory, which nothing in the worker's sandbox may see.
	StateDir string
	// Home is the task's private folder for its worker, under the state directory: the worker's
	// HOME inside its sandbox (see workerSandbox), kept across the task's workers and removed
	// when the task is archived.
	Home string
	// RepoCommonDir is the repository's git directory, shown read-only so that git works in the
	// worktree; the person's checkout itself is not shown.
	RepoCommonDir string
	// AllowUnsandboxed runs the worker unconfined when bubblewrap does not work
	// (CODEX_REASONIX_ALLOW_UNSANDBOXED, as for verification); otherwise it does not start.
	AllowUnsandboxed bool
}

// WorkerLauncher starts one worker for one task: the real binary (acp.Start) or, for the demo and
// tests, an in-process scripted worker connected over pipes. Each task gets its own worker, so a
// crash pauses only that task and two tasks never share a session.
type WorkerLauncher func(ctx context.Context, spec WorkerSpec) (*acp.Worker, error)

// liveTask is the in-memory side of a task whose worker is running or that has an operation in
// flight. Its record is the truth; liveTask holds only what cannot be persisted: the worker, the
// running turn and the supervisors' pending answers.
type liveTask struct {
	id       string
	e        *Engine
	contract *contract.Contract
	worktree string

	// Lock order, outermost first: the engine's task lock (Engine.lockTask), handling,
	// flushing, mu. Engine.mu is a leaf: whoever holds it takes no other lock, so it may be
	// taken under any of these. Supervisor operations on a task (steer, respond, finalize,
	// cancel) are serialised by the engine's task lock, not here.
	mu        sync.Mutex
	worker    *acp.Worker
	session   *acp.Session
	turnEnd   chan struct{} // closed when the running turn has been settled; nil when idle
	cancelled bool          // the running turn was cancelled by us
	answers   map[string]chan interactionAnswer
	watchdogs map[string]*time.Timer
	mutations map[string]bool // allowed mutating tool calls not finished yet (after_worker_mutation)
	text      textBuffer
	calls     callBatch
	// flushing orders journal writes of buffered text: the pump and a permission request may
	// both flush, and text must reach the journal in the order it was streamed.
	flushing sync.Mutex
	// handling is held by the pump while it handles one event.
	handling sync.Mutex

	pumpDone chan struct{}
	stopOnce sync.Once
}

type interactionAnswer struct {
	outcome  acp.PermissionOutcome
	response *core.InteractionResponse
}

func (e *Engine) liveTask(id string) *liveTask {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.live[id]
}

// attach returns the task's liveTask, creating it when absent.
func (e *Engine) attach(id string, c *contract.Contract, worktree string) *liveTask {
	e.mu.Lock()
	defer e.mu.Unlock()
	if t, ok := e.live[id]; ok {
		return t
	}
	t := &liveTask{
		id: id, e: e, contract: c, worktree: worktree,
		answers: map[string]chan interactionAnswer{}, watchdogs: map[string]*time.Timer{},
	}
	e.live[id] = t
	return t
}

// stop ends the worker; pending answers are cancelled by the worker's contexts ending.
func (t *liveTask) stop() {
	t.stopOnce.Do(func() {
		t.mu.Lock()
		w, s := t.worker, t.session
		for _, d := range t.watchdogs {
			d.Stop()
		}
		t.mu.Unlock()
		if s != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			_ = s.Cancel(ctx)
			cancel()
		}
		if w != nil {
			_ = w.Close()
		}
		if t.pumpDone != nil {
			<-t.pumpDone
		}
	})
}

// detach stops the task's worker and forgets it.
func (e *Engine) detach(id string) {
	e.mu.Lock()
	t := e.live[id]
	delete(e.live, id)
	e.mu.Unlock()
	if t != nil {
		t.stop()
	}
}

// detachThis stops t and forgets it if it is still the task's live side; a worker started for
// the task since then is left alone.
func (e *Engine) detachThis(t *liveTask) {
	e.mu.Lock()
	if e.live[t.id] == t {
		delete(e.live, t.id)
	}
	e.mu.Unlock()
	t.stop()
}

// startWorker launches the worker and opens a configured session for the task.
func (e *Engine) startWorker(ctx context.Context, t *liveTask, r *taskRecord) error {
	if e.cfg.Worker == nil {
		return core.Errorf(core.CodeReasonixUnavailable, nil, "no worker is configured")
	}
	w, err := e.cfg.Worker(ctx, WorkerSpec{TaskID: r.TaskID, Worker: r.Worker, Worktree: r.Worktree, Network: r.Network, Track: e.procs.Track,
		StateDir: e.cfg.StateDir, Home: e.workerHome(r.TaskID), RepoCommonDir: r.RepoCommonDir, AllowUnsandboxed: e.cfg.AllowUnsandboxed})
	if err != nil {
		return workerError(err)
	}
	mode := "normal"
	if r.Lane == core.LaneDeep {
		mode = "goal"
	}
	model := e.cfg.Model
	if w.Info().Worker != agents.Reasonix {
		// The configured model names one of Reasonix's providers; any other agent runs the
		// model of its own configuration.
		model = ""
	}
	s, err := w.NewSession(ctx, acp.SessionConfig{
		Cwd:          r.Worktree,
		Model:        model,
		Effort:       r.RequestedEffort,
		Mode:         mode,
		OnPermission: t.decide,
	})
	if err != nil {
		_ = w.Close()
		return workerError(err)
	}
	t.mu.Lock()
	t.worker, t.session = w, s
	t.pumpDone = make(chan struct{})
	pumpDone := t.pumpDone
	t.mu.Unlock()
	if !e.spawn(func() { t.pump(s) }) {
		close(pumpDone)
		_ = w.Close()
		return core.Errorf(core.CodeReasonixUnavailable, nil, "reasonixctl is shutting down")
	}
	_, err = e.update(r.TaskID, func(r *taskRecord) ([]newEvent, error) {
		r.SessionID = s.ID()
		eff := s.Effective()
		r.EffectiveEffort = effortName(eff.Effort, r.RequestedEffort)
		r.SessionMode = eff.Mode
		r.WorkMode = eff.WorkMode
		if r.WorkMode == "" {
			r.WorkMode = "standard"
		}
		return nil, nil
	})
	return err
}

// effortName maps the worker's effective effort back to the supervisor's scale.
func effortName(worker, requested string) string {
	switch worker {
	case "max", "high", "medium", "low":
		return worker
	case "auto":
		return "medium"
	case "disabled":
		return "low"
	}
	return requested
}

func workerError(err error) error {
	var ce *core.Error
	if errors.As(err, &ce) {
		return ce
	}
	var inc *acp.IncompatibleError
	if errors.As(err, &inc) {
		return core.Errorf(core.CodeReasonixIncompatible, nil, "%w", err)
	}
	var oe *acp.OptionError
	if errors.As(err, &oe) {
		return core.Errorf(core.CodeReasonixIncompatible, nil, "%w", err)
	}
	return core.Errorf(core.CodeReasonixUnavailable, nil, "%w", err)
}

// startTurn sends a prompt and settles the turn when it ends. The deadline is the task's
// execution timeout; passing it pauses the task rather than failing it, so nothing is lost. No
// goroutine of the engine's waits for the turn: the worker's answer settles it, on the goroutine
// that made the call (acp.Session.PromptThen).
func (e *Engine) startTurn(t *liveTask, text string, timeout time.Duration) {
	t.mu.Lock()
	s := t.session
	done := make(chan struct{})
	t.turnEnd, t.cancelled = done, false
	t.mu.Unlock()
	if !e.enterBG() {
		// Shutting down: no turn runs; the next start pauses the task for recovery.
		t.mu.Lock()
		t.turnEnd = nil
		t.mu.Unlock()
		close(done)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	s.PromptThen(ctx, text, func(stop acp.StopReason, err error) {
		defer e.bg.Done()
		defer close(done)
		defer cancel()
		// The turn's end goes to the journal after everything the worker sent before it.
		t.catchUp(context.Background(), s.Delivered())
		deadline := errors.Is(ctx.Err(), context.DeadlineExceeded)
		if deadline {
			cctx, ccancel := context.WithTimeout(context.Background(), 5*time.Second)
			_ = s.Cancel(cctx)
			ccancel()
		}
		sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
		status, serr := s.Status(sctx)
		scancel()
		t.flushText()
		e.settleTurn(t, turnResult{stop: string(stop), err: err, deadline: deadline, status: status, statusErr: serr})
	})
}

type turnResult struct {
	stop      string
	err       error
	deadline  bool
	status    acp.Status
	statusErr error
}

// settleTurn applies the turn-end rules: cancelled → stays paused or cancelled; worker error →
// failed or paused; ready for review → review_required with a captured tree; otherwise paused.
func (e *Engine) settleTurn(t *liveTask, res turnResult) {
	t.mu.Lock()
	for k, d := range t.watchdogs {
		d.Stop()
		delete(t.watchdogs, k)
	}
	t.turnEnd = nil
	t.mu.Unlock()

	if e.shuttingDown() || e.liveTask(t.id) != t {
		// Shutdown, or a stale turn of a worker the task has since replaced.
		return
	}
	r, err := e.load(t.id)
	if err != nil {
		return
	}
	st := res.status
	if res.statusErr == nil {
		e.applyStatus(t.id, st)
	}
	if r.State != core.StateRunning {
		// A pause, cancel or close decided the state already; the turn's end only confirms it.
		e.resetDenials(t.id)
		return
	}
	switch {
	case res.deadline:
		e.pause(t.id, "execution_timeout", "the turn passed its execution timeout and was cancelled")
	case res.err != nil && isWorkerGone(res.err):
		// Before the cancelled check: a flooded session is cancelled as it is dropped, and the
		// worker's status may already say so, but the drop is what the supervisor must learn.
		e.pause(t.id, core.PhaseWorkerCrashed, "the worker stopped: "+res.err.Error())
	case res.stop == string(acp.StopRefused):
		e.pause(t.id, core.PhasePermissionRefused, "the worker ended its turn after a permission was refused")
	case res.stop == "cancelled" || st.Goal.Status == "cancelled":
		e.pause(t.id, "turn_cancelled", "the worker's turn was cancelled")
	case res.err != nil || st.Goal.Status == "failed" || st.TurnOutcome.Kind == "error":
		why := "the worker reported an error"
		if res.err != nil {
			why = res.err.Error()
		}
		e.fail(t.id, "reasonix_error", why)
	case st.FinalReadiness.ReadyForReview || st.Goal.Status == "complete" ||
		(res.stop == "end_turn" && st.TurnOutcome.Kind == "completed") || (res.stop == "end_turn" && res.statusErr != nil):
		e.reviewReady(context.Background(), t.id)
	default:
		e.pause(t.id, core.PhaseTurnEnded, "the worker ended its turn without asking for review")
	}
	e.resetDenials(t.id)
}

func isWorkerGone(err error) bool {
	return errors.Is(err, acp.ErrWorkerExited) || errors.Is(err, acp.ErrWorkerClosed) ||
		errors.Is(err, acp.ErrProtocol) || errors.Is(err, acp.ErrFlood)
}

// pause moves a task to paused unless it is already past running.
func (e *Engine) pause(id, phase, reason string) {
	_, err := e.update(id, func(r *taskRecord) ([]newEvent, error) {
		if !r.State.Working() {
			return nil, nil
		}
		evs := cancelInteractions(r, e.now())
		ev, err := setState(r, core.StatePaused, phase, reason)
		if err != nil {
			return nil, err
		}
		return append(evs, ev), nil
	})
	if err != nil {
		e.log.Warn("pause failed", "task", id, "err", err)
	}
}

func (e *Engine) fail(id, phase, reason string) {
	_, err := e.update(id, func(r *taskRecord) ([]newEvent, error) {
		if r.State.Terminal() {
			return nil, nil
		}
		evs := cancelInteractions(r, e.now())
		ev, err := setState(r, core.StateFailed, phase, reason)
		if err != nil {
			return nil, err
		}
		return append(evs, ev, event(core.EventError, core.ErrorData{Text: reason})), nil
	})
	if err != nil {
		e.log.Warn("fail failed", "task", id, "err", err)
	}
	e.detachLater(id)
}

// detachLater stops a task's current worker off the caller's goroutine (the caller may be the
// worker's own turn goroutine).
func (e *Engine) detachLater(id string) {
	t := e.liveTask(id)
	if t == nil {
		return
	}
	if !e.spawn(func() { e.detachThis(t) }) {
		// Close stops every live task itself.
		return
	}
}

func (e *Engine) resetDenials(id string) {
	_, _ = e.update(id, func(r *taskRecord) ([]newEvent, error) {
		r.Denials = nil
		return nil, nil
	})
}

// applyStatus records the worker's status snapshot when it is newer than the last one.
func (e *Engine) applyStatus(id string, st acp.Status) {
	_, err := e.updateUnsynced(id, func(r *taskRecord) ([]newEvent, error) {
		if st.Sequence != 0 && st.Sequence <= r.WorkerSequence {
			return nil, nil
		}
		var evs []newEvent
		r.WorkerSequence = st.Sequence
		if st.FinalReadiness.Summary != "" {
			r.Summary = core.TruncateText(st.FinalReadiness.Summary, 4096)
		}
		if risks := decodeRisks(st.FinalReadiness.Risks); risks != nil {
			r.Risks = risks
		}
		if st.Mode != "" {
			r.SessionMode = st.Mode
		}
		if u := usageFrom(st.Usage.Cumulative); u != nil && (r.Usage == nil || !sameUsage(*u, *r.Usage)) {
			r.Usage = u
			evs = append(evs, event(core.EventUsage, *u))
		}
		if st.Phase != "" && st.Phase != r.WorkerPhase {
			r.WorkerPhase = st.Phase
			evs = append(evs, event(core.EventWorkerStatus, core.WorkerStatusData{Phase: st.Phase, State: st.State}))
		}
		return evs, nil
	})
	if err != nil {
		e.log.Debug("status not applied", "task", id, "err", err)
	}
}

func sameUsage(a, b core.Usage) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func usageFrom(u acp.Usage) *core.Usage {
	if u.PromptTokens == 0 && u.CompletionTokens == 0 && u.TotalTokens == 0 {
		return nil
	}
	out := &core.Usage{
		PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens,
		ReasoningTokens: u.ReasoningTokens, CacheHitTokens: u.CacheHitTokens,
		CacheMissTokens: u.CacheMissTokens, EstimatedCost: u.EstimatedCost, Currency: u.Currency,
		UsageSource: "reasonix",
	}
	if total := u.CacheHitTokens + u.CacheMissTokens; total > 0 {
		ratio := float64(u.CacheHitTokens) / float64(total)
		out.CacheHitRatio = &ratio
	}
	return out
}

func decodeRisks(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	var risks []string
	if json.Unmarshal(raw, &risks) == nil {
		for i := range risks {
			risks[i] = core.TruncateText(risks[i], 300)
		}
		if len(risks) > 20 {
			risks = risks[:20]
		}
		return risks
	}
	return nil
}

// steerText prefixes a supervisor's message the way the worker is told to expect.
func steerText(repairRound int, msg string) string {
	if repairRound > 0 {
		return "Supervisor review repair round " + strconv.Itoa(repairRound) + "/2. The contract is immutable. " + msg
	}
	return "Supervisor steering. " + msg
}

// PipeWorker starts an in-process worker per task: serve speaks ACP on r and w until r ends. The
// demo and tests use it with the scripted fake worker.
func PipeWorker(serve func(ctx context.Context, r io.Reader, w io.Writer) error) WorkerLauncher {
	return func(ctx context.Context, spec WorkerSpec) (*acp.Worker, error) {
		fromAgent, agentOut := io.Pipe()
		agentIn, toAgent := io.Pipe()
		go func() {
			err := serve(context.Background(), agentIn, agentOut)
			agentOut.CloseWithError(err)
			agentIn.CloseWithError(err)
		}()
		return acp.Connect(ctx, fromAgent, toAgent, acp.ConnectConfig{})
	}
}

// BinaryWorker starts the task's worker in its worktree, inside the sandbox (workerSandbox):
// Reasonix (REASONIX_BIN, else reasonix) by default, or the agent spec.Worker names, from its
// profile (acp/agents) with its command line overridable by REASONIXCTL_WORKER_<NAME>.
func BinaryWorker(bin string, envAllow []string, log *slog.Logger) WorkerLauncher {
	return func(ctx context.Context, spec WorkerSpec) (*acp.Worker, error) {
		profile, err := agents.Lookup(spec.Worker, os.Environ())
		if err != nil {
			return nil, core.Errorf(core.CodeReasonixUnavailable, nil, "%v", err)
		}
		if !profile.IsReasonix() {
			return startAgent(ctx, spec, profile, envAllow, log)
		}
		bin := bin
		if profile.Overridden {
			// Reasonix's launcher adds `acp` and the confinement flags itself: the override
			// names the binary, optionally followed by acp.
			if c := profile.Command; len(c) > 2 || (len(c) == 2 && c[1] != "acp") {
				return nil, core.Errorf(core.CodeReasonixUnavailable, nil,
					"%s must name the reasonix binary (optionally followed by acp), not %q", agents.OverrideVar(agents.Reasonix), strings.Join(c, " "))
			}
			bin = profile.Command[0]
		}
		confine, err := workerSandbox(spec, log)
		if err != nil {
			return nil, err
		}
		return acp.Start(ctx, acp.LaunchConfig{
			Bin: bin, Dir: spec.Worktree, Network: spec.Network, EnvAllow: envAllow, Logger: log, Track: spec.Track,
			Confine: confine,
		})
	}
}

// startAgent starts an agent other than Reasonix: its private home is prepared from its
// profile (the supervision settings written over the user's endpoint configuration), then it
// runs in the sandbox with that home, or, when unsandboxed runs are allowed and bubblewrap
// does not work, with that home as HOME.
func startAgent(ctx context.Context, spec WorkerSpec, profile agents.Profile, envAllow []string, log *slog.Logger) (*acp.Worker, error) {
	if !filepath.IsAbs(spec.Home) {
		return nil, core.Errorf(core.CodeInternalError, nil, "the worker needs a private home")
	}
	confine, err := agentSandbox(spec, profile, log)
	if err != nil {
		return nil, err
	}
	seen := sandbox.WorkerHome
	if confine == nil {
		seen = spec.Home
	}
	setup, err := profile.Home(os.Environ(), seen)
	if err != nil {
		return nil, core.Errorf(core.CodeReasonixUnavailable, nil, "reading the %s worker's configuration: %v", profile.Name, err)
	}
	if err := prepareAgentHome(spec.Home, setup); err != nil {
		return nil, core.Errorf(core.CodeInternalError, nil, "preparing the worker's home: %w", err)
	}
	var extra []string
	if confine == nil {
		extra = append(extra, "HOME="+spec.Home)
	}
	extra = append(extra, setup.Env...)
	cfg := acp.LaunchConfig{
		Agent: profile, Dir: spec.Worktree, Network: spec.Network, Logger: log, Track: spec.Track,
		EnvAllow: append(slices.Clone(envAllow), setup.EnvNames...), Env: extra, Confine: confine,
	}
	if profile.UsesFS {
		cfg.FSRoot = spec.Worktree
	}
	return acp.Start(ctx, cfg)
}
