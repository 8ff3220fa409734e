package tui

import (
	"reasonixctl/core"
)

// nothingToFinalize offers to close a task whose worker changed nothing.
func nothingToFinalize(id string) *confirmDialog {
	return &confirmDialog{
		title: "Nothing to finalize in " + id,
		body: "The worker changed no file, so there is no commit to make. Close the task? " +
			"(Or steer a repair round with s saying what is missing.)",
		req: core.ControlRequest{TaskID: id, Action: core.ActionClose},
	}
}

// finalizeForm is the finalize dialog with what the diff view knows: the files not marked
// reviewed and the cherry-pick preview.
func (m *Model) finalizeForm(ti *taskInfo) *finalizeDialog {
	d := newFinalizeDialog(*ti.detail)
	d.unreviewed = m.review.Unreviewed(d.taskID)
	d.rv = formReview(m.review.Preview(d.taskID))
	return d
}
