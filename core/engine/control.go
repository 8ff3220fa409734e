package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"time"

	"reasonixctl/acp"
	"reasonixctl/core"
)

var hex40 = regexp.MustCompile(core.ReviewTreeHashPattern)

// taskLocks serialises operations on one task id across goroutines (creation, finalize, steer).
// An entry lives while its lock is held or awaited and is dropped by the last holder, so the
// map holds only the tasks being operated on, never every task the engine ever touched.
type taskLocks struct {
	mu    sync.Mutex
	locks map[string]*taskLock
}

type taskLock struct {
	sync.Mutex
	refs int // holders and waiters; guarded by taskLocks.mu
}

func (e *Engine) lockTask(id string) func() {
	e.locks.mu.Lock()
	if e.locks.locks == nil {
		e.locks.locks = map[string]*taskLock{}
	}
	l, ok := e.locks.locks[id]
	if !ok {
		l = &taskLock{}
		e.locks.locks[id] = l
	}
	l.refs++
	e.locks.mu.Unlock()
	l.Lock()
	return func() {
		l.Unlock()
		e.locks.mu.Lock()
		if l.refs--; l.refs == 0 {
			delete(e.locks.locks, id)
		}
		e.locks.mu.Unlock()
	}
}

// validateCommand checks a command's values, with reasonix_control's paths and messages: the
// shape of a command is its type's, so what is left is what a type cannot say (a field a
// caller left empty, limits, enumerations). mcp checks the wire's per-action fields before it
// builds a command, so these are the issues Codex sees for a request of the right shape.
func validateCommand(cmd core.Command) error {
	var issues []core.Issue
	add := func(path, msg string) { issues = append(issues, core.Issue{Path: path, Message: msg}) }
	required := func(path string, set bool) {
		if !set {
			add(path, "Required")
		}
	}
	if cmd == nil {
		add("action", "must be steer, respond, cancel, finalize, close, amend_checks or rebase")
		return core.InvalidRequest("reasonix_control input validation failed", issues)
	}
	if !core.ValidTaskID(cmd.Task()) {
		add("task_id", "must match "+core.TaskIDPattern)
	}
	switch c := cmd.(type) {
	case core.Steer:
		if len(c.Message) == 0 || len(c.Message) > core.MaxSteerMessageLen {
			add("message", fmt.Sprintf("must be 1..%d characters", core.MaxSteerMessageLen))
		}
	case core.Respond:
		required("interaction_id", c.InteractionID != "")
		required("decision", c.Decision != "")
		if c.Decision != "" && c.Decision != core.DecisionAllow && c.Decision != core.DecisionDeny {
			add("decision", "must be allow or deny")
		}
		switch c.AnsweredBy {
		case "", core.BySupervisor, core.ByCodex, core.ByAskedUser:
		default:
			add("answered_by", "must be supervisor, codex or asked_user")
		}
		if len(c.Client) > core.MaxClientNameLen {
			add("client", fmt.Sprintf("must be at most %d bytes", core.MaxClientNameLen))
		}
		switch c.Outcome {
		case "", core.OutcomeAnswered:
		case core.OutcomeDeclined, core.OutcomeCancelled:
			if c.Decision != core.DecisionDeny {
				add("outcome", "a declined or cancelled answer denies")
			}
		default:
			add("outcome", "must be answered, declined or cancelled")
		}
		if len(c.InteractionID) > core.MaxInteractionIDLen || len(c.OptionID) > core.MaxOptionIDLen || len(c.Answer) > core.MaxAnswerLen {
			add("interaction_id", fmt.Sprintf("interaction_id ≤%d, option_id ≤%d, answer ≤%d characters", core.MaxInteractionIDLen, core.MaxOptionIDLen, core.MaxAnswerLen))
		}
	case core.Finalize:
		required("review_summary", c.ReviewSummary != "")
		required("approved_review_criteria", c.ApprovedReviewCriteria != nil)
		required("expected_review_revision", c.ExpectedReviewRevision != nil)
		required("expected_review_tree_hash", c.ExpectedReviewTreeHash != "")
		if c.ReviewSummary != "" {
			issues = append(issues, core.ReviewSummaryIssues(c.ReviewSummary)...)
		}
		if len(c.ReviewSummary) > core.MaxReviewSummaryLen || len(c.CommitMessage) > core.MaxCommitMessageLen || len(c.ApprovedReviewCriteria) > core.MaxApprovedCriteria {
			add("review_summary", fmt.Sprintf("review_summary ≤%d, commit_message ≤%d, approved_review_criteria ≤%d items", core.MaxReviewSummaryLen, core.MaxCommitMessageLen, core.MaxApprovedCriteria))
		}
		if len(c.AcknowledgedRisks) > core.MaxAcknowledgedRisks {
			add("acknowledged_risks", fmt.Sprintf("at most %d items", core.MaxAcknowledgedRisks))
		}
		if p := c.ExpectedReviewRevision; p != nil && *p < 0 {
			add("expected_review_revision", "must be ≥ 0")
		}
		if c.ExpectedReviewTreeHash != "" && !hex40.MatchString(c.ExpectedReviewTreeHash) {
			add("expected_review_tree_hash", "must be 40 lowercase hex digits")
		}
		if w := c.WaitTimeoutSeconds; w != nil && (*w < 0 || *w > maxWaitSeconds) {
			add("wait_timeout_seconds", fmt.Sprintf("must be 0..%d", maxWaitSeconds))
		}
	case core.AmendChecks:
		issues = append(issues, core.AmendCheckIssues(c.DropChecks, c.AddChecks)...)
	case core.Cancel, core.Close, core.Rebase:
	default:
		// Only a pointer to a command gets here: the set is closed.
		add("action", fmt.Sprintf("%T is not a command; pass the command's value", cmd))
	}
	// Stable, so that two issues of one path keep the order they were found in.
	slices.SortStableFunc(issues, func(a, b core.Issue) int { return cmp.Compare(a.Path, b.Path) })
	if len(issues) > 0 {
		return core.InvalidRequest("reasonix_control input validation failed", issues)
	}
	return nil
}

// Control implements Service.
func (e *Engine) Control(ctx context.Context, cmd core.Command) (core.TaskView, error) {
	if err := validateCommand(cmd); err != nil {
		return core.TaskView{}, err
	}
	if _, err := e.load(cmd.Task()); err != nil {
		return core.TaskView{}, err
	}
	switch c := cmd.(type) {
	case core.Steer:
		return e.steer(ctx, c.TaskID, c.Message)
	case core.Respond:
		return e.respond(ctx, c)
	case core.Cancel:
		return e.cancel(c.TaskID)
	case core.Close:
		return e.closeTask(c.TaskID)
	case core.AmendChecks:
		return e.AmendChecks(ctx, c)
	case core.Rebase:
		return e.rebase(ctx, c.TaskID)
	case core.Finalize:
		return e.finalize(ctx, c)
	}
	// validateCommand refused every other type.
	return core.TaskView{}, core.Errorf(core.CodeInternalError, nil, "command %T has no handler", cmd)
}

// refusal is the engine's one gate on the lifecycle: nil when core.ActionsFor offers action in
// the state r is in, else the refusal in core.WhyNot's words, so that what a front end offers
// and what the engine takes cannot drift apart. A task that used the repair rounds the action
// needs is repair_limit_reached; any other is invalid_state.
func refusal(r *taskRecord, action string) error {
	v := r.view()
	why := core.WhyNot(v, action)
	switch {
	case why == "":
		return nil
	case core.OutOfRounds(v, action):
		return core.Errorf(core.CodeRepairLimitReached, &core.RepairLimit{RepairRounds: r.RepairRounds}, "%s", why)
	}
	return core.Errorf(core.CodeInvalidState, &core.WrongPhase{State: r.State, Phase: r.Phase}, "%s", why)
}

// steer sends a supervisor message to the worker: mid-turn while it runs, or as a repair round
// that reopens a task in review.
func (e *Engine) steer(ctx context.Context, id, msg string) (core.TaskView, error) {
	return e.steerWith(ctx, id, msg, "", nil)
}

// steerWith is steer, refused unless the task is in state only (when set), with also's
// changes and events recorded in the same transaction as a repair round's start.
func (e *Engine) steerWith(ctx context.Context, id, msg string, only core.State, also func(r *taskRecord) []newEvent) (core.TaskView, error) {
	unlock := e.lockTask(id)
	defer unlock()
	return e.steerLocked(ctx, id, msg, core.ActionSteer, only, also)
}

// steerLocked is steerWith for a caller that holds the task's lock, as part of action: a steer,
// or the repair round a rebase starts, which a task paused by a source collision takes too.
func (e *Engine) steerLocked(ctx context.Context, id, msg, action string, only core.State, also func(r *taskRecord) []newEvent) (core.TaskView, error) {
	r, err := e.load(id)
	if err != nil {
		return core.TaskView{}, err
	}
	if only != "" && r.State != only {
		return core.TaskView{}, core.Errorf(core.CodeInvalidState, &core.WrongState{State: r.State}, "task %s is %s, not %s", id, r.State, only)
	}
	if err := refusal(r, action); err != nil {
		return core.TaskView{}, err
	}
	t := e.liveTask(id)
	if r.State == core.StateRunning {
		if t == nil || t.session == nil {
			return core.TaskView{}, core.Errorf(core.CodeInvalidState, nil, "task %s has no live worker session", id)
		}
		if err := e.collisionCheck(ctx, r, "before_steer"); err != nil {
			return core.TaskView{}, err
		}
		if _, err := t.session.Steer(ctx, steerText(0, msg)); err != nil {
			if errors.Is(err, acp.ErrNoActiveTurn) {
				return core.TaskView{}, core.Errorf(core.CodeInvalidState, nil, "the worker is between turns; steer again in a moment")
			}
			return core.TaskView{}, workerError(err)
		}
		r, err = e.update(id, func(r *taskRecord) ([]newEvent, error) {
			return []newEvent{event(core.EventSteered, core.SteeredData{Text: msg})}, nil
		})
		if err != nil {
			return core.TaskView{}, err
		}
		return r.view(), nil
	}
	// In review, or paused for a rebase's round: a repair round, the gate having found one left.
	c, err := parseStoredContract(r.Contract)
	if err != nil {
		return core.TaskView{}, core.Errorf(core.CodeInvalidState, nil, "stored contract: %w", err)
	}
	if err := e.collisionCheck(ctx, r, "before_steer"); err != nil {
		return core.TaskView{}, err
	}
	if t == nil || t.session == nil {
		// The worker is gone (a restart, or the last turn ended it): start a fresh one.
		e.detach(id)
		t = e.attach(id, c, r.Worktree)
		if err := e.startWorker(ctx, t, r); err != nil {
			e.detach(id)
			return core.TaskView{}, core.AsError(err)
		}
	}
	round := r.RepairRounds + 1
	note := r.ContractNote
	r, err = e.update(id, func(r *taskRecord) ([]newEvent, error) {
		r.RepairRounds, r.RepairActive = round, true
		r.ContractNote = ""
		ev, err := setState(r, core.StateRunning, "repair_"+strconv.Itoa(round), "")
		evs := []newEvent{ev, event(core.EventSteered, core.SteeredData{Text: msg})}
		if also != nil {
			evs = append(evs, also(r)...)
		}
		return evs, err
	})
	if err != nil {
		return core.TaskView{}, err
	}
	e.startTurn(t, steerText(round, note+msg), time.Duration(r.ExecutionTimeout)*time.Second)
	return r.view(), nil
}

// respond answers a pending interaction.
func (e *Engine) respond(ctx context.Context, req core.Respond) (core.TaskView, error) {
	id := req.TaskID
	t := e.liveTask(id)
	var ch chan interactionAnswer
	if t != nil {
		t.mu.Lock()
		ch = t.answers[req.InteractionID]
		t.mu.Unlock()
	}
	// Answering the last pending interaction lets the worker go on: guard that like a resume. A
	// collision pauses the task and the waiting request is answered as cancelled.
	if r, err := e.load(id); err == nil && ch != nil && core.Allows(r.view(), core.ActionRespond) {
		if ia := r.pendingInteraction(); ia != nil && ia.ID == req.InteractionID {
			if err := e.collisionCheck(ctx, r, "resume_after_interaction"); err != nil {
				select {
				case ch <- interactionAnswer{}:
				default:
				}
				return core.TaskView{}, err
			}
		}
	}
	var granted core.Grant
	if req.Grant {
		g, err := e.grantFor(id, req)
		if err != nil {
			return core.TaskView{}, err
		}
		granted = g
	}
	var answer interactionAnswer
	r, err := e.update(id, func(r *taskRecord) ([]newEvent, error) {
		var ia *core.Interaction
		for i := range r.Interactions {
			if r.Interactions[i].ID == req.InteractionID {
				ia = &r.Interactions[i]
			}
		}
		// A task that waits for nobody has nothing to answer: the table's refusal keeps the
		// code a late second answer is told by (the first answer counts).
		if why := core.WhyNot(r.view(), core.ActionRespond); why != "" {
			return nil, core.Errorf(core.CodeInteractionNotFound, nil, "no pending interaction %s on task %s: %s", req.InteractionID, id, why)
		}
		if ia == nil || ia.Status != core.InteractionPending || ch == nil {
			return nil, core.Errorf(core.CodeInteractionNotFound, nil, "no pending interaction %s on task %s", req.InteractionID, id)
		}
		outcome, response, err := chooseOption(ia, req)
		if err != nil {
			return nil, err
		}
		response.By, response.Outcome = cmp.Or(req.AnsweredBy, core.BySupervisor), cmp.Or(req.Outcome, core.OutcomeAnswered)
		if response.By == core.ByCodex || response.By == core.ByAskedUser {
			response.Client = req.Client
		}
		response.Grant = granted.ID
		answer = interactionAnswer{outcome: outcome, response: response}
		ia.Status, ia.ResolvedAt, ia.Response = core.InteractionResolved, core.FormatTime(e.now()), response
		evs := []newEvent{event(core.EventInteractionResolved, core.InteractionResolvedData(*ia))}
		if ia.Kind == core.InteractionPermission {
			evs = append(evs, event(core.EventPermissionDecided, core.PermissionData{
				ToolCallID: ia.Request.ToolCallID, Kind: ia.Request.Tool, Title: ia.Request.Title,
				Argv: ia.Request.Argv, Cwd: ia.Request.Cwd, Paths: ia.Request.Paths,
				Decision: req.Decision, By: response.By, Outcome: response.Outcome, Client: response.Client,
				Reason: answerWords(response) + grantedWords(granted), Grant: granted.ID,
			}))
		}
		if r.pendingInteraction() == nil && (r.State == core.StateWaitingPermission || r.State == core.StateWaitingInput) {
			ev, err := setState(r, core.StateRunning, "implementing", "")
			if err != nil {
				return nil, err
			}
			evs = append(evs, ev)
		}
		return evs, nil
	})
	if err != nil {
		return core.TaskView{}, err
	}
	ch <- answer
	return r.view(), nil
}

// chooseOption maps a supervisor's answer onto one of the options the worker offered.
func chooseOption(ia *core.Interaction, req core.Respond) (acp.PermissionOutcome, *core.InteractionResponse, error) {
	opts := ia.Request.Options
	find := func(match func(o core.InteractionOption) bool) string {
		for _, o := range opts {
			if match(o) {
				return o.OptionID
			}
		}
		return ""
	}
	response := &core.InteractionResponse{Decision: req.Decision}
	var chosen string
	switch {
	case req.OptionID != "":
		chosen = find(func(o core.InteractionOption) bool { return o.OptionID == req.OptionID })
		if chosen == "" {
			return acp.PermissionOutcome{}, nil, core.Errorf(core.CodeInvalidRequest, &core.UnofferedOption{Options: opts}, "option %s was not offered", req.OptionID)
		}
	case req.Answer != "":
		chosen = find(func(o core.InteractionOption) bool { return o.Name == req.Answer })
		response.Answer = req.Answer
		if chosen == "" && req.Decision == core.DecisionAllow {
			chosen = find(func(o core.InteractionOption) bool { return o.Kind == core.OptionAllowOnce })
		}
	case req.Decision == core.DecisionAllow:
		chosen = find(func(o core.InteractionOption) bool { return o.Kind == core.OptionAllowOnce })
	}
	if req.Decision == core.DecisionDeny && req.OptionID == "" {
		chosen = find(func(o core.InteractionOption) bool { return o.Kind == core.OptionRejectOnce })
	}
	response.OptionID = chosen
	return acp.PermissionOutcome{OptionID: chosen}, response, nil
}

// cancel ends a task: pending interactions are cancelled, the turn is cancelled and the worker
// stopped. Cancelling a terminal task changes nothing.
func (e *Engine) cancel(id string) (core.TaskView, error) {
	return e.end(id, core.ActionCancel, core.StateCancelled, "cancelled", "cancelled by the supervisor")
}

// closeTask ends a task the supervisor no longer wants; like cancel.
func (e *Engine) closeTask(id string) (core.TaskView, error) {
	return e.end(id, core.ActionClose, core.StateClosed, "closed", "closed by the supervisor")
}

// end is cancel and close (action). Ending a task that has ended answers with it unchanged
// rather than refusing: a retried cancel or close finds its own effect and must not fail.
func (e *Engine) end(id, action string, to core.State, phase, reason string) (core.TaskView, error) {
	r, err := e.update(id, func(r *taskRecord) ([]newEvent, error) {
		if r.State.Terminal() {
			return nil, nil
		}
		if err := refusal(r, action); err != nil {
			return nil, err
		}
		evs := cancelInteractions(r, e.now())
		ev, err := setState(r, to, phase, reason)
		if err != nil {
			return nil, err
		}
		return append(evs, ev), nil
	})
	if err != nil {
		return core.TaskView{}, err
	}
	e.detach(id)
	return r.view(), nil
}
