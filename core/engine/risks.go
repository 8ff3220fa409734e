package engine

import (
	"slices"
	"strings"

	"reasonixctl/core"
	"reasonixctl/core/gitx"
)

// reviewRisks are the Trojan Source risks of a review: its diff, and the names of the files it
// adds or keeps (a binary or mode-only change has no lines for the diff to show).
func reviewRisks(rev gitx.Review) []core.SourceRisk {
	var names []string
	for _, f := range rev.Files {
		if f.Status != 'D' {
			names = append(names, f.Path)
		}
	}
	return core.SourceRisks(rev.Diff, names...)
}

// sourceRiskTexts are the risks the review found in the diff, as the payload's risks list
// shows them (first).
func sourceRiskTexts(r *taskRecord) []string {
	out := make([]string, 0, len(r.SourceRisks)+len(r.Risks))
	for _, s := range r.SourceRisks {
		out = append(out, s.Text)
	}
	return out
}

// checkAcknowledged is finalize's check that acknowledged_risks lists every risk the review
// found in the diff, by id or by its whole text.
func checkAcknowledged(r *taskRecord, acknowledged []string) error {
	var missing []string
	for _, s := range r.SourceRisks {
		if !slices.Contains(acknowledged, s.ID) && !slices.Contains(acknowledged, s.Text) {
			missing = append(missing, s.ID)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return core.Errorf(core.CodeInvalidRequest, map[string]any{
		"reason": "unacknowledged_risks", "unacknowledged": missing, "risks": r.risks(),
	}, "acknowledged_risks must list every risk of the review (the change hides or disguises characters; read those lines before you acknowledge them): %s",
		strings.Join(missing, ", "))
}
