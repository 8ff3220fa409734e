package core

import (
	"context"
	"encoding/json"
	"time"

	"reasonixctl/core/contract"
)

// Service is the one API both front ends drive: the dashboard (in-process or attached to the
// owner's socket) and the MCP server. The engine, core/remote's client and the command line's
// attachment implement all of it, so a front end never asks by type assertion what its service
// can do. Every method returns *Error on failure.
type Service interface {
	// Delegate creates a task, or resumes/waits on an existing one with the same id, and waits
	// per WaitMode.
	Delegate(ctx context.Context, req DelegateRequest) (DelegateResult, error)
	// Control carries out a command on a task: steers, answers an interaction, cancels,
	// finalizes, closes, rebases it or amends its checks (Command).
	Control(ctx context.Context, cmd Command) (TaskView, error)
	// Inspect returns bounded sections of a task, optionally waiting for a change.
	Inspect(ctx context.Context, req InspectRequest) (InspectResult, error)
	// List returns the tasks the filter selects, newest first.
	List(ctx context.Context, filter ListFilter) ([]TaskView, error)
	// Get returns the full record of one task (for the dashboard's detail views).
	Get(ctx context.Context, taskID string) (TaskDetail, error)
	// Subscribe replays a task's journal from FromSeq and then delivers live events, or, with an
	// empty TaskID, delivers live events of every task. The channel closes when ctx ends or the
	// subscriber falls too far behind (then Err on the subscription says why; re-subscribe from
	// the last seen seq).
	Subscribe(ctx context.Context, opts SubscribeOptions) (*Subscription, error)

	// Comment makes, edits or deletes a review comment on a task's diff.
	Comment(ctx context.Context, req CommentRequest) (ReviewComment, error)
	// SendComments sends a task's open review comments to the worker as one repair round.
	SendComments(ctx context.Context, taskID string) (TaskView, error)
	// ReviewFile returns the bytes path holds in a task's current review tree.
	ReviewFile(ctx context.Context, taskID, path string) ([]byte, error)
	// CherryPickPreview says whether a task's change would apply to its source checkout now.
	CherryPickPreview(ctx context.Context, taskID string) (CherryPickPreview, error)
	// ApplyToCheckout applies a completed task's commit to the checkout it came from, or with
	// apply false says whether it would.
	ApplyToCheckout(ctx context.Context, taskID string, apply bool) (ApplyResult, error)
	// VerificationLog returns up to limit bytes of the log of verification id of the task's
	// last finalize attempt, from offset. The log is returned as stored (already redacted).
	VerificationLog(ctx context.Context, taskID, id string, offset, limit int64) (LogPage, error)
	// DraftContract drafts a contract from the repository's toolchains (as `reasonixctl contract
	// init` does), optionally checking its commands on HEAD, and writes it under the state
	// directory, never into the repository.
	DraftContract(ctx context.Context, req DraftRequest) (DraftResult, error)
	// SetAsker installs (or, with nil, removes) the Asker consulted about a task's permission
	// when no supervisor is attached.
	SetAsker(a Asker)

	// Grants lists the state directory's standing grants as its owner reads them. A grant is
	// made with the allow it goes with (Control, respond, Grant).
	Grants(ctx context.Context) ([]Grant, error)
	// RevokeGrant removes standing grant id and returns it: its command is asked about again.
	// An unknown id is invalid_request and changes nothing.
	RevokeGrant(ctx context.Context, id string) (Grant, error)
}

// State is a task's lifecycle state.
type State string

// Task states; the last five are terminal.
const (
	StateProvisioning      State = "provisioning"
	StateRunning           State = "running"
	StateWaitingPermission State = "waiting_permission"
	StateWaitingInput      State = "waiting_input"
	StatePaused            State = "paused"
	StateReviewRequired    State = "review_required"
	StateVerifying         State = "verifying"
	StateCompleted         State = "completed"
	StateCommitFailed      State = "commit_failed"
	StateFailed            State = "failed"
	StateCancelled         State = "cancelled"
	StateClosed            State = "closed"
)

// States lists every state in lifecycle order.
var States = []State{
	StateProvisioning, StateRunning, StateWaitingPermission, StateWaitingInput, StatePaused,
	StateReviewRequired, StateVerifying, StateCompleted, StateCommitFailed, StateFailed,
	StateCancelled, StateClosed,
}

// Terminal reports whether no further transition can leave s.
func (s State) Terminal() bool {
	switch s {
	case StateCompleted, StateCommitFailed, StateFailed, StateCancelled, StateClosed:
		return true
	}
	return false
}

// Working reports whether a worker or a finalize is busy with a task in state s: stopping the
// owner interrupts it, and the next start pauses or rolls it back.
func (s State) Working() bool {
	return !s.Terminal() && s != StatePaused && s != StateReviewRequired
}

// Lane is the worker's execution lane: fast maps to the session mode normal, deep to goal.
type Lane string

const (
	LaneFast Lane = "fast"
	LaneDeep Lane = "deep"
)

// PermissionMode says who answers commands the policy does not know.
type PermissionMode string

const (
	// PermissionAutomatic denies unknown commands with a recovery steer (the MCP default).
	PermissionAutomatic PermissionMode = "automatic"
	// PermissionSupervised turns unknown commands into waiting_permission interactions that a
	// supervisor answers (the dashboard default). Hard denials are never asked.
	PermissionSupervised PermissionMode = "supervised"
)

// Authority is where a delegate or finalize may act, as the front end established it: for MCP
// from Codex's sandbox metadata, for the dashboard from the directory the person chose.
type Authority struct {
	Cwd      string // invocation directory; the repository is its git toplevel
	Writable bool   // false → read_only_sandbox
	Network  bool   // whether the worker's sandbox may use the network
}

// DelegateRequest is reasonix_delegate's input.
type DelegateRequest struct {
	TaskID     string          `json:"task_id"`
	Contract   json.RawMessage `json:"contract"`
	BaseRef    string          `json:"base_ref,omitempty"`
	WorkerLane Lane            `json:"worker_lane,omitempty"`
	// Worker is the agent that does the task, one of WorkerNames; "" takes the default
	// (CODEX_REASONIX_WORKER, else reasonix). It is kept on resume.
	Worker                  string            `json:"worker,omitempty"`
	ReasoningEffort         string            `json:"reasoning_effort,omitempty"`
	ExecutionTimeoutSeconds int               `json:"execution_timeout_seconds,omitempty"`
	WaitMode                WaitMode          `json:"wait_mode,omitempty"`            // review (default) | background
	WaitTimeoutSeconds      *int              `json:"wait_timeout_seconds,omitempty"` // default 600
	PauseRevision           *int              `json:"pause_revision,omitempty"`
	PauseReasonHash         string            `json:"pause_reason_hash,omitempty"`
	PathBase                contract.PathBase `json:"path_base,omitempty"` // cwd | repository
	Resume                  *bool             `json:"resume,omitempty"`    // default true

	Authority      Authority      `json:"-"`
	PermissionMode PermissionMode `json:"-"` // empty → the engine's default
}

// WaitMode says how long reasonix_delegate waits.
type WaitMode string

const (
	WaitReview     WaitMode = "review"     // until the task needs the supervisor (the default)
	WaitBackground WaitMode = "background" // not at all: the call returns once the task started
)

// Who answered an interaction (InteractionResponse.By, PermissionData.By).
const (
	ByPolicy     = "policy"     // nobody did: the automatic denial
	BySupervisor = "supervisor" // a person at a dashboard
	ByCodex      = "codex"      // Codex, through reasonix_control respond
	ByGrant      = "grant"      // a standing grant (PermissionData.Grant names it)
	ByAskedUser  = "asked_user" // whoever answered the client's elicitation form: its user, or the client itself
)

// How an interaction ended (InteractionResponse.Outcome, PermissionData.Outcome).
const (
	OutcomeAnswered  = "answered"  // an explicit allow or deny
	OutcomeDeclined  = "declined"  // the person declined the form: denied
	OutcomeCancelled = "cancelled" // the person dismissed the form without answering: denied
	OutcomeTimedOut  = "timed_out" // nobody answered within the ask timeout: denied by policy
	OutcomeAbandoned = "abandoned" // the last supervisor left without answering: denied by policy
	// OutcomeUnavailable: the person could not be asked (the client failed the request or
	// answered it malformed): denied by policy.
	OutcomeUnavailable = "unavailable"
)

// Control actions: what each Command type is called (Command.Action) in ActionsFor and on
// reasonix_control.
const (
	ActionSteer    = "steer"
	ActionRespond  = "respond"
	ActionCancel   = "cancel"
	ActionFinalize = "finalize"
	ActionClose    = "close"
	// ActionAmendChecks drops or adds verification commands of a task in review.
	ActionAmendChecks = "amend_checks"
	// ActionRebase moves a task in review whose change no longer applies onto the source's
	// current HEAD, conflicts marked for a repair round (rebase.go).
	ActionRebase = "rebase"
)

// InspectRequest is reasonix_inspect's input.
type InspectRequest struct {
	TaskID    string   `json:"task_id"`
	Include   []string `json:"include,omitempty"`
	WaitMS    int      `json:"wait_ms,omitempty"`
	Cursor    string   `json:"cursor,omitempty"`
	MaxBytes  int      `json:"max_bytes,omitempty"`
	WaitUntil string   `json:"wait_until,omitempty"` // change (default) | review_required | interaction | terminal
}

// Inspect sections, in their canonical order.
var InspectSections = []string{
	"status", "summary", "changed_files", "diff_stat", "diff", "verification",
	"acceptance_evidence", "risks", "usage", "interactions", "events",
}

// InspectResult is reasonix_inspect's output. A section's value is its JSON form, or a string
// page when it did not fit.
type InspectResult struct {
	TaskID     string                     `json:"task_id"`
	Sections   map[string]json.RawMessage `json:"sections"`
	Truncated  bool                       `json:"truncated"`
	NextCursor string                     `json:"next_cursor,omitempty"`
	UpdatedAt  string                     `json:"updated_at"`
}

// SourceCollision records source-checkout changes that overlap the task's write scope.
type SourceCollision struct {
	Checkpoint       string   `json:"checkpoint"`
	BaseCommit       string   `json:"baseCommit"`
	SourceHead       string   `json:"sourceHead,omitempty"`
	DirtyPaths       []string `json:"dirtyPaths"`
	CommittedPaths   []string `json:"committedPaths"`
	OverlappingPaths []string `json:"overlappingPaths"`
	Unavailable      bool     `json:"unavailable"`
	DetectedAt       string   `json:"detectedAt"`
}

// TaskView is the supervisor's view of a task (reasonix_control's output).
type TaskView struct {
	TaskID                   string           `json:"task_id"`
	State                    State            `json:"state"`
	Phase                    string           `json:"phase"`
	ContractHash             string           `json:"contract_hash"`
	RepositoryID             string           `json:"repository_id"`
	Branch                   string           `json:"branch"`
	Worktree                 string           `json:"worktree"`
	WorkerLane               Lane             `json:"worker_lane"`
	Worker                   string           `json:"worker,omitempty"` // one of WorkerNames
	RequestedReasoningEffort string           `json:"requested_reasoning_effort"`
	EffectiveReasoningEffort string           `json:"effective_reasoning_effort"`
	ExecutionTimeoutSeconds  int              `json:"execution_timeout_seconds"`
	SourceCheckoutIntegrated bool             `json:"source_checkout_integrated"`
	IntegrationCommand       string           `json:"integration_command,omitempty"`
	SessionID                string           `json:"session_id,omitempty"`
	RepairRounds             int              `json:"repair_rounds"`
	ReviewRevision           int              `json:"review_revision"`
	ReviewTreeHash           string           `json:"review_tree_hash,omitempty"`
	PauseRevision            int              `json:"pause_revision"`
	PauseReasonHash          string           `json:"pause_reason_hash,omitempty"`
	ReasonixWorkMode         string           `json:"reasonix_work_mode,omitempty"`
	ReasonixSessionMode      string           `json:"reasonix_session_mode,omitempty"`
	UpdatedAt                string           `json:"updated_at"`
	Reason                   string           `json:"reason,omitempty"`
	CommitHash               string           `json:"commit_hash,omitempty"`
	SourceCollision          *SourceCollision `json:"source_collision,omitempty"`
}

// DelegateResult is reasonix_delegate's output: the view, whether the wait timed out, and the
// review bundle when the task is in review or waits on an interaction.
type DelegateResult struct {
	TaskView
	TimedOut bool `json:"timed_out"`
	*ReviewBundle
}

// ReviewBundle is what a supervisor needs to review a task in one response (≤12 KiB of JSON;
// the diff takes whatever budget is left).
type ReviewBundle struct {
	Summary                string       `json:"summary,omitempty"`
	ChangedFiles           []string     `json:"changed_files,omitempty"`
	DiffStat               string       `json:"diff_stat,omitempty"`
	Diff                   string       `json:"diff,omitempty"`
	Risks                  []string     `json:"risks,omitempty"`
	Usage                  *Usage       `json:"usage,omitempty"`
	ActiveInteraction      *Interaction `json:"active_interaction,omitempty"`
	RequiredReviewCriteria []string     `json:"required_review_criteria,omitempty"`
	ReviewDiffSHA256       string       `json:"review_diff_sha256,omitempty"`
}

// Usage is the worker's cumulative token usage and cost.
type Usage struct {
	PromptTokens     int64    `json:"promptTokens"`
	CompletionTokens int64    `json:"completionTokens"`
	ReasoningTokens  int64    `json:"reasoningTokens"`
	CacheHitTokens   int64    `json:"cacheHitTokens"`
	CacheMissTokens  int64    `json:"cacheMissTokens"`
	CacheHitRatio    *float64 `json:"cacheHitRatio"`
	EstimatedCost    *float64 `json:"estimatedCost"`
	Currency         *string  `json:"currency"`
	UsageSource      string   `json:"usageSource"`
}

// Interaction kinds and statuses.
const (
	InteractionPermission = "permission"
	InteractionInput      = "input"

	InteractionPending   = "pending"
	InteractionResolved  = "resolved"
	InteractionCancelled = "cancelled"
)

// Interaction is a question from the worker (or a command the policy asks a person about) that
// waits for a supervisor's answer.
type Interaction struct {
	ID         string               `json:"id"`
	Kind       string               `json:"kind"`
	Status     string               `json:"status"`
	CreatedAt  string               `json:"createdAt"`
	ResolvedAt string               `json:"resolvedAt,omitempty"`
	Request    InteractionRequest   `json:"request"`
	Response   *InteractionResponse `json:"response,omitempty"`
}

// InteractionRequest is what an interaction asks, in the words both front ends read: the
// dashboard draws its prompt from it and Codex receives it as the interaction's request object.
type InteractionRequest struct {
	ToolCallID string              `json:"tool_call_id,omitempty"`
	Tool       string              `json:"tool,omitempty"` // the ACP tool kind: execute, edit, other, …
	Title      string              `json:"title,omitempty"`
	Subject    string              `json:"subject,omitempty"`
	Question   string              `json:"question,omitempty"` // input interactions only
	Argv       []string            `json:"argv,omitempty"`
	Cwd        string              `json:"cwd,omitempty"`
	Paths      []string            `json:"paths,omitempty"`
	Options    []InteractionOption `json:"options"`
	Input      any                 `json:"input,omitempty"` // the tool's raw input when it is small
	// The policy rule that asked a person, for a permission interaction.
	Code   string `json:"code,omitempty"`
	Reason string `json:"reason,omitempty"`
	Hint   string `json:"hint,omitempty"`
	// Truncated marks a request cut to its title to fit a bounded response.
	Truncated bool `json:"truncated,omitempty"`
}

// InteractionOption is one answer the worker offered.
type InteractionOption struct {
	OptionID string `json:"option_id"`
	Name     string `json:"name"`
	Kind     string `json:"kind,omitempty"` // allow_once | allow_always | reject_once | reject_always | "" for plain choices
}

// Option kinds of the ACP permission request.
const (
	OptionAllowOnce   = "allow_once"
	OptionAllowAlways = "allow_always"
	OptionRejectOnce  = "reject_once"
)

// SessionOption is the "allow for the session" option, when the worker offered one.
func (r InteractionRequest) SessionOption() (InteractionOption, bool) {
	for _, o := range r.Options {
		if o.Kind == OptionAllowAlways {
			return o, true
		}
	}
	return InteractionOption{}, false
}

// InteractionResponse is the supervisor's answer as it was given to the worker.
type InteractionResponse struct {
	Decision string `json:"decision"`
	OptionID string `json:"option_id,omitempty"`
	Answer   string `json:"answer,omitempty"`
	// By is who answered (By* constants), Outcome how (Outcome* constants). Both are empty in
	// records written before they were kept.
	By      string `json:"by,omitempty"`
	Outcome string `json:"outcome,omitempty"`
	// Client is the MCP client the answer came through ("codex-mcp-client 0.169.0"), when
	// By is codex or asked_user and the client named itself.
	Client string `json:"client,omitempty"`
	// Grant is the standing grant given with this allow (R in the dashboard), so that whoever
	// reads the answer later — a replay, another dashboard — words it as one. Empty in records
	// written before it was kept.
	Grant string `json:"grant,omitempty"`
}

// VerificationResult is the evidence of one sandboxed verification command.
type VerificationResult struct {
	ID          string   `json:"id"`
	Argv        []string `json:"argv"`
	Cwd         string   `json:"cwd"`
	StartedAt   string   `json:"startedAt"`
	FinishedAt  string   `json:"finishedAt"`
	ExitCode    *int     `json:"exitCode"`
	TimedOut    bool     `json:"timedOut"`
	Passed      bool     `json:"passed"`
	Proves      []string `json:"proves"`
	LogPath     string   `json:"logPath"`
	SHA256      string   `json:"sha256"`
	OutputBytes int64    `json:"outputBytes"`
	// Baseline is the same command run on the base commit, when it failed here (issue 28).
	Baseline *BaselineResult `json:"baseline,omitempty"`
	// Excused: the supervisor excused this pre-existing failure at finalize, for ExcuseReason.
	Excused      bool   `json:"excused,omitempty"`
	ExcuseReason string `json:"excuseReason,omitempty"`
	// Failures are the failures the command's output names, each marked pre-existing when the
	// same failure is on the base commit too, as FailureFormat read them (issue 37). Only a failed
	// command run at finalize has them.
	Failures      []CheckFailure `json:"failures,omitempty"`
	FailureFormat string         `json:"failureFormat,omitempty"`
}

// Excusable reports whether the supervisor may excuse this failed command: it fails on the
// base commit too and every failure it shows is one the base shows as well.
func (v VerificationResult) Excusable() bool {
	if v.Passed || !v.Baseline.PreExisting() || len(v.Failures) == 0 {
		return false
	}
	for _, f := range v.Failures {
		if !f.PreExisting {
			return false
		}
	}
	return true
}

// NewFailures is how many of v's failures are not on the base commit.
func (v VerificationResult) NewFailures() int {
	n := 0
	for _, f := range v.Failures {
		if !f.PreExisting {
			n++
		}
	}
	return n
}

// AcceptanceEvidence says how one acceptance criterion was proved.
type AcceptanceEvidence struct {
	CriterionID string `json:"criterionId"`
	Evidence    string `json:"evidence"` // automated | review
	Approved    bool   `json:"approved"`
	Source      string `json:"source"`
	SHA256      string `json:"sha256,omitempty"`
	OutputBytes int64  `json:"outputBytes,omitempty"`
}

// TaskDetail is everything the dashboard shows about one task.
type TaskDetail struct {
	View         TaskView             `json:"view"`
	Repository   string               `json:"repository"`
	Objective    string               `json:"objective"`
	Contract     json.RawMessage      `json:"contract"`
	Summary      string               `json:"summary,omitempty"`
	ChangedFiles []string             `json:"changed_files,omitempty"`
	DiffStat     string               `json:"diff_stat,omitempty"`
	Diff         string               `json:"diff,omitempty"` // the full review diff
	Risks        []string             `json:"risks,omitempty"`
	Usage        *Usage               `json:"usage,omitempty"`
	Interactions []Interaction        `json:"interactions,omitempty"`
	Verification []VerificationResult `json:"verification,omitempty"`
	Acceptance   []AcceptanceEvidence `json:"acceptance_evidence,omitempty"`
	Criteria     []Criterion          `json:"criteria,omitempty"`
	CreatedAt    time.Time            `json:"created_at"`
	LastSeq      uint64               `json:"last_seq"`
	// Actions are what the supervisor may do now (ActionsFor of View).
	Actions []string `json:"actions"`
	// Network is whether the worker's sandbox may use the network; a resume must say the same.
	Network bool `json:"network"`
	// Comments are the review comments, deleted ones left out, in the order they were made.
	Comments []ReviewComment `json:"review_comments,omitempty"`
	// ReviewSummary is what the supervisor wrote when finalizing.
	ReviewSummary string `json:"review_summary,omitempty"`
	// BaseCommit is the commit the task's branch started from.
	BaseCommit string `json:"base_commit,omitempty"`
	// SourceRisks are the risks the review found in the diff; finalize needs each acknowledged.
	SourceRisks []SourceRisk `json:"source_risks,omitempty"`
}

// Criterion is one acceptance criterion of the contract.
type Criterion struct {
	ID          string `json:"id"`
	Requirement string `json:"requirement"`
	Evidence    string `json:"evidence"` // automated | review
}

// ListFilter selects tasks for List.
type ListFilter struct {
	All bool // include terminal tasks
}

// SubscribeOptions selects what Subscribe delivers.
type SubscribeOptions struct {
	TaskID  string // empty: live events of every task
	FromSeq uint64 // with TaskID: replay the journal from this seq (1 = everything)
}

// Event is one journal entry of a task. Type names the event (task_created, state_changed,
// agent_message, tool_call, permission_decided, interaction_waiting, usage, …); Data is its
// redacted JSON.
type Event struct {
	TaskID string          `json:"task_id"`
	Seq    uint64          `json:"seq"`
	Time   time.Time       `json:"timestamp"`
	Type   string          `json:"type"`
	Data   json.RawMessage `json:"data,omitempty"`
}

// Subscription is a stream of events; C closes when it ends and Err then says why (nil when
// the context ended).
type Subscription struct {
	C   <-chan Event
	Err func() error
}
