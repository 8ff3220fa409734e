package tui

import (
	"fmt"
	"strconv"
	"strings"

	"reasonixctl/core"
)

// fileRisk says what the review found hidden or disguised in one file of the diff ("" when
// nothing): the diff view's position line and file list show it, so the reviewer reads those
// lines with their markers before finalizing.
func (ti *taskInfo) fileRisk(name string) string {
	if ti.detail == nil {
		return ""
	}
	for _, r := range ti.detail.SourceRisks {
		if r.Path == name {
			return riskLines(r)
		}
	}
	return ""
}

// riskLines names where a risk is: the file name and the lines.
func riskLines(r core.SourceRisk) string {
	var where []string
	for _, l := range r.Lines {
		if len(where) == 6 {
			where = append(where, fmt.Sprintf("%d more", len(r.Lines)-6))
			break
		}
		if l == 0 {
			where = append(where, "the file name")
		} else {
			where = append(where, strconv.Itoa(l))
		}
	}
	return "hidden or look-alike characters: " + strings.Join(where, ", ")
}

// riskIDs are what finalize's acknowledged_risks lists.
func riskIDs(rs []core.SourceRisk) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}
