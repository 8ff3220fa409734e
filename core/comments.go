package core

// Review comments are a supervisor's notes on lines of the review diff. They are kept in the
// task's record and journal (review_comment events), so they survive a restart and show in the
// events; SendComments turns the open ones into one repair round. When the worker's repair
// produces a new review revision, each open comment is checked against it: if the lines it
// quotes are gone from the file, it is outdated; otherwise it stays open (and follows its lines
// if they moved).

// Comment statuses.
const (
	CommentOpen     = "open"
	CommentOutdated = "outdated"
	CommentDeleted  = "deleted"
)

// Comment sides: the line number is in the new file, or, for a removed line, in the old one.
const (
	SideNew = "new"
	SideOld = "old"
)

// Comment limits.
const (
	MaxCommentBody     = 4000
	MaxCommentHunk     = 40  // quoted diff lines
	MaxCommentHunkLine = 400 // characters per quoted line
	MaxComments        = 200
	CommentFileMax     = 4 << 20 // files larger than this are compared by blob only
)

// ReviewComment is one comment on a line of the review diff.
type ReviewComment struct {
	ID   string `json:"id"`
	Path string `json:"path"`
	Line int    `json:"line"`
	Side string `json:"side"` // new | old
	Body string `json:"body"`
	// Hunk is the diff lines the comment quotes, with their +/-/space prefixes, the hunk
	// header first when it was given.
	Hunk   []string `json:"hunk,omitempty"`
	Status string   `json:"status"` // open | outdated | deleted
	// Revision is the review revision the comment was written on; Tree the review tree its
	// lines were last found in.
	Revision int    `json:"revision"`
	Tree     string `json:"tree"`
	// SentRound is the repair round that last carried the comment to the worker (0: never).
	SentRound int    `json:"sent_round,omitempty"`
	CreatedAt string `json:"created_at"`
	UpdatedAt string `json:"updated_at"`
}

// CommentRequest adds a comment, or with ID edits or (Delete) deletes one.
type CommentRequest struct {
	TaskID string   `json:"task_id"`
	ID     string   `json:"id,omitempty"`
	Path   string   `json:"path,omitempty"`
	Line   int      `json:"line,omitempty"`
	Side   string   `json:"side,omitempty"`
	Body   string   `json:"body,omitempty"`
	Hunk   []string `json:"hunk,omitempty"`
	Delete bool     `json:"delete,omitempty"`
}

// CommentsSentData is the data of review_comments_sent.
type CommentsSentData struct {
	RepairRound int      `json:"repair_round"`
	CommentIDs  []string `json:"comment_ids"`
}

// ReviewSummaryData is the data of review_summary: what the supervisor said about the
// revision they approved for finalize.
type ReviewSummaryData struct {
	Summary                string   `json:"summary"`
	ReviewRevision         int      `json:"review_revision"`
	ReviewTreeHash         string   `json:"review_tree_hash"`
	ApprovedReviewCriteria []string `json:"approved_review_criteria"`
}

// CherryPickPreview says whether a task's change applies cleanly to its source checkout's
// current HEAD: the review tree before finalize, the commit after.
type CherryPickPreview struct {
	Source    string   `json:"source"`     // the source checkout
	Head      string   `json:"head"`       // its HEAD commit when checked
	Of        string   `json:"of"`         // review_tree | commit
	Change    string   `json:"change"`     // the tree or commit merged
	Clean     bool     `json:"clean"`      // applies without conflicts
	Conflicts []string `json:"conflicts"`  // conflicting paths
	Moved     bool     `json:"head_moved"` // HEAD is no longer the task's base commit
	// Refusal, for a completed task's commit that merges cleanly, is why applying it now would
	// be refused all the same (task apply's own checks: files in the way, an operation under
	// way, uncommitted changes, already applied, …); empty when it would apply.
	Refusal string `json:"refusal,omitempty"`
}
