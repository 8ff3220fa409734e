package tui

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
)

// dialog is one layer of the dialog stack. It handles the keys while it is on top and returns
// what the dashboard should do; it never calls the service itself.
type dialog interface {
	update(msg tea.KeyMsg, k KeyMap) dialogResult
	view(t Theme, k KeyMap, width int) string
}

// dialogResult is a dialog's answer to a key: close it, and/or send one request.
type dialogResult struct {
	close    bool
	later    bool // a prompt put aside; `i` brings it back
	control  *core.ControlRequest
	delegate *newTaskInput
}

// newTaskInput is what the new-task form collects; reading the contract file happens in the
// command that calls Delegate.
type newTaskInput struct {
	ContractPath, RepoDir, TaskID string
	Lane                          core.Lane
}

func newInput(placeholder, value string) textinput.Model {
	in := textinput.New()
	in.Prompt = ""
	in.Placeholder = placeholder
	in.SetValue(value)
	in.CharLimit = 20000
	// A static cursor needs no timer commands, which keeps the model deterministic.
	in.Cursor.SetMode(cursor.CursorStatic)
	return in
}

// ---- prompt: a pending interaction ----

type promptDialog struct {
	taskID   string
	ia       core.Interaction
	req      promptRequest
	openedAt time.Time
	others   int // further pending interactions behind this one
	typing   bool
	input    textinput.Model
	err      string
}

func newPromptDialog(taskID string, ia core.Interaction, openedAt time.Time) *promptDialog {
	return &promptDialog{taskID: taskID, ia: ia, req: parseRequest(ia), openedAt: openedAt, input: newInput("your answer", "")}
}

func (d *promptDialog) respond(decision, optionID, answer string) dialogResult {
	return dialogResult{close: true, control: &core.ControlRequest{
		TaskID: d.taskID, Action: core.ActionRespond, InteractionID: d.ia.ID,
		Decision: decision, OptionID: optionID, Answer: answer,
	}}
}

func (d *promptDialog) freeTextAllowed() bool {
	return d.req.FreeText || (d.req.Kind == core.InteractionInput && len(d.req.Options) == 0)
}

func (d *promptDialog) update(msg tea.KeyMsg, k KeyMap) dialogResult {
	if d.typing {
		switch msg.Type {
		case tea.KeyEnter:
			answer := strings.TrimSpace(d.input.Value())
			if answer == "" {
				d.err = "type an answer first, or esc to go back"
				return dialogResult{}
			}
			return d.respond(core.DecisionAllow, "", answer)
		case tea.KeyEsc:
			d.typing = false
			d.input.Blur()
			return dialogResult{}
		}
		d.input, _ = d.input.Update(msg)
		return dialogResult{}
	}
	d.err = ""
	switch {
	case key.Matches(msg, k.Later):
		return dialogResult{close: true, later: true}
	case key.Matches(msg, k.AllowSession):
		if o, ok := d.req.sessionOption(); ok {
			return d.respond(core.DecisionAllow, o.ID, "")
		}
		d.err = "the worker offered no session-wide allow for this request"
	case key.Matches(msg, k.Option) && len(d.req.choices()) > 0:
		n := int(msg.String()[0] - '1')
		if n < len(d.req.choices()) {
			return d.respond(core.DecisionAllow, d.req.choices()[n].ID, "")
		}
		d.err = fmt.Sprintf("there is no option %d", n+1)
	case key.Matches(msg, k.FreeText) && d.freeTextAllowed():
		d.typing = true
		d.input.Focus()
	case key.Matches(msg, k.AllowOnce) && d.req.Kind == core.InteractionPermission:
		return d.respond(core.DecisionAllow, "", "")
	case key.Matches(msg, k.Deny):
		return d.respond(core.DecisionDeny, "", "")
	}
	return dialogResult{}
}

func (d *promptDialog) view(t Theme, k KeyMap, width int) string {
	var b strings.Builder
	title := "Permission requested"
	if d.req.Kind == core.InteractionInput {
		title = "The worker asks"
	}
	b.WriteString(t.Pending.Render(title) + t.Dim.Render("  task "+d.taskID+" · "+d.ia.ID) + "\n\n")
	field := func(name, value string) {
		if value != "" {
			b.WriteString(t.Dim.Render(padRight(name, 9)) + wrapIndent(value, width, 9) + "\n")
		}
	}
	field("question", d.req.Question)
	field("tool", d.req.Tool)
	if len(d.req.Argv) > 0 {
		field("argv", strings.Join(d.req.Argv, " "))
	} else if d.req.Title != d.req.Question {
		field("request", d.req.Title)
	}
	field("cwd", d.req.Cwd)
	field("paths", strings.Join(d.req.Paths, ", "))
	why := strings.Join(nonEmpty(d.req.Code, d.req.Reason), ": ")
	if why == "" && d.req.Kind == core.InteractionPermission {
		why = "the contract's policy does not cover this command, so it asks you"
	}
	field("why", why)
	field("hint", d.req.Hint)
	b.WriteString("\n")
	for i, o := range d.req.choices() {
		b.WriteString(t.HelpKey.Render(fmt.Sprintf("%d", i+1)) + " " + o.Name + "\n")
	}
	if d.typing {
		b.WriteString(t.HelpKey.Render("answer ") + d.input.View() + "\n")
		b.WriteString(shortHelp(t, bind(nil, "enter", "send"), bind(nil, "esc", "back")))
	} else {
		keys := []key.Binding{}
		if d.req.Kind == core.InteractionPermission {
			keys = append(keys, k.AllowOnce)
			if _, ok := d.req.sessionOption(); ok {
				keys = append(keys, hint(k.AllowSession, "allow for the session"))
			}
		} else if len(d.req.choices()) > 0 {
			keys = append(keys, hint(k.Option, "choose"))
		}
		if d.freeTextAllowed() {
			keys = append(keys, hint(k.FreeText, "type an answer"))
		}
		keys = append(keys, k.Deny, hint(k.Later, "later"))
		b.WriteString(shortHelp(t, keys...))
	}
	if d.others > 0 {
		b.WriteString("\n" + t.Dim.Render(fmt.Sprintf("%d more pending after this one", d.others)))
	}
	if d.err != "" {
		b.WriteString("\n" + t.Error.Render(d.err))
	}
	return b.String()
}

// ---- confirm: cancel / close ----

type confirmDialog struct {
	title, body string
	req         core.ControlRequest
}

func (d *confirmDialog) update(msg tea.KeyMsg, k KeyMap) dialogResult {
	switch {
	case key.Matches(msg, k.Yes):
		req := d.req
		return dialogResult{close: true, control: &req}
	case key.Matches(msg, k.No):
		return dialogResult{close: true}
	}
	return dialogResult{}
}

func (d *confirmDialog) view(t Theme, k KeyMap, width int) string {
	return t.Warn.Render(d.title) + "\n\n" + wrapIndent(d.body, width, 0) + "\n\n" + shortHelp(t, k.Yes, k.No)
}

// ---- steer ----

type steerDialog struct {
	taskID, title, note string
	input               textinput.Model
	err                 string
}

func newSteerDialog(taskID, title, note string) *steerDialog {
	d := &steerDialog{taskID: taskID, title: title, note: note, input: newInput("what the worker should do", "")}
	d.input.Focus()
	return d
}

func (d *steerDialog) update(msg tea.KeyMsg, k KeyMap) dialogResult {
	switch msg.Type {
	case tea.KeyEsc:
		return dialogResult{close: true}
	case tea.KeyEnter, tea.KeyCtrlS:
		text := strings.TrimSpace(d.input.Value())
		if text == "" {
			d.err = "the message is empty"
			return dialogResult{}
		}
		return dialogResult{close: true, control: &core.ControlRequest{TaskID: d.taskID, Action: core.ActionSteer, Message: &text}}
	}
	d.input, _ = d.input.Update(msg)
	return dialogResult{}
}

func (d *steerDialog) view(t Theme, k KeyMap, width int) string {
	d.input.Width = max(width-4, 10)
	s := t.Title.Render(d.title) + "\n" + t.Dim.Render(wrapIndent(d.note, width, 0)) + "\n\n" +
		"> " + d.input.View() + "\n\n" + shortHelp(t, bind(nil, "enter", "send"), bind(nil, "esc", "cancel"))
	if d.err != "" {
		s += "\n" + t.Error.Render(d.err)
	}
	return s
}

// ---- finalize ----

type finalizeDialog struct {
	taskID   string
	revision int
	tree     string
	repo     string
	criteria []core.Criterion // the review criteria, which the supervisor must approve
	ticked   []bool
	summary  textinput.Model
	focus    int // 0 summary, 1..n criteria
	err      string
}

func newFinalizeDialog(d core.TaskDetail) *finalizeDialog {
	f := &finalizeDialog{taskID: d.View.TaskID, revision: d.View.ReviewRevision, tree: d.View.ReviewTreeHash, repo: d.Repository}
	for _, c := range d.Criteria {
		if c.Evidence == "review" {
			f.criteria = append(f.criteria, c)
		}
	}
	sort.Slice(f.criteria, func(i, j int) bool { return f.criteria[i].ID < f.criteria[j].ID })
	f.ticked = make([]bool, len(f.criteria))
	f.summary = newInput("what you reviewed and why it is right", "")
	f.summary.Focus()
	return f
}

func (f *finalizeDialog) setFocus(i int) {
	f.focus = (i + len(f.criteria) + 1) % (len(f.criteria) + 1)
	if f.focus == 0 {
		f.summary.Focus()
	} else {
		f.summary.Blur()
	}
}

func (f *finalizeDialog) update(msg tea.KeyMsg, k KeyMap) dialogResult {
	switch {
	case msg.Type == tea.KeyEsc:
		return dialogResult{close: true}
	case key.Matches(msg, k.Submit):
		return f.submit()
	case key.Matches(msg, k.FocusNext):
		f.setFocus(f.focus + 1)
		return dialogResult{}
	case key.Matches(msg, k.FocusPrev):
		f.setFocus(f.focus - 1)
		return dialogResult{}
	case f.focus > 0 && key.Matches(msg, k.Toggle):
		f.ticked[f.focus-1] = !f.ticked[f.focus-1]
		return dialogResult{}
	}
	if f.focus == 0 {
		f.summary, _ = f.summary.Update(msg)
	}
	return dialogResult{}
}

func (f *finalizeDialog) submit() dialogResult {
	summary := strings.TrimSpace(f.summary.Value())
	if summary == "" {
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
	rev := f.revision
	return dialogResult{close: true, control: &core.ControlRequest{
		TaskID: f.taskID, Action: core.ActionFinalize,
		ReviewSummary: summary, ApprovedReviewCriteria: approved,
		ExpectedReviewRevision: &rev, ExpectedReviewTreeHash: f.tree,
		Authority: core.Authority{Cwd: f.repo, Writable: true},
	}}
}

func (f *finalizeDialog) view(t Theme, k KeyMap, width int) string {
	var b strings.Builder
	b.WriteString(t.Title.Render("Finalize "+f.taskID) + "\n")
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
		b.WriteString(mark(i+1) + box + " " + c.ID + ": " + wrapIndent(c.Requirement, width, len(c.ID)+8) + "\n")
	}
	b.WriteString("\n" + shortHelp(t, k.FocusNext, hint(k.Toggle, "tick"), k.Submit, bind(nil, "esc", "cancel")))
	if f.err != "" {
		b.WriteString("\n" + t.Error.Render(wrapIndent(f.err, width, 0)))
	}
	return b.String()
}

// ---- new task ----

type newTaskDialog struct {
	inputs [3]textinput.Model // contract path, repository dir, task id
	lane   core.Lane
	focus  int // 0..2 inputs, 3 lane
	err    string
}

var newTaskLabels = [...]string{"contract", "repo dir", "task id", "lane"}

func newNewTaskDialog(dir string) *newTaskDialog {
	d := &newTaskDialog{lane: core.LaneFast}
	d.inputs[0] = newInput("path/to/contract.json", "")
	d.inputs[1] = newInput("repository directory", dir)
	d.inputs[2] = newInput("e.g. fix-login-42", "")
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

func (d *newTaskDialog) submit() dialogResult {
	in := newTaskInput{
		ContractPath: strings.TrimSpace(d.inputs[0].Value()),
		RepoDir:      strings.TrimSpace(d.inputs[1].Value()),
		TaskID:       strings.TrimSpace(d.inputs[2].Value()),
		Lane:         d.lane,
	}
	for i, v := range []string{in.ContractPath, in.RepoDir, in.TaskID} {
		if v == "" {
			d.err = newTaskLabels[i] + " is empty"
			d.setFocus(i)
			return dialogResult{}
		}
	}
	return dialogResult{close: true, delegate: &in}
}

func (d *newTaskDialog) view(t Theme, k KeyMap, width int) string {
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
	b.WriteString("\n" + shortHelp(t, k.FocusNext, bind(nil, "ctrl+s", "start"), bind(nil, "esc", "cancel")))
	if d.err != "" {
		b.WriteString("\n" + t.Error.Render(d.err))
	}
	return b.String()
}

// ---- notice: results and errors ----

type noticeDialog struct {
	title string
	lines []string
	isErr bool
}

func (d *noticeDialog) update(msg tea.KeyMsg, k KeyMap) dialogResult {
	if key.Matches(msg, k.Dismiss) {
		return dialogResult{close: true}
	}
	return dialogResult{}
}

func (d *noticeDialog) view(t Theme, k KeyMap, width int) string {
	st := t.Good
	if d.isErr {
		st = t.Error
	}
	var b strings.Builder
	b.WriteString(st.Render(d.title) + "\n\n")
	for _, l := range d.lines {
		b.WriteString(wrapIndent(l, width, 2) + "\n")
	}
	b.WriteString("\n" + shortHelp(t, k.Dismiss))
	return b.String()
}

// ---- help ----

type helpDialog struct{ top int }

func (d *helpDialog) update(msg tea.KeyMsg, k KeyMap) dialogResult {
	switch {
	case key.Matches(msg, k.Dismiss), key.Matches(msg, k.Help):
		return dialogResult{close: true}
	case key.Matches(msg, k.Down), key.Matches(msg, k.PageDown):
		d.top += 5
	case key.Matches(msg, k.Up), key.Matches(msg, k.PageUp):
		d.top = max(d.top-5, 0)
	}
	return dialogResult{}
}

func (d *helpDialog) view(t Theme, k KeyMap, width int) string {
	var lines []string
	for _, g := range k.groups() {
		lines = append(lines, t.Title.Render(g.Title))
		for _, b := range g.Bindings {
			h := b.Help()
			lines = append(lines, "  "+t.HelpKey.Render(padRight(h.Key, 13))+t.Help.Render(h.Desc))
		}
	}
	d.top = clampInt(d.top, 0, max(len(lines)-1, 0))
	return strings.Join(lines[d.top:], "\n")
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
