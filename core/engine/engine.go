package engine

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"reasonixctl/core"
	"reasonixctl/core/gitx"
	"reasonixctl/sandbox"
	"reasonixctl/store"
)

// Config configures an Engine.
type Config struct {
	StateDir string
	Mode     string // who owns the state directory: tui, mcp, demo
	Logger   *slog.Logger

	// Worker starts a worker for a task; see WorkerLauncher.
	Worker WorkerLauncher
	// Model is the worker model, as `provider/model` or a model name (CODEX_REASONIX_MODEL).
	Model string
	// DefaultEffort applies when a task asks for none (CODEX_REASONIX_EFFORT, else medium).
	DefaultEffort string
	// DefaultWorker is the worker of a task that names none (CODEX_REASONIX_WORKER); "" is
	// reasonix. It must be one of core.WorkerNames.
	DefaultWorker string
	// PermissionMode is the default for tasks that do not choose (supervised in the dashboard,
	// automatic over MCP).
	PermissionMode core.PermissionMode
	// AllowUnsandboxed lets verification run without bubblewrap (CODEX_REASONIX_ALLOW_UNSANDBOXED).
	AllowUnsandboxed bool
	// RunGitHooks runs the repository's commit hooks, sandboxed (CODEX_REASONIX_RUN_GIT_HOOKS).
	RunGitHooks bool
	// SecretScannerArgv is an external secret scanner run on the changed files before commit.
	SecretScannerArgv []string
	// AskTimeout bounds how long an automatic-mode task waits for a person it asks (see
	// AttachSupervisor and SetAsker); zero means DefaultAskTimeout.
	AskTimeout time.Duration

	Now func() time.Time
}

// Engine implements Service over a state directory. It owns the directory for its lifetime.
type Engine struct {
	cfg     Config
	log     *slog.Logger
	store   *store.Store
	changes *changes
	key     []byte
	procs   *sandbox.Ledger // the process groups of workers and verifiers this engine runs

	locks taskLocks

	mu   sync.Mutex
	live map[string]*liveTask // tasks with a worker or an operation in flight

	closing   chan struct{}
	closeOnce sync.Once
	// bg owns every goroutine the engine starts and every callback (permission decisions,
	// watchdog timers) that reaches the store; bgMu and bgClosed make joining it after Close
	// began impossible, so the store is never used once closed.
	bg       sync.WaitGroup
	bgMu     sync.Mutex
	bgClosed bool

	askers askers
	active activeIndex // what the Codex guard hook reads; see active.go
	stamps scanStamps
}

var _ core.Service = (*Engine)(nil)

// Open takes ownership of the state directory, recovers tasks interrupted by a previous run,
// and returns the engine.
func Open(cfg Config) (*Engine, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.DefaultEffort == "" {
		cfg.DefaultEffort = "medium"
	}
	if cfg.PermissionMode == "" {
		cfg.PermissionMode = core.PermissionAutomatic
	}
	if cfg.Mode == "" {
		cfg.Mode = "engine"
	}
	if cfg.AskTimeout <= 0 {
		cfg.AskTimeout = core.DefaultAskTimeout
	}
	if _, err := core.CheckWorker(cfg.DefaultWorker, "the default worker"); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.StateDir, 0o700); err != nil {
		return nil, core.Errorf(core.CodeInternalError, nil, "state directory: %w", err)
	}
	st, err := store.Open(store.Options{Dir: cfg.StateDir, Mode: cfg.Mode, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	key, err := st.CursorKey()
	if err != nil {
		st.Close()
		return nil, core.Errorf(core.CodeInternalError, nil, "cursor key: %w", err)
	}
	procs, err := sandbox.OpenLedger(filepath.Join(cfg.StateDir, "processes"))
	if err != nil {
		st.Close()
		return nil, core.Errorf(core.CodeInternalError, nil, "%w", err)
	}
	e := &Engine{
		cfg: cfg, log: cfg.Logger, store: st, changes: newChanges(), key: key, procs: procs,
		live: map[string]*liveTask{}, closing: make(chan struct{}),
	}
	e.active.init()
	if err := e.recover(); err != nil {
		st.Close()
		return nil, err
	}
	if err := e.rebuildActive(); err != nil {
		st.Close()
		return nil, err
	}
	return e, nil
}

// closeGrace bounds how long Close waits for in-flight turns and finalizes after stopping the
// workers.
const closeGrace = 15 * time.Second

// Close stops every worker, waits for in-flight work and closes the store.
func (e *Engine) Close() error {
	var err error
	e.closeOnce.Do(func() {
		e.bgMu.Lock()
		e.bgClosed = true
		e.bgMu.Unlock()
		close(e.closing)
		e.mu.Lock()
		live := make([]*liveTask, 0, len(e.live))
		for _, t := range e.live {
			live = append(live, t)
		}
		e.mu.Unlock()
		// Side by side: each worker's group takes its own while to end, and Codex kills this
		// process about 50 ms after its SIGTERM.
		var stopping sync.WaitGroup
		for _, t := range live {
			stopping.Go(t.stop)
		}
		stopping.Wait()
		done := make(chan struct{})
		go func() {
			e.bg.Wait()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(closeGrace):
			// A stuck worker must not keep the state directory locked for ever.
			e.log.Warn("closing with work still in flight", "grace", closeGrace)
		}
		gitx.ReleaseTxDirs()
		err = e.store.Close()
	})
	return err
}

// enterBG joins the engine's wait group for work about to start, unless Close has begun; the
// caller calls e.bg.Done when the work ends.
func (e *Engine) enterBG() bool {
	e.bgMu.Lock()
	defer e.bgMu.Unlock()
	if e.bgClosed {
		return false
	}
	e.bg.Add(1)
	return true
}

// spawn runs f on a goroutine owned by the wait group. Once Close has begun it reports false
// and f never runs.
func (e *Engine) spawn(f func()) bool {
	if !e.enterBG() {
		return false
	}
	go func() {
		defer e.bg.Done()
		f()
	}()
	return true
}

// cancelInteractions cancels every pending interaction of r.
func cancelInteractions(r *taskRecord, now time.Time) []newEvent {
	var evs []newEvent
	for i := range r.Interactions {
		ia := &r.Interactions[i]
		if ia.Status == core.InteractionPending {
			ia.Status, ia.ResolvedAt = core.InteractionCancelled, core.FormatTime(now)
			evs = append(evs, event(core.EventInteractionResolved, core.InteractionResolvedData(*ia)))
		}
	}
	return evs
}

// List implements Service.
func (e *Engine) List(ctx context.Context, f core.ListFilter) ([]core.TaskView, error) {
	recs, err := e.store.List()
	if err != nil {
		return nil, core.Errorf(core.CodeInternalError, nil, "listing tasks: %w", err)
	}
	type item struct {
		v       core.TaskView
		created time.Time
	}
	var items []item
	for _, rec := range recs {
		r, err := decodeRecord(rec.Data)
		if err != nil {
			continue
		}
		if !f.All && r.State.Terminal() {
			continue
		}
		items = append(items, item{r.view(), r.CreatedAt})
	}
	sort.Slice(items, func(i, j int) bool { return items[i].created.After(items[j].created) })
	out := make([]core.TaskView, len(items))
	for i := range items {
		out[i] = items[i].v
	}
	return out, nil
}

// Get implements Service.
func (e *Engine) Get(ctx context.Context, id string) (core.TaskDetail, error) {
	r, err := e.load(id)
	if err != nil {
		return core.TaskDetail{}, err
	}
	last, _ := e.store.LastSeq(id)
	d := core.TaskDetail{
		View: r.view(), Repository: r.RepoRoot, Objective: r.Objective, Contract: r.Contract,
		Summary: r.Summary, ChangedFiles: r.ChangedFiles, DiffStat: r.DiffStat, Risks: r.risks(), SourceRisks: r.SourceRisks,
		Usage: r.Usage, Interactions: r.Interactions, Verification: r.Verification,
		Acceptance: r.Acceptance, CreatedAt: r.CreatedAt, LastSeq: last,
		Network: r.Network, ReviewSummary: r.ReviewSummary, BaseCommit: r.BaseCommit,
	}
	for _, c := range r.Comments {
		if c.Status != core.CommentDeleted {
			d.Comments = append(d.Comments, c)
		}
	}
	d.Actions = core.ActionsFor(d.View)
	if c, err := parseStoredContract(r.Contract); err == nil {
		for _, cr := range c.AcceptanceCriteria {
			d.Criteria = append(d.Criteria, core.Criterion{ID: cr.ID, Requirement: cr.Requirement, Evidence: cr.Evidence})
		}
	}
	if r.ReviewTreeHash != "" {
		d.Diff, _ = e.reviewDiff(ctx, r)
	}
	return d, nil
}

// Subscribe implements Service.
func (e *Engine) Subscribe(ctx context.Context, opts core.SubscribeOptions) (*core.Subscription, error) {
	from := opts.FromSeq
	if opts.TaskID != "" {
		if _, err := e.load(opts.TaskID); err != nil {
			return nil, err
		}
		if from == 0 {
			from = 1
		}
	}
	sub, err := e.store.Subscribe(ctx, opts.TaskID, from)
	if err != nil {
		return nil, core.Errorf(core.CodeInternalError, nil, "subscribe: %w", err)
	}
	out := make(chan core.Event, 256)
	relay := func() {
		defer close(out)
		// Waiting for the next event also watches the caller and the engine: an idle
		// subscriber must never hold Close until its grace runs out.
		events := sub.Events()
		for {
			var ev store.Event
			var ok bool
			select {
			case ev, ok = <-events:
				if !ok {
					return
				}
			case <-ctx.Done():
				sub.Close()
				return
			case <-e.closing:
				sub.Close()
				return
			}
			select {
			case out <- toEvent(ev):
			case <-ctx.Done():
				sub.Close()
				return
			case <-e.closing:
				sub.Close()
				return
			}
		}
	}
	if !e.spawn(relay) {
		sub.Close()
		return nil, core.Errorf(core.CodeInternalError, nil, "reasonixctl is shutting down")
	}
	return &core.Subscription{C: out, Err: sub.Err}, nil
}

// Inspect implements Service.
func (e *Engine) Inspect(ctx context.Context, req core.InspectRequest) (core.InspectResult, error) {
	if err := validateInspect(&req); err != nil {
		return core.InspectResult{}, err
	}
	r, err := e.load(req.TaskID)
	if err != nil {
		return core.InspectResult{}, err
	}
	if req.Cursor == "" && req.WaitMS > 0 {
		start := r.UpdatedAt
		r, _, err = e.waitFor(ctx, req.TaskID, time.Duration(req.WaitMS)*time.Millisecond, func(c *taskRecord) bool {
			switch req.WaitUntil {
			case "review_required":
				return c.State == core.StateReviewRequired || c.State.Terminal()
			case "interaction":
				return c.pendingInteraction() != nil || c.State.Terminal()
			case "terminal":
				return c.State.Terminal()
			}
			return !c.UpdatedAt.Equal(start)
		})
		if err != nil {
			return core.InspectResult{}, core.AsError(err)
		}
	}
	src := func(sec string) (any, error) {
		switch sec {
		case "status":
			return r.view(), nil
		case "summary":
			return r.Summary, nil
		case "changed_files":
			return nonNil(r.ChangedFiles), nil
		case "diff_stat":
			return r.DiffStat, nil
		case "diff":
			d, err := e.reviewDiff(ctx, r)
			return redactText(d), err
		case "verification":
			return nonNil(r.Verification), nil
		case "acceptance_evidence":
			return nonNil(r.Acceptance), nil
		case "risks":
			return nonNil(r.risks()), nil
		case "usage":
			return r.usage(), nil
		case "interactions":
			return nonNil(r.Interactions), nil
		case "events":
			evs, err := e.store.Journal(r.TaskID, 1, maxJournalRead)
			if err != nil {
				return nil, core.Errorf(core.CodeInternalError, nil, "journal: %w", err)
			}
			out := make([]inspectEvent, len(evs))
			for i, ev := range evs {
				out[i] = inspectEvent{Seq: ev.Seq, Timestamp: core.FormatTime(ev.Time), Type: ev.Type, Data: ev.Data}
			}
			return out, nil
		}
		return nil, core.Errorf(core.CodeInvalidRequest, nil, "unknown section %s", sec)
	}
	return buildInspect(e.key, req, core.FormatTime(r.UpdatedAt), src)
}

type inspectEvent struct {
	Seq       uint64          `json:"seq"`
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Data      json.RawMessage `json:"data,omitempty"`
}

// maxJournalRead bounds how many events one read of a journal returns.
const maxJournalRead = 1 << 20

// shuttingDown reports whether Close has begun: workers then end because we stop them, which
// must not be recorded as their failure.
func (e *Engine) shuttingDown() bool {
	select {
	case <-e.closing:
		return true
	default:
		return false
	}
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// usage is the task's usage, zero-valued until the worker reports any.
func (r *taskRecord) usage() core.Usage {
	if r.Usage != nil {
		return *r.Usage
	}
	return core.Usage{UsageSource: "none"}
}

// worktreeRoot is where task worktrees live.
func (e *Engine) worktreeRoot(repoID string) string {
	return filepath.Join(e.cfg.StateDir, "worktrees", repoID)
}
