package acp

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
)

// EventKind names an Event for journaling and tests. Update kinds keep the wire name.
type EventKind string

const (
	KindAgentMessage   EventKind = "agent_message_chunk"
	KindAgentThought   EventKind = "agent_thought_chunk"
	KindUserMessage    EventKind = "user_message_chunk"
	KindToolCall       EventKind = "tool_call"
	KindToolCallUpdate EventKind = "tool_call_update"
	KindPlan           EventKind = "plan"
	KindCommands       EventKind = "available_commands_update"
	KindMode           EventKind = "current_mode_update"
	KindConfig         EventKind = "config_option_update"
	KindStatus         EventKind = "status_update"
	KindPermission     EventKind = "permission"
	KindUnknown        EventKind = "unknown"
	KindError          EventKind = "error"
	KindSteerDropped   EventKind = "steer_dropped"
)

// Event is one thing a session's worker told us, in wire order. The concrete types are the
// structs below; switch on them or on Kind.
type Event interface {
	Kind() EventKind
	Session() string
}

// Chunk is a piece of streamed text: the agent's answer, its reasoning, or (during session/load)
// a replayed user message. Consecutive chunks of one stream may be merged before delivery.
type Chunk struct {
	SessionID string
	Stream    EventKind // KindAgentMessage, KindAgentThought or KindUserMessage
	Text      string
	// Content holds a non-text content block verbatim (Text is then empty).
	Content json.RawMessage `json:",omitempty"`
}

// ToolCall announces a tool the agent is about to run. ID is the provider's `call_…` id.
type ToolCall struct {
	SessionID string
	ID        string
	Title     string
	ToolKind  string // execute, edit, read, …
	Status    string
	RawInput  json.RawMessage `json:",omitempty"`
	Locations []string        `json:",omitempty"`
	// Content is the call's content array verbatim (a diff of an edit, a description), when
	// the agent sends one with the call.
	Content json.RawMessage `json:",omitempty"`
}

// ToolCallUpdate reports progress or the end (Status completed or failed) of a tool call.
type ToolCallUpdate struct {
	SessionID string
	ID        string
	Status    string // "" when unchanged
	Title     string // "" when unchanged
	// Text joins the text content blocks (e.g. a command's output or "blocked by permission policy").
	Text      string
	Content   json.RawMessage `json:",omitempty"` // the content array verbatim
	RawOutput json.RawMessage `json:",omitempty"`
	Locations []string        `json:",omitempty"`
	// RawInput and ToolKind are set when the update carries them (Claude and opencode send the
	// call's real input only in an update).
	RawInput json.RawMessage `json:",omitempty"`
	ToolKind string          `json:",omitempty"`
}

// Plan is the agent's current to-do list (from its todo tool), replacing any earlier one.
type Plan struct {
	SessionID string
	Entries   []PlanEntry
}

// PlanEntry is one line of a Plan.
type PlanEntry struct {
	Content  string `json:"content"`
	Priority string `json:"priority"`
	Status   string `json:"status"`
}

// ModeUpdate reports the session's new mode (normal, plan, goal).
type ModeUpdate struct {
	SessionID string
	ModeID    string
}

// ConfigUpdate carries the full set of config options after a change.
type ConfigUpdate struct {
	SessionID string
	Options   []ConfigOption
}

// CommandsUpdate lists the slash commands the agent offers.
type CommandsUpdate struct {
	SessionID string
	Commands  []string
}

// StatusUpdate is a `_reasonix.io/session/status_update` notification. Apply it only when
// Sequence is newer than the last one applied.
type StatusUpdate struct {
	SessionID string
	Sequence  int64
	Event     string // phase, usage, completion, …
	Status    Status
}

// PermissionEvent records a permission request and the answer we sent.
type PermissionEvent struct {
	SessionID string
	Request   PermissionRequest
	Outcome   PermissionOutcome
}

// Unknown is an inbound message this client does not understand, kept verbatim for the journal.
type Unknown struct {
	SessionID  string
	Method     string
	UpdateKind string // the sessionUpdate value, for session/update
	Reason     string
	Raw        json.RawMessage
}

// SteerDropped reports steers that were accepted for a plain-ACP agent's running turn
// (queued, or waiting to be the next prompt) and never reached the agent: the turn was
// cancelled, its prompt failed or the session ended first.
type SteerDropped struct {
	SessionID string
	Texts     []string
	Reason    string
}

// ErrorEvent ends a session's event stream when the worker fails or is closed. Err wraps one of
// ErrWorkerExited, ErrProtocol, ErrFlood or ErrWorkerClosed.
type ErrorEvent struct {
	SessionID string
	Err       error
}

func (e Chunk) Kind() EventKind           { return e.Stream }
func (e ToolCall) Kind() EventKind        { return KindToolCall }
func (e ToolCallUpdate) Kind() EventKind  { return KindToolCallUpdate }
func (e Plan) Kind() EventKind            { return KindPlan }
func (e ModeUpdate) Kind() EventKind      { return KindMode }
func (e ConfigUpdate) Kind() EventKind    { return KindConfig }
func (e CommandsUpdate) Kind() EventKind  { return KindCommands }
func (e StatusUpdate) Kind() EventKind    { return KindStatus }
func (e PermissionEvent) Kind() EventKind { return KindPermission }
func (e Unknown) Kind() EventKind         { return KindUnknown }
func (e ErrorEvent) Kind() EventKind      { return KindError }
func (e SteerDropped) Kind() EventKind    { return KindSteerDropped }

func (e Chunk) Session() string           { return e.SessionID }
func (e ToolCall) Session() string        { return e.SessionID }
func (e ToolCallUpdate) Session() string  { return e.SessionID }
func (e Plan) Session() string            { return e.SessionID }
func (e ModeUpdate) Session() string      { return e.SessionID }
func (e ConfigUpdate) Session() string    { return e.SessionID }
func (e CommandsUpdate) Session() string  { return e.SessionID }
func (e StatusUpdate) Session() string    { return e.SessionID }
func (e PermissionEvent) Session() string { return e.SessionID }
func (e SteerDropped) Session() string    { return e.SessionID }
func (e Unknown) Session() string         { return e.SessionID }
func (e ErrorEvent) Session() string      { return e.SessionID }

// Status is the `_reasonix.io/session/status` snapshot (schema version 1). Fields the worker adds
// later are ignored here and kept in Raw.
type Status struct {
	SchemaVersion int    `json:"schemaVersion"`
	Sequence      int64  `json:"sequence"`
	SessionID     string `json:"sessionId"`
	State         string `json:"state"` // idle | running
	Model         string `json:"model"`
	Effort        string `json:"effort"`
	Mode          string `json:"mode"`
	WorkMode      string `json:"workMode"`
	PlannerMode   string `json:"plannerMode"`
	Goal          struct {
		Status string `json:"status"`
	} `json:"goal"`
	Phase       string `json:"phase"`
	TurnOutcome struct {
		Kind string `json:"kind"`
	} `json:"turnOutcome"`
	FinalReadiness struct {
		ReadyForReview bool            `json:"readyForReview"`
		Summary        string          `json:"summary"`
		Risks          json.RawMessage `json:"risks,omitempty"`
	} `json:"finalReadiness"`
	Sandbox struct {
		Mode           string   `json:"mode"`
		Engine         string   `json:"engine"`
		Available      bool     `json:"available"`
		WorkspaceRoot  string   `json:"workspaceRoot"`
		WriteRoots     []string `json:"writeRoots"`
		NetworkEnabled *bool    `json:"networkEnabled,omitempty"`
	} `json:"sandbox"`
	Usage struct {
		Turn       Usage `json:"turn"`
		Cumulative Usage `json:"cumulative"`
	} `json:"usage"`

	Raw json.RawMessage `json:"-"`
}

// Usage counts tokens of a turn or of the whole session.
type Usage struct {
	TotalTokens      int64    `json:"totalTokens"`
	PromptTokens     int64    `json:"promptTokens"`
	CompletionTokens int64    `json:"completionTokens"`
	ReasoningTokens  int64    `json:"reasoningTokens"`
	CacheHitTokens   int64    `json:"cacheHitTokens"`
	CacheMissTokens  int64    `json:"cacheMissTokens"`
	EstimatedCost    *float64 `json:"estimatedCost,omitempty"`
	Currency         *string  `json:"currency,omitempty"`
}

// ConfigOption is one session setting the worker offers.
type ConfigOption struct {
	ID       string
	Name     string
	Category string
	Type     string // select | boolean
	Current  string
	Values   []string // offered values of a select option, groups flattened
}

// PermissionRequest is a `session/request_permission` from the worker.
type PermissionRequest struct {
	SessionID string
	// Delivered is closed once the session's consumer has taken every event the worker sent
	// before this request, so what the worker said before asking can be recorded first.
	Delivered <-chan struct{} `json:"-"`
	// ToolCallID is the gate id (`gate-N` on Reasonix), not the id of the tool call.
	ToolCallID string
	// CallID is the `call_…` id of the pending tool call with the same kind and input, if any.
	CallID    string
	Title     string
	ToolKind  string
	RawInput  json.RawMessage `json:",omitempty"`
	Locations []string        `json:",omitempty"`
	// DiffPaths are the paths of the request's diff content blocks, in order: for an edit
	// without rawInput (Gemini) they and Locations are all that says which files it changes.
	DiffPaths []string `json:",omitempty"`
	// Meta is the parsed `_meta["reasonix.io"]`; nil when absent.
	Meta    *ReasonixMeta
	Options []PermissionOption
	// Diffs are the edits the request (or, for an agent other than Reasonix, the latest known
	// state of its tool call) carries as `content: [{type: "diff", …}]`.
	Diffs []Diff `json:",omitempty"`
	// FSWrite is set on the request the client makes itself before serving an
	// fs/write_text_file that no permission of the turn covered.
	FSWrite bool `json:",omitempty"`

	// fallback are the agent's option ids per kind, for options whose kind is not one of
	// ACP's (agents.Profile.OptionIDs).
	fallback map[string][]string
}

// Diff is one edit of a tool call's content: the file, its old text (nil for a new file) and
// its new text.
type Diff struct {
	Path    string
	OldText *string `json:",omitempty"`
	NewText string
}

// ReasonixMeta is the worker's static description of a gated tool. Argv, Cwd and
// CommandSchemaVersion are present only for simple shell commands.
type ReasonixMeta struct {
	ApprovalID           string   `json:"approvalId"`
	Argv                 []string `json:"argv,omitempty"`
	Cwd                  string   `json:"cwd,omitempty"`
	Subject              string   `json:"subject"`
	Tool                 string   `json:"tool"`
	CommandSchemaVersion int      `json:"commandSchemaVersion,omitempty"`
	Fresh                bool     `json:"fresh"`
}

// PermissionOption is one answer the worker offers.
type PermissionOption struct {
	ID   string
	Name string
	Kind string // allow_once, allow_always, reject_once, reject_always
}

// PermissionOutcome is the answer to a permission request: the chosen option, or none
// (OptionID "") to answer `cancelled`.
type PermissionOutcome struct {
	OptionID string
}

// Cancelled reports whether the outcome answers `cancelled`.
func (o PermissionOutcome) Cancelled() bool { return o.OptionID == "" }

// Choose returns the outcome selecting the first offered option of the given kind, or a
// cancelled outcome when none is offered.
func (r PermissionRequest) Choose(kind string) PermissionOutcome {
	for _, o := range r.Options {
		if o.Kind == kind {
			return PermissionOutcome{OptionID: o.ID}
		}
	}
	// An agent whose options have no ACP kind: its own ids for the decision, then, for a
	// rejection, the broader one.
	for _, id := range r.fallback[kind] {
		for _, o := range r.Options {
			if o.ID == id {
				return PermissionOutcome{OptionID: o.ID}
			}
		}
	}
	if kind == "reject_once" && r.fallback != nil {
		return r.Choose("reject_always")
	}
	return PermissionOutcome{}
}

// IsReject reports whether the option id o names is a rejection: its kind is reject_once or
// reject_always, or it is one of the agent's own reject ids.
func (r PermissionRequest) IsReject(o PermissionOutcome) bool {
	for _, opt := range r.Options {
		if opt.ID == o.OptionID {
			if strings.HasPrefix(opt.Kind, "reject") {
				return true
			}
			if opt.Kind == "allow_once" || opt.Kind == "allow_always" {
				return false
			}
		}
	}
	return slices.Contains(r.fallback["reject_once"], o.OptionID) || slices.Contains(r.fallback["reject_always"], o.OptionID)
}

// IsAllowAlways reports whether the option id names a standing allowance: its kind is
// allow_always, or, without a kind, it is one of the agent's own ids for one.
func (r PermissionRequest) IsAllowAlways(id string) bool {
	for _, opt := range r.Options {
		if opt.ID == id && opt.Kind != "" {
			return opt.Kind == "allow_always"
		}
	}
	return slices.Contains(r.fallback["allow_always"], id)
}

// PermissionFunc decides a permission request. ctx is done when the turn is cancelled or the
// worker fails; the answer is then `cancelled` whatever the function returns.
type PermissionFunc func(ctx context.Context, req PermissionRequest) PermissionOutcome
