package core

import (
	"encoding/json"
	"reflect"
	"strings"
)

// Detail is what an Error says beyond its code and message, typed: one of the structs below.
// Its JSON tags are the wire form Codex has always seen as the error's details, key for key;
// Error.Details is derived from it. The set is closed (kind is unexported) so that the owner's
// socket can name each one and decode it back into its own type (SocketError).
type Detail interface {
	kind() string
}

// detailTypes is every Detail, by the kind the owner's socket names it with.
var detailTypes = map[string]reflect.Type{}

func init() {
	for _, d := range []Detail{
		(*IssueList)(nil), (*UnfinishedDraft)(nil), (*StaleSnapshot)(nil), (*ApprovalMismatch)(nil),
		(*UnacknowledgedRisks)(nil), (*FailedCheck)(nil), (*CheckNotRun)(nil), (*NotExcusable)(nil),
		(*UnknownCheck)(nil), (*FailedAssertion)(nil), (*UnprovedCriteria)(nil), (*WhitespaceErrors)(nil),
		(*FinalizeRunning)(nil), (*RebaseConflicts)(nil), (*ApplyConflicts)(nil), (*GitRefusal)(nil),
		(*Unscannable)(nil), (*ChangeRefused)(nil), (*PathsInTheWay)(nil), (*CheckoutBusy)(nil),
		(*CheckoutRef)(nil), (*BranchElsewhere)(nil), (*CherryPickFailed)(nil), (*HeadRef)(nil),
		(*WorktreeMoved)(nil), (*WrongState)(nil), (*WrongPhase)(nil), (*ForbiddenTransition)(nil),
		(*RepairLimit)(nil), (*UnofferedOption)(nil), (*BadCursor)(nil), (*WaitAborted)(nil),
		(*InsideWorktree)(nil), (*ConflictingTask)(nil), (*StalePause)(nil), (*DirRef)(nil),
		(*PathRef)(nil), (*UnknownID)(nil), (*MessageTooLong)(nil), (*RecordVersion)(nil),
		(*WrongStorage)(nil), (*WorktreeRef)(nil), (*WorktreeHead)(nil), (*WorktreeDirty)(nil),
		(*TaskRef)(nil), (*CollisionPause)(nil), (*WorktreeTampered)(nil), (*PageRange)(nil),
		(*LogGone)(nil), (*PolicyRefusal)(nil), (*OwnerGone)(nil), (*OwnerShuttingDown)(nil),
		(*SubscriberLagged)(nil), (*ReadOnlySandbox)(nil), (*ServerShutdown)(nil), (*InsideCheckout)(nil),
		(*UnknownWorker)(nil),
	} {
		k := d.kind()
		if _, dup := detailTypes[k]; dup {
			panic("core: two details of kind " + k)
		}
		detailTypes[k] = reflect.TypeOf(d).Elem()
	}
}

// DetailKind is the name of d's type on the owner's socket, "" for none.
func DetailKind(d Detail) string {
	if isNil(d) {
		return ""
	}
	return d.kind()
}

// NewDetail is a new, empty detail of kind, or nil for a kind this build does not know (an
// owner of another version).
func NewDetail(kind string) Detail {
	t, ok := detailTypes[kind]
	if !ok {
		return nil
	}
	return reflect.New(t).Interface().(Detail)
}

func isNil(d Detail) bool {
	if d == nil {
		return true
	}
	v := reflect.ValueOf(d)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// detailMap is d's wire form as a map from its JSON keys to the Go values of their fields: what
// Details held when the call sites built it by hand, so a reader of Details (a test, the MCP
// redaction, which keeps issue lists typed) sees the same values, and it serialises to the same
// bytes. Which keys there are is what encoding/json writes (omitempty, embedded structs left
// out when nil), so the map never has a key the struct's JSON lacks.
func detailMap(d Detail) map[string]any {
	if isNil(d) {
		return nil
	}
	// Only a Detail that cannot serialise fails here, and the tests serialise every one.
	var present map[string]json.RawMessage
	if b, err := json.Marshal(d); err != nil || json.Unmarshal(b, &present) != nil {
		return nil
	}
	out := make(map[string]any, len(present))
	collectFields(reflect.ValueOf(d).Elem(), present, out)
	return out
}

func collectFields(v reflect.Value, present map[string]json.RawMessage, out map[string]any) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		fv := v.Field(i)
		if f.Anonymous && name == "" {
			if fv.Kind() == reflect.Pointer {
				if fv.IsNil() {
					continue
				}
				fv = fv.Elem()
			}
			collectFields(fv, present, out)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, ok := present[name]; ok {
			out[name] = fv.Interface()
		}
	}
}

// Issue lists.

// IssueList is a request or contract refused for the problems it lists.
type IssueList struct {
	Issues []Issue `json:"issues"`
}

// UnfinishedDraft is a contract that still holds the placeholders of a draft (Reason
// "unfinished_draft"), at Placeholders, each with its issue.
type UnfinishedDraft struct {
	Reason       string   `json:"reason"`
	Placeholders []string `json:"placeholders"`
	Issues       []Issue  `json:"issues"`
}

// Finalize: approvals and the snapshot they bind.

// ReviewSnapshot names one review snapshot of a task.
type ReviewSnapshot struct {
	ReviewRevision int    `json:"review_revision"`
	ReviewTreeHash string `json:"review_tree_hash"`
}

// StaleSnapshot is why a finalize was refused as stale: the snapshot it approved and the one
// the task has now, found at Checkpoint.
type StaleSnapshot struct {
	Checkpoint string         `json:"checkpoint"`
	Expected   ReviewSnapshot `json:"expected"`
	Current    ReviewSnapshot `json:"current"`
}

// ApprovalMismatch is a finalize whose approved review criteria are not the contract's: the
// ones it requires, those missing from the approval and those the contract does not have.
type ApprovalMismatch struct {
	Required []string `json:"required"`
	Missing  []string `json:"missing"`
	Foreign  []string `json:"foreign"`
}

// UnacknowledgedRisks is a finalize that did not acknowledge every risk of the review (Reason
// "unacknowledged_risks"): the ones it left out and all of them.
type UnacknowledgedRisks struct {
	Reason         string   `json:"reason"`
	Unacknowledged []string `json:"unacknowledged"`
	Risks          []string `json:"risks"`
}

// FinalizeRunning is a finalize that outlived its wait and carries on: the task as it was then.
type FinalizeRunning struct {
	Task        TaskView `json:"task"`
	TimedOut    bool     `json:"timed_out"`
	Recoverable bool     `json:"recoverable"`
}

// Verification.

// FailedCheck is the verification command a verification_failed error is about: how it ended
// and the end of its log. With a baseline run it also says what the base commit showed.
type FailedCheck struct {
	Verification string   `json:"verification"`
	Argv         []string `json:"argv"`
	ExitCode     *int     `json:"exit_code"`
	TimedOut     bool     `json:"timed_out"`
	LogPath      string   `json:"log_path"`
	LogTail      string   `json:"log_tail"`
	// Nil when the command has no baseline run; then its keys are not in the JSON either.
	*BaselineComparison
}

// BaselineComparison is a failed command set beside its run on the base commit:
// PreExistingFailure is true only when every failure it shows is on the base too.
type BaselineComparison struct {
	PreExistingFailure bool             `json:"pre_existing_failure"`
	Baseline           *BaselineSummary `json:"baseline"`
	Failures           []CheckFailure   `json:"failures"`
	FailureFormat      string           `json:"failure_format"`
}

// BaselineSummary is the run of a command on the base commit, as an error reports it.
type BaselineSummary struct {
	Base     string `json:"base"`
	ExitCode *int   `json:"exit_code,omitempty"`
	LogPath  string `json:"log_path,omitempty"`
	LogTail  string `json:"log_tail,omitempty"`
	Reason   string `json:"reason,omitempty"`
	Status   string `json:"status"`
}

// CheckNotRun is a verification command that could not run at all.
type CheckNotRun struct {
	Verification string `json:"verification"`
}

// NotExcusable is an excuse refused (Reason "not_excusable"): the command's failures are not
// all on the base commit.
type NotExcusable struct {
	Reason       string `json:"reason"`
	Verification string `json:"verification"`
	LogPath      string `json:"log_path"`
	BaselineComparison
}

// UnknownCheck is a verification id the task's last finalize attempt did not run.
type UnknownCheck struct {
	Verification string `json:"verification"`
}

// FailedAssertion is a file assertion the reviewed tree does not meet.
type FailedAssertion struct {
	FileAssertion string `json:"file_assertion"`
	Path          string `json:"path"`
}

// UnprovedCriteria are acceptance criteria no passing check proves.
type UnprovedCriteria struct {
	Unproved []string `json:"unproved"`
}

// WhitespaceErrors are the places (path:line) where the change adds whitespace errors.
type WhitespaceErrors struct {
	Whitespace []string `json:"whitespace"`
}

// Refused changes and paths.

// GitRefusal is what git found in the way: a gitx reason and the paths it names, each left out
// when empty.
type GitRefusal struct {
	Reason string   `json:"reason,omitempty"`
	Paths  []string `json:"paths,omitempty"`
}

// Unscannable is a reviewed tree the secret scan could not read (Reason
// RefusedUnscannable).
type Unscannable struct {
	Reason string `json:"reason"`
}

// ChangeRefused is a change with paths that cannot enter the commit: the most serious reason,
// every path refused and the refusals themselves.
type ChangeRefused struct {
	Reason   string        `json:"reason"`
	Paths    []string      `json:"paths"`
	Refusals []PathRefusal `json:"refusals"`
}

// PathRefusal is one reason a changed path cannot enter the commit.
type PathRefusal struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
	Detail string `json:"detail,omitempty"`
	Hint   string `json:"hint"`
}

// WorktreeTampered is a worktree whose .git was rewritten, replaced or removed (Reason
// gitx.ReasonTampered), found at Checkpoint.
type WorktreeTampered struct {
	Reason     string `json:"reason"`
	Path       string `json:"path"`
	Checkpoint string `json:"checkpoint"`
	Found      string `json:"found"`
}

// CollisionPause is a task paused because its source checkout changed under its scope.
type CollisionPause struct {
	SourceCollision *SourceCollision `json:"source_collision"`
}

// Apply and rebase.

// PathsInTheWay is an apply refused (Reason "paths_in_the_way") because Checkout holds
// untracked or ignored files, or symlinks, where the commit writes.
type PathsInTheWay struct {
	Checkout  string   `json:"checkout"`
	Reason    string   `json:"reason"`
	Paths     []string `json:"paths"`
	Ignored   []string `json:"ignored"`
	Untracked []string `json:"untracked"`
	Symlinks  []string `json:"symlinks"`
}

// CheckoutBusy is a checkout in the middle of a git operation (Reason
// "operation_in_progress").
type CheckoutBusy struct {
	Checkout  string `json:"checkout"`
	Reason    string `json:"reason"`
	Operation string `json:"operation"`
}

// CheckoutRef names the checkout an apply was refused in.
type CheckoutRef struct {
	Checkout string `json:"checkout"`
}

// BranchElsewhere is a checkout whose branch is checked out in another worktree too.
type BranchElsewhere struct {
	Checkout  string `json:"checkout"`
	Elsewhere string `json:"elsewhere"`
}

// CherryPickFailed is an apply whose cherry-pick failed and was undone: Restored when the
// checkout was found as it was at Head, else Differs says where it is not.
type CherryPickFailed struct {
	Checkout string   `json:"checkout"`
	Restored bool     `json:"restored"`
	Head     string   `json:"head"`
	Differs  []string `json:"differs,omitempty"`
}

// ApplyConflicts are the paths a task's commit conflicts on at the checkout's Head.
type ApplyConflicts struct {
	Conflicts []string `json:"conflicts"`
	Head      string   `json:"head"`
}

// RebaseConflicts are the paths a rebase left conflicted that no review has seen resolved.
type RebaseConflicts struct {
	Conflicts []string `json:"conflicts"`
}

// HeadRef names the HEAD a checkout is at.
type HeadRef struct {
	Head string `json:"head"`
}

// WorktreeMoved is a worktree that no longer holds the reviewed tree.
type WorktreeMoved struct {
	ReviewTreeHash   string `json:"review_tree_hash"`
	WorktreeTreeHash string `json:"worktree_tree_hash"`
}

// Task state and lifecycle.

// WrongState is a task whose state refuses the request.
type WrongState struct {
	State State `json:"state"`
}

// WrongPhase is a task whose state and phase refuse the action.
type WrongPhase struct {
	State State  `json:"state"`
	Phase string `json:"phase"`
}

// ForbiddenTransition is a state change the lifecycle does not allow.
type ForbiddenTransition struct {
	State  State `json:"state"`
	Target State `json:"target"`
}

// RepairLimit is a task that has used every repair round it had.
type RepairLimit struct {
	RepairRounds int `json:"repair_rounds"`
}

// StalePause is a resume that did not name the task's current pause.
type StalePause struct {
	PauseRevision   int    `json:"pause_revision"`
	PauseReasonHash string `json:"pause_reason_hash"`
	Reason          string `json:"reason"`
	Phase           string `json:"phase"`
}

// WaitAborted is a wait that ended early while the task carries on.
type WaitAborted struct {
	Aborted bool `json:"aborted"`
}

// ConflictingTask is a task id taken by a task with a different Field (repository, contract…).
type ConflictingTask struct {
	Field string `json:"field"`
}

// UnofferedOption is an answer naming an option the worker did not offer: the ones it did.
type UnofferedOption struct {
	Options []InteractionOption `json:"options"`
}

// UnknownWorker is a worker name that is none of WorkerNames: the name, and the ones there are.
type UnknownWorker struct {
	Worker string   `json:"worker"`
	Known  []string `json:"known"`
}

// RecordVersion is a stored task record of a schema version this build does not read.
type RecordVersion struct {
	Version int `json:"version"`
}

// TaskRef names the task an error is about.
type TaskRef struct {
	TaskID string `json:"task_id"`
}

// Retention.

// WrongStorage is a task stored where the request cannot reach it (archived, pruned).
type WrongStorage struct {
	Storage Storage `json:"storage"`
}

// WorktreeRef names a worktree that could not be read.
type WorktreeRef struct {
	Worktree string `json:"worktree"`
}

// WorktreeHead is a worktree at Head rather than the Expected commit.
type WorktreeHead struct {
	Worktree string `json:"worktree"`
	Head     string `json:"head"`
	Expected string `json:"expected"`
}

// WorktreeDirty is a worktree with changes, at Paths, that archiving would lose.
type WorktreeDirty struct {
	Worktree string   `json:"worktree"`
	Paths    []string `json:"paths"`
}

// Requests and limits.

// PathRef names the path a request or a file is refused for.
type PathRef struct {
	Path string `json:"path"`
}

// DirRef names the directory a request or an owner is about.
type DirRef struct {
	Dir string `json:"dir"`
}

// InsideWorktree is a delegation from inside a task's worktree.
type InsideWorktree struct {
	Cwd string `json:"cwd"`
}

// InsideCheckout is a draft written inside the checkout where git does not ignore it (Reason
// "inside_checkout").
type InsideCheckout struct {
	Reason string `json:"reason"`
	Path   string `json:"path"`
}

// UnknownID is an id (of a comment, a grant) that names nothing.
type UnknownID struct {
	ID string `json:"id"`
}

// BadCursor is a page cursor refused, and why.
type BadCursor struct {
	Cursor string `json:"cursor"`
}

// PageRange is a page request out of range.
type PageRange struct {
	Offset int64 `json:"offset"`
	Limit  int64 `json:"limit"`
}

// MessageTooLong is a message of Bytes bytes, more than one message holds.
type MessageTooLong struct {
	Bytes int `json:"bytes"`
}

// LogGone is a verification log no longer on disk.
type LogGone struct {
	LogPath string `json:"log_path"`
}

// PolicyRefusal is a command that cannot be granted: the policy's code for it.
type PolicyRefusal struct {
	Code string `json:"code"`
}

// Owner and sessions.

// OwnerGone is an owner process that exited.
type OwnerGone struct {
	PID int    `json:"pid"`
	Dir string `json:"dir"`
}

// OwnerShuttingDown is an owner process that is shutting down.
type OwnerShuttingDown struct {
	PID int `json:"pid"`
}

// SubscriberLagged is an event stream dropped because its reader fell behind (Reason
// "subscriber_lagged").
type SubscriberLagged struct {
	Reason string `json:"reason"`
}

// ServerShutdown is a tool call cut short because serving ends.
type ServerShutdown struct {
	Shutdown bool `json:"shutdown"`
}

// ReadOnlySandbox is a Codex sandbox that cannot write the invocation directory.
type ReadOnlySandbox struct {
	SandboxCwd        string `json:"sandbox_cwd"`
	PermissionProfile string `json:"permission_profile"`
}

func (*IssueList) kind() string           { return "issue_list" }
func (*UnfinishedDraft) kind() string     { return "unfinished_draft" }
func (*StaleSnapshot) kind() string       { return "stale_snapshot" }
func (*ApprovalMismatch) kind() string    { return "approval_mismatch" }
func (*UnacknowledgedRisks) kind() string { return "unacknowledged_risks" }
func (*FinalizeRunning) kind() string     { return "finalize_running" }
func (*FailedCheck) kind() string         { return "failed_check" }
func (*CheckNotRun) kind() string         { return "check_not_run" }
func (*NotExcusable) kind() string        { return "not_excusable" }
func (*UnknownCheck) kind() string        { return "unknown_check" }
func (*FailedAssertion) kind() string     { return "failed_assertion" }
func (*UnprovedCriteria) kind() string    { return "unproved_criteria" }
func (*WhitespaceErrors) kind() string    { return "whitespace_errors" }
func (*GitRefusal) kind() string          { return "git_refusal" }
func (*Unscannable) kind() string         { return "unscannable" }
func (*ChangeRefused) kind() string       { return "change_refused" }
func (*WorktreeTampered) kind() string    { return "worktree_tampered" }
func (*CollisionPause) kind() string      { return "collision_pause" }
func (*PathsInTheWay) kind() string       { return "paths_in_the_way" }
func (*CheckoutBusy) kind() string        { return "checkout_busy" }
func (*CheckoutRef) kind() string         { return "checkout_ref" }
func (*BranchElsewhere) kind() string     { return "branch_elsewhere" }
func (*CherryPickFailed) kind() string    { return "cherry_pick_failed" }
func (*ApplyConflicts) kind() string      { return "apply_conflicts" }
func (*RebaseConflicts) kind() string     { return "rebase_conflicts" }
func (*HeadRef) kind() string             { return "head_ref" }
func (*WorktreeMoved) kind() string       { return "worktree_moved" }
func (*WrongState) kind() string          { return "wrong_state" }
func (*WrongPhase) kind() string          { return "wrong_phase" }
func (*ForbiddenTransition) kind() string { return "forbidden_transition" }
func (*RepairLimit) kind() string         { return "repair_limit" }
func (*StalePause) kind() string          { return "stale_pause" }
func (*WaitAborted) kind() string         { return "wait_aborted" }
func (*ConflictingTask) kind() string     { return "conflicting_task" }
func (*UnofferedOption) kind() string     { return "unoffered_option" }
func (*RecordVersion) kind() string       { return "record_version" }
func (*UnknownWorker) kind() string       { return "unknown_worker" }
func (*TaskRef) kind() string             { return "task_ref" }
func (*WrongStorage) kind() string        { return "wrong_storage" }
func (*WorktreeRef) kind() string         { return "worktree_ref" }
func (*WorktreeHead) kind() string        { return "worktree_head" }
func (*WorktreeDirty) kind() string       { return "worktree_dirty" }
func (*PathRef) kind() string             { return "path_ref" }
func (*DirRef) kind() string              { return "dir_ref" }
func (*InsideWorktree) kind() string      { return "inside_worktree" }
func (*InsideCheckout) kind() string      { return "inside_checkout" }
func (*UnknownID) kind() string           { return "unknown_id" }
func (*BadCursor) kind() string           { return "bad_cursor" }
func (*PageRange) kind() string           { return "page_range" }
func (*MessageTooLong) kind() string      { return "message_too_long" }
func (*LogGone) kind() string             { return "log_gone" }
func (*PolicyRefusal) kind() string       { return "policy_refusal" }
func (*OwnerGone) kind() string           { return "owner_gone" }
func (*OwnerShuttingDown) kind() string   { return "owner_shutting_down" }
func (*SubscriberLagged) kind() string    { return "subscriber_lagged" }
func (*ServerShutdown) kind() string      { return "server_shutdown" }
func (*ReadOnlySandbox) kind() string     { return "read_only_sandbox" }
