package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
)

// promptDialog answers one pending interaction. Only the named keys answer it: `a` allow once,
// `S` allow for the session where offered, `d` deny, a number for a question's option, `t` to
// type an answer, esc to answer later. Nothing else — enter included — decides anything.
type promptDialog struct {
	taskID    string
	ia        core.Interaction
	lastWords string // the agent's latest text, so the person sees what led here
	others    int    // further pending interactions behind this one
	answering bool   // typing a free-text answer
	input     textinput.Model
	err       string
}

func newPromptDialog(taskID string, ia core.Interaction) *promptDialog {
	return &promptDialog{taskID: taskID, ia: ia, input: newInput("your answer", "", core.MaxAnswerLen)}
}

func (d *promptDialog) typing() bool { return d.answering }

func (d *promptDialog) respond(decision, optionID, answer string) dialogResult {
	return dialogResult{close: true, control: &core.ControlRequest{
		TaskID: d.taskID, Action: core.ActionRespond, InteractionID: d.ia.ID,
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
		if !grantable(r) {
			d.err = "only a command the policy asks about can be allowed for the repository"
			return dialogResult{}
		}
		res := d.respond(core.DecisionAllow, "", "")
		res.control.Grant = true
		return res
	case key.Matches(msg, k.Option) && len(opts) > 0:
		n := int(msg.String()[0] - '1')
		if n < len(opts) {
			return d.respond(core.DecisionAllow, opts[n].OptionID, "")
		}
		d.err = fmt.Sprintf("there is no option %d", n+1)
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
	b.WriteString(t.Pending.Render(title) + t.Dim.Render(sanitizeLine("  task "+d.taskID+" · "+d.ia.ID)))
	if d.others > 0 {
		b.WriteString(t.Dim.Render(fmt.Sprintf(" · %d more waiting", d.others)))
	}
	b.WriteString("\n")
	field := func(name, value string) {
		if value != "" {
			b.WriteString("\n" + t.Dim.Render(padRight(name, 9)) + wrapIndent(sanitize(value), width, 9))
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
		rule := strings.Join(nonEmpty(r.Code, r.Reason), ": ")
		if rule == "" {
			rule = "the contract's policy does not cover this request, so it asks you"
		}
		field("rule", rule)
		field("hint", r.Hint)
	}
	opts := choices(d.ia.Kind, r)
	if len(opts) > 0 {
		b.WriteString("\n")
	}
	for i, o := range opts {
		b.WriteString("\n" + t.HelpKey.Render(fmt.Sprintf("%d", i+1)) + " " + sanitizeLine(o.Name))
	}
	if d.answering {
		b.WriteString("\n\n" + t.HelpKey.Render("answer ") + d.input.View())
	}
	if d.err != "" {
		b.WriteString("\n\n" + t.Error.Render(sanitize(d.err)))
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
		if grantable(r) {
			keys = append(keys, hint(k.AllowRepo, "allow for repo"))
		}
	} else if len(opts) > 0 {
		keys = append(keys, hint(k.Option, "choose"))
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
