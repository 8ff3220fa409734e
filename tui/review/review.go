package review

import (
	"context"
	"sort"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/tui/bind"
	"reasonixctl/tui/intent"
	"reasonixctl/tui/term"
	"reasonixctl/tui/words"
)

// sideBySideMin is the narrowest terminal that shows the diff side by side.
const sideBySideMin = 160

// MinWidth is the least the diff is given on a terminal at least that wide: what it has at 80
// columns (beside the list at 120 columns it had 71). The root lays the detail out so that the
// diff keeps it, and the file list stands beside the diff only where the diff still keeps it.
const MinWidth = 80

// Service is what the review asks of the engine. It is called only from inside commands.
type Service interface {
	Comment(ctx context.Context, req core.CommentRequest) (core.ReviewComment, error)
	SendComments(ctx context.Context, taskID string) (core.TaskView, error)
	ReviewFile(ctx context.Context, taskID, path string) ([]byte, error)
	CherryPickPreview(ctx context.Context, taskID string) (core.CherryPickPreview, error)
}

// Config is what a Review is built with.
type Config struct {
	Service Service
	// Context bounds the calls to the engine.
	Context context.Context
	Theme   term.Theme
	Keys    bind.KeyMap
	// Now is the clock (the preview's age); nil means time.Now. Tests move one by hand.
	Now func() time.Time
	// Monochrome draws the diff without colour (NO_COLOR).
	Monochrome bool
}

// Review is the review tab: the review of each task, and the person's choices that hold for all
// of them. Copies share the reviews of the tasks: keep the one Update returns.
type Review struct {
	cfg Config
	// The person's choices, kept for the session.
	sideBySide bool
	wrap       bool // long lines wrap; otherwise they scroll sideways (←/→)
	hideFiles  bool // the file list is hidden to give the code the width
	styles     *styleCache
	tasks      map[string]*taskReview
	place      Place
}

// New is a review with no task seen yet.
func New(cfg Config) Review {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Context == nil {
		cfg.Context = context.Background()
	}
	return Review{cfg: cfg, styles: &styleCache{}, tasks: map[string]*taskReview{}}
}

// Place is where the tab stands: the selected task as the task list shows it, the terminal's
// width (side by side needs sideBySideMin columns of it) and the size of the pane under the tab
// bar. Keys page by the pane and a page holds what fits in it, so the root places the review
// before it hands it a key or asks it anything that depends on the layout.
type Place struct {
	Task          core.TaskView
	Screen        int
	Width, Height int
}

// In is the review placed at p.
func (r Review) In(p Place) Review {
	r.place = p
	return r
}

// Update handles a key for the placed task's review, a message from the root (Loaded, Forget,
// RefreshPreview, Tick, intent.SaveComment, intent.SendComments) or the result of one of the
// review's own commands (every Message).
func (r Review) Update(msg tea.Msg) (Review, tea.Cmd, Result) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		cmd, res := r.key(msg)
		return r, cmd, res
	case Loaded:
		rv := r.task(msg.TaskID)
		d := msg.Detail
		rv.detail, rv.risks = &d, msg.Risks
		rv.load(d)
	case Forget:
		delete(r.tasks, msg.TaskID)
	case RefreshPreview:
		return r, r.refreshPreview(msg.TaskID, msg.Force), Result{}
	case Tick:
		return r, r.watchCheckout(msg.TaskID), Result{}
	case intent.SaveComment:
		return r, r.saveComment(msg.Req), Result{}
	case intent.SendComments:
		return r, r.sendComments(msg.TaskID), say("sending the comments of "+msg.TaskID+"…", false, "")
	case CommentSaved:
		return r, nil, r.onCommentSaved(msg)
	case CommentsSent:
		return r, nil, r.onCommentsSent(msg)
	case PreviewDone:
		return r, r.onPreview(msg), Result{}
	case Stamped:
		return r, r.onStamp(msg), Result{}
	case EditorFile:
		cmd, res := r.onEditorFile(msg)
		return r, cmd, res
	case EditorDone:
		cmd, res := r.onEditorDone(msg)
		return r, cmd, res
	}
	return r, nil, Result{}
}

// View draws the placed task's review in a pane width by height.
func (r Review) View(width, height int) string {
	r.place.Width, r.place.Height = width, height
	if r.place.Task.TaskID == "" {
		return ""
	}
	return r.viewDiff(r.task(r.place.Task.TaskID))
}

// Capturing says the placed task's search line takes text: every key is text then.
func (r Review) Capturing() bool {
	rv := r.tasks[r.place.Task.TaskID]
	return rv != nil && rv.search.typing
}

// SideBySide says the diff is drawn side by side on a terminal screen columns wide: chosen, and
// wide enough.
func (r Review) SideBySide(screen int) bool { return r.sideBySide && screen >= sideBySideMin }

// DiffWidth is the width the placed diff is drawn in: the pane's, less the file list when that
// stands beside it.
func (r Review) DiffWidth() int { return r.diffWidth() }

// Unreviewed are the files of a task's diff not marked reviewed, sorted.
func (r Review) Unreviewed(taskID string) []string {
	rv := r.tasks[taskID]
	if rv == nil || rv.diff == nil {
		return nil
	}
	var out []string
	for _, f := range rv.diff.files {
		if !rv.reviewed[f.name] {
			out = append(out, f.name)
		}
	}
	sort.Strings(out)
	return out
}

// Preview is what the review knows of whether a task's change applies to its checkout's HEAD.
func (r Review) Preview(taskID string) words.Preview {
	rv := r.tasks[taskID]
	if rv == nil {
		return words.Preview{}
	}
	return words.Preview{Of: rv.preview, Err: rv.previewErr, Pending: rv.previewing}
}

// Position is where a task's diff stands: the file shown and its first line.
func (r Review) Position(taskID string) (file, top int) {
	if rv := r.tasks[taskID]; rv != nil {
		return rv.diffCur.file, rv.diffCur.top
	}
	return 0, 0
}

// Footer is the tab's keys for the footer, each with its short word.
func (r Review) Footer() []key.Binding { return r.table(&taskReview{}).Footer() }

// Help is the tab's own keys for the full help; the search keys and the page keys it shares
// with the other tabs are listed with theirs.
func (r Review) Help() bind.Group {
	shared := map[key.Help]bool{}
	for _, b := range r.sharedKeys() {
		shared[b.Help()] = true
	}
	var own []key.Binding
	for _, b := range r.table(&taskReview{}).Help() {
		if !shared[b.Help()] {
			own = append(own, b)
		}
	}
	return bind.Group{Title: "Diff", Bindings: own}
}

// Result is what the review asks of the root after a message; each field is something only
// the root can do.
type Result struct {
	// Pass hands a key on: it is not the tab's now, and the dashboard's own keys take it.
	Pass bool
	// Status is a line for the header.
	Status *Status
	// Open is a dialog for the stack.
	Open Dialog
	// Failed is an error to show as a notice.
	Failed *Failure
	// Reload names a task whose detail is read again; ReloadList reads the task list too.
	Reload     string
	ReloadList bool
	// View is the task as the engine now has it, for the task list.
	View *core.TaskView
	// Do is an action the root carries out: a copy to the clipboard.
	Do intent.Action
}

// Status is a line for the header.
type Status struct {
	Text string
	Err  bool
	// TaskID, when set, ends the line when that task changes state.
	TaskID string
}

// Failure is an error the person should read, with what failed.
type Failure struct {
	Title string
	Err   error
}

func say(text string, isErr bool, taskID string) Result {
	return Result{Status: &Status{Text: text, Err: isErr, TaskID: taskID}}
}

// Dialog is a dialog the review opens: a comment on a line, or sending the comments. It takes
// the keys while it is on top of the stack and returns what the root should do; it never calls
// the engine itself.
type Dialog interface {
	// Capturing says a text input has focus, so every key is text.
	Capturing() bool
	Update(msg tea.KeyMsg, k bind.KeyMap) intent.Result
	View(t term.Theme, k bind.KeyMap, width int) (body, keys string)
}

// taskReview is the review's state of one task: its detail, its diff, where the view stands,
// the files marked reviewed, the comments edited since they were sent and the cherry-pick
// preview.
type taskReview struct {
	// detail is the task's detail as last loaded: its comments, and what the preview is of.
	detail *core.TaskDetail
	// risks say what the review found in each file, by path (the root words them).
	risks    map[string]string
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
	// (checkout.go): a tick that reads another asks the preview again.
	previewStamp string
	// previewAgain is a refresh asked while a preview was under way, which may have read the
	// checkout before it moved: it runs once that one answers.
	previewAgain bool
	stamping     bool // a stamp read is under way
}

// task is the review of task id, new if none was kept.
func (r Review) task(id string) *taskReview {
	rv := r.tasks[id]
	if rv == nil {
		rv = &taskReview{reviewed: map[string]bool{}}
		r.tasks[id] = rv
	}
	return rv
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

// styleCache keeps the diff's palette between frames; it is shared by the copies of a Review,
// so a View can fill it.
type styleCache struct {
	styles *diffStyles
	key    [2]bool
}
