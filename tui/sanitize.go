package tui

import (
	"fmt"

	"github.com/charmbracelet/x/ansi"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
	"reasonixctl/tui/words"
)

// Nothing the worker or the repository wrote reaches the terminal as a control: every string
// that did not come from reasonixctl itself passes through sanitize before it is laid out, and
// styles are applied to what sanitize returns, so lipgloss is the only source of escape
// sequences in a frame. guardFrame then checks each frame on its way out (see View).

// notification is the bell and OSC 9 desktop notification for a task that starts needing the
// person: waiting for an answer (to ia, when its request is known) or ready to finalize. The
// worker's words in it pass through sanitize like everything else it wrote, so nothing in them
// can end the OSC early or start a sequence of its own.
func notification(taskID string, a attention, ia *core.Interaction) string {
	text := "waits for you"
	switch {
	case a == attnReady:
		text = "is ready to finalize"
	case ia != nil:
		text += ": " + ansi.Truncate(safetext.Line(words.DescribeRequest(ia.Request).What), 120, "…")
	}
	return fmt.Sprintf("\a\x1b]9;reasonixctl: %s %s\x07", safetext.Line(taskID), text)
}
