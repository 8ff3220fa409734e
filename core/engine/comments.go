package engine

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"reasonixctl/core"
	"reasonixctl/core/gitx"
)

// Comment implements core.Service.
func (e *Engine) Comment(ctx context.Context, req core.CommentRequest) (core.ReviewComment, error) {
	if !core.ValidTaskID(req.TaskID) {
		return core.ReviewComment{}, core.InvalidRequest("comment validation failed", []core.Issue{{Path: "task_id", Message: "must match " + core.TaskIDPattern}})
	}
	req.Body = strings.TrimSpace(req.Body)
	var issues []core.Issue
	if !req.Delete {
		if req.Body == "" || utf8.RuneCountInString(req.Body) > core.MaxCommentBody {
			issues = append(issues, core.Issue{Path: "body", Message: fmt.Sprintf("must be 1..%d characters", core.MaxCommentBody)})
		}
	}
	if req.ID == "" {
		if req.Delete {
			issues = append(issues, core.Issue{Path: "id", Message: "names the comment to delete"})
		}
		if req.Path == "" {
			issues = append(issues, core.Issue{Path: "path", Message: "must name a changed file"})
		}
		if req.Line < 1 {
			issues = append(issues, core.Issue{Path: "line", Message: "must be ≥ 1"})
		}
		if req.Side != core.SideNew && req.Side != core.SideOld {
			issues = append(issues, core.Issue{Path: "side", Message: "must be new or old"})
		}
	}
	if len(issues) > 0 {
		return core.ReviewComment{}, core.InvalidRequest("comment validation failed", issues)
	}
	var out core.ReviewComment
	_, err := e.update(req.TaskID, func(r *taskRecord) ([]newEvent, error) {
		now := core.FormatTime(e.now())
		if req.ID != "" {
			i := slices.IndexFunc(r.Comments, func(c core.ReviewComment) bool { return c.ID == req.ID })
			if i < 0 || r.Comments[i].Status == core.CommentDeleted {
				return nil, core.Errorf(core.CodeInvalidRequest, &core.UnknownID{ID: req.ID}, "task %s has no comment %s", r.TaskID, req.ID)
			}
			c := &r.Comments[i]
			if req.Delete {
				c.Status = core.CommentDeleted
			} else {
				c.Body = req.Body
				c.SentRound = 0 // edited: the worker has not seen this text
			}
			c.UpdatedAt = now
			out = *c
			return []newEvent{event(core.EventReviewComment, *c)}, nil
		}
		if r.State != core.StateReviewRequired || r.ReviewRevision == 0 {
			return nil, core.Errorf(core.CodeInvalidState, &core.WrongState{State: r.State}, "task %s has no review to comment on (it is %s)", r.TaskID, r.State)
		}
		if !slices.Contains(r.ChangedFiles, req.Path) {
			return nil, core.Errorf(core.CodeInvalidRequest, &core.PathRef{Path: req.Path}, "%s is not a file of the review", req.Path)
		}
		if len(r.Comments) >= core.MaxComments {
			return nil, core.Errorf(core.CodeInvalidRequest, nil, "task %s has %d comments, the most it keeps", r.TaskID, core.MaxComments)
		}
		c := core.ReviewComment{
			ID: "c" + strconv.Itoa(len(r.Comments)+1), Path: req.Path, Line: req.Line, Side: req.Side,
			Body: req.Body, Hunk: limitHunk(req.Hunk), Status: core.CommentOpen,
			Revision: r.ReviewRevision, Tree: r.ReviewTreeHash, CreatedAt: now, UpdatedAt: now,
		}
		r.Comments = append(r.Comments, c)
		out = c
		return []newEvent{event(core.EventReviewComment, c)}, nil
	})
	if err != nil {
		return core.ReviewComment{}, err
	}
	return out, nil
}

func limitHunk(h []string) []string {
	if len(h) > core.MaxCommentHunk {
		h = h[:core.MaxCommentHunk]
	}
	out := make([]string, len(h))
	for i, l := range h {
		out[i] = core.TruncateText(strings.ReplaceAll(l, "\n", " "), core.MaxCommentHunkLine)
	}
	return out
}

// openComments are the comments a repair would carry, in the order the message lists them:
// by path, then line, then id.
func openComments(cs []core.ReviewComment) []core.ReviewComment {
	var out []core.ReviewComment
	for _, c := range cs {
		if c.Status == core.CommentOpen {
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b core.ReviewComment) int {
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
func CommentsMessage(cs []core.ReviewComment) string {
	cs = openComments(cs)
	var b strings.Builder
	fmt.Fprintf(&b, "The reviewer left %d comment(s) on the diff. Address each one; change nothing else.\n", len(cs))
	for i, c := range cs {
		where := c.Path + ":" + strconv.Itoa(c.Line)
		if c.Side == core.SideOld {
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

// SendComments implements core.Service: the open comments go to the worker as one repair round.
func (e *Engine) SendComments(ctx context.Context, taskID string) (core.TaskView, error) {
	if !core.ValidTaskID(taskID) {
		return core.TaskView{}, core.InvalidRequest("comment validation failed", []core.Issue{{Path: "task_id", Message: "must match " + core.TaskIDPattern}})
	}
	r, err := e.load(taskID)
	if err != nil {
		return core.TaskView{}, err
	}
	// Only what the worker has not seen goes: a comment sent in an earlier round and left as
	// it was is not sent again (editing it makes it new).
	var open []core.ReviewComment
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
			return core.TaskView{}, core.Errorf(core.CodeInvalidRequest, nil, "task %s's %d open comment(s) were all sent before; edit one, or comment a line, to send it", taskID, sentBefore)
		}
		return core.TaskView{}, core.Errorf(core.CodeInvalidRequest, nil, "task %s has no open comments to send", taskID)
	}
	msg := CommentsMessage(open)
	if len(msg) > core.MaxSteerMessageLen-200 {
		return core.TaskView{}, core.Errorf(core.CodeInvalidRequest, &core.MessageTooLong{Bytes: len(msg)},
			"the comments come to %d bytes, more than one repair message holds (%d): send fewer", len(msg), core.MaxSteerMessageLen-200)
	}
	ids := make([]string, len(open))
	for i, c := range open {
		ids[i] = c.ID
	}
	return e.steerWith(ctx, taskID, msg, core.StateReviewRequired, func(r *taskRecord) []newEvent {
		for i := range r.Comments {
			if slices.Contains(ids, r.Comments[i].ID) && r.Comments[i].Status == core.CommentOpen {
				r.Comments[i].SentRound = r.RepairRounds
			}
		}
		return []newEvent{event(core.EventReviewCommentsSent, core.CommentsSentData{RepairRound: r.RepairRounds, CommentIDs: ids})}
	})
}

// commentsAgainst checks open comments against a new review tree: a comment whose quoted
// lines no longer appear in its file is outdated; one whose lines moved follows them. It
// reads git and runs before the record update that stores the new revision.
func (e *Engine) commentsAgainst(ctx context.Context, r *taskRecord, tree string) map[string]core.ReviewComment {
	out := map[string]core.ReviewComment{}
	dir := r.RepoCommonDir
	for _, c := range r.Comments {
		if c.Status != core.CommentOpen || c.Tree == tree {
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
			c.Status = core.CommentOutdated
			out[c.ID] = c
			continue
		}
		oldText, _, _ := gitx.FileAt(ctx, dir, oldTree, c.Path, core.CommentFileMax)
		newText, ok, err := gitx.FileAt(ctx, dir, tree, c.Path, core.CommentFileMax)
		if err != nil || !ok {
			c.Status = core.CommentOutdated
			out[c.ID] = c
			continue
		}
		at := findBlock(strings.Split(string(newText), "\n"), block, c.Line)
		if at < 0 {
			c.Status = core.CommentOutdated
		} else if was := findBlock(strings.Split(string(oldText), "\n"), block, c.Line); was >= 0 && c.Side == core.SideNew {
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

// ReviewFile implements core.Service: the bytes path holds in the current review tree, for reading
// outside the dashboard without touching the worktree.
func (e *Engine) ReviewFile(ctx context.Context, taskID, path string) ([]byte, error) {
	r, err := e.load(taskID)
	if err != nil {
		return nil, err
	}
	if r.ReviewTreeHash == "" {
		return nil, core.Errorf(core.CodeInvalidState, nil, "task %s has no review yet", taskID)
	}
	if !slices.Contains(r.ChangedFiles, path) {
		return nil, core.Errorf(core.CodeInvalidRequest, &core.PathRef{Path: path}, "%s is not a file of the review", path)
	}
	b, ok, err := gitx.FileAt(ctx, r.RepoCommonDir, r.ReviewTreeHash, path, core.CommentFileMax)
	if err != nil {
		return nil, wrapError(core.CodeInternalError, err, "reading "+path+" from the review tree")
	}
	if !ok {
		return nil, core.Errorf(core.CodeInvalidRequest, &core.PathRef{Path: path}, "%s is not a file in the review tree (deleted, or over %d bytes)", path, core.CommentFileMax)
	}
	return b, nil
}

// applyChecked stores what commentsAgainst found, one review_comment event per comment whose
// status or line changed, so the journal says which comments a revision outdated.
func applyChecked(r *taskRecord, checked map[string]core.ReviewComment, now string) []newEvent {
	var evs []newEvent
	for i := range r.Comments {
		c, ok := checked[r.Comments[i].ID]
		if !ok || r.Comments[i].Status != core.CommentOpen {
			continue
		}
		changed := c.Status != r.Comments[i].Status || c.Line != r.Comments[i].Line
		r.Comments[i].Tree, r.Comments[i].Status, r.Comments[i].Line = c.Tree, c.Status, c.Line
		if changed {
			r.Comments[i].UpdatedAt = now
			evs = append(evs, event(core.EventReviewComment, r.Comments[i]))
		}
	}
	return evs
}

// CherryPickPreview implements core.Service. It writes nothing to the source repository (see
// gitx.PreviewApply).
func (e *Engine) CherryPickPreview(ctx context.Context, taskID string) (core.CherryPickPreview, error) {
	r, err := e.load(taskID)
	if err != nil {
		return core.CherryPickPreview{}, err
	}
	p := core.CherryPickPreview{Source: r.RepoRoot, Of: "review_tree", Change: r.ReviewTreeHash}
	if r.CommitHash != "" {
		p.Of, p.Change = "commit", r.CommitHash
	}
	if p.Change == "" {
		return core.CherryPickPreview{}, core.Errorf(core.CodeInvalidState, nil, "task %s has no review or commit yet", taskID)
	}
	ap, err := gitx.PreviewApply(ctx, r.RepoRoot, r.BaseCommit, p.Change)
	if err != nil {
		return core.CherryPickPreview{}, wrapError(core.CodeInternalError, err, "cherry-pick preview")
	}
	p.Head, p.Clean, p.Conflicts, p.Moved = ap.Head, ap.Clean, nonNil(ap.Conflicts), ap.Moved
	if p.Clean && p.Of == "commit" && r.State == core.StateCompleted {
		// A commit lands by task apply, which refuses more than conflicts: the line that says
		// it applies must not be followed by a refusal, so it asks apply's own checks.
		if _, err := planApply(ctx, r); err != nil {
			p.Refusal = core.AsError(err).Message
		}
	}
	return p, nil
}
