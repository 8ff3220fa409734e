package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
	"reasonixctl/tui/term"
)

// maxFailureRows is how many of a check's failures the checks tab lists under it.
const maxFailureRows = 8

// baselineLines say, in the checks tab, how the selected failed check fares on the base commit,
// then its failures one per line, those the change causes first, each with pre_existing.
func baselineLines(t term.Theme, v core.VerificationResult, w int) []string {
	b := v.Baseline
	if v.Passed || (b == nil && len(v.Failures) == 0) {
		return nil
	}
	var text string
	st := t.Warn
	switch {
	case b == nil:
	case b.Status == core.BaselineFailed && v.Excusable():
		text = "before the change: ✗ fails too on " + shortHash(b.Base) + " — a pre-existing failure, with the same failures"
		if v.Excused {
			text += "; excused: " + v.ExcuseReason
		} else {
			text += "; ctrl+x in the finalize form excuses it, D drops the check"
		}
	case b.Status == core.BaselineFailed:
		text = fmt.Sprintf("before the change: ✗ fails too on %s, but %d failure(s) are new — the change causes them; not excusable (D drops the check)",
			shortHash(b.Base), v.NewFailures())
		st = t.Error
	case b.Status == core.BaselinePassed:
		text = "before the change: ✓ passes on " + shortHash(b.Base) + " — the change makes it fail (D drops the check)"
		st = t.Error
	default:
		text = "before the change: ? unknown — " + b.Reason
	}
	var out []string
	if text != "" {
		for _, l := range term.WrapLines(safetext.Line(text), max(w-2, 1)) {
			out = append(out, " "+st.Render(l))
		}
	}
	out = append(out, failureRows(t, v, w)...)
	if b != nil && b.Status == core.BaselineFailed && b.LogTail != "" && len(v.Failures) == 0 {
		tail := strings.Split(b.LogTail, "\n")
		if len(tail) > 3 {
			tail = tail[len(tail)-3:]
		}
		for _, l := range tail {
			out = append(out, " "+t.Dim.Render(ansi.Truncate("  base: "+safetext.Line(l), max(w-2, 1), "…")))
		}
	}
	return out
}

// failureRows list a check's failures one per line, new ones first: "✗ pre_existing: false  id —
// message" in the error colour, "· pre_existing: true   id" dimmed.
func failureRows(t term.Theme, v core.VerificationResult, w int) []string {
	var fresh, known []core.CheckFailure
	for _, f := range v.Failures {
		if f.PreExisting {
			known = append(known, f)
		} else {
			fresh = append(fresh, f)
		}
	}
	var out []string
	for i, f := range append(fresh, known...) {
		if i == maxFailureRows {
			out = append(out, " "+t.Dim.Render(fmt.Sprintf("   … and %d more failure(s): the log has them all", len(v.Failures)-i)))
			break
		}
		mark, st := "✗ pre_existing: false ", t.Error
		if f.PreExisting {
			mark, st = "· pre_existing: true  ", t.Dim
		}
		line := "  " + mark + " " + safetext.Line(f.ID)
		if f.Message != "" && f.Message != f.ID && !strings.Contains(f.ID, f.Message) {
			line += " — " + safetext.Line(f.Message)
		}
		out = append(out, " "+st.Render(ansi.Truncate(line, max(w-2, 1), "…")))
	}
	return out
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
