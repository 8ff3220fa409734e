package tui

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
	"reasonixctl/tui/bind"
	"reasonixctl/tui/intent"
	"reasonixctl/tui/term"
	"reasonixctl/tui/words"
)

// The review side of the diff view: a selected line, comments on lines sent back as one repair,
// side by side, copying, the editor and the cherry-pick preview, through core.Service.

// sideBySideMin is the narrowest terminal that shows the diff side by side.
const sideBySideMin = 160

// reviewUI is the diff view's state that belongs to the dashboard rather than to a task.
type reviewUI struct {
	sideBySide bool
	wrap       bool // long lines wrap; otherwise they scroll sideways (←/→)
	hideFiles  bool // the file list is hidden to give the code the width
	styles     *diffStyles
	stylesKey  [2]bool
}

// taskReview is the review's state of one task: its diff, where the view stands, the files
// marked reviewed and the cherry-pick preview.
type taskReview struct {
	diff     *diffDoc
	diffText string
	diffCur  diffCursor
	reviewed map[string]bool
	// reviewedRev is the review revision the reviewed marks belong to.
	reviewedRev int

	sel               int // the selected line of the current file
	seenFile, seenTop int // the page the selection was placed on
	placed            bool
	xoff              int // columns the code is scrolled to the left
	// entered is where } or { put the cursor, at the top of a file; while it stays there, its
	// first hunk is the current one for ].
	entered *diffCursor
	// editedSince are comments edited in this session after they were sent: the engine keeps
	// their sent round, but they are new to the worker, so C offers them again.
	editedSince map[string]bool
	search      diffSearch // the diff's find
	preview     *core.CherryPickPreview
	previewErr  string
	previewOf   string // the tree or commit the preview is of
	previewAt   time.Time
	previewing  bool
	// previewStamp is the checkout's stamp read just before the preview was asked
	// (checkoutwatch.go): a tick that reads another asks the preview again.
	previewStamp string
	// previewAgain is a refresh asked while a preview was under way, which may have read the
	// checkout before it moved: it runs once that one answers.
	previewAgain bool
	stamping     bool // a stamp read is under way
}

// load takes a task's detail: a changed diff is parsed again, and a new review revision starts
// with no file marked reviewed.
func (rv *taskReview) load(d core.TaskDetail) {
	if d.Diff != rv.diffText || rv.diff == nil {
		// The selection is held by file, side and line number: a reload or a new revision
		// keeps it on the same line, or the nearest one when that line is gone.
		k, ok := rv.selKey()
		var file string
		if rv.diff != nil && len(rv.diff.files) > 0 {
			file = rv.diff.files[rv.diff.clamp(rv.diffCur).file].name
		}
		rv.diffText, rv.diff = d.Diff, parseReviewDiff(d.Diff)
		rv.search.redo(rv.diff)
		switch {
		case ok:
			rv.restore(k)
		case file != "":
			// No line selected yet: the same file stays open.
			for i := range rv.diff.files {
				if rv.diff.files[i].name == file {
					rv.diffCur = rv.diff.clamp(diffCursor{i, rv.diffCur.top})
					break
				}
			}
		}
	}
	if d.View.ReviewRevision != rv.reviewedRev {
		rv.reviewed, rv.reviewedRev = map[string]bool{}, d.View.ReviewRevision
	}
}

// onResult hands the result of a review, editor or apply command to its handler: each is a
// typed message, most of them carrying their task's id.
func (m *Model) onResult(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case commentSavedMsg:
		return m.onCommentSaved(msg)
	case commentsSentMsg:
		return m.onCommentsSent(msg)
	case previewMsg:
		return m.onPreview(msg)
	case stampMsg:
		return m.onStamp(msg)
	case editorFileMsg:
		return m.onEditorFile(msg)
	case editorDoneMsg:
		return m.onEditorDone(msg)
	case contractEditedMsg:
		return m.onContractEdited(msg)
	case applyMsg:
		return m.onApply(msg)
	}
	return nil
}

func (m *Model) diffStyles() *diffStyles {
	k := [2]bool{m.opts.Monochrome, lipgloss.HasDarkBackground()}
	if m.review.styles == nil || m.review.stylesKey != k {
		m.review.styles, m.review.stylesKey = newDiffStyles(m.theme, k[0], k[1]), k
	}
	return m.review.styles
}

// sbsActive reports whether the diff is drawn side by side now.
func (m *Model) sbsActive() bool { return m.review.sideBySide && m.width >= sideBySideMin }

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
func commentsOf(ti *taskInfo) []core.ReviewComment {
	if ti.detail == nil {
		return nil
	}
	return ti.detail.Comments
}

// selectedComment is the comment on the selected line of f, if any.
func selectedComment(ti *taskInfo, f *diffFile) *core.ReviewComment {
	if ti.rv.sel < 0 || ti.rv.sel >= len(f.lines) {
		return nil
	}
	return commentAt(ti, f, ti.rv.sel)
}

// commentAt is the comment on line i of f, if any.
func commentAt(ti *taskInfo, f *diffFile, i int) *core.ReviewComment {
	l := f.lines[i]
	for _, c := range commentsOf(ti) {
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
func commentLines(ti *taskInfo, f *diffFile) map[int]byte {
	cs := commentsOf(ti)
	if len(cs) == 0 {
		return nil
	}
	newAt, oldAt := map[int]byte{}, map[int]byte{}
	for _, c := range cs {
		if c.Path != f.name || c.Status == core.CommentDeleted {
			continue
		}
		mark := commentMark(&c)
		if mark == markSent && ti.rv.editedSince[c.ID] {
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
func commentCounts(ti *taskInfo) map[string]int {
	out := map[string]int{}
	for _, c := range commentsOf(ti) {
		if c.Status == core.CommentOpen {
			out[c.Path]++
		}
	}
	return out
}

// ---- comments ----

type commentDialog struct {
	taskID  string
	req     core.CommentRequest // a new comment's anchor, or the edited comment's id
	where   string
	quote   []string
	editing bool
	input   textinput.Model
	err     string
}

func (m *Model) openComment(t *core.TaskView, ti *taskInfo, f *diffFile) tea.Cmd {
	if f.collapsed {
		m.setStatus("open the file first (enter), then comment a line", false, t.TaskID)
		return nil
	}
	i := ti.rv.sel
	if existing := commentAt(ti, f, i); existing != nil {
		d := &commentDialog{taskID: t.TaskID, editing: true, where: existing.Path + ":" + fmt.Sprint(existing.Line),
			quote: existing.Hunk, req: core.CommentRequest{TaskID: t.TaskID, ID: existing.ID},
			input: term.NewInput("your comment", existing.Body, core.MaxCommentBody)}
		if existing.Status == core.CommentOutdated {
			d.where += " (outdated)"
		}
		d.input.Focus()
		m.push(d)
		return nil
	}
	if t.State != core.StateReviewRequired {
		m.setStatus("comments go on a task in review; "+t.TaskID+" is "+string(t.State), true, t.TaskID)
		return nil
	}
	side, line, hunk, ok := anchor(f, i)
	if !ok {
		m.setStatus("select a changed or context line to comment (J/K move the selection)", false, t.TaskID)
		return nil
	}
	where := fmt.Sprintf("%s:%d", f.name, line)
	if side == core.SideOld {
		where += " (removed line)"
	}
	d := &commentDialog{taskID: t.TaskID, where: where, quote: hunk,
		req:   core.CommentRequest{TaskID: t.TaskID, Path: f.name, Line: line, Side: side, Hunk: hunk},
		input: term.NewInput("what should change here", "", core.MaxCommentBody)}
	d.input.Focus()
	m.push(d)
	return nil
}

func (d *commentDialog) capturing() bool { return true }

func (d *commentDialog) update(msg tea.KeyMsg, k bind.KeyMap) intent.Result {
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

func (d *commentDialog) view(t term.Theme, k bind.KeyMap, width int) (string, string) {
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

type commentSavedMsg struct {
	req core.CommentRequest
	c   core.ReviewComment
	err error
}

func (m *Model) saveComment(req core.CommentRequest) tea.Cmd {
	r := m.svc
	return func() tea.Msg {
		c, err := r.Comment(m.ctx, req)
		return commentSavedMsg{req: req, c: c, err: err}
	}
}

func (m *Model) onCommentSaved(msg commentSavedMsg) tea.Cmd {
	if msg.err != nil {
		m.push(errorNotice("saving the comment failed", msg.err))
		return m.fetchDetail(msg.req.TaskID)
	}
	if msg.req.ID != "" && !msg.req.Delete && msg.c.SentRound > 0 {
		ti := m.task(msg.req.TaskID)
		if ti.rv.editedSince == nil {
			ti.rv.editedSince = map[string]bool{}
		}
		ti.rv.editedSince[msg.req.ID] = true
	}
	what := "saved comment " + msg.c.ID + " on " + msg.c.Path + fmt.Sprintf(":%d", msg.c.Line)
	if msg.req.Delete {
		what = "deleted comment " + msg.c.ID
	}
	m.setStatus(what+" (C sends the open comments as one repair)", false, "")
	return m.fetchDetail(msg.req.TaskID)
}

// sendCommentsDialog asks before the comments use up a repair round.
type sendCommentsDialog struct {
	taskID string
	round  int
	lines  []string
}

func (m *Model) askSendComments(t *core.TaskView, ti *taskInfo) tea.Cmd {
	round, ok := core.RepairRound(*t) // the comments go back as one repair round
	if !ok {
		why := core.WhyNot(*t, core.ActionSteer)
		if why == "" { // a steer reaches a running task's turn: it starts no repair round
			why = fmt.Sprintf("comments go back as a repair round, which starts from review; %s is %s", t.TaskID, t.State)
		}
		m.setStatus(why, true, t.TaskID)
		return nil
	}
	// Only comments not sent yet are offered, and only they go: the engine sends what the
	// worker has not seen (an edited comment counts as new).
	var open, again []core.ReviewComment
	for _, c := range commentsOf(ti) {
		switch {
		case c.Status != core.CommentOpen:
		case c.SentRound > 0 && !ti.rv.editedSince[c.ID]:
			again = append(again, c)
		default:
			open = append(open, c)
		}
	}
	if len(open) == 0 {
		if len(again) > 0 {
			m.setStatus(fmt.Sprintf("no new comments to send: the %d open comment(s) were sent in round %d; c comments a line", len(again), again[0].SentRound), false, t.TaskID)
			return nil
		}
		m.setStatus("no open comments to send: c comments the selected line", false, t.TaskID)
		return nil
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
	m.push(d)
	return nil
}

func firstLineOf(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

func (d *sendCommentsDialog) capturing() bool { return false }

func (d *sendCommentsDialog) update(msg tea.KeyMsg, k bind.KeyMap) intent.Result {
	switch {
	case key.Matches(msg, k.Yes), msg.Type == tea.KeyEnter:
		id := d.taskID
		return intent.Result{Close: true, Do: intent.SendComments{TaskID: id}}
	case key.Matches(msg, k.No):
		return intent.Result{Close: true}
	}
	return intent.Result{}
}

func (d *sendCommentsDialog) view(t term.Theme, k bind.KeyMap, width int) (string, string) {
	var b strings.Builder
	b.WriteString(t.Warn.Render(fmt.Sprintf("Send %d comment(s) as repair round %d/%d?", len(d.lines), d.round, core.MaxRepairRounds)) + "\n\n")
	for _, l := range d.lines {
		b.WriteString("• " + safetext.Line(l) + "\n")
	}
	b.WriteString("\n" + term.WrapIndent("The worker gets them in one message, each at its path:line with the lines it quotes, and the task returns to review.", width, 0))
	return b.String(), term.KeyLines(t, width, k.Yes, k.No)
}

type commentsSentMsg struct {
	taskID string
	view   core.TaskView
	err    error
}

func (m *Model) sendComments(id string) tea.Cmd {
	r := m.svc
	m.setStatus("sending the comments of "+id+"…", false, "")
	return func() tea.Msg {
		v, err := r.SendComments(m.ctx, id)
		return commentsSentMsg{taskID: id, view: v, err: err}
	}
}

func (m *Model) onCommentsSent(msg commentsSentMsg) tea.Cmd {
	if msg.err != nil {
		m.push(errorNotice("sending the comments of "+msg.taskID+" failed", msg.err))
		return tea.Batch(m.refreshList(), m.fetchDetail(msg.taskID))
	}
	m.list.replace(msg.view)
	m.task(msg.taskID).rv.editedSince = nil
	m.setStatus(fmt.Sprintf("sent the comments as repair round %d/%d: %s is %s", msg.view.RepairRounds, core.MaxRepairRounds, msg.taskID, msg.view.State), false, msg.taskID)
	return tea.Batch(m.refreshList(), m.fetchDetail(msg.taskID))
}

// ---- events ----

// formatReviewEvent is the events-view line of the review events.
func formatReviewEvent(ev core.Event) (entryKind, string) {
	switch ev.Type {
	case core.EventReviewComment:
		c, _ := core.DataOf[core.ReviewComment](ev)
		verb := "comment"
		switch c.Status {
		case core.CommentDeleted:
			verb = "deleted"
		case core.CommentOutdated:
			verb = "outdated"
		}
		return kindSteer, fmt.Sprintf("review %s %s on %s:%d: %s", verb, c.ID, c.Path, c.Line, firstLineOf(c.Body))
	case core.EventReviewCommentsSent:
		d, _ := core.DataOf[core.CommentsSentData](ev)
		return kindSteer, fmt.Sprintf("review sent %d comment(s) as repair round %d: %s", len(d.CommentIDs), d.RepairRound, strings.Join(d.CommentIDs, ", "))
	case core.EventReviewSummary:
		d, _ := core.DataOf[core.ReviewSummaryData](ev)
		return kindState, fmt.Sprintf("review summary of revision %d: %s", d.ReviewRevision, d.Summary)
	}
	return kindInfo, ev.Type
}

// ---- cherry-pick preview ----

type previewMsg struct {
	taskID, of string
	stamp      string // the checkout's stamp, read before the preview
	p          core.CherryPickPreview
	err        error
}

// previewTTL is how long a cherry-pick preview stands before the next look refreshes it,
// when nothing says the checkout moved (a change the stamp does not see: another worktree
// committing to the branch of a detached checkout, say).
const previewTTL = 30 * time.Second

// refreshPreview asks whether the task's change applies to its source checkout's HEAD now,
// when it is in review or committed and the last answer is missing, for another change or old,
// or force says so (ctrl+r, the checkout's stamp changed, the finalize form opened).
func (m *Model) refreshPreview(id string, force bool) tea.Cmd {
	r := m.svc
	ti := m.task(id)
	d := ti.detail
	if d == nil {
		return nil
	}
	if ti.rv.previewing {
		ti.rv.previewAgain = ti.rv.previewAgain || force
		return nil
	}
	of := d.View.ReviewTreeHash
	if d.View.CommitHash != "" {
		of = d.View.CommitHash
	} else if d.View.State != core.StateReviewRequired {
		return nil
	}
	if of == "" || (!force && ti.rv.previewOf == of && m.now().Sub(ti.rv.previewAt) < previewTTL) {
		return nil
	}
	ti.rv.previewing, ti.rv.previewAgain = true, false
	root := d.Repository
	return func() tea.Msg {
		// The stamp first: a checkout that moves during the preview shows in the next one.
		stamp := checkoutStamp(root)
		ctx, cancel := context.WithTimeout(m.ctx, 20*time.Second)
		defer cancel()
		p, err := r.CherryPickPreview(ctx, id)
		return previewMsg{taskID: id, of: of, stamp: stamp, p: p, err: err}
	}
}

func (m *Model) onPreview(msg previewMsg) tea.Cmd {
	ti := m.task(msg.taskID)
	ti.rv.previewing = false
	ti.rv.previewOf, ti.rv.previewAt, ti.rv.previewStamp = msg.of, m.now(), msg.stamp
	if msg.err != nil {
		ti.rv.preview, ti.rv.previewErr = nil, words.OneLine(msg.err)
	} else {
		p := msg.p
		ti.rv.preview, ti.rv.previewErr = &p, ""
	}
	// Asked again while this one ran, or the task's change is no longer the one previewed
	// (a detail that arrived meanwhile): once more, now.
	return m.refreshPreview(msg.taskID, ti.rv.previewAgain)
}

// previewLine says in one line whether the change applies to the source's HEAD.
func previewLine(rv *taskReview) string {
	return words.Preview{Of: rv.preview, Err: rv.previewErr, Pending: rv.previewing}.Line()
}
