package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"reasonixctl/acp/agents"
)

// Plain ACP: what a session of an agent without Reasonix's extensions needs. Such an agent
// names a permission request by the id of its tool call, which it may announce before the
// request, after it (Codex runs a command's tool_call after asking) or never (Gemini); its
// first announcement may carry an empty input that a later update fills (Claude). So every
// tool call's latest input, locations and diffs are kept by id, and a request is completed
// from them. Its turn ends with stopReason and reports usage in the prompt's answer and in
// usage_update; its steer is a cancel and a new prompt.

var errTurnSteered = errors.New("acp: turn cancelled to take a steer")

// foreignState is a plain-ACP session's own bookkeeping, guarded by Session.mu.
type foreignState struct {
	calls map[string]*trackedCall
	root  string // the session's cwd

	// Of the running turn: a permission was answered with a rejection; the supervisor
	// cancelled it; a steer cancelled it and waits (steers) to be the next prompt.
	rejected  bool
	cancelled bool
	steering  bool
	steers    []string
	// deciding counts the permission requests being decided: the agent waits on them.
	deciding int
	// granted are the paths a permission of the running turn allowed, for fs writes.
	granted []string

	running  bool
	lastStop StopReason
	usage    Usage
	seq      int64
}

// trackedCall is what is known of one tool call, the latest of each part.
type trackedCall struct {
	kind, title string
	rawInput    json.RawMessage
	locations   []string
	diffs       []Diff
}

// maxTrackedCalls bounds the tool calls kept for permission matching; an agent that never
// finishes its calls cannot grow the map without end.
const maxTrackedCalls = 1024

// trackForeign records what a plain-ACP agent said of its tool calls and its usage. Called with
// the worker's lock held, by the reader.
func (s *Session) trackForeign(e Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch e := e.(type) {
	case ToolCall:
		c := s.foreign.call(e.ID)
		if c == nil {
			return
		}
		c.merge(e.ToolKind, e.Title, e.RawInput, e.Locations, e.Content)
	case ToolCallUpdate:
		c := s.foreign.call(e.ID)
		if c == nil {
			return
		}
		c.merge(e.ToolKind, e.Title, e.RawInput, e.Locations, e.Content)
		// A finished call is kept: Codex asks about a command before its tool_call, and an
		// agent may ask again about a call it retried; the map is bounded instead.
	case Unknown:
		if e.Method == methodSessionUpdate && e.UpdateKind == "usage_update" {
			var n struct {
				Update struct {
					Cost *struct {
						Amount   float64 `json:"amount"`
						Currency string  `json:"currency"`
					} `json:"cost"`
				} `json:"update"`
			}
			if json.Unmarshal(e.Raw, &n) == nil && n.Update.Cost != nil {
				amount, cur := n.Update.Cost.Amount, n.Update.Cost.Currency
				s.foreign.usage.EstimatedCost, s.foreign.usage.Currency = &amount, &cur
			}
		}
	}
}

func (f *foreignState) call(id string) *trackedCall {
	if c := f.calls[id]; c != nil {
		return c
	}
	if len(f.calls) >= maxTrackedCalls {
		return nil
	}
	c := &trackedCall{}
	f.calls[id] = c
	return c
}

// merge keeps the latest non-empty value of each part: an input of `{}` is no input.
func (c *trackedCall) merge(kind, title string, raw json.RawMessage, locs []string, content json.RawMessage) {
	if kind != "" {
		c.kind = kind
	}
	if title != "" {
		c.title = title
	}
	if hasInput(raw) {
		c.rawInput = append(json.RawMessage(nil), raw...)
	}
	if len(locs) > 0 {
		c.locations = slices.Clone(locs)
	}
	if d := parseDiffs(content); len(d) > 0 {
		c.diffs = d
	}
}

// hasInput reports whether raw is an input worth keeping: not absent, null or `{}`.
func hasInput(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(t, &m) == nil && len(m) == 0 {
		return false
	}
	return true
}

// parseDiffs reads the diff blocks of a tool call's content array.
func parseDiffs(raw json.RawMessage) []Diff {
	if len(raw) == 0 {
		return nil
	}
	var items []struct {
		Type    string  `json:"type"`
		Path    string  `json:"path"`
		OldText *string `json:"oldText"`
		NewText string  `json:"newText"`
	}
	if json.Unmarshal(raw, &items) != nil {
		return nil
	}
	var out []Diff
	for _, it := range items {
		if it.Type == "diff" && it.Path != "" {
			out = append(out, Diff{Path: it.Path, OldText: it.OldText, NewText: it.NewText})
		}
	}
	return out
}

// completeForeign fills a plain-ACP agent's request from what is known of its tool call: the
// request's own input, locations and diffs when it has them, else the call's latest.
func (s *Session) completeForeign(req *PermissionRequest, p sdk.RequestPermissionRequest) {
	s.mu.Lock()
	s.foreign.deciding++
	s.mu.Unlock()
	req.CallID = req.ToolCallID
	if b, err := json.Marshal(p.ToolCall.Content); err == nil {
		req.Diffs = parseDiffs(b)
	}
	req.fallback = map[string][]string{}
	for _, d := range []agents.Decision{agents.AllowOnce, agents.AllowAlways, agents.RejectOnce} {
		req.fallback[string(d)] = s.w.agent.OptionFallback(d)
	}
	s.mu.Lock()
	c := s.foreign.calls[req.ToolCallID]
	if c != nil {
		if !hasInput(req.RawInput) && c.rawInput != nil {
			req.RawInput = c.rawInput
		}
		if len(req.Locations) == 0 {
			req.Locations = slices.Clone(c.locations)
		}
		if len(req.Diffs) == 0 {
			req.Diffs = slices.Clone(c.diffs)
		}
		if req.ToolKind == "" {
			req.ToolKind = c.kind
		}
		if req.Title == "" {
			req.Title = c.title
		}
	}
	s.mu.Unlock()
	if !hasInput(req.RawInput) {
		req.RawInput = nil
	}
}

// answeredForeign records the answer to a plain-ACP agent's request: a rejection makes a turn
// that then ends cancelled a refusal; an allowed edit's paths may be written through fs.
func (s *Session) answeredForeign(req PermissionRequest, out PermissionOutcome) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.foreign.deciding--
	if out.Cancelled() {
		return
	}
	if req.IsReject(out) {
		s.foreign.rejected = true
		return
	}
	for _, p := range req.Locations {
		s.foreign.granted = append(s.foreign.granted, p)
	}
	for _, d := range req.Diffs {
		s.foreign.granted = append(s.foreign.granted, d.Path)
	}
}

// takeGrant consumes a grant of the running turn for path.
func (s *Session) takeGrant(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := slices.Index(s.foreign.granted, path); i >= 0 {
		s.foreign.granted = slices.Delete(s.foreign.granted, i, i+1)
		return true
	}
	return false
}

// promptForeign runs a plain-ACP agent's turn: a prompt, again with the steers that cancelled
// it, until the agent ends it for another reason. A turn that ends cancelled after a
// rejection nobody followed with a cancel is StopRefused.
func (s *Session) promptForeign(text string) (StopReason, error) {
	s.mu.Lock()
	s.foreign.running, s.foreign.rejected, s.foreign.cancelled, s.foreign.steering = true, false, false, false
	s.foreign.granted = nil
	s.mu.Unlock()
	for {
		resp, err := s.w.conn.Prompt(s.ctx, sdk.PromptRequest{SessionId: sdk.SessionId(s.id), Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
		if err != nil {
			err = s.w.callErr(s.ctx, "session/prompt", err)
		}
		stop := StopReason(resp.StopReason)
		s.mu.Lock()
		if u := resp.Usage; u != nil {
			f := &s.foreign.usage
			f.PromptTokens += int64(u.InputTokens)
			f.CompletionTokens += int64(u.OutputTokens)
			f.TotalTokens += int64(u.TotalTokens)
			if u.CachedReadTokens != nil {
				f.CacheHitTokens += int64(*u.CachedReadTokens)
			}
			if u.ThoughtTokens != nil {
				f.ReasoningTokens += int64(*u.ThoughtTokens)
			}
		}
		// A steer that cancelled the turn, or one queued while the agent waited on a permission
		// or after it was refused one, is the next prompt once the turn ends, however the agent
		// ended it: the caller was told the steer reaches the agent. Only a cancel by the
		// supervisor, a failed prompt or the session's end drop it, and that is reported.
		if err == nil && len(s.foreign.steers) > 0 && !s.foreign.cancelled && s.ctx.Err() == nil {
			text = strings.Join(s.foreign.steers, "\n\n")
			s.foreign.steers, s.foreign.steering, s.foreign.rejected, s.foreign.granted = nil, false, false, nil
			// The steer cancelled the turn's context (its open requests answered cancelled);
			// the next prompt gets a new one.
			s.turnCtx, s.turnCancel = context.WithCancelCause(s.ctx)
			s.mu.Unlock()
			continue
		}
		if stop == StopCancelled && s.foreign.rejected && !s.foreign.cancelled && !s.foreign.steering {
			stop = StopRefused
		}
		dropped, cancelled := s.foreign.steers, s.foreign.cancelled
		s.foreign.running, s.foreign.lastStop, s.foreign.steers, s.foreign.steering = false, stop, nil, false
		s.mu.Unlock()
		if len(dropped) > 0 {
			why := "the turn was cancelled"
			switch {
			case err != nil:
				why = "the prompt failed: " + err.Error()
			case !cancelled:
				why = "the session ended"
			}
			// Queued before the turn's end is reported, so a consumer that drains the events
			// it has been given before acting on the end has seen it.
			s.deliverLate(SteerDropped{SessionID: s.id, Texts: dropped, Reason: why})
		}
		return stop, err
	}
}

// steerForeign cancels the running turn of a plain-ACP agent and queues text as the prompt
// that follows it (promptForeign sends it). While the agent waits on a permission, or after it
// was refused one in this turn, the text is only queued for the turn's end (agents.SteerQueue).
func (s *Session) steerForeign(ctx context.Context, text string) (string, error) {
	s.mu.Lock()
	if s.turnCancel == nil || !s.foreign.running || s.foreign.cancelled {
		s.mu.Unlock()
		return "", fmt.Errorf("%w: no turn is running", ErrNoActiveTurn)
	}
	s.foreign.steers = append(s.foreign.steers, text)
	if s.foreign.rejected || s.foreign.deciding > 0 {
		// The agent waits on a permission or has just been refused one (and may end the turn
		// itself): the steer waits for the turn's end instead of cancelling it.
		s.mu.Unlock()
		return agents.SteerQueue, nil
	}
	first := !s.foreign.steering
	s.foreign.steering = true
	cancelTurn := s.turnCancel
	s.mu.Unlock()
	if first {
		cancelTurn(errTurnSteered)
		if err := s.w.conn.Cancel(ctx, sdk.CancelNotification{SessionId: sdk.SessionId(s.id)}); err != nil {
			return "", s.w.callErr(ctx, "session/cancel", err)
		}
	}
	return agents.SteerCancelPrompt, nil
}

// statusForeign is the status of a plain-ACP session, made from what its turns reported: idle
// or running, the last turn's outcome (completed for end_turn), and the usage summed from the
// prompts' answers with the latest cost of usage_update.
func (s *Session) statusForeign() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{SchemaVersion: statusSchemaVersion, SessionID: s.id, State: "idle", Mode: s.effective.Mode}
	if s.foreign.running {
		st.State = "running"
	}
	switch s.foreign.lastStop {
	case StopEndTurn:
		st.TurnOutcome.Kind = "completed"
	case "":
	default:
		st.TurnOutcome.Kind = string(s.foreign.lastStop)
	}
	st.Usage.Cumulative = s.foreign.usage
	st.Usage.Turn = s.foreign.usage
	return st
}

// configureForeign applies a plain-ACP agent's settings: its profile's mode where offered (as a
// mode or a config option of category mode), the model and effort where offered, and
// tool_approval and work_mode only where offered. The supervisor's lanes (normal, goal) are
// Reasonix's and not asked of it.
func (s *Session) configureForeign(ctx context.Context, cfg SessionConfig, opts []ConfigOption, modes *sdk.SessionModeState,
	eff Effective, set func(*ConfigOption, string) error) error {
	if o := findOption(opts, "tool_approval", "tool_approval"); o != nil {
		approval := "read-only"
		if slices.Contains(o.Values, "ask") {
			approval = "ask"
		}
		if slices.Contains(o.Values, approval) {
			if err := set(o, approval); err != nil {
				return err
			}
			eff.ToolApproval = approval
		}
	}
	eff.Mode, eff.Steer = "", s.w.info.Steer
	current, modeIDs := modeState(modes)
	eff.Mode = current
	s.mu.Lock()
	s.options, s.modes, s.effective = opts, modeIDs, eff
	s.mu.Unlock()
	want := s.w.agent.Mode
	if want == "" || want == current {
		return nil
	}
	if slices.Contains(modeIDs, want) {
		return s.setMode(ctx, want)
	}
	if o := findOption(opts, "mode", "mode"); o != nil && slices.Contains(o.Values, want) {
		if err := set(o, want); err != nil {
			return err
		}
		s.mu.Lock()
		s.effective.Mode = want
		s.mu.Unlock()
		return nil
	}
	// An agent that does not offer the mode is supervised by its private home's configuration
	// (codex's approval policy, opencode's permissions) or asks by default.
	return nil
}

func modeState(modes *sdk.SessionModeState) (current string, ids []string) {
	if modes == nil {
		return "", nil
	}
	for _, m := range modes.AvailableModes {
		ids = append(ids, string(m.Id))
	}
	return string(modes.CurrentModeId), ids
}
