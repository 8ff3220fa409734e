package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/core/permission"
	"reasonixctl/core/safetext"
)

// promptDialog answers one pending interaction. A permission is answered by `a` allow once,
// `S` allow for the session where offered, `R` allow the command for the repository, `d` deny;
// enter never allows. A question's option is selected with a digit or the arrows and confirmed
// with enter (a digit alone never answers), `t` types an answer, `d` declines. esc answers
// later. Whether the key may answer at all is the gate's to say (answer.go).
type promptDialog struct {
	taskID    string
	ia        core.Interaction
	lastWords string // the agent's latest text, so the person sees what led here
	others    int    // further pending interactions behind this one
	answering bool   // typing a free-text answer
	selected  int    // the question's selected option, -1 for none yet
	input     textinput.Model
	err       string
}

func newPromptDialog(taskID string, ia core.Interaction) *promptDialog {
	return &promptDialog{taskID: taskID, ia: ia, selected: -1, input: newInput("your answer", "", core.MaxAnswerLen)}
}

func (d *promptDialog) capturing() bool { return d.answering }

func (d *promptDialog) respond(decision, optionID, answer string) dialogResult {
	return dialogResult{close: true, control: core.Respond{
		TaskID: d.taskID, InteractionID: d.ia.ID,
		Decision: decision, OptionID: optionID, Answer: answer,
	}}
}

func (d *promptDialog) update(msg tea.KeyMsg, k KeyMap) dialogResult {
	r := d.ia.Request
	if d.answering {
		switch msg.Type {
		case tea.KeyEnter:
			answer := strings.TrimSpace(d.input.Value())
			if answer == "" {
				d.err = "type an answer first, or esc to go back"
				return dialogResult{}
			}
			return d.respond(core.DecisionAllow, "", answer)
		case tea.KeyEsc:
			d.answering = false
			d.input.Blur()
			return dialogResult{}
		}
		d.input, _ = d.input.Update(msg)
		return dialogResult{}
	}
	d.err = ""
	opts := choices(d.ia.Kind, r)
	switch {
	case key.Matches(msg, k.Later):
		return dialogResult{close: true, later: true}
	case key.Matches(msg, k.AllowSession) && d.ia.Kind == core.InteractionPermission:
		if o, ok := r.SessionOption(); ok {
			return d.respond(core.DecisionAllow, o.OptionID, "")
		}
		d.err = "the worker offered no session-wide allow for this request"
	case key.Matches(msg, k.AllowRepo) && d.ia.Kind == core.InteractionPermission:
		if !r.Grantable() {
			d.err = "only a command the policy asks about can be allowed for the repository"
			return dialogResult{}
		}
		res := d.respond(core.DecisionAllow, "", "")
		answer := res.control.(core.Respond)
		answer.Grant = true
		res.control = answer
		return res
	case key.Matches(msg, k.Option) && len(opts) > 0:
		n := int(msg.String()[0] - '1')
		if n < len(opts) {
			d.selected = n
			return dialogResult{}
		}
		d.err = fmt.Sprintf("there is no option %d", n+1)
	case (msg.Type == tea.KeyUp || msg.Type == tea.KeyDown) && len(opts) > 0:
		step := 1
		if msg.Type == tea.KeyUp {
			step = -1
		}
		if d.selected < 0 {
			d.selected = 0
		} else {
			d.selected = (d.selected + step + len(opts)) % len(opts)
		}
	case msg.Type == tea.KeyEnter && len(opts) > 0:
		if d.selected < 0 {
			d.err = fmt.Sprintf("select an option first (1-%d or ↑/↓), then enter", len(opts))
			return dialogResult{}
		}
		return d.respond(core.DecisionAllow, opts[d.selected].OptionID, "")
	case msg.Type == tea.KeyEnter && d.ia.Kind == core.InteractionPermission:
		d.err = "enter does not answer: a allows once, d denies"
	case key.Matches(msg, k.FreeText) && freeTextAllowed(d.ia.Kind):
		d.answering = true
		d.input.Focus()
	case key.Matches(msg, k.AllowOnce) && d.ia.Kind == core.InteractionPermission:
		return d.respond(core.DecisionAllow, "", "")
	case key.Matches(msg, k.Deny):
		return d.respond(core.DecisionDeny, "", "")
	}
	return dialogResult{}
}

func (d *promptDialog) view(t Theme, k KeyMap, width int) (string, string) {
	r := d.ia.Request
	var b strings.Builder
	title := "Permission requested"
	if d.ia.Kind == core.InteractionInput {
		title = "The worker asks"
	}
	b.WriteString(t.Pending.Render(title) + t.Dim.Render(safetext.Line("  task "+d.taskID+" · "+d.ia.ID)))
	if d.others > 0 {
		b.WriteString(t.Dim.Render(fmt.Sprintf(" · %d more waiting", d.others)))
	}
	b.WriteString("\n")
	field := func(name, value string) {
		if value != "" {
			b.WriteString("\n" + t.Dim.Render(padRight(name, 9)) + wrapIndent(safetext.Sanitize(value), width, 9))
		}
	}
	if d.lastWords != "" {
		field("agent", lastLines(d.lastWords, 300))
	}
	field("question", r.Question)
	if len(r.Argv) > 0 {
		field("command", strings.Join(r.Argv, " "))
	} else if r.Title != r.Question {
		field("request", r.Title)
	}
	field("tool", r.Tool)
	field("cwd", r.Cwd)
	field("paths", strings.Join(r.Paths, ", "))
	if d.ia.Kind == core.InteractionPermission {
		v := permission.Asked(r)
		field("rule", v.Rule())
		field("hint", v.Hint)
	}
	opts := choices(d.ia.Kind, r)
	if len(opts) > 0 {
		b.WriteString("\n")
	}
	for i, o := range opts {
		line := t.HelpKey.Render(fmt.Sprintf("%d", i+1)) + " " + safetext.Line(o.Name)
		if i == d.selected {
			line = t.Selected.Render("› " + fmt.Sprintf("%d", i+1) + " " + safetext.Line(o.Name))
		} else {
			line = "  " + line
		}
		b.WriteString("\n" + line)
	}
	if d.answering {
		b.WriteString("\n\n" + t.HelpKey.Render("answer ") + d.input.View())
	}
	if d.err != "" {
		b.WriteString("\n\n" + t.Error.Render(safetext.Sanitize(d.err)))
	}
	if d.answering {
		return b.String(), keyLines(t, width, bind(nil, "enter", "send"), bind(nil, "esc", "back"))
	}
	var keys []key.Binding
	if d.ia.Kind == core.InteractionPermission {
		keys = append(keys, k.AllowOnce)
		if _, ok := r.SessionOption(); ok {
			keys = append(keys, hint(k.AllowSession, "allow for session"))
		}
		if r.Grantable() {
			keys = append(keys, hint(k.AllowRepo, "allow for repo"))
		}
	} else if len(opts) > 0 {
		keys = append(keys, hint(k.Option, "select"), bind(nil, "↑/↓", "select"))
		if d.selected >= 0 {
			keys = append(keys, bind(nil, "enter", fmt.Sprintf("answer %d", d.selected+1)))
		}
	}
	if freeTextAllowed(d.ia.Kind) {
		keys = append(keys, hint(k.FreeText, "type answer"))
	}
	keys = append(keys, k.Deny, hint(k.Later, "later"), hint(k.Help, "help"))
	return b.String(), keyLines(t, width, keys...)
}

// lastLines keeps the end of s within n bytes, cut at a word boundary.
func lastLines(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	if i := strings.IndexByte(s, ' '); i >= 0 && i < 40 {
		s = s[i+1:]
	}
	return "…" + s
}
