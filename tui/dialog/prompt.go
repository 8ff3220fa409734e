package dialog

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/core/permission"
	"reasonixctl/core/safetext"
	"reasonixctl/tui/bind"
	"reasonixctl/tui/intent"
	"reasonixctl/tui/term"
	"reasonixctl/tui/words"
)

// Prompt answers one pending interaction. A permission is answered by `a` allow once, `S`
// allow for the session where offered, `R` allow the command for the repository, `d` deny;
// enter never allows. A question's option is selected with a digit or the arrows and confirmed
// with enter (a digit alone never answers), `t` types an answer, `d` declines. esc answers
// later. Whether the key may answer at all is the root's answer gate's to say, and the stack
// keeps the keys of the prompt's first moments (Stack.Key).
type Prompt struct {
	taskID    string
	ia        core.Interaction
	lastWords string // the agent's latest text, so the person sees what led here
	others    int    // further pending interactions behind this one
	answering bool   // typing a free-text answer
	selected  int    // the question's selected option, -1 for none yet
	input     textinput.Model
	err       string
}

// NewPrompt is the prompt of interaction ia of task taskID; lastWords is the agent's latest
// text, others how many more requests wait behind this one.
func NewPrompt(taskID string, ia core.Interaction, lastWords string, others int) *Prompt {
	return &Prompt{taskID: taskID, ia: ia, lastWords: lastWords, others: others, selected: -1,
		input: term.NewInput("your answer", "", core.MaxAnswerLen)}
}

// TaskID is the task that asks.
func (d *Prompt) TaskID() string { return d.taskID }

// Interaction is the request the prompt answers.
func (d *Prompt) Interaction() core.Interaction { return d.ia }

// LastWords is the agent's latest text the prompt shows, if any.
func (d *Prompt) LastWords() string { return d.lastWords }

// SetLastWords gives the prompt the agent's latest text, read after it opened.
func (d *Prompt) SetLastWords(s string) { d.lastWords = s }

// Refuse says why the answer just given was not sent (the root's answer gate refused it).
func (d *Prompt) Refuse(why string) { d.err = why }

func (d *Prompt) Capturing() bool { return d.answering }

func (d *Prompt) respond(decision, optionID, answer string) intent.Result {
	return intent.Result{Close: true, Control: core.Respond{
		TaskID: d.taskID, InteractionID: d.ia.ID,
		Decision: decision, OptionID: optionID, Answer: answer,
	}}
}

func (d *Prompt) permission() bool { return d.ia.Kind == core.InteractionPermission }

// options are the question's options a person picks by number; a permission has none.
func (d *Prompt) options() []core.InteractionOption { return words.Choices(d.ia.Kind, d.ia.Request) }

// The words for a key the request does not take: short enough for the narrowest dialog, which
// cuts its error line, and never with "answer" where a wrapped line could start with it.
const (
	notAQuestion   = "a permission: a allows once, d denies"
	notAPermission = "a question: select an option, or t types a reply"
	noOptions      = "this question has no options: t types a reply"
)

// onlyFor is a WhyNot: the key is a permission's (want true) or a question's.
func (d *Prompt) onlyFor(permission bool) func() string {
	return func() string {
		switch {
		case permission && !d.permission():
			return notAPermission
		case !permission && d.permission():
			return notAQuestion
		}
		return ""
	}
}

// keys is the prompt's table while no answer is being typed. Its order is the key line's.
func (d *Prompt) keys(k bind.KeyMap) keys {
	r := d.ia.Request
	opts := d.options()
	withOptions := func() string {
		if why := d.onlyFor(false)(); why != "" {
			return why
		}
		if len(opts) == 0 {
			return noOptions
		}
		return ""
	}
	choose := "answer"
	if d.selected >= 0 {
		choose = fmt.Sprintf("answer %d", d.selected+1)
	}
	return keys{
		{Key: k.AllowOnce, Short: k.AllowOnce.Help().Desc, Run: func(tea.KeyMsg) intent.Result {
			return d.respond(core.DecisionAllow, "", "")
		}, WhyNot: d.onlyFor(true)},
		{Key: k.AllowSession, Short: "allow for session", Run: func(tea.KeyMsg) intent.Result {
			o, _ := r.SessionOption()
			return d.respond(core.DecisionAllow, o.OptionID, "")
		}, WhyNot: func() string {
			if why := d.onlyFor(true)(); why != "" {
				return why
			}
			if _, ok := r.SessionOption(); !ok {
				return "the worker offered no session-wide allow for this request"
			}
			return ""
		}},
		{Key: k.AllowRepo, Short: "allow for repo", Run: func(tea.KeyMsg) intent.Result {
			res := d.respond(core.DecisionAllow, "", "")
			grant := res.Control.(core.Respond)
			grant.Grant = true
			res.Control = grant
			return res
		}, WhyNot: func() string {
			if why := d.onlyFor(true)(); why != "" {
				return why
			}
			if !r.Grantable() {
				return "only a command the policy asks about can be allowed for the repository"
			}
			return ""
		}},
		{Key: k.Option, Short: "select", Run: func(msg tea.KeyMsg) intent.Result {
			n := int(msg.String()[0] - '1')
			if n < len(opts) {
				d.selected = n
			} else {
				d.err = fmt.Sprintf("there is no option %d", n+1)
			}
			return intent.Result{}
		}, WhyNot: withOptions},
		{Key: k.StepOption, Short: "select", Run: func(msg tea.KeyMsg) intent.Result {
			step := 1
			if msg.String() == "up" {
				step = -1
			}
			if d.selected < 0 {
				d.selected = 0
			} else {
				d.selected = (d.selected + step + len(opts)) % len(opts)
			}
			return intent.Result{}
		}, WhyNot: withOptions},
		{Key: k.Choose, Short: choose, Run: func(tea.KeyMsg) intent.Result {
			return d.respond(core.DecisionAllow, opts[d.selected].OptionID, "")
		}, WhyNot: func() string {
			switch {
			case d.permission():
				return "enter does not answer: a allows once, d denies"
			case len(opts) == 0:
				return noOptions
			case d.selected < 0:
				return fmt.Sprintf("select an option first (1-%d or ↑/↓), then enter", len(opts))
			}
			return ""
		}},
		{Key: k.FreeText, Short: "type answer", Run: func(tea.KeyMsg) intent.Result {
			d.answering = true
			d.input.Focus()
			return intent.Result{}
		}, WhyNot: func() string {
			if !words.FreeTextAllowed(d.ia.Kind) {
				return notAQuestion
			}
			return ""
		}},
		{Key: k.Deny, Short: k.Deny.Help().Desc, Run: func(tea.KeyMsg) intent.Result {
			return d.respond(core.DecisionDeny, "", "")
		}},
		{Key: k.Later, Short: "later", Run: func(tea.KeyMsg) intent.Result { return intent.Result{Close: true, Later: true} }},
	}
}

// answerKeys is the prompt's table while an answer is typed: enter sends it, esc goes back to
// the request's keys; every other key is text.
func (d *Prompt) answerKeys(k bind.KeyMap) keys {
	return keys{
		{Key: k.Choose, Short: "send", Run: func(tea.KeyMsg) intent.Result {
			answer := strings.TrimSpace(d.input.Value())
			if answer == "" {
				d.err = "type an answer first, or esc to go back"
				return intent.Result{}
			}
			return d.respond(core.DecisionAllow, "", answer)
		}},
		{Key: k.Back, Short: "back", Run: func(tea.KeyMsg) intent.Result {
			d.answering = false
			d.input.Blur()
			return intent.Result{}
		}},
	}
}

func (d *Prompt) Update(msg tea.KeyMsg, k bind.KeyMap) intent.Result {
	if d.answering {
		if res, _, found := d.answerKeys(k).Dispatch(msg); found {
			return res
		}
		d.input, _ = d.input.Update(msg)
		return intent.Result{}
	}
	d.err = ""
	res, why, _ := d.keys(k).Dispatch(msg)
	if why != "" {
		d.err = why
	}
	return res
}

func (d *Prompt) View(t term.Theme, k bind.KeyMap, width int) (string, string) {
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
			b.WriteString("\n" + t.Dim.Render(term.PadRight(name, 9)) + term.WrapIndent(safetext.Sanitize(value), width, 9))
		}
	}
	if d.lastWords != "" {
		field("agent", lastLines(d.lastWords, 300))
	}
	field("question", r.Question)
	switch {
	case len(r.Argv) > 0:
		field("command", strings.Join(r.Argv, " "))
	case r.Tool == "execute" && r.Subject != "":
		// A command that is not plain argv, exactly as the worker sent it; its title is the
		// worker's own words about it.
		field("command", r.Subject)
		if r.Title != r.Subject {
			field("request", r.Title)
		}
	case r.Title != r.Question:
		field("request", r.Title)
	}
	field("tool", r.Tool)
	field("cwd", r.Cwd)
	field("paths", strings.Join(r.Paths, ", "))
	if d.permission() {
		v := permission.Asked(r)
		field("rule", v.Rule())
		field("hint", v.Hint)
	}
	opts := d.options()
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
	table := d.keys(k)
	if d.answering {
		table = d.answerKeys(k)
	}
	keys := table.Footer()
	if !d.answering {
		// ? is the stack's key (Stack.Key), offered here because the prompt has the screen.
		keys = append(keys, bind.Hint(k.Help, "help"))
	}
	return b.String(), term.KeyLines(t, width, keys...)
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
