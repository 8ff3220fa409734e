package tui

import (
	"strings"
	"testing"

	"reasonixctl/core"
)

// A check that fails before the change too: the checks tab says so with the base's own words,
// and the finalize form's ctrl+x excuses it with a reason the request carries.
func TestChecksShowTheBaselineAndTheFormExcusesIt(t *testing.T) {
	svc := checksScenario()
	d := svc.details["login-fix"]
	one := 1
	d.Verification[0].Baseline = &core.BaselineResult{Status: core.BaselineFailed, Base: "0123456789abcdef0123456789abcdef01234567",
		ExitCode: &one, LogTail: "login_test.go:42: Login(\"\") = nil, want ErrEmptyUser\nFAIL"}
	svc.details["login-fix"] = d
	svc.onControl = func(req core.ControlRequest) (core.TaskView, error) { return svc.tasks[0], nil }
	h := newChecksHarness(t, svc, svc.fakeService, 120, 40, false)
	h.press("4")
	h.requireView("before the change: ✗ fails too on 0123456789ab", "a pre-existing", "base: FAIL")

	h.press("F")
	h.requireView("Failing before the change too: unit", "ctrl+x excuses it")
	h.typeText("Checked it.")
	h.press("tab", "space", "tab", "space")
	h.press("ctrl+x")
	h.requireView("Excusing unit")
	h.press("ctrl+s", "ctrl+s")
	h.requireView("say why the pre-existing failure may stand")
	h.requireControls()
	h.typeText("fails on main since the auth rewrite")
	h.press("ctrl+s")
	got := svc.controls
	if len(got) != 1 || len(got[0].ExcusedChecks) != 1 || got[0].ExcusedChecks[0] != (core.ExcusedCheck{ID: "unit", Reason: "fails on main since the auth rewrite"}) {
		t.Fatalf("controls: %+v", got)
	}
}

// A check that passes before the change is the change's fault: nothing to excuse.
func TestChecksSayWhenTheChangeCausedTheFailure(t *testing.T) {
	svc := checksScenario()
	d := svc.details["login-fix"]
	zero := 0
	d.Verification[0].Baseline = &core.BaselineResult{Status: core.BaselinePassed, Base: "0123456789abcdef0123456789abcdef01234567", ExitCode: &zero}
	svc.details["login-fix"] = d
	h := newChecksHarness(t, svc, svc.fakeService, 120, 40, false)
	h.press("4")
	h.requireView("before the change: ✓ passes", "the change makes it")
	h.press("F")
	if v := h.view(); strings.Contains(v, "ctrl+x") {
		t.Fatalf("the form offers an excuse:\n%s", v)
	}
}
