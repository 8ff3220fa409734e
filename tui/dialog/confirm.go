package dialog

import (
	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
	"reasonixctl/tui/bind"
	"reasonixctl/tui/intent"
	"reasonixctl/tui/term"
)

// Confirm asks before something that cannot be taken back: y does it, n or esc does not.
type Confirm struct {
	title, body string
	req         core.Command
	quit        bool          // yes quits the dashboard instead of sending req
	yes         intent.Action // else, when set, yes carries this out instead of sending req
}

// NewConfirm asks before sending req (cancel, close, rebase).
func NewConfirm(title, body string, req core.Command) *Confirm {
	return &Confirm{title: title, body: body, req: req}
}

// NewConfirmAction asks before the root carries out a (suspend, apply, drop a check).
func NewConfirmAction(title, body string, a intent.Action) *Confirm {
	return &Confirm{title: title, body: body, yes: a}
}

// NewQuitConfirm asks before quitting; ctrl+c in it quits at once (Stack.Key).
func NewQuitConfirm(title, body string) *Confirm {
	return &Confirm{title: title, body: body, quit: true}
}

// NothingToFinalize offers to close a task whose worker changed nothing.
func NothingToFinalize(id string) *Confirm {
	return NewConfirm("Nothing to finalize in "+id,
		"The worker changed no file, so there is no commit to make. Close the task? "+
			"(Or steer a repair round with s saying what is missing.)",
		core.Close{TaskID: id})
}

func (d *Confirm) keys(k bind.KeyMap) keys {
	return keys{
		{Key: k.Yes, Short: "yes", Run: d.yesResult},
		{Key: k.No, Short: "no", Run: closed},
	}
}

func (d *Confirm) yesResult(tea.KeyMsg) intent.Result {
	if d.quit {
		return intent.Result{Close: true, Quit: true}
	}
	if d.yes != nil {
		return intent.Result{Close: true, Do: d.yes}
	}
	return intent.Result{Close: true, Control: d.req}
}

func (d *Confirm) Update(msg tea.KeyMsg, k bind.KeyMap) intent.Result {
	res, _, _ := d.keys(k).Dispatch(msg)
	return res
}

func (d *Confirm) View(t term.Theme, k bind.KeyMap, width int) (string, string) {
	return t.Warn.Render(safetext.Line(d.title)) + "\n\n" + term.WrapIndent(safetext.Sanitize(d.body), width, 0),
		term.KeyLines(t, width, d.keys(k).Footer()...)
}

func (d *Confirm) Capturing() bool { return false }
