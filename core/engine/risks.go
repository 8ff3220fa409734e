package engine

import (
	"slices"
	"strings"

	"reasonixctl/core"
	"reasonixctl/core/gitx"
)

// reviewRisks are the risks of a review that finalize needs acknowledged: the Trojan Source
// risks of its diff and of the names of the files it adds or keeps (a binary or mode-only change
// has no lines for the diff to show), then each binary file it adds or keeps, whose bytes a
// plain reading of the diff may not show (core.BinaryRisks).
func reviewRisks(rev gitx.Review) []core.SourceRisk {
	var names []string
	for _, f := range rev.Files {
		if f.Status != 'D' {
			names = append(names, f.Path)
		}
	}
	return append(core.SourceRisks(rev.Diff, names...), core.BinaryRisks(rev.Files)...)
}

// sourceRiskTexts are the risks the review found in the change, as the payload's risks list
// shows them (first).
func sourceRiskTexts(r *taskRecord) []string {
	out := make([]string, 0, len(r.SourceRisks)+len(r.Risks))
	for _, s := range r.SourceRisks {
		out = append(out, s.Text)
	}
	return out
}

// checkAcknowledged is finalize's check that acknowledged_risks lists every risk the review
// found in the change, by id or by its whole text.
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
	return core.Errorf(core.CodeInvalidRequest, &core.UnacknowledgedRisks{
		Reason: "unacknowledged_risks", Unacknowledged: missing, Risks: r.risks(),
	}, "acknowledged_risks must list every risk of the review (what the change holds that a plain reading of the diff may miss: hidden or look-alike characters, binary files; read each file and line named before you acknowledge it): %s",
		strings.Join(missing, ", "))
}
