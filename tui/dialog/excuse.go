package dialog

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/textinput"

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
