package tui

import (
	"reasonixctl/core"
	"reasonixctl/tui/dialog"
	"reasonixctl/tui/review"
)

// finalizeForm is the finalize dialog of a task with what the review knows: the files not
// marked reviewed in rv, the risks in the diff view's words and the cherry-pick preview (which
// followPreviews keeps current).
func finalizeForm(ti *taskInfo, rv *review.Review) *dialog.Finalize {
	id := ti.detail.View.TaskID
	d := dialog.NewFinalize(*ti.detail, finalizeRisks(ti.detail.SourceRisks), rv.Unreviewed(id))
	d.SetPreview(rv.Preview(id))
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
