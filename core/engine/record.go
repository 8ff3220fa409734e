package engine

import (
	"reasonixctl/core"

	"encoding/json"
	"fmt"
	"time"
)

// recordVersion is the schema of taskRecord. A record with another version fails closed.
const recordVersion = 1

// taskRecord is the persisted state of one task. The store keeps it as opaque JSON next to the
// task's journal; every change to it is committed together with the event that explains it.
type taskRecord struct {
	Version int    `json:"version"`
	TaskID  string `json:"task_id"`

	Contract     json.RawMessage `json:"contract"` // canonical JSON of the normalised contract
	ContractHash string          `json:"contract_hash"`
	PathBase     string          `json:"path_base"`
	Objective    string          `json:"objective"`

	RepoID        string `json:"repo_id"`
	RepoRoot      string `json:"repo_root"`
	RepoCommonDir string `json:"repo_common_dir"`
	BaseRef       string `json:"base_ref"`
	BaseCommit    string `json:"base_commit"`
	Branch        string `json:"branch"`
	Worktree      string `json:"worktree"`
	// The worktree's private git directory in the repository and the exact bytes of its .git
	// link, as they were at creation (gitx.Worktree): empty in records made before they were
	// kept, or when the owner died between the checkout and the worker's start.
	WorktreeGitDir  string `json:"worktree_git_dir,omitempty"`
	WorktreeGitLink string `json:"worktree_git_link,omitempty"`
	Network         bool   `json:"network"`
	AuthorName      string `json:"author_name"`
	AuthorEmail     string `json:"author_email"`

	Lane             core.Lane           `json:"lane"`
	RequestedEffort  string              `json:"requested_effort"`
	EffectiveEffort  string              `json:"effective_effort"`
	ExecutionTimeout int                 `json:"execution_timeout_seconds"`
	PermissionMode   core.PermissionMode `json:"permission_mode"`
	SessionID        string              `json:"session_id,omitempty"`
	WorkerKey        string              `json:"worker_key,omitempty"`
	// Worker is the agent the task runs (core.WorkerNames), chosen at delegate and kept for
	// every worker the task starts again; "" in records made before the choice existed: reasonix.
	Worker      string `json:"worker,omitempty"`
	WorkMode    string `json:"work_mode,omitempty"`
	SessionMode string `json:"session_mode,omitempty"`

	State     core.State `json:"state"`
	Phase     string     `json:"phase"`
	Reason    string     `json:"reason,omitempty"`
	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt time.Time  `json:"updated_at"`
	// ArchivedAt is set once the task's worktree and derived files are gone; PrunedAt once only
	// a tombstone of the record remains.
	ArchivedAt *time.Time `json:"archived_at,omitempty"`
	PrunedAt   *time.Time `json:"pruned_at,omitempty"`

	StatusSequence  int    `json:"status_sequence"`
	WorkerSequence  int64  `json:"worker_sequence"`
	WorkerPhase     string `json:"worker_phase,omitempty"`
	RepairRounds    int    `json:"repair_rounds"`
	RepairActive    bool   `json:"repair_active"`
	PauseRevision   int    `json:"pause_revision"`
	PauseReasonHash string `json:"pause_reason_hash,omitempty"`
	ReviewRevision  int    `json:"review_revision"`
	ReviewTreeHash  string `json:"review_tree_hash,omitempty"`
	// ReviewBase is the base the current review was captured on (saveReview). A rebase moves
	// BaseCommit, so the next review is a new revision even if its tree is the same; empty in
	// records made before it was kept, whose review is on BaseCommit (reviewedBase).
	ReviewBase string `json:"review_base,omitempty"`

	// ContractRevision counts amendments of the contract's checks in review (AmendChecks);
	// ContractNote tells the worker of the last one at its next prompt, then is cleared.
	ContractRevision int    `json:"contract_revision,omitempty"`
	ContractNote     string `json:"contract_note,omitempty"`
	// RebaseConflicts are the paths a rebase left conflicted (rebase.go) until a review finds
	// no conflict marker in them.
	RebaseConflicts []string `json:"rebase_conflicts,omitempty"`
	// RebaseIntent is a rebase planned and about to move the worktree (rebase.go): a crash
	// before its result is recorded is finished by the next start.
	RebaseIntent *rebaseIntent `json:"rebase_intent,omitempty"`

	Summary      string   `json:"summary,omitempty"`
	ChangedFiles []string `json:"changed_files,omitempty"`
	DiffStat     string   `json:"diff_stat,omitempty"`
	DiffSHA256   string   `json:"diff_sha256,omitempty"`
	Risks        []string `json:"risks,omitempty"`
	// IgnoredFiles are what the last review found on disk under the write scope but left out as
	// ignored (.reasonix excepted), at most maxIgnoredShown: never committed, never seen by the
	// checks.
	IgnoredFiles  []string              `json:"ignored_files,omitempty"`
	ReviewSummary string                `json:"review_summary,omitempty"`
	CommitHash    string                `json:"commit_hash,omitempty"`
	Collision     *core.SourceCollision `json:"source_collision,omitempty"`
	Usage         *core.Usage           `json:"usage,omitempty"`

	Interactions []core.Interaction        `json:"interactions,omitempty"`
	Comments     []core.ReviewComment      `json:"review_comments,omitempty"`
	Verification []core.VerificationResult `json:"verification,omitempty"`
	Acceptance   []core.AcceptanceEvidence `json:"acceptance_evidence,omitempty"`
	// Denials counts identical policy denials by fingerprint within the current turn.
	Denials map[string]int `json:"denials,omitempty"`
	// SourceRisks are what the review found in the diff (risks.go); finalize needs each one
	// acknowledged.
	SourceRisks []core.SourceRisk `json:"source_risks,omitempty"`
}

func decodeRecord(b []byte) (*taskRecord, error) {
	var r taskRecord
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, core.Errorf(core.CodeInvalidState, nil, "stored task record is unreadable: %w", err)
	}
	if r.Version != recordVersion {
		return nil, core.Errorf(core.CodeInvalidState, &core.RecordVersion{Version: r.Version},
			"stored task record has schema version %d; this reasonixctl reads version %d", r.Version, recordVersion)
	}
	return &r, nil
}

func (r *taskRecord) encode() []byte {
	b, err := json.Marshal(r)
	if err != nil {
		panic(fmt.Sprintf("core: encoding a task record cannot fail: %v", err))
	}
	return b
}

func (r *taskRecord) clone() *taskRecord {
	c, err := decodeRecord(r.encode())
	if err != nil {
		panic(err)
	}
	return c
}

// view is the supervisor's view of the record.
func (r *taskRecord) view() core.TaskView {
	v := core.TaskView{
		TaskID:                   r.TaskID,
		State:                    r.State,
		Phase:                    r.Phase,
		ContractHash:             r.ContractHash,
		RepositoryID:             r.RepoID,
		Branch:                   r.Branch,
		Worktree:                 r.Worktree,
		WorkerLane:               r.Lane,
		Worker:                   r.worker(),
		RequestedReasoningEffort: r.RequestedEffort,
		EffectiveReasoningEffort: r.EffectiveEffort,
		ExecutionTimeoutSeconds:  r.ExecutionTimeout,
		SessionID:                r.SessionID,
		RepairRounds:             r.RepairRounds,
		ReviewRevision:           r.ReviewRevision,
		ReviewTreeHash:           r.ReviewTreeHash,
		PauseRevision:            r.PauseRevision,
		PauseReasonHash:          r.PauseReasonHash,
		ReasonixWorkMode:         r.WorkMode,
		ReasonixSessionMode:      r.SessionMode,
		UpdatedAt:                core.FormatTime(r.UpdatedAt),
		Reason:                   r.Reason,
		CommitHash:               r.CommitHash,
		SourceCollision:          r.Collision,
	}
	if r.CommitHash != "" {
		v.IntegrationCommand = "git cherry-pick " + r.CommitHash
	}
	return v
}

// worker is the agent the task runs, reasonix for a record that names none.
func (r *taskRecord) worker() string {
	if r.Worker == "" {
		return core.WorkerReasonix
	}
	return r.Worker
}

// pendingInteraction returns the first pending interaction, if any.
func (r *taskRecord) pendingInteraction() *core.Interaction {
	for i := range r.Interactions {
		if r.Interactions[i].Status == core.InteractionPending {
			return &r.Interactions[i]
		}
	}
	return nil
}
