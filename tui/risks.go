package tui

import (
	"fmt"
	"strconv"
	"strings"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
)

// fileRisk says what the review found in one file of the diff that a plain reading may miss
// ("" when nothing): the diff view's position line and file list show it, so the reviewer reads
// that file, or those lines with their markers, before finalizing. A file can carry more than
// one risk (hidden characters in a binary file shown as text).
func (ti *taskInfo) fileRisk(name string) string {
	if ti.detail == nil {
		return ""
	}
	var out []string
	for _, r := range ti.detail.SourceRisks {
		if r.Path == name {
			out = append(out, riskLines(r))
		}
	}
	return strings.Join(out, "; ")
}

// riskLines says what a risk is and where: for a binary file, what the review says of it (shown
// as text, with the lines of its NUL and control bytes, or not shown and its size); otherwise
// the file name and the lines with hidden or look-alike characters.
func riskLines(r core.SourceRisk) string {
	if strings.HasPrefix(r.ID, core.BinaryRiskPrefix) {
		return binaryRiskLines(r)
	}
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

// binaryRiskStarts are how the review's text of a binary risk goes on after the file's id.
var binaryRiskStarts = []string{": git treats it as binary", ": binary file"}

// binaryRiskLines is the review's own words of a binary risk, after the id that heads its text
// (which holds the path, shown apart). The last match is taken, so that a path holding the same
// words cannot stand in for them.
func binaryRiskLines(r core.SourceRisk) string {
	at := -1
	for _, s := range binaryRiskStarts {
		at = max(at, strings.LastIndex(r.Text, s))
	}
	if at < 0 {
		return "binary file"
	}
	return safetext.Line(r.Text[at+2:])
}
