package core

import (
	"fmt"
	"strconv"
	"strings"

	"reasonixctl/core/gitx"
)

// A file git calls binary shows no lines in an ordinary patch, yet what it holds is committed
// and may run: one NUL in a script is enough. The review shows such a file as text when it reads
// as text (gitx, binary.go), and lists every binary file the change adds or keeps as a risk that
// finalize needs acknowledged (acknowledged_risks), whether its lines are shown or not. A
// deleted binary file commits nothing and is no risk, nor is a binary file replaced by text.

// BinaryRiskPrefix starts the id of the risk the review lists for a binary file.
const BinaryRiskPrefix = "binary:"

// maxBinaryRisks bounds the binary risks of one review, the last standing for the files beyond
// it, and maxBinaryRiskBytes their texts together (the first is listed whatever its length, at
// most maxIDInText and the words after it): with maxSourceRisks they leave the review bundle
// (MaxBundleBytes) room for the diff.
const (
	maxBinaryRisks     = 16
	maxBinaryRiskBytes = 4096
)

// maxIDInText bounds the id at the head of a risk's text; the id itself is whole.
const maxIDInText = 512

// BinaryRisks lists a risk for each file of a review that git calls binary and that the change
// adds or keeps, in the review's order: one whose lines the review shows says so and where its
// NUL and other control bytes are; any other says that its contents are not shown, and its size.
func BinaryRisks(files []gitx.FileChange) []SourceRisk {
	var all []SourceRisk
	beyond := 0
	for _, f := range files {
		// Only what is committed counts: a deletion commits nothing, a file whose binary old
		// content gave way to text commits text shown whole, and a path turned into a symlink
		// or gitlink is judged as one elsewhere.
		b := f.BinaryFacts
		if b != nil && (f.NewMode == gitx.ModeFile || f.NewMode == gitx.ModeExec) && !(b.AsText && b.Why == gitx.ShownNowText) {
			if len(all) > maxBinaryRisks {
				beyond++
				continue
			}
			all = append(all, binaryRisk(f.Path, b))
		}
	}
	keep, total := 0, 0
	for keep < len(all) && keep < maxBinaryRisks && (keep == 0 || total+len(all[keep].Text) <= maxBinaryRiskBytes) {
		total += len(all[keep].Text)
		keep++
	}
	if keep == len(all) && beyond == 0 {
		return all
	}
	if keep == maxBinaryRisks {
		keep-- // the last place stands for the rest
	}
	rest := len(all) - keep + beyond
	more := SourceRisk{ID: BinaryRiskPrefix + "more",
		Text: fmt.Sprintf("%smore: %d more binary files, each in the diff", BinaryRiskPrefix, rest)}
	return append(all[:keep:keep], more)
}

// binaryRisk is the risk of one binary file. Its id keeps the path as it is, made valid UTF-8
// (as JSON would carry it anyway), so that a client can send back exactly the id it read.
func binaryRisk(path string, b *gitx.BinaryFacts) SourceRisk {
	id := BinaryRiskPrefix + strings.ToValidUTF8(path, "\uFFFD")
	r := SourceRisk{ID: id, Path: path}
	var what string
	if b.AsText {
		r.Lines = append([]int(nil), b.ControlLines...)
		how := "git treats it as binary: shown as text"
		switch b.Why {
		case gitx.ShownWasText:
			how = "git treats it as binary (it was text before this change): shown as text"
		case gitx.ShownUTF16:
			how = "git treats it as binary (UTF-16 text): shown as text, byte by byte"
		}
		what = how + "; " + controlsAt(b)
	} else {
		what = "binary file: contents not shown"
		if b.Size >= 0 {
			what += ", " + strconv.FormatInt(b.Size, 10) + " bytes"
		}
		switch b.Why {
		case gitx.NotShownLarge:
			what += fmt.Sprintf(" (over the %d bytes the review shows as text)", gitx.MaxTextShownBytes)
		case gitx.NotShownBudget:
			what += " (the review read its fill of binary files before this one)"
		}
	}
	shown := id
	if len(shown) > maxIDInText {
		shown = TruncateText(shown, maxIDInText) + "…"
	}
	r.Text = shown + ": " + what
	return r
}

// controlsAt says how many NUL and other control bytes a file shown as text holds, and on which
// lines.
func controlsAt(b *gitx.BinaryFacts) string {
	if b.Controls == 0 {
		return "no NUL or control bytes"
	}
	noun := "NUL/control bytes"
	if b.Controls == 1 {
		noun = "NUL/control byte"
	}
	lines := make([]string, len(b.ControlLines))
	for i, l := range b.ControlLines {
		lines[i] = strconv.Itoa(l)
	}
	where := "line "
	if len(lines)+b.MoreControlLines > 1 {
		where = "lines "
	}
	where += strings.Join(lines, ", ")
	if b.MoreControlLines > 0 {
		where += fmt.Sprintf(" and %d more", b.MoreControlLines)
	}
	return fmt.Sprintf("%d %s at %s", b.Controls, noun, where)
}
