package acptest

import (
	"context"
	"strings"
	"sync"
	"time"
)

// The models the fake offers, named like the providers mockllm.WriteReasonixHome configures, so
// the same client code can drive the fake and the real worker against the mock model.
const (
	plainModel     = "mock/mock-model"
	reasoningModel = "mockr/mock-thinker"
)

var (
	modernApprovals = []string{"read-only", "workspace-write", "danger-full-access"}
	modernEfforts   = []string{"auto", "disabled", "high", "max"}
	legacyApprovals = []string{"ask", "auto"}
	legacyEfforts   = []string{"low", "medium", "high", "max"}
	legacyWorkModes = []string{"economy", "balanced", "delivery"}
)

func knownModel(id string) bool { return id == plainModel || id == reasoningModel }

type usageCounts struct{ prompt, completion int }

// session is one worker session; mu guards every field below it.
type session struct {
	a       *agent
	id, cwd string
	created time.Time

	mu       sync.Mutex
	model    string
	effort   string
	approval string
	mode     string
	workMode string
	goal     string
	phase    string
	outcome  map[string]any
	ready    bool
	summary  string
	seq      int
	turnUse  usageCounts
	cumUse   usageCounts
	gate     int
	allowed  map[string]bool
	prompts  int // prompts that played a turn without a Match
	turn     *activeTurn
	title    string
	messages int
	updated  time.Time
}

// activeTurn is the prompt turn in progress; its fields are guarded by the session's mu.
type activeTurn struct {
	cancel context.CancelFunc
	steers []string
	played int           // steers already answered by OnSteer steps
	wake   chan struct{} // closed and replaced when a steer arrives
}

func (t *activeTurn) signal() {
	close(t.wake)
	t.wake = make(chan struct{})
}

func newSession(a *agent, id, cwd string) *session {
	now := time.Now()
	s := &session{a: a, id: id, cwd: cwd, created: now, updated: now, model: plainModel, mode: "normal",
		goal: "none", phase: "idle", outcome: map[string]any{"kind": "none"}, allowed: map[string]bool{}}
	if a.opts.Legacy {
		s.approval, s.effort, s.workMode = "auto", "medium", "balanced"
	} else {
		s.approval, s.effort, s.workMode = "workspace-write", "auto", "standard"
	}
	return s
}

func (s *session) approvalValues() []string {
	if s.a.opts.Legacy {
		return legacyApprovals
	}
	return modernApprovals
}

// effortValues is nil when the current model has no effort option.
func (s *session) effortValues() []string {
	switch {
	case s.a.opts.Legacy:
		return legacyEfforts
	case s.model == reasoningModel:
		return modernEfforts
	}
	return nil
}

func (s *session) setModelLocked(m string) {
	s.model = m
	if !s.a.opts.Legacy {
		s.effort = "auto"
	}
}

// applyOption changes one config option and returns the options after the change.
func (s *session) applyOption(id, value string) (deprecated bool, opts []any, err *rpcError) {
	const m = "session/set_config_option"
	s.mu.Lock()
	defer s.mu.Unlock()
	legacy := s.a.opts.Legacy
	switch {
	case id == "model":
		if !knownModel(value) {
			return false, nil, errInvalidParams("%s: invalid value %q for model", m, value)
		}
		s.setModelLocked(value)
	case id == "tool_approval":
		if !contains(s.approvalValues(), value) {
			return false, nil, errInvalidParams("%s: invalid value %q for tool_approval (accepted: %s)", m, value, strings.Join(s.approvalValues(), ", "))
		}
		s.approval = value
	case id == "effort" && s.effortValues() != nil:
		if !contains(s.effortValues(), value) {
			return false, nil, errInvalidParams("%s: invalid value %q for effort (accepted: %s)", m, value, strings.Join(s.effortValues(), ", "))
		}
		s.effort = value
	case id == "work_mode" && legacy:
		if !contains(legacyWorkModes, value) {
			return false, nil, errInvalidParams("%s: invalid value %q for work_mode (accepted: %s)", m, value, strings.Join(legacyWorkModes, ", "))
		}
		s.workMode = value
	case !legacy && (id == "work_mode" || id == "agent_preset" || id == "quality_floor"):
		if value != "standard" && value != "delivery" && value != "light" {
			return false, nil, errInvalidParams("%s: invalid value %q for quality floor (accepted: standard, delivery; legacy light folds to standard)", m, value)
		}
		deprecated = true
	default:
		return false, nil, errInvalidParams("%s: unknown config option %s", m, id)
	}
	return deprecated, s.configOptionsLocked(), nil
}

func selectOption(id, name, category, current string, values [][3]string) map[string]any {
	opts := make([]any, len(values))
	for i, v := range values {
		o := map[string]any{"value": v[0], "name": v[1]}
		if v[2] != "" {
			o["description"] = v[2]
		}
		opts[i] = o
	}
	return map[string]any{"id": id, "name": name, "category": category, "type": "select", "currentValue": current, "options": opts}
}

func (s *session) configOptionsLocked() []any {
	out := []any{selectOption("model", "Model", "model", s.model,
		[][3]string{{plainModel, plainModel, "mock"}, {reasoningModel, reasoningModel, "mockr"}})}
	if s.a.opts.Legacy {
		return append(out,
			selectOption("effort", "Effort", "thought_level", s.effort,
				[][3]string{{"low", "Low", ""}, {"medium", "Medium", ""}, {"high", "High", ""}, {"max", "Max", ""}}),
			selectOption("work_mode", "Work mode", "work_mode", s.workMode,
				[][3]string{{"economy", "Economy", "Fewest tokens"}, {"balanced", "Balanced", "Default depth"}, {"delivery", "Delivery", "Verify before finishing"}}),
			selectOption("tool_approval", "Tool approval", "tool_approval", s.approval,
				[][3]string{{"ask", "Ask", "Ask before every write and command"}, {"auto", "Auto", "Run tools without asking"}}))
	}
	if s.model == reasoningModel {
		out = append(out, selectOption("effort", "Effort", "thought_level", s.effort,
			[][3]string{{"auto", "Auto", ""}, {"disabled", "Disabled", ""}, {"high", "High", ""}, {"max", "Max", ""}}))
	}
	return append(out, selectOption("tool_approval", "Permissions", "tool_approval", s.approval, [][3]string{
		{"read-only", "Read only", "Read files; ask before writes and external side effects"},
		{"workspace-write", "Workspace access", "Write inside the workspace and private session temp directory"},
		{"danger-full-access", "Full access", "Skip ordinary prompts while explicit deny rules remain active"}}))
}

func (s *session) modelsLocked() map[string]any {
	return map[string]any{"availableModels": []any{
		map[string]any{"modelId": plainModel, "name": plainModel, "description": "mock"},
		map[string]any{"modelId": reasoningModel, "name": reasoningModel, "description": "mockr"},
	}, "currentModelId": s.model}
}

func (s *session) modesLocked() map[string]any {
	return map[string]any{"currentModeId": s.mode, "availableModes": []any{
		map[string]any{"id": "normal", "name": "Normal", "description": "Work directly and pause when user input is required"},
		map[string]any{"id": "plan", "name": "Plan", "description": "Research and propose a plan before making changes"},
		map[string]any{"id": "goal", "name": "Goal", "description": "Keep advancing the next prompt as a goal until complete or blocked"},
	}}
}

func usageJSON(u usageCounts) map[string]any {
	return map[string]any{"totalTokens": u.prompt + u.completion, "promptTokens": u.prompt, "completionTokens": u.completion,
		"reasoningTokens": 0, "cacheHitTokens": 0, "cacheMissTokens": u.prompt, "cacheHitRatio": nil,
		"estimatedCost": nil, "currency": nil, "usageSource": "executor"}
}

// statusLocked is the `_reasonix.io/session/status` snapshot.
func (s *session) statusLocked() map[string]any {
	state := "idle"
	if s.turn != nil {
		state = "running"
	}
	return map[string]any{
		"schemaVersion": 1, "sequence": s.seq, "sessionId": s.id, "state": state,
		"model": s.model, "effort": s.effort, "mode": s.mode, "workMode": s.workMode, "plannerMode": "off",
		"goal": map[string]any{"status": s.goal}, "phase": s.phase, "turnOutcome": s.outcome,
		"finalReadiness": map[string]any{"readyForReview": s.ready, "summary": s.summary, "risks": []any{}},
		"sandbox": map[string]any{"mode": "enforce", "engine": "bubblewrap", "available": true,
			"workspaceRoot": s.cwd, "writeRoots": []string{s.cwd}, "networkEnabled": true},
		"usage": map[string]any{"turn": usageJSON(s.turnUse), "cumulative": usageJSON(s.cumUse)},
	}
}

// emitLocked sends a status_update for event; holding mu keeps sequences in wire order.
func (s *session) emitLocked(event string) {
	s.seq++
	s.a.conn.notify("_reasonix.io/session/status_update", map[string]any{
		"schemaVersion": 1, "sequence": s.seq, "sessionId": s.id, "event": event, "status": s.statusLocked()})
}

// setPhase changes the phase and reports it if it changed.
func (s *session) setPhase(phase string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.phase != phase {
		s.phase = phase
		s.emitLocked("phase")
	}
}

func (s *session) update(u map[string]any) {
	s.a.conn.notify("session/update", map[string]any{"sessionId": s.id, "update": u})
}

func (s *session) notifyCommands() {
	cmds := []any{}
	for _, c := range [][2]string{
		{"explore", "Investigate repository structure or behavior in a read-only subagent."},
		{"review", "Review the requested code changes for correctness, security, and regression risks in a read-only subagent."},
		{"test", "Run requested tests, diagnose failures, and complete authorized repairs."},
	} {
		cmds = append(cmds, map[string]any{"name": c[0], "description": c[1], "input": map[string]any{"hint": "instructions"}})
	}
	s.update(map[string]any{"sessionUpdate": "available_commands_update", "availableCommands": cmds})
}

func (s *session) cancelTurn() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.turn != nil {
		s.turn.cancel()
	}
}
