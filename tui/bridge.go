package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/tui/bind"
	"reasonixctl/tui/dialog"
	"reasonixctl/tui/intent"
	"reasonixctl/tui/term"
)

// A bridge for the one dialog a part asks for by value rather than by package: the checks
// tab's confirmation (intent.Confirm). It goes when checks asks with dialog.NewConfirmAction.

// confirmDialog is the checks tab's confirmation before dropping a check: a
// dialog.Confirm, which keeps no state, made afresh for each key and frame.
type confirmDialog struct {
	title, body string
	yes         intent.Action
}

func (c *confirmDialog) confirm() *dialog.Confirm {
	return dialog.NewConfirmAction(c.title, c.body, c.yes)
}
func (c *confirmDialog) Capturing() bool { return false }
func (c *confirmDialog) Update(msg tea.KeyMsg, k bind.KeyMap) intent.Result {
	return c.confirm().Update(msg, k)
}
func (c *confirmDialog) View(t term.Theme, k bind.KeyMap, width int) (string, string) {
	return c.confirm().View(t, k, width)
}
