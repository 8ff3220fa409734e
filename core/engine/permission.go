package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"reasonixctl/acp"
	"reasonixctl/core"
	"reasonixctl/core/contract"
	"reasonixctl/core/permission"
	"reasonixctl/core/policy"
)

// decide answers one permission request of the worker. permission.Decide makes the decision;
// this gathers the facts it asks for, journals it and carries it out. Policy decisions are
// immediate; only questions and commands the policy asks a person about wait for an answer.
// It runs on the connection's goroutine for this request, so it may block on an answer.
func (t *liveTask) decide(ctx context.Context, req acp.PermissionRequest) acp.PermissionOutcome {
	e := t.e
	if !e.enterBG() {
		return acp.PermissionOutcome{} // shutting down: the request is cancelled
	}
	defer e.bg.Done()
	r, err := e.load(t.id)
	if err != nil || r.State.Terminal() || r.State == core.StatePaused {
		return acp.PermissionOutcome{}
	}
	t.catchUp(ctx, req.Delivered)

	in := permission.Input{Kind: req.ToolKind, ToolCallID: req.ToolCallID, Mode: r.PermissionMode}
	if req.Meta != nil {
		in.MetaTool = req.Meta.Tool
	}
	var limit askLimit
	v := permission.Decide(in)
	for v.Need != 0 {
		if in.Known&v.Need != 0 {
			return acp.PermissionOutcome{} // asked again for what it was told: cancel rather than loop
		}
		switch v.Need {
		case permission.FactPolicy:
			t.classify(r, req, &in)
		case permission.FactGrant:
			// A standing grant for this exact command in this repository answers for the person.
			if g, ok := core.MatchGrant(e.cfg.StateDir, r.RepoID, r.Worktree, in.Argv, in.Cwd); ok {
				in.Grant = &g
			}
		case permission.FactCollision:
			if err := e.collisionCheck(ctx, r, "before_worker_mutation"); err != nil {
				in.Collided, in.CollisionReason = true, core.AsError(err).Message
			}
		case permission.FactAskers:
			in.CanAsk, limit.asker, limit.timeout, limit.unwatched = e.askFor(t.id)
		default:
			return acp.PermissionOutcome{} // a fact this engine cannot gather: cancel rather than guess
		}
		in.Known |= v.Need
		v = permission.Decide(in)
	}

	shown := readAs{foreign: core.ForeignWorker(r.Worker), argv: in.Argv, cwd: in.Cwd, paths: in.Paths, command: in.Command}
	switch {
	case v.Ask == core.InteractionInput:
		out, _, _ := t.ask(ctx, req, shown, v, askLimit{})
		return out
	case v.Decision == core.DecisionAllow:
		if v.Mutation {
			t.mu.Lock()
			if t.mutations == nil {
				t.mutations = map[string]bool{}
			}
			// Keyed like the watchdog: by the tool call when the request could be matched to it.
			key := req.CallID
			if key == "" {
				key = req.ToolCallID
			}
			t.mutations[key] = true
			t.mu.Unlock()
		}
		e.appendEvents(t.id, event(core.EventPermissionDecided, permissionData(req, in, v)))
		if v.TimeoutSeconds > 0 {
			t.armWatchdog(req, time.Duration(v.TimeoutSeconds)*time.Second)
		}
		return req.Choose("allow_once")
	case v.Decision == core.DecisionInteraction:
		e.appendEvents(t.id, event(core.EventPermissionDecided, permissionData(req, in, v)))
		if !v.Bounded {
			limit = askLimit{}
		}
		out, resp, unanswered := t.ask(ctx, req, shown, v, limit)
		if !unanswered {
			if v.Bounded && resp != nil && resp.Decision == core.DecisionDeny {
				// A person said no (or declined to say): the worker hears who, and how.
				what := strings.Join(in.Argv, " ")
				if what == "" {
					what = in.Command
				}
				if what == "" {
					what = req.Title
				}
				t.recoverySteer(r, deniedSteer(resp, what))
			}
			return out
		}
		// Nobody answered: the automatic denial applies, with its recovery steer.
		in.Unanswered, in.AskTimeout = resp.Outcome, limit.timeout
		v = permission.Decide(in)
	}

	if v.Fingerprint == "" {
		e.appendEvents(t.id, event(core.EventPermissionDecided, permissionData(req, in, v)))
		return req.Choose("reject_once")
	}
	// Counted against the record itself, so that concurrent identical requests each see the
	// others; a record that could not be read counts nothing and so steers and pauses nothing.
	var counted permission.Verdict
	_, _ = e.update(t.id, func(r *taskRecord) ([]newEvent, error) {
		if r.Denials == nil {
			r.Denials = map[string]int{}
		}
		in.Denials = r.Denials[v.Fingerprint]
		counted = permission.Decide(in)
		r.Denials[counted.Fingerprint] = counted.Count
		return []newEvent{event(core.EventPermissionDecided, permissionData(req, in, counted))}, nil
	})
	switch {
	case counted.Pause != "":
		e.pause(t.id, core.PhaseRepeatedDenial, counted.Pause)
		e.spawn(t.cancelTurn)
	case counted.Steer != "":
		t.recoverySteer(r, counted.Steer)
	}
	return req.Choose("reject_once")
}

// classify puts the policy's decision on req into in, with the argv, cwd and paths it read.
// A request of an agent other than Reasonix is read as such whatever it carries: its
// `_meta["reasonix.io"]`, if it sent one, is the agent's word and proves nothing.
func (t *liveTask) classify(r *taskRecord, req acp.PermissionRequest, in *permission.Input) {
	if core.ForeignWorker(r.Worker) {
		classifyForeign(r, req, in, t.contract)
		return
	}
	if req.ToolKind == permission.KindExecute {
		var meta *policy.ExecMeta
		if m := req.Meta; m != nil {
			meta = &policy.ExecMeta{CommandSchemaVersion: m.CommandSchemaVersion, Tool: m.Tool, Argv: m.Argv, Cwd: m.Cwd, ApprovalID: m.ApprovalID}
			in.Argv, in.Cwd = m.Argv, m.Cwd
		}
		rawArgv, rawCwd := rawExecInput(req.RawInput)
		in.Policy = policy.ClassifyExec(policy.ExecRequest{ToolCallID: req.ToolCallID, Meta: meta, RawArgv: rawArgv, RawCwd: rawCwd, Worktree: r.Worktree}, t.contract)
		return
	}
	er := policy.EditRequestFromToolCall(req.ToolCallID, req.ToolKind, req.Locations, rawValue(req.RawInput), r.Worktree)
	in.Paths = er.Paths
	in.Policy = policy.ClassifyEdit(er, t.contract)
}

// classifyForeign is classify for a foreign agent: its command read from its shell string,
// its argv or its title, its edits scoped by their locations, diff paths and input.
func classifyForeign(r *taskRecord, req acp.PermissionRequest, in *permission.Input, c *contract.Contract) {
	if req.ToolKind == permission.KindExecute {
		fe := policy.ClassifyForeignExec(policy.ForeignExecRequestFromToolCall(req.ToolCallID, req.Title, rawValue(req.RawInput), r.Worktree), c)
		in.Argv, in.Cwd, in.Policy = fe.Argv, fe.Cwd, fe.Decision
		if fe.Argv == nil {
			in.Command = core.TruncateText(fe.Command, 1024)
		}
		return
	}
	er := policy.ForeignEditRequestFromToolCall(req.ToolCallID, req.ToolKind, req.Locations, req.DiffPaths, rawValue(req.RawInput), r.Worktree)
	in.Paths = er.Paths
	in.Policy = policy.ClassifyEdit(er, c)
}

// permissionData is the journal's record of verdict v on req.
func permissionData(req acp.PermissionRequest, in permission.Input, v permission.Verdict) core.PermissionData {
	return core.PermissionData{
		ToolCallID: req.ToolCallID, Kind: req.ToolKind, Title: req.Title, Argv: in.Argv, Cwd: in.Cwd, Paths: in.Paths,
		Decision: v.Decision, Code: v.Code, Reason: v.Reason, Hint: v.Hint, By: v.By, Grant: v.Grant, Outcome: v.Outcome,
	}
}

// mutationFinished runs the after_worker_mutation guard when an allowed mutating tool call
// ends.
func (t *liveTask) mutationFinished(id string) {
	t.mu.Lock()
	was := t.mutations[id]
	delete(t.mutations, id)
	t.mu.Unlock()
	if !was {
		return
	}
	t.flushText() // the check's events come after the call's
	if r, err := t.e.load(t.id); err == nil && !r.State.Terminal() && r.State != core.StatePaused {
		_ = t.e.collisionCheck(context.Background(), r, "after_worker_mutation")
	}
}

// catchUpWait bounds how long a request waits for the events the worker sent before it.
const catchUpWait = time.Second

// catchUp journals what the worker streamed before a request or an answer (its last words
// before asking, or before ending its turn) ahead of it: the pump takes every earlier event,
// finishes handling it, and the text and tool calls it holds are flushed.
func (t *liveTask) catchUp(ctx context.Context, delivered <-chan struct{}) {
	if delivered != nil {
		timer := time.NewTimer(catchUpWait)
		defer timer.Stop()
		select {
		case <-delivered:
			t.handling.Lock()
			t.handling.Unlock()
		case <-timer.C:
		case <-ctx.Done():
		}
	}
	t.flushText()
}

func rawExecInput(raw json.RawMessage) ([]string, string) {
	var in struct {
		Argv []string `json:"argv"`
		Cwd  string   `json:"cwd"`
	}
	_ = json.Unmarshal(raw, &in)
	return in.Argv, in.Cwd
}

// readAs is how the policy read a request, for the person asked about it: for an agent other
// than Reasonix, the argv, cwd and paths the policy found, since its metadata proves nothing,
// and the command as it sent it when that is not plain argv (its title may say anything).
type readAs struct {
	foreign bool
	argv    []string
	cwd     string
	paths   []string
	command string
}

// askLimit bounds an interaction of an automatic-mode task: it waits at most timeout, and asker,
// when set, is asked alongside whoever else may answer.
type askLimit struct {
	timeout time.Duration
	asker   core.Asker
	// unwatched, when the attached supervisors are the ones asked, is closed once the last of
	// them leaves: nobody will answer then.
	unwatched <-chan struct{}
}

// ask opens an interaction and waits for a supervisor's answer, the turn's end, or the task
// leaving its waiting state. resp is the answer as recorded. unanswered reports that nobody
// answered: the limit's timeout passed, its supervisors left or its asker could not ask; the
// interaction is cancelled with the policy's denial as its response (resp, whose Outcome says
// which) and the caller denies.
func (t *liveTask) ask(ctx context.Context, req acp.PermissionRequest, shown readAs, v permission.Verdict, limit askLimit) (out acp.PermissionOutcome, resp *core.InteractionResponse, unanswered bool) {
	e := t.e
	kind := v.Ask
	request := core.InteractionRequest{
		ToolCallID: req.ToolCallID, Tool: req.ToolKind, Title: core.TruncateText(req.Title, 512),
		Options: make([]core.InteractionOption, 0, len(req.Options)), Paths: req.Locations,
		Code: v.Code, Reason: v.Reason, Hint: v.Hint,
	}
	for _, o := range req.Options {
		if shown.foreign && req.IsAllowAlways(o.ID) {
			// Another agent's "always" stops it asking: what it then does never reaches the
			// policy, the grants or a person. Reasonix's is scoped by its own rule.
			continue
		}
		request.Options = append(request.Options, core.InteractionOption{OptionID: o.ID, Name: o.Name, Kind: o.Kind})
	}
	if kind == core.InteractionInput {
		var q struct {
			Question string `json:"question"`
		}
		_ = json.Unmarshal(req.RawInput, &q)
		if q.Question == "" {
			q.Question = req.Title
		}
		request.Question = core.TruncateText(q.Question, 1024)
		// A question's reason is the worker's own, not a policy rule.
		request.Code, request.Reason, request.Hint = "", "", ""
	}
	switch {
	case shown.foreign:
		request.Argv, request.Cwd = shown.argv, shown.cwd
		if len(shown.paths) > 0 {
			request.Paths = shown.paths
		}
		// A command the policy could not read is shown as sent: the subject of the request.
		request.Subject = core.TruncateText(shown.command, 512)
	case req.Meta != nil:
		if len(req.Meta.Argv) > 0 {
			request.Argv, request.Cwd = req.Meta.Argv, req.Meta.Cwd
		}
		request.Subject = core.TruncateText(req.Meta.Subject, 512)
	}
	if len(request.Argv) == 0 && req.ToolKind == "execute" && !shown.foreign {
		request.Argv, request.Cwd = rawExecInput(req.RawInput)
	}
	if len(req.RawInput) > 0 && len(req.RawInput) <= 1024 {
		request.Input = rawValue(req.RawInput)
	}
	ch := make(chan interactionAnswer, 1)
	var id string
	defer func() {
		t.mu.Lock()
		delete(t.answers, id)
		t.mu.Unlock()
	}()

	state := core.StateWaitingPermission
	if kind == core.InteractionInput {
		state = core.StateWaitingInput
	}
	// The answer channel is registered under the same lock respond reads it with, so an answer
	// cannot arrive between the interaction being stored and its channel existing.
	t.mu.Lock()
	_, err := e.update(t.id, func(r *taskRecord) ([]newEvent, error) {
		id = fmt.Sprintf("%s-%d", kind, len(r.Interactions)+1)
		ia := core.Interaction{ID: id, Kind: kind, Status: core.InteractionPending, CreatedAt: core.FormatTime(e.now()), Request: request}
		r.Interactions = append(r.Interactions, ia)
		ev, err := setState(r, state, core.PhaseInteractionWaiting, "")
		if err != nil {
			return nil, err
		}
		return []newEvent{event(core.EventInteractionWaiting, core.InteractionWaitingData(ia)), ev}, nil
	})
	if err == nil {
		t.answers[id] = ch
	}
	t.mu.Unlock()
	if err != nil {
		return acp.PermissionOutcome{}, nil, false
	}
	var expired <-chan time.Time
	if limit.timeout > 0 {
		timer := time.NewTimer(limit.timeout)
		defer timer.Stop()
		expired = timer.C
	}
	declined := make(chan struct{}, 1)
	if limit.asker != nil {
		actx, cancel := context.WithCancel(ctx)
		defer cancel()
		q := core.Question{TaskID: t.id, Timeout: limit.timeout, Interaction: core.Interaction{
			ID: id, Kind: kind, Status: core.InteractionPending, Request: request}}
		e.spawn(func() { t.askOutside(actx, limit.asker, q, declined) })
	}
	denial := &core.InteractionResponse{Decision: core.DecisionDeny, By: core.ByPolicy}
	select {
	case a := <-ch:
		return a.outcome, a.response, false
	case <-expired:
		denial.Outcome = core.OutcomeTimedOut
	case <-declined:
		denial.Outcome = core.OutcomeUnavailable
	case <-limit.unwatched:
		denial.Outcome = core.OutcomeAbandoned
	case <-ctx.Done():
		t.cancelInteraction(id, state, nil)
		return acp.PermissionOutcome{}, nil, false
	}
	if !t.cancelInteraction(id, state, denial) {
		// An answer won the race with the timeout: it was journaled, so it is what the worker
		// gets. respond sends on ch right after journaling it.
		select {
		case a := <-ch:
			return a.outcome, a.response, false
		case <-ctx.Done():
			return acp.PermissionOutcome{}, nil, false
		}
	}
	return acp.PermissionOutcome{}, denial, true
}

// askOutside puts q to the asker and answers the interaction with what it says, as the person
// asked (an allow, a deny, a decline or a cancel); an error, or an answer that cannot be
// recorded, signals declined: nobody could be asked.
func (t *liveTask) askOutside(ctx context.Context, asker core.Asker, q core.Question, declined chan<- struct{}) {
	var once sync.Once
	var recorded error
	q.Record = func(resp core.InteractionResponse) error {
		once.Do(func() { recorded = t.recordAsked(ctx, q.Interaction.ID, resp) })
		return recorded
	}
	resp, err := asker(ctx, q)
	if err == nil {
		err = q.Record(resp)
	}
	if ctx.Err() != nil {
		return // answered elsewhere, timed out, or the turn ended
	}
	if err != nil {
		t.e.log.Info("asking outside the engine gave no answer", "task", t.id, "interaction", q.Interaction.ID, "err", err)
	}
	select {
	case declined <- struct{}{}:
	default:
	}
}

// recordAsked records the answer of the person an Asker asked.
func (t *liveTask) recordAsked(ctx context.Context, id string, resp core.InteractionResponse) error {
	if resp.Decision != core.DecisionAllow && resp.Decision != core.DecisionDeny {
		return fmt.Errorf("the asker answered %q, not allow or deny", resp.Decision)
	}
	_, err := t.e.Control(ctx, core.Respond{TaskID: t.id, InteractionID: id,
		Decision: resp.Decision, OptionID: resp.OptionID, AnsweredBy: core.ByAskedUser, Outcome: resp.Outcome, Client: resp.Client})
	return err
}

// cancelInteraction cancels interaction id if it is still pending, with response (the policy's
// denial, or nil when the turn ended), and puts a task waiting in state back to running. It
// reports whether it cancelled it.
func (t *liveTask) cancelInteraction(id string, state core.State, response *core.InteractionResponse) bool {
	e := t.e
	cancelled := false
	_, _ = e.update(t.id, func(r *taskRecord) ([]newEvent, error) {
		for i := range r.Interactions {
			if r.Interactions[i].ID == id && r.Interactions[i].Status == core.InteractionPending {
				cancelled = true
				r.Interactions[i].Status, r.Interactions[i].ResolvedAt = core.InteractionCancelled, core.FormatTime(e.now())
				r.Interactions[i].Response = response
				evs := []newEvent{event(core.EventInteractionResolved, core.InteractionResolvedData(r.Interactions[i]))}
				if r.pendingInteraction() == nil && r.State == state {
					ev, err := setState(r, core.StateRunning, "implementing", "")
					if err == nil {
						evs = append(evs, ev)
					}
				}
				return evs, nil
			}
		}
		return nil, nil
	})
	return cancelled
}

// recoverySteer steers the worker after a refusal of its request. A plain-ACP agent's steer is
// only queued while the agent waits on the request, so it goes before the answer: the agent
// cannot end its turn on the refusal first, and the steer is surely its next prompt. Reasonix's
// steer extension adds to the running turn over the wire, after the answer.
func (t *liveTask) recoverySteer(r *taskRecord, msg string) {
	if core.ForeignWorker(r.Worker) {
		t.steerQuietly(msg)
		return
	}
	t.e.spawn(func() { t.steerQuietly(msg) })
}

// steerQuietly sends a recovery steer; a turn that already ended makes it moot.
func (t *liveTask) steerQuietly(msg string) {
	t.mu.Lock()
	s := t.session
	t.mu.Unlock()
	if s == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := s.Steer(ctx, msg); err == nil {
		t.e.appendEvents(t.id, event(core.EventSteered, core.SteeredData{Text: msg}))
	}
}

// armWatchdog pauses the task and cancels the turn when an allowed command outlives its
// timeout. The watchdog is keyed by the tool call's id when the worker's permission request
// could be matched to it, else by the gate id.
func (t *liveTask) armWatchdog(req acp.PermissionRequest, d time.Duration) {
	key := req.CallID
	if key == "" {
		key = req.ToolCallID
	}
	subject := req.Title
	// t.mu is held until timer is assigned and stored: the callback takes it before reading
	// timer, so even a timer that fires at once sees the assignment.
	t.mu.Lock()
	defer t.mu.Unlock()
	var timer *time.Timer
	timer = time.AfterFunc(d, func() {
		if !t.e.enterBG() {
			return // Close stops the turn itself
		}
		defer t.e.bg.Done()
		t.mu.Lock()
		if t.watchdogs[key] == timer {
			delete(t.watchdogs, key)
		}
		t.mu.Unlock()
		t.e.pause(t.id, core.PhaseCommandTimeout, "an allowed command ran past its "+d.String()+" timeout: "+core.TruncateText(subject, 200))
		t.cancelTurn()
	})
	if old, ok := t.watchdogs[key]; ok {
		old.Stop()
	}
	t.watchdogs[key] = timer
}

// commandFinished clears the watchdog of the command a finished tool call ran. A finished call
// that matches no watchdog clears one keyed by a gate id: its call was never matched.
func (t *liveTask) commandFinished(ev acp.ToolCallUpdate) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if d, ok := t.watchdogs[ev.ID]; ok {
		d.Stop()
		delete(t.watchdogs, ev.ID)
		return
	}
	for k, d := range t.watchdogs {
		if strings.HasPrefix(k, "gate-") {
			d.Stop()
			delete(t.watchdogs, k)
			return
		}
	}
}
