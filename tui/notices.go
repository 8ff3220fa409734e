package tui

import (
	"reasonixctl/tui/dialog"
	"reasonixctl/tui/words"
)

// errorNotice is the notice of a failed call, made where the model is not at hand (the
// review's, the editor's); the frame still says when no owner answers (viewDialog).
func errorNotice(title string, err error) *dialog.Notice { return dialog.ErrorNotice(title, err) }

// errorNotice is errorNotice as this dashboard tells it (explain).
func (a *attachState) errorNotice(title string, err error) *dialog.Notice {
	return a.explain(errorNotice(title, err))
}

// explain says, in the notice n of a failed call, that no owner answers, while an attached
// dashboard has none: that explains the failure, not the error's generic advice.
func (a *attachState) explain(n *dialog.Notice) *dialog.Notice {
	if a.gone {
		n.NextInstead(ownerGoneNext(a.stateDir))
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

// describeError is words.DescribeError as this dashboard tells it (see explain).
func (a *attachState) describeError(err error) []string {
	lines := words.DescribeError(err)
	if a.gone {
		lines = words.WithNext(lines, ownerGoneNext(a.stateDir))
	}
	return lines
}
