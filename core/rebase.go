package core

// EventRebased is journaled when a task in review is moved onto its source checkout's current
// HEAD (RebasedData).
const EventRebased = "rebased"

// PhaseRebaseConflicts pauses a task whose rebase's conflict markers outlived its repair rounds.
const PhaseRebaseConflicts = "rebase_conflicts"

// RebasedData is EventRebased's data.
type RebasedData struct {
	From   string `json:"from"`   // the base the task had
	To     string `json:"to"`     // the source's HEAD it has now
	Branch string `json:"branch"` // the source checkout's branch, empty when detached
	// ReviewRevision is the review the rebase moved; the repair round's review is the next.
	ReviewRevision int `json:"review_revision"`
	// Conflicts are the paths the merge could not settle: the worktree holds them with conflict
	// markers (or, for a file one side deleted, as the other side left it).
	Conflicts []string `json:"conflicts"`
}
