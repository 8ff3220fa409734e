package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/x/ansi"

	"reasonixctl/core"
)

// excuseKey, in the finalize form, excuses the last attempt's pre-existing failures: checks that
// fail on the base commit too. Only the supervisor, here or over MCP, can excuse one.
var excuseKey = bind([]string{"ctrl+x"}, "ctrl+x", "excuse pre-existing failures")

// excuseState is the finalize form's excuse: the checks it may excuse, whether it does, and why.
type excuseState struct {
	ids    []string // failed checks of the last attempt that fail before the change too
	on     bool
	reason textinput.Model
}

func newExcuseState(vs []core.VerificationResult) excuseState {
	x := excuseState{reason: newInput("why the failure may stand (recorded, and in the commit message)", "", core.MaxExcuseReasonLen)}
	for _, v := range vs {
		if !v.Passed && v.Baseline.PreExisting() {
			x.ids = append(x.ids, v.ID)
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

func (x *excuseState) view(t Theme, width int, focused bool) string {
	if len(x.ids) == 0 {
		return ""
	}
	ids := sanitizeLine(strings.Join(x.ids, ", "))
	if !x.on {
		return "\n" + t.Warn.Render(wrapIndent(fmt.Sprintf("Failing before the change too: %s. ctrl+x excuses it with a reason.", ids), width, 2)) + "\n"
	}
	mark := "  "
	if focused {
		mark = "› "
	}
	x.reason.Width = max(width-12, 10)
	return "\n" + t.Warn.Render(wrapIndent("Excusing "+ids+" (fails before the change too); the commit names it.", width, 2)) + "\n" +
		mark + "reason  " + x.reason.View() + "\n"
}

// baselineLines say, in the checks tab, how the selected failed check fares on the base commit.
func baselineLines(t Theme, v core.VerificationResult, w int) []string {
	b := v.Baseline
	if b == nil || v.Passed {
		return nil
	}
	var text string
	st := t.Warn
	switch b.Status {
	case core.BaselineFailed:
		text = "before the change: ✗ fails too on " + shortHash(b.Base) + " — a pre-existing failure"
		if v.Excused {
			text += "; excused: " + v.ExcuseReason
		} else {
			text += "; ctrl+x in the finalize form excuses it, D drops the check"
		}
	case core.BaselinePassed:
		text = "before the change: ✓ passes on " + shortHash(b.Base) + " — the change makes it fail (D drops the check)"
		st = t.Error
	default:
		text = "before the change: ? unknown — " + b.Reason
	}
	var out []string
	for _, l := range wrapLines(sanitizeLine(text), max(w-2, 1)) {
		out = append(out, " "+st.Render(l))
	}
	if b.Status == core.BaselineFailed && b.LogTail != "" {
		tail := strings.Split(b.LogTail, "\n")
		if len(tail) > 3 {
			tail = tail[len(tail)-3:]
		}
		for _, l := range tail {
			out = append(out, " "+t.Dim.Render(ansi.Truncate("  base: "+sanitizeLine(l), max(w-2, 1), "…")))
		}
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
// their first failing line, and which could not be checked.
func droppedNote(checked []core.BaseCheck) string {
	var dropped, unknown []string
	for _, ch := range checked {
		switch ch.Baseline.Status {
		case core.BaselineFailed:
			first, _, _ := strings.Cut(core.FirstFailingLines(ch.Baseline, 1), "\n")
			dropped = append(dropped, ch.ID+" ("+sanitizeLine(first)+")")
		case core.BaselineUnknown:
			unknown = append(unknown, ch.ID+" ("+sanitizeLine(ch.Baseline.Reason)+")")
		}
	}
	var out string
	if len(dropped) > 0 {
		out += " Left out, failing on HEAD already: " + strings.Join(dropped, "; ") + "."
	}
	if len(unknown) > 0 {
		out += " Not checked, kept: " + strings.Join(unknown, "; ") + "."
	}
	return out
}
