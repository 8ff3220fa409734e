package dialog

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
	"reasonixctl/tui/bind"
	"reasonixctl/tui/intent"
	"reasonixctl/tui/term"
)

// Steer sends the worker a message during its turn, or, in review, a repair round. It follows
// the task while the person types (Follow): what sending means now, and whether core takes it.
type Steer struct {
	taskID, title, note string
	// moved says the task's state changed since the dialog opened, so that sending now means
	// something else (a repair round rather than a steer, or nothing at all); note says what.
	moved bool
	// allowed says core takes a steer in the task's state now; waits, that the task waits for
	// the person's answer to a request (enter opens it, the message stays here).
	allowed, waits bool
	// sending says the message went to core and the dialog waits for its answer: it closes on
	// success and, on a refusal, stays with the text and the reason (Refused).
	sending bool
	input   textinput.Model
	err     string
}

// NewSteer is the steer dialog of task t as it is now.
func NewSteer(t core.TaskView) *Steer {
	d := &Steer{taskID: t.TaskID, input: term.NewInput("what the worker should do", "", core.MaxSteerMessageLen)}
	d.title, d.note = steerTexts(t)
	d.allowed, d.waits = core.Allows(t, core.ActionSteer), waitsForPerson(t)
	d.input.Focus()
	return d
}

// TaskID is the task the message goes to.
func (d *Steer) TaskID() string { return d.taskID }

// Sending says the message went to core and the dialog waits for core's answer.
func (d *Steer) Sending() bool { return d.sending }

// Text is the message as typed.
func (d *Steer) Text() string { return d.input.Value() }

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

// Follow keeps the dialog's title and note true to t's current state while the person types.
func (d *Steer) Follow(t core.TaskView) {
	d.allowed, d.waits = core.Allows(t, core.ActionSteer), waitsForPerson(t)
	title, note := steerTexts(t)
	if title == d.title && note == d.note {
		return
	}
	d.title, d.note, d.moved = title, note, true
}

// Refused takes core's refusal of the message: the dialog stays open with the text and why.
func (d *Steer) Refused(why []string) {
	d.sending = false
	d.err = "Not sent: " + strings.Join(why, "\n") + "\nYour message is kept: enter sends it again, esc drops it."
}

// Resubmit decides again on a message about to be sent, on the task as it is now (t), not as
// the dialog last drew it.
func (d *Steer) Resubmit(t core.TaskView) intent.Result {
	d.sending = false
	d.Follow(t)
	return d.submit()
}

// submit is enter: the message goes to core only when the task takes it now; a task waiting
// for the person gets its request opened instead, and in any other case the dialog says why
// and keeps the text.
func (d *Steer) submit() intent.Result {
	text := strings.TrimSpace(d.input.Value())
	switch {
	case d.waits:
		d.err = ""
		return intent.Result{Do: intent.OpenRequest{TaskID: d.taskID}}
	case text == "":
		d.err = "the message is empty"
		return intent.Result{}
	case !d.allowed:
		d.err = "Not sent: " + d.note
		return intent.Result{}
	}
	d.sending, d.err = true, ""
	return intent.Result{Control: core.Steer{TaskID: d.taskID, Message: text}}
}

func (d *Steer) keys(k bind.KeyMap) keys {
	send := "send"
	if d.waits {
		send = "answer the request first"
	}
	return keys{
		// enter sends, and ctrl+s as in the other forms; the key line names enter.
		{Key: bind.New(k.Submit.Keys(), "enter", "send the message"), Short: send, Run: func(tea.KeyMsg) intent.Result {
			if d.sending {
				return intent.Result{} // "sending…" says why
			}
			return d.submit()
		}},
		{Key: k.Back, Short: "cancel", Run: closed},
	}
}

func (d *Steer) Update(msg tea.KeyMsg, k bind.KeyMap) intent.Result {
	if res, _, found := d.keys(k).Dispatch(msg); found {
		return res
	}
	if !d.sending {
		d.input, _ = d.input.Update(msg)
	}
	return intent.Result{}
}

func (d *Steer) View(t term.Theme, k bind.KeyMap, width int) (string, string) {
	d.input.Width = max(width-4, 10)
	note := t.Dim.Render(term.WrapIndent(safetext.Sanitize(d.note), width, 0))
	if d.moved {
		note = t.Warn.Render(term.WrapIndent("The task moved on while you typed. "+safetext.Sanitize(d.note), width, 0))
	}
	s := t.Title.Render(safetext.Line(d.title)) + "\n" + note + "\n\n" + "> " + d.input.View()
	if d.sending {
		s += "\n" + t.Dim.Render("sending…")
	}
	if d.err != "" {
		s += "\n" + t.Error.Render(term.WrapIndent(safetext.Sanitize(d.err), width, 0))
	}
	return s, term.KeyLines(t, width, d.keys(k).Footer()...)
}

func (d *Steer) Capturing() bool { return true }
