package core

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"reasonixctl/core/gitx"
)

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
	maxCommentHunkLine = 400 // characters per quoted line
	maxComments        = 200
	commentFileMax     = 4 << 20 // files larger than this are compared by blob only
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

// Comment implements Service.
func (e *Engine) Comment(ctx context.Context, req CommentRequest) (ReviewComment, error) {
	if !validTaskID(req.TaskID) {
		return ReviewComment{}, invalidRequest("comment validation failed", []Issue{{"task_id", "must match " + TaskIDPattern}})
	}
	req.Body = strings.TrimSpace(req.Body)
	var issues []Issue
	if !req.Delete {
		if req.Body == "" || utf8.RuneCountInString(req.Body) > MaxCommentBody {
			issues = append(issues, Issue{"body", fmt.Sprintf("must be 1..%d characters", MaxCommentBody)})
		}
	}
	if req.ID == "" {
		if req.Delete {
			issues = append(issues, Issue{"id", "names the comment to delete"})
		}
		if req.Path == "" {
			issues = append(issues, Issue{"path", "must name a changed file"})
		}
		if req.Line < 1 {
			issues = append(issues, Issue{"line", "must be ≥ 1"})
		}
		if req.Side != SideNew && req.Side != SideOld {
			issues = append(issues, Issue{"side", "must be new or old"})
		}
	}
	if len(issues) > 0 {
		return ReviewComment{}, invalidRequest("comment validation failed", issues)
	}
	var out ReviewComment
	_, err := e.update(req.TaskID, func(r *taskRecord) ([]newEvent, error) {
		now := formatTime(e.now())
		if req.ID != "" {
			i := slices.IndexFunc(r.Comments, func(c ReviewComment) bool { return c.ID == req.ID })
			if i < 0 || r.Comments[i].Status == CommentDeleted {
				return nil, Errorf(CodeInvalidRequest, map[string]any{"id": req.ID}, "task %s has no comment %s", r.TaskID, req.ID)
			}
			c := &r.Comments[i]
			if req.Delete {
				c.Status = CommentDeleted
			} else {
				c.Body = req.Body
				c.SentRound = 0 // edited: the worker has not seen this text
			}
			c.UpdatedAt = now
			out = *c
			return []newEvent{event(EventReviewComment, *c)}, nil
		}
		if r.State != StateReviewRequired || r.ReviewRevision == 0 {
			return nil, Errorf(CodeInvalidState, map[string]any{"state": r.State}, "task %s has no review to comment on (it is %s)", r.TaskID, r.State)
		}
		if !slices.Contains(r.ChangedFiles, req.Path) {
			return nil, Errorf(CodeInvalidRequest, map[string]any{"path": req.Path}, "%s is not a file of the review", req.Path)
		}
		if len(r.Comments) >= maxComments {
			return nil, Errorf(CodeInvalidRequest, nil, "task %s has %d comments, the most it keeps", r.TaskID, maxComments)
		}
		c := ReviewComment{
			ID: "c" + strconv.Itoa(len(r.Comments)+1), Path: req.Path, Line: req.Line, Side: req.Side,
			Body: req.Body, Hunk: limitHunk(req.Hunk), Status: CommentOpen,
			Revision: r.ReviewRevision, Tree: r.ReviewTreeHash, CreatedAt: now, UpdatedAt: now,
		}
		r.Comments = append(r.Comments, c)
		out = c
		return []newEvent{event(EventReviewComment, c)}, nil
	})
	if err != nil {
		return ReviewComment{}, err
	}
	return out, nil
}

func limitHunk(h []string) []string {
	if len(h) > MaxCommentHunk {
		h = h[:MaxCommentHunk]
	}
	out := make([]string, len(h))
	for i, l := range h {
		out[i] = truncateText(strings.ReplaceAll(l, "\n", " "), maxCommentHunkLine)
	}
	return out
}

// openComments are the comments a repair would carry, in the order the message lists them:
// by path, then line, then id.
func openComments(cs []ReviewComment) []ReviewComment {
	var out []ReviewComment
	for _, c := range cs {
		if c.Status == CommentOpen {
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b ReviewComment) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line), cmp.Compare(commentNum(a.ID), commentNum(b.ID)))
	})
	return out
}

func commentNum(id string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(id, "c"))
	return n
}

// CommentsMessage is the repair message for comments: each anchored to path:line, with the
// lines it quotes, in a fixed order.
func CommentsMessage(cs []ReviewComment) string {
	cs = openComments(cs)
	var b strings.Builder
	fmt.Fprintf(&b, "The reviewer left %d comment(s) on the diff. Address each one; change nothing else.\n", len(cs))
	for i, c := range cs {
		where := c.Path + ":" + strconv.Itoa(c.Line)
		if c.Side == SideOld {
			where += " (removed line, old numbering)"
		}
		fmt.Fprintf(&b, "\n%d. %s\n", i+1, where)
		for _, l := range c.Hunk {
			b.WriteString("   > " + l + "\n")
		}
		for _, l := range strings.Split(c.Body, "\n") {
			b.WriteString("   " + l + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// SendComments implements Service: the open comments go to the worker as one repair round.
func (e *Engine) SendComments(ctx context.Context, taskID string) (TaskView, error) {
	if !validTaskID(taskID) {
		return TaskView{}, invalidRequest("comment validation failed", []Issue{{"task_id", "must match " + TaskIDPattern}})
	}
	r, err := e.load(taskID)
	if err != nil {
		return TaskView{}, err
	}
	// Only what the worker has not seen goes: a comment sent in an earlier round and left as
	// it was is not sent again (editing it makes it new).
	var open []ReviewComment
	sentBefore := 0
	for _, c := range openComments(r.Comments) {
		if c.SentRound > 0 {
			sentBefore++
			continue
		}
		open = append(open, c)
	}
	if len(open) == 0 {
		if sentBefore > 0 {
			return TaskView{}, Errorf(CodeInvalidRequest, nil, "task %s's %d open comment(s) were all sent before; edit one, or comment a line, to send it", taskID, sentBefore)
		}
		return TaskView{}, Errorf(CodeInvalidRequest, nil, "task %s has no open comments to send", taskID)
	}
	msg := CommentsMessage(open)
	if len(msg) > MaxSteerMessageLen-200 {
		return TaskView{}, Errorf(CodeInvalidRequest, map[string]any{"bytes": len(msg)},
			"the comments come to %d bytes, more than one repair message holds (%d): send fewer", len(msg), MaxSteerMessageLen-200)
	}
	ids := make([]string, len(open))
	for i, c := range open {
		ids[i] = c.ID
	}
	return e.steerWith(ctx, taskID, msg, StateReviewRequired, func(r *taskRecord) []newEvent {
		for i := range r.Comments {
			if slices.Contains(ids, r.Comments[i].ID) && r.Comments[i].Status == CommentOpen {
				r.Comments[i].SentRound = r.RepairRounds
			}
		}
		return []newEvent{event(EventReviewCommentsSent, CommentsSentData{RepairRound: r.RepairRounds, CommentIDs: ids})}
	})
}

// commentsAgainst checks open comments against a new review tree: a comment whose quoted
// lines no longer appear in its file is outdated; one whose lines moved follows them. It
// reads git and runs before the record update that stores the new revision.
func (e *Engine) commentsAgainst(ctx context.Context, r *taskRecord, tree string) map[string]ReviewComment {
	out := map[string]ReviewComment{}
	dir := r.RepoCommonDir
	for _, c := range r.Comments {
		if c.Status != CommentOpen || c.Tree == tree {
			continue
		}
		oldBlob, err1 := gitx.BlobAt(ctx, dir, c.Tree, c.Path)
		newBlob, err2 := gitx.BlobAt(ctx, dir, tree, c.Path)
		if err1 != nil || err2 != nil {
			continue // unknown: leave it as it is
		}
		oldTree := c.Tree
		c.Tree = tree
		if oldBlob == newBlob {
			out[c.ID] = c
			continue
		}
		block := newSide(c.Hunk)
		if len(block) == 0 || newBlob == "" {
			c.Status = CommentOutdated
			out[c.ID] = c
			continue
		}
		oldText, _, _ := gitx.FileAt(ctx, dir, oldTree, c.Path, commentFileMax)
		newText, ok, err := gitx.FileAt(ctx, dir, tree, c.Path, commentFileMax)
		if err != nil || !ok {
			c.Status = CommentOutdated
			out[c.ID] = c
			continue
		}
		at := findBlock(strings.Split(string(newText), "\n"), block, c.Line)
		if at < 0 {
			c.Status = CommentOutdated
		} else if was := findBlock(strings.Split(string(oldText), "\n"), block, c.Line); was >= 0 && c.Side == SideNew {
			c.Line += at - was
		}
		out[c.ID] = c
	}
	return out
}

// newSide is the quoted lines as they read in the new file: context and added lines.
func newSide(hunk []string) []string {
	var out []string
	for _, l := range hunk {
		if l == "" {
			out = append(out, "")
			continue
		}
		switch l[0] {
		case ' ', '+':
			out = append(out, l[1:])
		}
	}
	return out
}

// findBlock is the index of the occurrence of block in lines nearest to line near (1-based),
// or -1. Tabs are compared expanded, as the diff view shows them.
func findBlock(lines, block []string, near int) int {
	best := -1
	for i := 0; i+len(block) <= len(lines); i++ {
		ok := true
		for j, b := range block {
			if strings.ReplaceAll(lines[i+j], "\t", "    ") != strings.ReplaceAll(b, "\t", "    ") {
				ok = false
				break
			}
		}
		if ok && (best < 0 || abs(i+1-near) < abs(best+1-near)) {
			best = i
		}
	}
	return best
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// ReviewFile implements Service: the bytes path holds in the current review tree, for reading
// outside the dashboard without touching the worktree.
func (e *Engine) ReviewFile(ctx context.Context, taskID, path string) ([]byte, error) {
	r, err := e.load(taskID)
	if err != nil {
		return nil, err
	}
	if r.ReviewTreeHash == "" {
		return nil, Errorf(CodeInvalidState, nil, "task %s has no review yet", taskID)
	}
	if !slices.Contains(r.ChangedFiles, path) {
		return nil, Errorf(CodeInvalidRequest, map[string]any{"path": path}, "%s is not a file of the review", path)
	}
	b, ok, err := gitx.FileAt(ctx, r.RepoCommonDir, r.ReviewTreeHash, path, commentFileMax)
	if err != nil {
		return nil, Errorf(CodeInternalError, nil, "reading %s from the review tree: %w", path, err)
	}
	if !ok {
		return nil, Errorf(CodeInvalidRequest, map[string]any{"path": path}, "%s is not a file in the review tree (deleted, or over %d bytes)", path, commentFileMax)
	}
	return b, nil
}

// applyChecked stores what commentsAgainst found, one review_comment event per comment whose
// status or line changed, so the journal says which comments a revision outdated.
func applyChecked(r *taskRecord, checked map[string]ReviewComment, now string) []newEvent {
	var evs []newEvent
	for i := range r.Comments {
		c, ok := checked[r.Comments[i].ID]
		if !ok || r.Comments[i].Status != CommentOpen {
			continue
		}
		changed := c.Status != r.Comments[i].Status || c.Line != r.Comments[i].Line
		r.Comments[i].Tree, r.Comments[i].Status, r.Comments[i].Line = c.Tree, c.Status, c.Line
		if changed {
			r.Comments[i].UpdatedAt = now
			evs = append(evs, event(EventReviewComment, r.Comments[i]))
		}
	}
	return evs
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
}

// CherryPickPreview implements Service. It writes nothing to the source repository (see
// gitx.PreviewApply).
func (e *Engine) CherryPickPreview(ctx context.Context, taskID string) (CherryPickPreview, error) {
	r, err := e.load(taskID)
	if err != nil {
		return CherryPickPreview{}, err
	}
	p := CherryPickPreview{Source: r.RepoRoot, Of: "review_tree", Change: r.ReviewTreeHash}
	if r.CommitHash != "" {
		p.Of, p.Change = "commit", r.CommitHash
	}
	if p.Change == "" {
		return CherryPickPreview{}, Errorf(CodeInvalidState, nil, "task %s has no review or commit yet", taskID)
	}
	ap, err := gitx.PreviewApply(ctx, r.RepoRoot, r.BaseCommit, p.Change)
	if err != nil {
		return CherryPickPreview{}, Errorf(CodeInternalError, nil, "cherry-pick preview: %w", err)
	}
	p.Head, p.Clean, p.Conflicts, p.Moved = ap.Head, ap.Clean, nonNil(ap.Conflicts), ap.Moved
	return p, nil
}
