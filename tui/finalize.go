package tui

import (
	"sort"

	"reasonixctl/core"
)

// nothingChanged reports a review with no change at all: finalize could only fail on it.
func nothingChanged(d *core.TaskDetail) bool {
	return d.View.State == core.StateReviewRequired && d.View.ReviewRevision > 0 &&
		len(d.ChangedFiles) == 0 && d.Diff == ""
}

// nothingToFinalize offers to close a task whose worker changed nothing.
func nothingToFinalize(id string) *confirmDialog {
	return &confirmDialog{
		title: "Nothing to finalize in " + id,
		body: "The worker changed no file, so there is no commit to make. Close the task? " +
			"(Or steer a repair round with s saying what is missing.)",
		req: core.Close{TaskID: id},
	}
}

// finalizeForm is the finalize dialog with what the diff view knows: the files not marked
// reviewed and the cherry-pick preview.
func (m *Model) finalizeForm(ti *taskInfo) *finalizeDialog {
	d := newFinalizeDialog(*ti.detail)
	if ti.rv.diff != nil {
		for _, f := range ti.rv.diff.files {
			if !ti.rv.reviewed[f.name] {
				d.unreviewed = append(d.unreviewed, f.name)
			}
		}
	}
	sort.Strings(d.unreviewed)
	d.rv = &ti.rv
	return d
}
