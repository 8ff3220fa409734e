package tui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
)

// dialog is one layer of the dialog stack. It handles the keys while it is on top and returns
// what the dashboard should do; it never calls the service itself. Its view is a body, which
// scrolls when the screen is short, and a key line, which always stays visible.
type dialog interface {
	// input: capturing says a text input has focus, so every key is text, a key message
	// carrying several runes is typed whole and a paste lands there.
	input
	update(msg tea.KeyMsg, k KeyMap) dialogResult
	view(t Theme, k KeyMap, width int) (body, keys string)
}

// dialogResult is a dialog's answer to a key: close it, and/or send one request.
type dialogResult struct {
	close    bool
	later    bool // a prompt put aside; `i` brings it back
	quit     bool
	draft    string // draft a contract for this repository directory
	control  core.Command
	delegate *newTaskInput
	// do is any other action, a value the dashboard carries out (actions.go).
	do action
}

// newTaskInput is what the new-task form collects; reading the contract file happens in the
// command that calls Delegate.
type newTaskInput struct {
	ContractPath, RepoDir, TaskID string
	Lane                          core.Lane
}

// maxPathInput bounds a typed path (the kernel's PATH_MAX).
const maxPathInput = 4096

// newInput is a one-line text field that takes at most limit characters: the engine's limit for
// what the field becomes, so the person cannot type what would be refused.
func newInput(placeholder, value string, limit int) textinput.Model {
	in := textinput.New()
	in.Prompt = ""
	in.Placeholder = placeholder
	in.CharLimit = limit
	in.SetValue(value)
	// A static cursor needs no timer commands, which keeps the model deterministic.
	in.Cursor.SetMode(cursor.CursorStatic)
	return in
}

// ---- confirm: cancel / close ----

type confirmDialog struct {
	title, body string
	req         core.Command
	quit        bool   // yes quits the dashboard instead of sending req
	yes         action // else, when set, yes carries this out instead of sending req
}

func (d *confirmDialog) update(msg tea.KeyMsg, k KeyMap) dialogResult {
	switch {
	case key.Matches(msg, k.Yes):
		if d.quit {
			return dialogResult{close: true, quit: true}
		}
		if d.yes != nil {
			return dialogResult{close: true, do: d.yes}
		}
		return dialogResult{close: true, control: d.req}
	case key.Matches(msg, k.No):
		return dialogResult{close: true}
	}
	return dialogResult{}
}

func (d *confirmDialog) view(t Theme, k KeyMap, width int) (string, string) {
	return t.Warn.Render(safetext.Line(d.title)) + "\n\n" + wrapIndent(safetext.Sanitize(d.body), width, 0), keyLines(t, width, k.Yes, k.No)
}

func (d *confirmDialog) capturing() bool { return false }

// ---- steer ----

type steerDialog struct {
	taskID, title, note string
	// moved says the task's state changed since the dialog opened, so that sending now means
	// something else (a repair round rather than a steer, or nothing at all); note says what.
	moved bool
	// allowed says core takes a steer in the task's state now; waits, that the task waits for
	// the person's answer to a request (enter opens it, the message stays here).
	allowed, waits bool
	// sending says the message went to core and the dialog waits for its answer: it closes on
	// success and, on a refusal, stays with the text and the reason (failed).
	sending bool
	input   textinput.Model
	err     string
}

func newSteerDialog(t core.TaskView) *steerDialog {
	d := &steerDialog{taskID: t.TaskID, input: newInput("what the worker should do", "", core.MaxSteerMessageLen)}
	d.title, d.note = steerTexts(t)
	d.allowed, d.waits = core.Allows(t, core.ActionSteer), waitsForPerson(t)
	d.input.Focus()
	return d
}

// waitsForPerson reports whether t waits for the person's answer to a request: core takes no
// steer then, but will once the answer lets the turn go on.
func waitsForPerson(t core.TaskView) bool {
	return t.State == core.StateWaitingPermission || t.State == core.StateWaitingInput
}

// steerTexts says what sending a steer to t does now.
func steerTexts(t core.TaskView) (title, note string) {
	if waitsForPerson(t) {
		what := "a permission request"
		if t.State == core.StateWaitingInput {
			what = "a question"
		}
		return "Steer " + t.TaskID, t.TaskID + " waits for your answer to " + what + " and takes no message until it runs " +
			"again. Enter opens the request; your message stays here, and enter sends it once the task runs again."
	}
	if why := core.WhyNot(t, core.ActionSteer); why != "" {
		return "Steer " + t.TaskID, why + ". Your message stays here until you close this."
	}
	if round, ok := core.RepairRound(t); ok {
		return fmt.Sprintf("Repair round %d/%d for %s", round, core.MaxRepairRounds, t.TaskID),
			"Say what to fix. The contract stays the same; the worker resumes and the task returns to review."
	}
	return "Steer " + t.TaskID, "The message reaches the worker during its current turn."
}

// follow keeps the dialog's title and note true to t's current state while the person types.
func (d *steerDialog) follow(t core.TaskView) {
	d.allowed, d.waits = core.Allows(t, core.ActionSteer), waitsForPerson(t)
	title, note := steerTexts(t)
	if title == d.title && note == d.note {
		return
	}
	d.title, d.note, d.moved = title, note, true
}

// refused takes core's refusal of the message: the dialog stays open with the text and why.
func (d *steerDialog) refused(why []string) {
	d.sending = false
	d.err = "Not sent: " + strings.Join(why, "\n") + "\nYour message is kept: enter sends it again, esc drops it."
}

// submit is enter: the message goes to core only when the task takes it now; a task waiting
// for the person gets its request opened instead, and in any other case the dialog says why
// and keeps the text.
func (d *steerDialog) submit() dialogResult {
	text := strings.TrimSpace(d.input.Value())
	switch {
	case d.waits:
		d.err = ""
		return dialogResult{do: openRequestAction{taskID: d.taskID}}
	case text == "":
		d.err = "the message is empty"
		return dialogResult{}
	case !d.allowed:
		d.err = "Not sent: " + d.note
		return dialogResult{}
	}
	d.sending, d.err = true, ""
	return dialogResult{control: core.Steer{TaskID: d.taskID, Message: text}}
}

func (d *steerDialog) update(msg tea.KeyMsg, k KeyMap) dialogResult {
	switch msg.Type {
	case tea.KeyEsc:
		return dialogResult{close: true}
	case tea.KeyEnter, tea.KeyCtrlS:
		if d.sending {
			return dialogResult{}
		}
		return d.submit()
	}
	if !d.sending {
		d.input, _ = d.input.Update(msg)
	}
	return dialogResult{}
}

func (d *steerDialog) view(t Theme, k KeyMap, width int) (string, string) {
	d.input.Width = max(width-4, 10)
	note := t.Dim.Render(wrapIndent(safetext.Sanitize(d.note), width, 0))
	if d.moved {
		note = t.Warn.Render(wrapIndent("The task moved on while you typed. "+safetext.Sanitize(d.note), width, 0))
	}
	s := t.Title.Render(safetext.Line(d.title)) + "\n" + note + "\n\n" + "> " + d.input.View()
	if d.sending {
		s += "\n" + t.Dim.Render("sending…")
	}
	if d.err != "" {
		s += "\n" + t.Error.Render(wrapIndent(safetext.Sanitize(d.err), width, 0))
	}
	enter := bind(nil, "enter", "send")
	if d.waits {
		enter = bind(nil, "enter", "answer the request first")
	}
	return s, keyLines(t, width, enter, bind(nil, "esc", "cancel"))
}

func (d *steerDialog) capturing() bool { return true }

// ---- finalize ----

type finalizeDialog struct {
	taskID   string
	revision int
	tree     string
	repo     string
	criteria []core.Criterion // the review criteria, which the supervisor must approve
	ticked   []bool
	summary  textinput.Model
	focus    int // 0 summary, 1..n criteria, n+1 commit message
	err      string
	// message is the commit message, prefilled with the one the engine would use.
	message        textinput.Model
	defaultMessage string
	// unreviewed are the files not marked reviewed; the first submit with some asks first.
	unreviewed []string
	asked      bool
	rv         *taskReview // the task's cherry-pick preview, when known
	// risks are what the review found hidden or disguised in the diff; finalize needs them
	// acknowledged (k.AckRisks).
	risks  []core.SourceRisk
	acked  bool
	excuse excuseState // pre-existing failures of the last attempt, excused with ctrl+x
}

func newFinalizeDialog(d core.TaskDetail) *finalizeDialog {
	f := &finalizeDialog{taskID: d.View.TaskID, revision: d.View.ReviewRevision, tree: d.View.ReviewTreeHash, repo: d.Repository,
		risks: d.SourceRisks}
	for _, c := range d.Criteria {
		if c.Evidence == "review" {
			f.criteria = append(f.criteria, c)
		}
	}
	sort.Slice(f.criteria, func(i, j int) bool { return f.criteria[i].ID < f.criteria[j].ID })
	f.ticked = make([]bool, len(f.criteria))
	f.summary = newInput("what you reviewed and why it is right", "", core.MaxReviewSummaryLen)
	f.summary.Focus()
	f.defaultMessage = core.DefaultCommitMessage(d.View.TaskID, d.Objective)
	f.message = newInput("commit message", f.defaultMessage, core.MaxCommitMessageLen)
	f.excuse = newExcuseState(d.Verification)
	return f
}

func (f *finalizeDialog) setFocus(i int) {
	n := len(f.criteria) + 2 + f.excuse.slots()
	f.focus = (i + n) % n
	f.summary.Blur()
	f.message.Blur()
	f.excuse.reason.Blur()
	switch f.focus {
	case 0:
		f.summary.Focus()
	case len(f.criteria) + 1:
		f.message.Focus()
	case len(f.criteria) + 2:
		f.excuse.reason.Focus()
	}
}

func (f *finalizeDialog) update(msg tea.KeyMsg, k KeyMap) dialogResult {
	switch {
	case msg.Type == tea.KeyEsc:
		return dialogResult{close: true}
	case key.Matches(msg, k.Submit):
		return f.submit(k)
	case key.Matches(msg, k.FocusNext):
		f.setFocus(f.focus + 1)
		return dialogResult{}
	case key.Matches(msg, k.FocusPrev):
		f.setFocus(f.focus - 1)
		return dialogResult{}
	case len(f.risks) > 0 && key.Matches(msg, k.AckRisks):
		f.acked = !f.acked
		return dialogResult{}
	case f.focus > 0 && f.focus <= len(f.criteria) && key.Matches(msg, k.Toggle):
		f.ticked[f.focus-1] = !f.ticked[f.focus-1]
		return dialogResult{}
	case len(f.excuse.ids) > 0 && key.Matches(msg, excuseKey):
		f.excuse.on = !f.excuse.on
		f.setFocus(len(f.criteria) + 2) // the reason, or back to the summary
		return dialogResult{}
	}
	switch f.focus {
	case 0:
		f.summary, _ = f.summary.Update(msg)
	case len(f.criteria) + 1:
		f.message, _ = f.message.Update(msg)
	case len(f.criteria) + 2:
		f.excuse.reason, _ = f.excuse.reason.Update(msg)
	}
	return dialogResult{}
}

func (f *finalizeDialog) submit(k KeyMap) dialogResult {
	summary := strings.TrimSpace(f.summary.Value())
	if core.ReviewSummaryIssues(summary) != nil {
		f.err = "write a review summary first"
		return dialogResult{}
	}
	approved := []string{}
	for i, c := range f.criteria {
		if f.ticked[i] {
			approved = append(approved, c.ID)
		}
	}
	if left := len(f.criteria) - len(approved); left > 0 {
		f.err = fmt.Sprintf("tick every review criterion you checked (%d left); if one does not hold, steer a repair instead", left)
		return dialogResult{}
	}
	if len(f.risks) > 0 && !f.acked {
		f.err = fmt.Sprintf("the change holds what a plain reading may miss (above: hidden characters, look-alikes, binary files): read them in the diff, then %s acknowledges them", k.AckRisks.Help().Key)
		return dialogResult{}
	}
	message := strings.TrimSpace(f.message.Value())
	if message == "" {
		f.err = "the commit message is empty"
		return dialogResult{}
	}
	if len(f.unreviewed) > 0 && !f.asked {
		f.asked = true
		f.err = fmt.Sprintf("%d file(s) not marked reviewed: %s. Submit again to finalize anyway, or esc and review them (v marks a file).",
			len(f.unreviewed), strings.Join(f.unreviewed, ", "))
		return dialogResult{}
	}
	excused, why := f.excuse.checks()
	if why != "" {
		f.err = why
		return dialogResult{}
	}
	rev := f.revision
	req := core.Finalize{
		TaskID: f.taskID, ReviewSummary: summary, ApprovedReviewCriteria: approved,
		ExpectedReviewRevision: &rev, ExpectedReviewTreeHash: f.tree,
		Authority: core.Authority{Cwd: f.repo, Writable: true}, ExcusedChecks: excused,
	}
	if message != f.defaultMessage {
		req.CommitMessage = message
	}
	if len(f.risks) > 0 {
		req.AcknowledgedRisks = riskIDs(f.risks)
	}
	return dialogResult{close: true, control: req}
}

func (f *finalizeDialog) view(t Theme, k KeyMap, width int) (string, string) {
	var b strings.Builder
	b.WriteString(t.Title.Render("Finalize "+safetext.Line(f.taskID)) + "\n")
	b.WriteString(t.Dim.Render(fmt.Sprintf("review revision %d · tree %s", f.revision, f.tree)) + "\n\n")
	f.summary.Width = max(width-12, 10)
	mark := func(i int) string {
		if f.focus == i {
			return "› "
		}
		return "  "
	}
	b.WriteString(mark(0) + "summary " + f.summary.View() + "\n")
	if len(f.criteria) == 0 {
		b.WriteString("\n" + t.Dim.Render("No review criteria: automated evidence decides.") + "\n")
	} else {
		b.WriteString("\n" + t.Dim.Render("Review criteria (all must hold):") + "\n")
	}
	for i, c := range f.criteria {
		box := "[ ]"
		if f.ticked[i] {
			box = "[x]"
		}
		b.WriteString(mark(i+1) + box + " " + safetext.Line(c.ID) + ": " + wrapIndent(safetext.Sanitize(c.Requirement), width, len(c.ID)+8) + "\n")
	}
	f.message.Width = max(width-12, 10)
	b.WriteString("\n" + mark(len(f.criteria)+1) + "commit  " + f.message.View() + "\n")
	if len(f.risks) > 0 {
		box := "[ ]"
		if f.acked {
			box = "[x]"
		}
		b.WriteString("\n" + t.Warn.Render(wrapIndent(fmt.Sprintf("⚠ Risks: the change holds what a plain reading may miss (hidden characters shown as ⟨U+…⟩ markers, look-alikes, binary files). %s %s: I read these lines and the change is still right.",
			box, k.AckRisks.Help().Key), width, 2)) + "\n")
		for _, r := range f.risks {
			line := safetext.Line(r.Text) // the files beyond those listed
			if r.Path != "" {
				line = safetext.Line(r.Path) + ": " + riskLines(r)
			}
			b.WriteString(t.Warn.Render(wrapIndent("  "+line, width, 4)) + "\n")
		}
	}
	b.WriteString(f.excuse.view(t, width, f.focus == len(f.criteria)+2))
	if len(f.unreviewed) > 0 {
		b.WriteString("\n" + t.Warn.Render(wrapIndent(safetext.Sanitize(fmt.Sprintf("Not marked reviewed (%d): %s", len(f.unreviewed), strings.Join(f.unreviewed, ", "))), width, 2)) + "\n")
	}
	if f.rv != nil {
		if line := previewLine(f.rv); line != "" {
			st := t.Good
			if f.rv.preview == nil || !f.rv.preview.Clean {
				st = t.Warn
			}
			b.WriteString("\n" + st.Render(wrapIndent(safetext.Sanitize(line), width, 2)) + "\n")
		}
	}
	keys := []key.Binding{k.FocusNext, hint(k.Toggle, "tick"), k.Submit, bind(nil, "esc", "cancel")}
	if len(f.risks) > 0 {
		keys = append(keys, hint(k.AckRisks, "acknowledge risks"))
	}
	if len(f.excuse.ids) > 0 {
		keys = append(keys, excuseKey)
	}
	foot := keyLines(t, width, keys...)
	if f.err != "" {
		// Why enter did not finalize goes with the keys, which always stay in view: at the end of
		// a body taller than the screen it was scrolled out of sight, and the summary field,
		// which has the keys then, leaves pgdn to the text.
		foot = t.Error.Render(wrapIndent(safetext.Sanitize(f.err), width, 0)) + "\n\n" + foot
	}
	return strings.TrimRight(b.String(), "\n"), foot
}

func (f *finalizeDialog) capturing() bool {
	return f.focus == 0 || f.focus == len(f.criteria)+1 || f.focus == len(f.criteria)+2
}

// ---- new task ----

type newTaskDialog struct {
	inputs [3]textinput.Model // contract path, repository dir, task id
	lane   core.Lane
	focus  int // 0..2 inputs, 3 lane
	err    string
	note   string // what happened, when it is not an error
	// taken is the ids of the tasks listed when the form opened, with their states: starting
	// one of them again is refused here, before core would wait on it or name a conflict.
	taken map[string]core.State
}

// idTaken says that a task id belongs to an existing task, in state st when known.
func idTaken(id string, st core.State) string {
	if st == "" {
		return "task id " + id + " exists: choose another id"
	}
	return "task id " + id + " exists (" + strings.ReplaceAll(string(st), "_", " ") + "): choose another id"
}

var newTaskLabels = [...]string{"contract", "repo dir", "task id", "lane"}

func newNewTaskDialog(in newTaskInput) *newTaskDialog {
	d := &newTaskDialog{lane: in.Lane}
	if d.lane == "" {
		d.lane = core.LaneFast
	}
	d.inputs[0] = newInput("path/to/contract.json", in.ContractPath, maxPathInput)
	d.inputs[1] = newInput("repository directory", in.RepoDir, maxPathInput)
	d.inputs[2] = newInput("e.g. fix-login-42", in.TaskID, core.MaxTaskIDLen)
	d.inputs[0].Focus()
	return d
}

func (d *newTaskDialog) setFocus(i int) {
	d.focus = (i + 4) % 4
	for j := range d.inputs {
		if j == d.focus {
			d.inputs[j].Focus()
		} else {
			d.inputs[j].Blur()
		}
	}
}

func (d *newTaskDialog) update(msg tea.KeyMsg, k KeyMap) dialogResult {
	switch {
	case msg.Type == tea.KeyEsc:
		return dialogResult{close: true}
	case msg.Type == tea.KeyCtrlS, msg.Type == tea.KeyEnter && d.focus == 3:
		return d.submit()
	case msg.Type == tea.KeyCtrlD:
		dir := strings.TrimSpace(d.inputs[1].Value())
		if dir == "" {
			d.err = "repo dir is empty: say which repository to draft a contract for"
			d.setFocus(1)
			return dialogResult{}
		}
		d.err, d.note = "", "drafting a contract from the repository's toolchains…"
		return dialogResult{draft: dir}
	case msg.Type == tea.KeyCtrlE:
		path := strings.TrimSpace(d.inputs[0].Value())
		if path == "" {
			d.err = "contract is empty: type its path, or ctrl+d drafts one"
			d.setFocus(0)
			return dialogResult{}
		}
		d.err, d.note = "", ""
		return dialogResult{do: editContractAction{path: path}}
	case msg.Type == tea.KeyEnter, key.Matches(msg, k.FocusNext):
		d.setFocus(d.focus + 1)
		return dialogResult{}
	case key.Matches(msg, k.FocusPrev):
		d.setFocus(d.focus - 1)
		return dialogResult{}
	case d.focus == 3 && (key.Matches(msg, k.Toggle) || msg.Type == tea.KeyLeft || msg.Type == tea.KeyRight):
		if d.lane == core.LaneFast {
			d.lane = core.LaneDeep
		} else {
			d.lane = core.LaneFast
		}
		return dialogResult{}
	}
	if d.focus < 3 {
		d.inputs[d.focus], _ = d.inputs[d.focus].Update(msg)
	}
	return dialogResult{}
}

// value is what the form holds.
func (d *newTaskDialog) value() newTaskInput {
	return newTaskInput{
		ContractPath: strings.TrimSpace(d.inputs[0].Value()),
		RepoDir:      strings.TrimSpace(d.inputs[1].Value()),
		TaskID:       strings.TrimSpace(d.inputs[2].Value()),
		Lane:         d.lane,
	}
}

func (d *newTaskDialog) submit() dialogResult {
	in := d.value()
	for i, v := range []string{in.ContractPath, in.RepoDir, in.TaskID} {
		if v == "" {
			d.err = newTaskLabels[i] + " is empty"
			if i == 0 {
				d.err += ": type a contract file's path, or press ctrl+d to draft one from the repository"
			}
			d.setFocus(i)
			return dialogResult{}
		}
	}
	if st, ok := d.taken[in.TaskID]; ok {
		d.err = idTaken(in.TaskID, st)
		d.setFocus(2)
		return dialogResult{}
	}
	return dialogResult{close: true, delegate: &in}
}

func (d *newTaskDialog) view(t Theme, k KeyMap, width int) (string, string) {
	var b strings.Builder
	b.WriteString(t.Title.Render("New task") + t.Dim.Render("  supervised permissions, runs in the background") + "\n\n")
	for i, label := range newTaskLabels {
		mark := "  "
		if d.focus == i {
			mark = "› "
		}
		value := ""
		if i < 3 {
			d.inputs[i].Width = max(width-14, 10)
			value = d.inputs[i].View()
		} else {
			for _, l := range []core.Lane{core.LaneFast, core.LaneDeep} {
				if l == d.lane {
					value += "(•) " + string(l) + "  "
				} else {
					value += "( ) " + string(l) + "  "
				}
			}
		}
		b.WriteString(mark + padRight(label, 9) + value + "\n")
	}
	if d.note != "" {
		b.WriteString("\n" + t.Good.Render(wrapIndent(safetext.Sanitize(d.note), width, 0)))
	}
	if d.err != "" {
		b.WriteString("\n" + t.Error.Render(wrapIndent(safetext.Sanitize(d.err), width, 0)))
	}
	return strings.TrimRight(b.String(), "\n"), keyLines(t, width, k.FocusNext, bind(nil, "ctrl+s", "start"),
		bind(nil, "ctrl+d", "draft contract"), bind(nil, "ctrl+e", "edit it"), bind(nil, "esc", "cancel"))
}

func (d *newTaskDialog) capturing() bool { return d.focus < 3 }

// ---- notice: results and errors ----

type noticeDialog struct {
	title   string
	lines   []string
	command string // a command to copy, shown on one line of its own
	isErr   bool
	// err is the error an error notice tells (errorNotice); ownerGone says it came while an
	// attached dashboard had no owner for stateDir, which the notice then says is the cause.
	err       error
	ownerGone bool
	stateDir  string
	// intro says it is the first note (Options.Intro), which opens by itself.
	intro bool
}

func (d *noticeDialog) update(msg tea.KeyMsg, k KeyMap) dialogResult {
	if key.Matches(msg, k.Dismiss) {
		return dialogResult{close: true}
	}
	if d.command != "" && key.Matches(msg, k.Copy) {
		return dialogResult{do: copyAction{text: d.command, what: "the cherry-pick line"}}
	}
	return dialogResult{}
}

func (d *noticeDialog) view(t Theme, k KeyMap, width int) (string, string) {
	st := t.Good
	if d.isErr {
		st = t.Error
	}
	var b strings.Builder
	b.WriteString(st.Render(safetext.Line(d.title)) + "\n")
	lines := d.lines
	if d.ownerGone && d.err != nil {
		lines = withNext(lines, ownerGoneNext(d.stateDir))
	}
	for i, l := range lines {
		if d.intro {
			// Paragraphs of prose, not an error's details under their first line.
			if i > 0 {
				b.WriteString("\n")
			}
			b.WriteString("\n" + wrapIndent(safetext.Sanitize(l), width, 0))
			continue
		}
		b.WriteString("\n" + wrapIndent(safetext.Sanitize(l), width, 2))
	}
	if d.command != "" {
		// Never wrapped, so it copies as one line.
		b.WriteString("\n" + safetext.Line(d.command))
	}
	keys := []key.Binding{k.Dismiss}
	if d.command != "" {
		keys = append(keys, hint(k.Copy, "copy the command"))
	}
	return b.String(), keyLines(t, width, keys...)
}

func (d *noticeDialog) capturing() bool { return false }

// minWidth is how wide the dialog must be to show the command unwrapped.
func (d *noticeDialog) minWidth() int { return lipgloss.Width(safetext.Line(d.command)) }

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// drafted takes a drafted contract into the form, or says why drafting failed.
func (d *newTaskDialog) drafted(msg draftMsg) {
	d.note = ""
	if msg.err != nil {
		d.err = "drafting a contract failed: " + core.AsError(msg.err).Message
		return
	}
	d.inputs[0].SetValue(msg.path)
	var checks []string
	for _, c := range msg.draft.Checks {
		checks = append(checks, strings.Join(c.Argv, " "))
	}
	found := "no verification command found: add one"
	if len(checks) > 0 {
		found = "verification: " + strings.Join(checks, "; ")
	}
	d.note = "drafted " + msg.path + " (" + found + "). Edit its TODO fields (" +
		strings.Join(msg.draft.Placeholders, ", ") + ") with ctrl+e, then start it with ctrl+s." + droppedNote(msg.checked)
}
