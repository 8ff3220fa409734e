package tui

import (
	"reasonixctl/tui/dialog"
	"reasonixctl/tui/words"
)

// errorNotice is the notice of a failed call, made where the model is not at hand (the
// review's, the editor's); the frame still says when no owner answers (viewDialog).
func errorNotice(title string, err error) *dialog.Notice { return dialog.ErrorNotice(title, err) }

// errorNotice is errorNotice as this dashboard tells it: while an attached dashboard has no
// owner, a failed call is explained by that (ownerGoneNext), not by the error's generic advice.
func (m *Model) errorNotice(title string, err error) *dialog.Notice {
	n := errorNotice(title, err)
	if m.attach.gone {
		n.NextInstead(ownerGoneNext(m.opts.StateDir))
	}
	return n
}

// ownerGoneNext is what to do about a call that failed while no owner answers for the state
// directory: nothing is wrong with the worker, the dashboard waits for an owner.
func ownerGoneNext(stateDir string) string {
	return "No process owns " + stateDir + " now: this dashboard waits for an owner and reloads when one " +
		"answers. Start one with `reasonixctl serve`, or run `reasonixctl` with this state directory " +
		"(CODEX_REASONIX_STATE_DIR=" + stateDir + "), then try again."
}

// describeError is words.DescribeError as this dashboard tells it (see errorNotice).
func (m *Model) describeError(err error) []string {
	lines := words.DescribeError(err)
	if m.attach.gone {
		lines = words.WithNext(lines, ownerGoneNext(m.opts.StateDir))
	}
	return lines
}
