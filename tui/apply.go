package tui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
	"reasonixctl/tui/dialog"
	"reasonixctl/tui/intent"
	"reasonixctl/tui/words"
)

// applyMsg is the answer of an apply to the checkout: a dry run (which opens the confirmation)
// or the apply itself.
type applyMsg struct {
	taskID string
	dry    bool
	res    core.ApplyResult
	err    error
}

// L applies the selected completed task's commit to its source checkout: a dry run first
// (commands.applyToCheckout), whose answer asks for a confirmation or says why it cannot.

// whyNotApply is why L does nothing on t now: only a completed task's commit can be applied.
func whyNotApply(t *core.TaskView) string {
	if why := whyNot(t, ""); why != "" {
		return why
	}
	if t.State != core.StateCompleted {
		return fmt.Sprintf("%s is %s: only a completed task's commit can be applied to its checkout (finalize it first)", t.TaskID, t.State)
	}
	return ""
}

func (m *Model) onApply(msg applyMsg) tea.Cmd {
	switch {
	case msg.err != nil:
		m.push(dialog.Failure("Cannot apply "+msg.taskID+" to its checkout", safetext.Line(words.OneLine(msg.err))))
	case msg.dry:
		r := msg.res
		m.push(dialog.NewConfirmAction("Apply "+msg.taskID+" to its checkout?",
			fmt.Sprintf("Cherry-pick commit %s onto branch %s of %s (at %s). The dry run says it applies cleanly and nothing of yours is in its way; nothing is pushed.\n\n%s",
				shortHash(r.Commit), r.Branch, r.Checkout, shortHash(r.Head), r.Command),
			intent.Apply{TaskID: msg.taskID}))
	default:
		m.setStatus(fmt.Sprintf("applied %s: %s is now at %s (nothing pushed)", msg.taskID, msg.res.Branch, shortHash(msg.res.NewHead)), false, "")
		return m.cmds.refreshList(&m.list)
	}
	return nil
}
