package tui

import (
	"reasonixctl/core"
	"reasonixctl/tui/dialog"
	"reasonixctl/tui/words"
)

// finalizeForm is the finalize dialog of a task with what the review knows: the files not
// marked reviewed, the risks in the diff view's words and the cherry-pick preview (which
// followDialogs keeps current).
func (m *Model) finalizeForm(ti *taskInfo) *dialog.Finalize {
	var unreviewed []string
	if ti.rv.diff != nil {
		for _, f := range ti.rv.diff.files {
			if !ti.rv.reviewed[f.name] {
				unreviewed = append(unreviewed, f.name)
			}
		}
	}
	d := dialog.NewFinalize(*ti.detail, finalizeRisks(ti.detail.SourceRisks), unreviewed)
	d.SetPreview(ti.preview())
	return d
}

// finalizeRisks are a review's risks as the finalize form lists them, worded as the diff view
// words them.
func finalizeRisks(rs []core.SourceRisk) []dialog.Risk {
	var out []dialog.Risk
	for _, r := range rs {
		out = append(out, dialog.Risk{SourceRisk: r, Lines: riskLines(r)})
	}
	return out
}

// preview is what the dashboard knows of the task's cherry-pick preview.
func (ti *taskInfo) preview() words.Preview {
	return words.Preview{Of: ti.rv.preview, Err: ti.rv.previewErr, Pending: ti.rv.previewing}
}
