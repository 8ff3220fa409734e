package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"
)

// StopReason is why a turn ended.
type StopReason string

const (
	StopEndTurn   StopReason = "end_turn"
	StopCancelled StopReason = "cancelled"
	// StopRefused: the agent ended its turn as cancelled after a permission was rejected, and
	// nobody had asked it to cancel (Codex ends the whole turn on `abort`). It is a denial, not
	// a cancellation.
	StopRefused StopReason = "refused"
)

// Session modes the supervisor uses: the fast lane runs normal, the deep lane goal.
const (
	ModeNormal = "normal"
	ModeGoal   = "goal"
)

// promptCancelGrace is how long Prompt waits for the worker to confirm a cancel it sent
// because the caller's context ended.
const promptCancelGrace = 2 * time.Second

// SessionConfig is what a session should run with. Settings are chosen from what the worker
// offers; one it cannot honour fails the call with an *OptionError.
type SessionConfig struct {
	Cwd string // absolute; the worktree
	// Model as `provider/model` or a bare model name; "" keeps the worker's default.
	Model string
	// Effort is low, medium, high or max, mapped to the nearest value the worker offers;
	// "" keeps the default. A model without an effort option runs at its default.
	Effort string
	// Mode is ModeNormal or ModeGoal; "" keeps the worker's default.
	Mode string
	// OnPermission decides permission requests; nil rejects every request once.
	OnPermission PermissionFunc
}

// Effective reports the settings a session really got.
type Effective struct {
	Model        string
	Effort       string // "" when the model offers no effort option (it runs at its default)
	ToolApproval string
	Mode         string
	WorkMode     string // "" when the worker has no (non-deprecated) work_mode option
	// Steer is how Steer reaches a running turn of an agent other than Reasonix
	// (WorkerInfo.Steer); "" for Reasonix, whose steer extension adds to the running turn.
	Steer string
}

// Session is one ACP session on a Worker.
type Session struct {
	w            *Worker
	id           string
	onPermission PermissionFunc
	q            *eventQueue
	ctx          context.Context // ends when the session is closed or fails
	end          context.CancelCauseFunc
	endOnce      sync.Once

	configMu sync.Mutex // config changes and prompt starts, one at a time

	mu         sync.Mutex
	effective  Effective
	options    []ConfigOption
	modes      []string
	turnCancel context.CancelCauseFunc // non-nil while a prompt is in flight
	turnCtx    context.Context
	calls      []pendingCall

	// Plain-ACP agents (any but Reasonix): tool calls by id, what the current turn did, the
	// steers waiting for the next prompt, and the status made from stopReason and usage.
	foreign foreignState
}

// pendingCall is a tool call that has not finished, kept to match permission gates to it.
type pendingCall struct {
	id, kind, input string
	gated           bool
}

// NewSession opens a session in cfg.Cwd and applies cfg.
func (w *Worker) NewSession(ctx context.Context, cfg SessionConfig) (*Session, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	resp, err := w.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: cfg.Cwd, McpServers: []sdk.McpServer{}, Meta: w.agent.NewSessionMeta})
	if err != nil {
		return nil, w.callErr(ctx, "session/new", err)
	}
	s := w.newSession(string(resp.SessionId), cfg)
	if err := w.register(s); err != nil {
		s.q.end(nil)
		return nil, err
	}
	if err := s.configure(ctx, cfg, resp.ConfigOptions, resp.Modes); err != nil {
		_ = s.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	return s, nil
}

// ResumeSession reopens a session the worker keeps, without replaying it, and applies cfg.
func (w *Worker) ResumeSession(ctx context.Context, id string, cfg SessionConfig) (*Session, error) {
	if !w.info.ResumeSession {
		return nil, fmt.Errorf("%w: session/resume", ErrUnsupported)
	}
	return w.reopen(ctx, id, cfg, "session/resume", func(ctx context.Context) ([]sdk.SessionConfigOption, *sdk.SessionModeState, error) {
		r, err := w.conn.ResumeSession(ctx, sdk.ResumeSessionRequest{SessionId: sdk.SessionId(id), Cwd: cfg.Cwd, McpServers: []sdk.McpServer{}})
		return r.ConfigOptions, r.Modes, err
	})
}

// LoadSession reopens a session and replays its history as events, then applies cfg.
func (w *Worker) LoadSession(ctx context.Context, id string, cfg SessionConfig) (*Session, error) {
	if !w.info.LoadSession {
		return nil, fmt.Errorf("%w: session/load", ErrUnsupported)
	}
	return w.reopen(ctx, id, cfg, "session/load", func(ctx context.Context) ([]sdk.SessionConfigOption, *sdk.SessionModeState, error) {
		r, err := w.conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: sdk.SessionId(id), Cwd: cfg.Cwd, McpServers: []sdk.McpServer{}})
		return r.ConfigOptions, r.Modes, err
	})
}

func (w *Worker) reopen(ctx context.Context, id string, cfg SessionConfig, method string,
	call func(context.Context) ([]sdk.SessionConfigOption, *sdk.SessionModeState, error)) (*Session, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if id == "" {
		return nil, fmt.Errorf("%w: empty session id", ErrInvalidConfig)
	}
	// Registered first: a load replays the history before it answers.
	s := w.newSession(id, cfg)
	if err := w.register(s); err != nil {
		s.q.end(nil)
		return nil, err
	}
	opts, modes, err := call(ctx)
	if err != nil {
		s.finish(ErrSessionClosed, nil)
		return nil, w.callErr(ctx, method, err)
	}
	if err := s.configure(ctx, cfg, opts, modes); err != nil {
		_ = s.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	return s, nil
}

func (cfg SessionConfig) validate() error {
	if !filepath.IsAbs(cfg.Cwd) {
		return fmt.Errorf("%w: session cwd %q is not an absolute path", ErrInvalidConfig, cfg.Cwd)
	}
	if cfg.Effort != "" && effortPreference[cfg.Effort] == nil {
		return fmt.Errorf("%w: effort %q (want low, medium, high or max)", ErrInvalidConfig, cfg.Effort)
	}
	if cfg.Mode != "" && cfg.Mode != ModeNormal && cfg.Mode != ModeGoal {
		return fmt.Errorf("%w: mode %q (want normal or goal)", ErrInvalidConfig, cfg.Mode)
	}
	return nil
}

func (w *Worker) newSession(id string, cfg SessionConfig) *Session {
	ctx, end := context.WithCancelCause(context.Background())
	s := &Session{w: w, id: id, onPermission: cfg.OnPermission, q: newPullQueue(maxQueuedBytes), ctx: ctx, end: end}
	s.foreign.calls = map[string]*trackedCall{}
	s.foreign.root = cfg.Cwd
	return s
}

// effortPreference lists, per requested effort, the offered values to use, best first. Reasonix
// 1.38 offers auto|disabled|high|max; older workers offered low..max exactly.
var effortPreference = map[string][]string{
	"low":    {"low", "disabled", "minimal", "auto"},
	"medium": {"medium", "auto"},
	"high":   {"high", "max"},
	"max":    {"max", "xhigh", "high"},
}

func nearestEffort(want string, offered []string) string {
	for _, v := range effortPreference[want] {
		if slices.Contains(offered, v) {
			return v
		}
	}
	return ""
}

// pickModel finds the offered value for a configured model: exact, or `provider/<want>`.
func pickModel(want string, offered []string) string {
	if slices.Contains(offered, want) {
		return want
	}
	for _, v := range offered {
		if strings.HasSuffix(v, "/"+want) {
			return v
		}
	}
	return ""
}

func findOption(opts []ConfigOption, id, category string) *ConfigOption {
	for i := range opts {
		if opts[i].ID == id {
			return &opts[i]
		}
	}
	for i := range opts {
		if category != "" && opts[i].Category == category {
			return &opts[i]
		}
	}
	return nil
}

// configure applies cfg one change at a time, waiting for each reply: the worker refuses a
// prompt while a config change is in flight, and the effort option appears only after a model
// that reasons is chosen.
func (s *Session) configure(ctx context.Context, cfg SessionConfig, raw []sdk.SessionConfigOption, modes *sdk.SessionModeState) error {
	s.configMu.Lock()
	defer s.configMu.Unlock()
	opts := convertOptions(raw)
	var eff Effective
	set := func(o *ConfigOption, value string) error {
		if o.Current == value {
			return nil
		}
		next, err := s.setOption(ctx, o.ID, value)
		if err != nil {
			return err
		}
		if next != nil {
			opts = next
		}
		return nil
	}

	if o := findOption(opts, "model", "model"); o != nil {
		eff.Model = o.Current
		if cfg.Model != "" {
			v := pickModel(cfg.Model, o.Values)
			if v == "" {
				return &OptionError{Option: "model", Want: cfg.Model, Offered: o.Values}
			}
			if err := set(o, v); err != nil {
				return err
			}
			eff.Model = v
		}
	} else if cfg.Model != "" {
		return &OptionError{Option: "model", Want: cfg.Model}
	}

	if o := findOption(opts, "effort", "thought_level"); o != nil {
		eff.Effort = o.Current
		if cfg.Effort != "" {
			v := nearestEffort(cfg.Effort, o.Values)
			if v == "" {
				return &OptionError{Option: o.ID, Want: cfg.Effort, Offered: o.Values}
			}
			if err := set(o, v); err != nil {
				return err
			}
			eff.Effort = v
		}
	}

	// Current workers have no work_mode option (it is a deprecated no-op); older ones offered
	// economy|delivery per lane.
	if o := findOption(opts, "work_mode", ""); o != nil {
		eff.WorkMode = o.Current
		want := "economy"
		if cfg.Mode == ModeGoal {
			want = "delivery"
		}
		if slices.Contains(o.Values, want) {
			if err := set(o, want); err != nil {
				return err
			}
			eff.WorkMode = want
		}
	}

	if !s.w.agent.IsReasonix() {
		return s.configureForeign(ctx, cfg, opts, modes, eff, set)
	}
	// Supervision needs every write and shell command sent to us: `ask` where offered, else
	// `read-only` (Reasonix 1.38).
	o := findOption(opts, "tool_approval", "tool_approval")
	if o == nil {
		return &OptionError{Option: "tool_approval", Want: "read-only"}
	}
	approval := "read-only"
	if slices.Contains(o.Values, "ask") {
		approval = "ask"
	} else if !slices.Contains(o.Values, approval) {
		return &OptionError{Option: o.ID, Want: approval, Offered: o.Values}
	}
	if err := set(o, approval); err != nil {
		return err
	}
	eff.ToolApproval = approval

	var modeIDs []string
	eff.Mode, modeIDs = modeState(modes)
	s.mu.Lock()
	s.options, s.modes, s.effective = opts, modeIDs, eff
	s.mu.Unlock()
	if cfg.Mode != "" && cfg.Mode != eff.Mode {
		return s.setMode(ctx, cfg.Mode)
	}
	return nil
}

func (s *Session) setOption(ctx context.Context, id, value string) ([]ConfigOption, error) {
	ctx, cancel := s.callCtx(ctx)
	defer cancel()
	resp, err := s.w.conn.SetSessionConfigOption(ctx, sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
		SessionId: sdk.SessionId(s.id), ConfigId: sdk.SessionConfigId(id), Value: sdk.SessionConfigValueId(value)}})
	if err != nil {
		return nil, s.w.callErr(ctx, "session/set_config_option "+id, err)
	}
	if len(resp.ConfigOptions) == 0 {
		return nil, nil
	}
	return convertOptions(resp.ConfigOptions), nil
}

// SetMode switches the session's mode (normal, goal, or any other mode the worker offers).
func (s *Session) SetMode(ctx context.Context, mode string) error {
	s.configMu.Lock()
	defer s.configMu.Unlock()
	return s.setMode(ctx, mode)
}

func (s *Session) setMode(ctx context.Context, mode string) error {
	s.mu.Lock()
	offered := s.modes
	s.mu.Unlock()
	if !slices.Contains(offered, mode) {
		return &OptionError{Option: "mode", Want: mode, Offered: offered}
	}
	ctx, cancel := s.callCtx(ctx)
	defer cancel()
	if _, err := s.w.conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: sdk.SessionId(s.id), ModeId: sdk.SessionModeId(mode)}); err != nil {
		return s.w.callErr(ctx, "session/set_mode", err)
	}
	s.mu.Lock()
	s.effective.Mode = mode
	s.mu.Unlock()
	return nil
}

// ID is the worker's session id.
func (s *Session) ID() string { return s.id }

// Effective returns the settings the session got.
func (s *Session) Effective() Effective {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.effective
}

// ConfigOptions returns the options the worker offered at the last configuration.
func (s *Session) ConfigOptions() []ConfigOption {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.options)
}

// Events delivers the session's events in wire order. It is closed when the session ends, after
// an ErrorEvent if the worker failed; the consumer must drain it. It costs a goroutine for the
// session's life; a consumer that can call Next takes the same events without one. A session
// has one consumer: Events or Next, not both.
func (s *Session) Events() <-chan Event {
	s.q.startRun()
	return s.q.out
}

// Next takes the session's next event in wire order without waiting, as Events would deliver
// it: ok is false when none is queued, and then closed reports that the session has ended and
// every event, the ErrorEvent of a failed worker last, has been taken. Between calls that take
// none, the consumer waits on Ready.
func (s *Session) Next() (e Event, ok, closed bool) { return s.q.next() }

// Ready receives after an event has been queued or the session has ended; it may also fire when
// Next has already taken what it announced.
func (s *Session) Ready() <-chan struct{} { return s.q.wake }

// Delivered returns a channel closed once the consumer has taken every event queued so far:
// after a call returns, everything the worker sent before its answer.
func (s *Session) Delivered() <-chan struct{} { return s.q.drained() }

// Backlog says how many events are queued behind the one Events is offering (or Next took), so
// that a consumer can batch its work while it is behind.
func (s *Session) Backlog() int { return s.q.backlog() }

// Prompt runs one turn and returns why it stopped. If ctx ends first, Prompt cancels the turn,
// waits up to 2 s for the worker to confirm, and returns ctx's error.
func (s *Session) Prompt(ctx context.Context, text string) (StopReason, error) {
	type result struct {
		stop StopReason
		err  error
	}
	res := make(chan result, 1)
	s.PromptThen(ctx, text, func(stop StopReason, err error) { res <- result{stop, err} })
	r := <-res
	return r.stop, r.err
}

// PromptThen is Prompt without a goroutine of the caller's waiting for the turn: it starts the
// turn and returns at once, and then gets what Prompt would have returned, exactly once, on
// another goroutine: the one that made the call, the one that cancelled it when ctx ended
// first, or a new one when the turn could not start.
func (s *Session) PromptThen(ctx context.Context, text string, then func(StopReason, error)) {
	s.configMu.Lock()
	s.mu.Lock()
	var refused error
	if s.turnCancel != nil {
		refused = ErrTurnActive
	} else if s.ctx.Err() != nil {
		refused = context.Cause(s.ctx)
	}
	if refused != nil {
		s.mu.Unlock()
		s.configMu.Unlock()
		go then("", refused)
		return
	}
	turnCtx, turnCancel := context.WithCancelCause(s.ctx)
	s.turnCtx, s.turnCancel = turnCtx, turnCancel
	s.mu.Unlock()
	s.configMu.Unlock()

	type result struct {
		stop StopReason
		err  error
	}
	done := make(chan result, 1)
	// When ctx ends first, the turn is cancelled and the answer waited for a while; otherwise
	// the call's own goroutine answers.
	stopCancel := context.AfterFunc(ctx, func() {
		_ = s.Cancel(context.WithoutCancel(ctx))
		select {
		case r := <-done:
			then(r.stop, fmt.Errorf("session/prompt: %w", context.Cause(ctx)))
		case <-time.After(promptCancelGrace):
			then("", fmt.Errorf("session/prompt: %w (cancel not confirmed)", context.Cause(ctx)))
		}
	})
	go func() {
		// The call lives as long as the session: the worker ignores $/cancel_request, so only
		// its answer (or its death) ends the turn.
		var stop StopReason
		var err error
		if s.w.agent.IsReasonix() {
			var resp sdk.PromptResponse
			resp, err = s.w.conn.Prompt(s.ctx, sdk.PromptRequest{SessionId: sdk.SessionId(s.id), Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
			if err != nil {
				err = s.w.callErr(s.ctx, "session/prompt", err)
			}
			stop = StopReason(resp.StopReason)
		} else {
			stop, err = s.promptForeign(text)
		}
		s.mu.Lock()
		if s.turnCancel != nil {
			// A steer of a plain-ACP agent gave the turn a new context.
			turnCancel = s.turnCancel
		}
		s.turnCancel, s.turnCtx = nil, nil
		s.mu.Unlock()
		turnCancel(errTurnOver)
		done <- result{stop, err}
		if stopCancel() {
			then(stop, err)
		}
	}()
}

var (
	errTurnOver      = errors.New("acp: turn over")
	errTurnCancelled = errors.New("acp: turn cancelled")
)

// Cancel asks the worker to stop the current turn (the `session/cancel` notification) and
// answers any open permission request `cancelled`. The turn's Prompt returns StopCancelled.
func (s *Session) Cancel(ctx context.Context) error {
	if err := s.w.conn.Cancel(ctx, sdk.CancelNotification{SessionId: sdk.SessionId(s.id)}); err != nil {
		return s.w.callErr(ctx, "session/cancel", err)
	}
	s.mu.Lock()
	if s.turnCancel != nil {
		s.turnCancel(errTurnCancelled)
	}
	s.foreign.cancelled = true
	s.mu.Unlock()
	return nil
}

// Steer adds text to the running turn and returns the worker's disposition (steer_accepted).
// An idle session yields an error wrapping ErrNoActiveTurn.
//
// An agent without the steer extension is steered its own way (WorkerInfo.Steer): the running
// turn is cancelled and the text is the next prompt of the same turn, whose end Prompt reports
// (disposition agents.SteerCancelPrompt); while the agent waits on a permission or was just
// refused one, the text is queued for the turn's end instead (agents.SteerQueue).
func (s *Session) Steer(ctx context.Context, text string) (string, error) {
	ctx, cancel := s.callCtx(ctx)
	defer cancel()
	if s.w.info.SteerMethod == "" && !s.w.agent.IsReasonix() {
		return s.steerForeign(ctx, text)
	}
	raw, err := s.w.conn.CallExtension(ctx, s.w.info.SteerMethod, map[string]any{
		"sessionId": s.id, "prompt": []sdk.ContentBlock{sdk.TextBlock(text)}})
	if err != nil {
		err = s.w.callErr(ctx, s.w.info.SteerMethod, err)
		var re *RPCError
		if errors.As(err, &re) && re.Code == CodeInvalidRequest {
			return "", fmt.Errorf("%w: %w", ErrNoActiveTurn, err)
		}
		return "", err
	}
	var r struct {
		Disposition string `json:"disposition"`
	}
	if err := json.Unmarshal(raw, &r); err != nil || r.Disposition == "" {
		return "", fmt.Errorf("%w: steer answer %s", ErrProtocol, truncate(string(raw)))
	}
	return r.Disposition, nil
}

// Status fetches the session's status snapshot. An agent without the status extension gets
// one made from its turns' stopReason and usage (see statusForeign).
func (s *Session) Status(ctx context.Context) (Status, error) {
	if !s.w.info.StatusExtension && !s.w.agent.IsReasonix() {
		return s.statusForeign(), nil
	}
	ctx, cancel := s.callCtx(ctx)
	defer cancel()
	raw, err := s.w.conn.CallExtension(ctx, methodStatus, map[string]string{"sessionId": s.id})
	if err != nil {
		return Status{}, s.w.callErr(ctx, methodStatus, err)
	}
	st, err := parseStatus(raw)
	if err != nil {
		return Status{}, fmt.Errorf("%w: %w", ErrProtocol, err)
	}
	return st, nil
}

// Close closes the session on the worker (when it supports session/close) and ends its event
// stream. The session is unusable afterwards even if the worker's answer is an error.
func (s *Session) Close(ctx context.Context) error {
	var err error
	if s.w.info.CloseSession && s.ctx.Err() == nil && s.w.Err() == nil {
		cctx, cancel := s.callCtx(ctx)
		if _, cerr := s.w.conn.CloseSession(cctx, sdk.CloseSessionRequest{SessionId: sdk.SessionId(s.id)}); cerr != nil {
			err = s.w.callErr(cctx, "session/close", cerr)
		}
		cancel()
	}
	s.finish(ErrSessionClosed, nil)
	return err
}

// callCtx derives a call context that also ends, with the session's cause, when the session does.
func (s *Session) callCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	c, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(s.ctx, func() { cancel(context.Cause(s.ctx)) })
	return c, func() { stop(); cancel(nil) }
}

// finish ends the session once with cause, queuing final (if any) as its last event.
func (s *Session) finish(cause error, final Event) {
	s.endOnce.Do(func() {
		s.w.unregister(s)
		s.end(cause)
		s.q.end(final)
	})
}

// terminate ends the session because the worker failed or flooded it. It never takes the
// worker's lock (route holds it).
func (s *Session) terminate(cause error) {
	s.endOnce.Do(func() {
		s.end(cause)
		s.q.end(ErrorEvent{SessionID: s.id, Err: cause})
	})
}

// deliver queues e, tracking tool calls for permission correlation. Called by the reader with
// the worker's lock held: it must not block.
func (s *Session) deliver(e Event) {
	s.track(e)
	if s.q.push(e) || s.ctx.Err() != nil {
		return
	}
	s.terminate(fmt.Errorf("%w: session %s has %d MiB of undelivered events", ErrFlood, s.id, maxQueuedBytes>>20))
	go func() {
		_ = s.w.conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: sdk.SessionId(s.id)})
	}()
}

func (s *Session) track(e Event) {
	if !s.w.agent.IsReasonix() {
		s.trackForeign(e)
		return
	}
	switch e := e.(type) {
	case ToolCall:
		if e.Status == "completed" || e.Status == "failed" {
			return
		}
		s.mu.Lock()
		s.calls = append(s.calls, pendingCall{id: e.ID, kind: e.ToolKind, input: canonicalJSON(e.RawInput)})
		s.mu.Unlock()
	case ToolCallUpdate:
		if e.Status != "completed" && e.Status != "failed" {
			return
		}
		s.mu.Lock()
		s.calls = slices.DeleteFunc(s.calls, func(c pendingCall) bool { return c.id == e.ID })
		s.mu.Unlock()
	}
}

// matchCall finds the pending tool call a permission gate is about: same kind and input, the
// oldest not matched yet.
func (s *Session) matchCall(kind string, input json.RawMessage) string {
	in := canonicalJSON(input)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.calls {
		c := &s.calls[i]
		if !c.gated && c.kind == kind && c.input == in {
			c.gated = true
			return c.id
		}
	}
	return ""
}

func canonicalJSON(raw json.RawMessage) string {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// decide asks the session's callback about a permission request and records the answer.
func (s *Session) decide(sdkCtx context.Context, p sdk.RequestPermissionRequest) PermissionOutcome {
	req := permissionRequest(p)
	foreign := !s.w.agent.IsReasonix()
	if foreign {
		s.completeForeign(&req, p)
	} else {
		req.CallID = s.matchCall(req.ToolKind, req.RawInput)
	}
	req.Delivered = s.q.drained()

	s.mu.Lock()
	parent := s.turnCtx
	s.mu.Unlock()
	if parent == nil {
		parent = s.ctx
	}
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	stop := context.AfterFunc(sdkCtx, cancel)
	defer stop()

	var out PermissionOutcome
	if s.onPermission != nil {
		out = s.onPermission(ctx, req)
	} else {
		out = req.Choose("reject_once")
	}
	if ctx.Err() != nil {
		out = PermissionOutcome{}
	}
	if !out.Cancelled() && !slices.ContainsFunc(req.Options, func(o PermissionOption) bool { return o.ID == out.OptionID }) {
		s.w.log.Warn("permission decision names an option that was not offered; answering cancelled",
			"session", s.id, "option", out.OptionID)
		out = PermissionOutcome{}
	}
	if foreign {
		s.answeredForeign(req, out)
	}
	s.deliverLate(PermissionEvent{SessionID: s.id, Request: req, Outcome: out})
	return out
}

// deliverLate queues an event produced outside the reader (the permission answer).
func (s *Session) deliverLate(e Event) {
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	if s.ctx.Err() == nil {
		s.deliver(e)
	}
}

func permissionRequest(p sdk.RequestPermissionRequest) PermissionRequest {
	tc := p.ToolCall
	req := PermissionRequest{SessionID: string(p.SessionId), ToolCallID: string(tc.ToolCallId), Title: deref(tc.Title)}
	if tc.Kind != nil {
		req.ToolKind = string(*tc.Kind)
	}
	if tc.RawInput != nil {
		if b, err := json.Marshal(tc.RawInput); err == nil {
			req.RawInput = b
		}
	}
	for _, l := range tc.Locations {
		req.Locations = append(req.Locations, l.Path)
	}
	for _, c := range tc.Content {
		if c.Diff != nil {
			req.DiffPaths = append(req.DiffPaths, c.Diff.Path)
		}
	}
	if m, ok := tc.Meta["reasonix.io"]; ok {
		var meta ReasonixMeta
		if b, err := json.Marshal(m); err == nil && json.Unmarshal(b, &meta) == nil {
			req.Meta = &meta
		}
	}
	for _, o := range p.Options {
		req.Options = append(req.Options, PermissionOption{ID: string(o.OptionId), Name: o.Name, Kind: string(o.Kind)})
	}
	return req
}

func truncate(s string) string {
	if len(s) > maxProtocolExcerpt {
		return s[:maxProtocolExcerpt] + "…"
	}
	return s
}
