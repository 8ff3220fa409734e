package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/x/ansi"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
	"reasonixctl/tui/term"
)

// excuseState is the finalize form's excuse: the checks it may excuse, whether it does, and why.
type excuseState struct {
	ids     []string // failed checks of the last attempt whose every failure is on the base too
	blocked []string // failed checks that fail on the base too, but with failures the change causes
	on      bool
	reason  textinput.Model
}

func newExcuseState(vs []core.VerificationResult) excuseState {
	x := excuseState{reason: term.NewInput("why the failure may stand (recorded, and in the commit message)", "", core.MaxExcuseReasonLen)}
	for _, v := range vs {
		switch {
		case v.Excusable():
			x.ids = append(x.ids, v.ID)
		case !v.Passed && v.Baseline.PreExisting():
			x.blocked = append(x.blocked, v.ID)
		}
	}
	return x
}

// slots is how many focus places the excuse adds to the form: its reason, while excusing.
func (x *excuseState) slots() int {
	if x.on && len(x.ids) > 0 {
		return 1
	}
	return 0
}

// checks is what finalize excuses, or why the form cannot be submitted.
func (x *excuseState) checks() ([]core.ExcusedCheck, string) {
	if !x.on || len(x.ids) == 0 {
		return nil, ""
	}
	reason := strings.TrimSpace(x.reason.Value())
	if reason == "" {
		return nil, "say why the pre-existing failure may stand, or ctrl+x again to excuse nothing"
	}
	out := make([]core.ExcusedCheck, len(x.ids))
	for i, id := range x.ids {
		out[i] = core.ExcusedCheck{ID: id, Reason: reason}
	}
	return out, ""
}

func (x *excuseState) view(t term.Theme, width int, focused bool) string {
	var blocked string
	if len(x.blocked) > 0 {
		blocked = "\n" + t.Error.Render(term.WrapIndent(fmt.Sprintf("Failing before the change too, but with new failures the change causes: %s. Those cannot be excused (checks tab, 4).",
			safetext.Line(strings.Join(x.blocked, ", "))), width, 2)) + "\n"
	}
	if len(x.ids) == 0 {
		return blocked
	}
	ids := safetext.Line(strings.Join(x.ids, ", "))
	if !x.on {
		return blocked + "\n" + t.Warn.Render(term.WrapIndent(fmt.Sprintf("Failing before the change too, with the same failures: %s. ctrl+x excuses it with a reason.", ids), width, 2)) + "\n"
	}
	mark := "  "
	if focused {
		mark = "› "
	}
	x.reason.Width = max(width-12, 10)
	return blocked + "\n" + t.Warn.Render(term.WrapIndent("Excusing "+ids+" (fails before the change too); the commit names it.", width, 2)) + "\n" +
		mark + "reason  " + x.reason.View() + "\n"
}

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

// droppedNote says which drafted checks were left out because they fail on HEAD already, with
// their first failing line; which were kept although they fail there, their failures named
// (finalize can excuse exactly those); and which could not be checked.
func droppedNote(checked []core.BaseCheck) string {
	var dropped, kept, unknown []string
	for _, ch := range checked {
		switch {
		case ch.Baseline.FailuresKnown():
			var names []string
			for i, f := range ch.Baseline.Failures {
				if i == 3 {
					names = append(names, fmt.Sprintf("%d more", len(ch.Baseline.Failures)-i))
					break
				}
				names = append(names, safetext.Line(f.ID))
			}
			kept = append(kept, ch.ID+" ("+strings.Join(names, "; ")+")")
		case ch.Baseline.Status == core.BaselineFailed:
			first, _, _ := strings.Cut(core.FirstFailingLines(ch.Baseline, 1), "\n")
			dropped = append(dropped, ch.ID+" ("+safetext.Line(first)+")")
		case ch.Baseline.Status == core.BaselineUnknown:
			unknown = append(unknown, ch.ID+" ("+safetext.Line(ch.Baseline.Reason)+")")
		}
	}
	var out string
	if len(dropped) > 0 {
		out += " Left out, failing on HEAD already: " + strings.Join(dropped, "; ") + "."
	}
	if len(kept) > 0 {
		out += " Kept, failing on HEAD with known failures that finalize can excuse (and no other): " + strings.Join(kept, "; ") + "."
	}
	if len(unknown) > 0 {
		out += " Not checked, kept: " + strings.Join(unknown, "; ") + "."
	}
	return out
}
