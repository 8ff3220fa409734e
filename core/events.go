package core

// Journal event types. Every event a task records has one of these types; Data holds the
// matching *Data struct as JSON. Front ends switch on Type and may ignore types they do not know.
const (
	EventTaskCreated         = "task_created"         // TaskCreatedData
	EventStateChanged        = "state_changed"        // StateChangedData
	EventAgentMessage        = "agent_message"        // AgentMessageData: coalesced agent text
	EventAgentThought        = "agent_thought"        // AgentThoughtData: coalesced reasoning text
	EventToolCall            = "tool_call"            // ToolCallData: a tool call started or changed
	EventPlan                = "plan"                 // PlanData
	EventPermissionDecided   = "permission_decided"   // PermissionData: every policy or supervisor decision
	EventInteractionWaiting  = "interaction_waiting"  // InteractionWaitingData
	EventInteractionResolved = "interaction_resolved" // InteractionResolvedData
	EventUsage               = "usage"                // Usage
	EventReviewReady         = "review_ready"         // ReviewReadyData
	EventSteered             = "steered"              // SteeredData: the message sent to the worker
	EventVerification        = "verification"         // VerificationResult
	EventCommitted           = "committed"            // CommittedData
	EventWorkerStatus        = "worker_status"        // WorkerStatusData: the worker's phase changed
	EventWorkerUnknown       = "worker_unknown"       // a worker message this version does not understand, kept raw
	EventTaskArchived        = "task_archived"        // TaskArchivedData: the last event of an archived task
	EventTaskPruned          = "task_pruned"          // TaskPrunedData: the only event of a tombstone
	EventError               = "error"                // ErrorData: something went wrong; the state says what follows
	EventReviewComment       = "review_comment"       // ReviewComment: a comment was added, edited, deleted or outdated
	EventReviewCommentsSent  = "review_comments_sent" // CommentsSentData: open comments went to the worker as one repair
	EventReviewSummary       = "review_summary"       // ReviewSummaryData: the summary the supervisor gave at finalize
)

// TaskCreatedData is the data of task_created.
type TaskCreatedData struct {
	State        State  `json:"state"`
	ContractHash string `json:"contract_hash"`
	RepositoryID string `json:"repository_id"`
	Repository   string `json:"repository"`
	Objective    string `json:"objective"`
}

// StateChangedData is the data of state_changed.
type StateChangedData struct {
	From   State  `json:"from"`
	To     State  `json:"to"`
	Phase  string `json:"phase"`
	Reason string `json:"reason,omitempty"`
}

// TextData is the form of every event that carries only text. Each such event type has its
// own type of this form below, so that a decoded event's Go type alone says which event it is;
// the JSON is the same.
type TextData struct {
	Text string `json:"text"`
}

// AgentMessageData is the data of agent_message.
type AgentMessageData TextData

// AgentThoughtData is the data of agent_thought.
type AgentThoughtData TextData

// SteeredData is the data of steered.
type SteeredData TextData

// ErrorData is the data of error.
type ErrorData TextData

// InteractionWaitingData is the data of interaction_waiting: the interaction as it started to
// wait. A type of its own rather than Interaction, so that a front end cannot take an ended
// interaction for a waiting one.
type InteractionWaitingData Interaction

// InteractionResolvedData is the data of interaction_resolved: the interaction as it ended,
// answered or cancelled.
type InteractionResolvedData Interaction

// ToolCallData is the data of tool_call.
type ToolCallData struct {
	ToolCallID string `json:"tool_call_id"`
	Title      string `json:"title,omitempty"`
	Kind       string `json:"kind,omitempty"`   // execute | edit | read | search | think | other
	Status     string `json:"status,omitempty"` // pending | in_progress | completed | failed
	Input      any    `json:"input,omitempty"`
	Output     string `json:"output,omitempty"` // truncated
}

// PlanData is the data of plan.
type PlanData struct {
	Entries []PlanEntry `json:"entries"`
}

// PlanEntry is one step of the worker's plan.
type PlanEntry struct {
	Content string `json:"content"`
	Status  string `json:"status"`
}

// Permission decisions.
const (
	DecisionAllow       = "allow"
	DecisionDeny        = "deny"
	DecisionInteraction = "interaction" // asked a supervisor
)

// PermissionData is the data of permission_decided.
type PermissionData struct {
	ToolCallID string   `json:"tool_call_id"`
	Kind       string   `json:"kind"`
	Title      string   `json:"title,omitempty"`
	Argv       []string `json:"argv,omitempty"`
	Cwd        string   `json:"cwd,omitempty"`
	Paths      []string `json:"paths,omitempty"`
	Decision   string   `json:"decision"`
	Code       string   `json:"code,omitempty"`
	Reason     string   `json:"reason,omitempty"`
	Hint       string   `json:"hint,omitempty"`
	By         string   `json:"by"` // policy | supervisor | codex | asked_user (the person an Asker asked)
	// Outcome, for a decision on an interaction: answered, declined, cancelled (by the person
	// asked), or timed_out, abandoned, unavailable (nobody answered; the policy denied).
	Outcome string `json:"outcome,omitempty"`
	// Client is the MCP client the answer came through, as its clientInfo names it.
	Client string `json:"client,omitempty"`
	// Grant is the standing grant that allowed the command (By is grant), or, on a person's
	// allow, the grant it created.
	Grant string `json:"grant,omitempty"`
}

// ReviewReadyData is the data of review_ready.
type ReviewReadyData struct {
	ReviewRevision int      `json:"review_revision"`
	ReviewTreeHash string   `json:"review_tree_hash"`
	ChangedFiles   []string `json:"changed_files"`
	DiffStat       string   `json:"diff_stat"`
}

// CommittedData is the data of committed.
type CommittedData struct {
	CommitHash         string `json:"commit_hash"`
	Branch             string `json:"branch"`
	IntegrationCommand string `json:"integration_command"`
}

// WorkerStatusData is the data of worker_status.
type WorkerStatusData struct {
	Phase string `json:"phase"`
	State string `json:"state"`
}
