package review

import (
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
	"reasonixctl/tui/bind"
	"reasonixctl/tui/intent"
	"reasonixctl/tui/term"
)

// Comments on the diff's lines: each attaches to a side and line number with the lines it
// quotes, is saved in the engine at once, and goes back to the worker with the other open ones
// as one repair round (C).

// ---- comments: anchors and counts ----

// anchor is where a comment on line i of file f attaches: the side and line number, and the
// lines it quotes (the hunk header and up to three lines either side within the hunk).
func anchor(f *diffFile, i int) (side string, line int, hunk []string, ok bool) {
	l := f.lines[i]
	switch l.kind {
	case '+', ' ':
		side, line = core.SideNew, int(l.newNo)
	case '-':
		side, line = core.SideOld, int(l.oldNo)
	default:
		return "", 0, nil, false
	}
	h := f.hunkStart(i)
	if h < 0 {
		return "", 0, nil, false
	}
	hunk = append(hunk, f.lines[h].text)
	end := len(f.lines)
	for j := h + 1; j < len(f.lines); j++ {
		if f.lines[j].kind == '@' {
			end = j
			break
		}
	}
	for j := max(h+1, i-3); j < min(end, i+4); j++ {
		dl := f.lines[j]
		switch dl.kind {
		case '+', '-', ' ':
			hunk = append(hunk, string(dl.kind)+dl.text)
		}
	}
	return side, line, hunk, true
}

// commentsOf are the task's comments, open and outdated, from its detail.
func commentsOf(rv *taskReview) []core.ReviewComment {
	if rv.detail == nil {
		return nil
	}
	return rv.detail.Comments
}

// selectedComment is the comment on the selected line of f, if any.
func selectedComment(rv *taskReview, f *diffFile) *core.ReviewComment {
	if rv.sel < 0 || rv.sel >= len(f.lines) {
		return nil
	}
	return commentAt(rv, f, rv.sel)
}

// commentAt is the comment on line i of f, if any.
func commentAt(rv *taskReview, f *diffFile, i int) *core.ReviewComment {
	l := f.lines[i]
	for _, c := range commentsOf(rv) {
		if c.Path != f.name || c.Status == core.CommentDeleted {
			continue
		}
		if (c.Side == core.SideNew && l.kind != '-' && int(l.newNo) == c.Line && l.newNo > 0) ||
			(c.Side == core.SideOld && l.kind == '-' && int(l.oldNo) == c.Line) {
			return &c
		}
	}
	return nil
}

// commentLines marks the lines of f that carry a comment: open, sent and still open, or
// outdated (its quoted lines are gone from the revision; it stays at its line number).
func commentLines(rv *taskReview, f *diffFile) map[int]byte {
	cs := commentsOf(rv)
	if len(cs) == 0 {
		return nil
	}
	newAt, oldAt := map[int]byte{}, map[int]byte{}
	for _, c := range cs {
		if c.Path != f.name || c.Status == core.CommentDeleted {
			continue
		}
		mark := commentMark(&c)
		if mark == markSent && rv.editedSince[c.ID] {
			mark = markOpen
		}
		at := newAt
		if c.Side == core.SideOld {
			at = oldAt
		}
		// An open comment's mark wins over an outdated one's on the same line.
		if prev, ok := at[c.Line]; !ok || prev == markOutdated {
			at[c.Line] = mark
		}
	}
	out := map[int]byte{}
	for i, l := range f.lines {
		if l.kind == '-' {
			if mk, ok := oldAt[int(l.oldNo)]; ok {
				out[i] = mk
			}
		} else if l.newNo > 0 {
			if mk, ok := newAt[int(l.newNo)]; ok {
				out[i] = mk
			}
		}
	}
	return out
}

// commentMark is the gutter mark of a comment.
func commentMark(c *core.ReviewComment) byte {
	switch {
	case c.Status == core.CommentOutdated:
		return markOutdated
	case c.SentRound > 0:
		return markSent
	}
	return markOpen
}

// commentGlyph is the comment's mark as the gutter draws it.
func commentGlyph(c *core.ReviewComment) string {
	switch commentMark(c) {
	case markOutdated:
		return "○"
	case markSent:
		return "◉"
	}
	return "●"
}

// commentState says, after a comment's line, whether it was sent or is outdated.
func commentState(c *core.ReviewComment) string {
	var s []string
	if c.Status != core.CommentOpen {
		s = append(s, c.Status)
	}
	if c.SentRound > 0 {
		s = append(s, fmt.Sprintf("sent in round %d", c.SentRound))
	}
	if len(s) == 0 {
		return ""
	}
	return " (" + strings.Join(s, ", ") + ")"
}

// commentCounts counts the open comments per path.
func commentCounts(rv *taskReview) map[string]int {
	out := map[string]int{}
	for _, c := range commentsOf(rv) {
		if c.Status == core.CommentOpen {
			out[c.Path]++
		}
	}
	return out
}

// ---- the comment dialog ----

type commentDialog struct {
	req     core.CommentRequest // a new comment's anchor, or the edited comment's id
	where   string
	quote   []string
	editing bool
	input   textinput.Model
	err     string
}

// openComment opens the comment of the selected line of f to edit, or a new one on it.
func (r Review) openComment(rv *taskReview, f *diffFile) Result {
	t := r.place.Task
	if f.collapsed {
		return say("open the file first (enter), then comment a line", false, t.TaskID)
	}
	i := rv.sel
	if existing := commentAt(rv, f, i); existing != nil {
		d := &commentDialog{editing: true, where: existing.Path + ":" + fmt.Sprint(existing.Line),
			quote: existing.Hunk, req: core.CommentRequest{TaskID: t.TaskID, ID: existing.ID},
			input: term.NewInput("your comment", existing.Body, core.MaxCommentBody)}
		if existing.Status == core.CommentOutdated {
			d.where += " (outdated)"
		}
		d.input.Focus()
		return Result{Open: d}
	}
	if t.State != core.StateReviewRequired {
		return say("comments go on a task in review; "+t.TaskID+" is "+string(t.State), true, t.TaskID)
	}
	side, line, hunk, ok := anchor(f, i)
	if !ok {
		return say("select a changed or context line to comment (J/K move the selection)", false, t.TaskID)
	}
	where := fmt.Sprintf("%s:%d", f.name, line)
	if side == core.SideOld {
		where += " (removed line)"
	}
	d := &commentDialog{where: where, quote: hunk,
		req:   core.CommentRequest{TaskID: t.TaskID, Path: f.name, Line: line, Side: side, Hunk: hunk},
		input: term.NewInput("what should change here", "", core.MaxCommentBody)}
	d.input.Focus()
	return Result{Open: d}
}

func (d *commentDialog) Capturing() bool { return true }

func (d *commentDialog) Update(msg tea.KeyMsg, k bind.KeyMap) intent.Result {
	switch msg.Type {
	case tea.KeyEsc:
		return intent.Result{Close: true}
	case tea.KeyCtrlD:
		if !d.editing {
			return intent.Result{Close: true}
		}
		req := d.req
		req.Delete = true
		return intent.Result{Close: true, Do: intent.SaveComment{Req: req}}
	case tea.KeyEnter, tea.KeyCtrlS:
		body := strings.TrimSpace(d.input.Value())
		if body == "" {
			d.err = "the comment is empty (ctrl+d deletes a comment)"
			return intent.Result{}
		}
		req := d.req
		req.Body = body
		return intent.Result{Close: true, Do: intent.SaveComment{Req: req}}
	}
	d.input, _ = d.input.Update(msg)
	return intent.Result{}
}

func (d *commentDialog) View(t term.Theme, k bind.KeyMap, width int) (string, string) {
	title := "Comment on " + d.where
	if d.editing {
		title = "Edit the comment on " + d.where
	}
	var b strings.Builder
	b.WriteString(t.Title.Render(safetext.Line(title)) + "\n")
	for _, q := range d.quote {
		b.WriteString(t.Dim.Render("  │ "+safetext.Line(q)) + "\n")
	}
	d.input.Width = max(width-4, 10)
	b.WriteString("\n> " + d.input.View())
	if d.err != "" {
		b.WriteString("\n" + t.Error.Render(safetext.Sanitize(d.err)))
	}
	keys := []key.Binding{bind.New(nil, "enter", "save")}
	if d.editing {
		keys = append(keys, bind.New(nil, "ctrl+d", "delete"))
	}
	keys = append(keys, bind.New(nil, "esc", "cancel"))
	return b.String(), term.KeyLines(t, width, keys...)
}

// saveComment adds, edits or deletes a comment in the engine.
func (r Review) saveComment(req core.CommentRequest) tea.Cmd {
	svc, ctx := r.cfg.Service, r.cfg.Context
	return func() tea.Msg {
		c, err := svc.Comment(ctx, req)
		return CommentSaved{TaskID: req.TaskID, Req: req, Comment: c, Err: err}
	}
}

func (r Review) onCommentSaved(msg CommentSaved) Result {
	if msg.Err != nil {
		return Result{Failed: &Failure{Title: "saving the comment failed", Err: msg.Err}, Reload: msg.TaskID}
	}
	if msg.Req.ID != "" && !msg.Req.Delete && msg.Comment.SentRound > 0 {
		rv := r.task(msg.TaskID)
		if rv.editedSince == nil {
			rv.editedSince = map[string]bool{}
		}
		rv.editedSince[msg.Req.ID] = true
	}
	what := "saved comment " + msg.Comment.ID + " on " + msg.Comment.Path + fmt.Sprintf(":%d", msg.Comment.Line)
	if msg.Req.Delete {
		what = "deleted comment " + msg.Comment.ID
	}
	res := say(what+" (C sends the open comments as one repair)", false, "")
	res.Reload = msg.TaskID
	return res
}

// ---- sending the comments ----

// sendCommentsDialog asks before the comments use up a repair round.
type sendCommentsDialog struct {
	taskID string
	round  int
	lines  []string
}

// askSendComments asks before the comments not sent yet go back as a repair round, or says why
// they cannot.
func (r Review) askSendComments(rv *taskReview) Result {
	t := r.place.Task
	round, ok := core.RepairRound(t) // the comments go back as one repair round
	if !ok {
		why := core.WhyNot(t, core.ActionSteer)
		if why == "" { // a steer reaches a running task's turn: it starts no repair round
			why = fmt.Sprintf("comments go back as a repair round, which starts from review; %s is %s", t.TaskID, t.State)
		}
		return say(why, true, t.TaskID)
	}
	// Only comments not sent yet are offered, and only they go: the engine sends what the
	// worker has not seen (an edited comment counts as new).
	var open, again []core.ReviewComment
	for _, c := range commentsOf(rv) {
		switch {
		case c.Status != core.CommentOpen:
		case c.SentRound > 0 && !rv.editedSince[c.ID]:
			again = append(again, c)
		default:
			open = append(open, c)
		}
	}
	if len(open) == 0 {
		if len(again) > 0 {
			return say(fmt.Sprintf("no new comments to send: the %d open comment(s) were sent in round %d; c comments a line", len(again), again[0].SentRound), false, t.TaskID)
		}
		return say("no open comments to send: c comments the selected line", false, t.TaskID)
	}
	sort.SliceStable(open, func(i, j int) bool {
		if open[i].Path != open[j].Path {
			return open[i].Path < open[j].Path
		}
		return open[i].Line < open[j].Line
	})
	d := &sendCommentsDialog{taskID: t.TaskID, round: round}
	for _, c := range open {
		d.lines = append(d.lines, fmt.Sprintf("%s:%d  %s", c.Path, c.Line, firstLineOf(c.Body)))
	}
	return Result{Open: d}
}

func firstLineOf(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

func (d *sendCommentsDialog) Capturing() bool { return false }

func (d *sendCommentsDialog) Update(msg tea.KeyMsg, k bind.KeyMap) intent.Result {
	switch {
	case key.Matches(msg, k.Yes), msg.Type == tea.KeyEnter:
		id := d.taskID
		return intent.Result{Close: true, Do: intent.SendComments{TaskID: id}}
	case key.Matches(msg, k.No):
		return intent.Result{Close: true}
	}
	return intent.Result{}
}

func (d *sendCommentsDialog) View(t term.Theme, k bind.KeyMap, width int) (string, string) {
	var b strings.Builder
	b.WriteString(t.Warn.Render(fmt.Sprintf("Send %d comment(s) as repair round %d/%d?", len(d.lines), d.round, core.MaxRepairRounds)) + "\n\n")
	for _, l := range d.lines {
		b.WriteString("• " + safetext.Line(l) + "\n")
	}
	b.WriteString("\n" + term.WrapIndent("The worker gets them in one message, each at its path:line with the lines it quotes, and the task returns to review.", width, 0))
	return b.String(), term.KeyLines(t, width, k.Yes, k.No)
}

// sendComments sends a task's open comments as one repair round.
func (r Review) sendComments(id string) tea.Cmd {
	svc, ctx := r.cfg.Service, r.cfg.Context
	return func() tea.Msg {
		v, err := svc.SendComments(ctx, id)
		return CommentsSent{TaskID: id, View: v, Err: err}
	}
}

func (r Review) onCommentsSent(msg CommentsSent) Result {
	if msg.Err != nil {
		return Result{Failed: &Failure{Title: "sending the comments of " + msg.TaskID + " failed", Err: msg.Err},
			Reload: msg.TaskID, ReloadList: true}
	}
	r.task(msg.TaskID).editedSince = nil
	v := msg.View
	res := say(fmt.Sprintf("sent the comments as repair round %d/%d: %s is %s", v.RepairRounds, core.MaxRepairRounds, msg.TaskID, v.State), false, msg.TaskID)
	res.View, res.Reload, res.ReloadList = &v, msg.TaskID, true
	return res
}
