package dialog

import (
	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/tui/bind"
	"reasonixctl/tui/intent"
	"reasonixctl/tui/term"
)

// Dialog is one layer of the stack. It handles the keys while it is on top and returns what
// the dashboard should do; it never calls the service itself. Its view is a body, which
// scrolls when the screen is short, and a key line, which always stays visible.
type Dialog interface {
	// Capturing says a text field has the keys: every key is text, a key message carrying
	// several runes is typed whole and a paste lands there.
	Capturing() bool
	Update(msg tea.KeyMsg, k bind.KeyMap) intent.Result
	View(t term.Theme, k bind.KeyMap, width int) (body, keys string)
}

// keys is a dialog's binding table: what a key asks of the root.
type keys = bind.Table[intent.Result]

// none is a key's result that asks nothing of the root.
func none(tea.KeyMsg) intent.Result { return intent.Result{} }

// closed is a key's result that closes the dialog.
func closed(tea.KeyMsg) intent.Result { return intent.Result{Close: true} }

// SitsAtTop says d is drawn at the top of the body rather than in its middle: a prompt, so the
// newest events, at the bottom of the events view, stay readable beside it.
func SitsAtTop(d Dialog) bool {
	_, ok := d.(*Prompt)
	return ok
}

// OpensByItself says d was not opened by a key of the person's: a worker's request, or the
// first note.
func OpensByItself(d Dialog) bool {
	switch d := d.(type) {
	case *Prompt:
		return true
	case *Notice:
		return d.intro
	}
	return false
}
