package engine

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
)

// Excuses are judged failure by failure (issue 37): a check that fails on the base commit too
// is excusable only when every failure it shows after the change is one the base shows.

// failuresOf lists a verification error's details.failures as "id=pre_existing".
func failuresOf(t *testing.T, e *core.Error) map[string]bool {
	t.Helper()
	raw, ok := e.Details["failures"].([]core.CheckFailure)
	if !ok {
		t.Fatalf("details.failures: %#v", e.Details["failures"])
	}
	out := map[string]bool{}
	for _, f := range raw {
		out[f.ID] = f.PreExisting
	}
	return out
}

func steerAndWait(t *testing.T, h *harness, id, msg string) core.TaskView {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if _, err := h.e.Control(ctx, core.Steer{TaskID: id, Message: msg}); err != nil {
		t.Fatal(err)
	}
	r, timedOut, err := h.e.waitFor(ctx, id, 30*time.Second, func(r *taskRecord) bool {
		return r.State == core.StateReviewRequired && !r.RepairActive
	})
	if err != nil || timedOut {
		t.Fatalf("no review after the repair round: %v", err)
	}
	return r.view()
}

// The Go case, with the real go test on a real module whose HEAD already has one failing
// test. A change that breaks the build shows a failure the base does not have: it is blocked,
// and an excuse for it is refused, although the check "fails on the base too". After a repair
// that leaves only the known failing test, the same check is excusable and the commit builds.
func TestExcuseCoversOnlyTheBaseFailuresGoBuildBroken(t *testing.T) {
	needTools(t, "go")
	const known = "package m\n\nimport \"testing\"\n\nfunc TestVendorAPI(t *testing.T) {\n\tt.Fatal(\"the vendor API is down\")\n}\n\n" +
		"func TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(Add(1, 2))\n\t}\n}\n"
	scn := &acptest.Scenario{Name: "go-build", Turns: []acptest.Turn{
		{Steps: []acptest.Step{{Write: &acptest.WriteFile{Path: "m.go",
			Content: "package m\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Broken() int { return undefinedSymbol }\n"}}},
			Summary: "Added Broken."},
		{Match: "Fix the build", Steps: []acptest.Step{{Write: &acptest.WriteFile{Path: "m.go",
			Content: "package m\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n\n// Twice doubles.\nfunc Twice(a int) int { return Add(a, a) }\n"}}},
			Summary: "Fixed the build."},
	}}
	h := newHarness(t, scn)
	commitFiles(t, h.repo, map[string]string{
		"go.mod":    "module example.com/m\n\ngo 1.22\n",
		"m.go":      "package m\n\nfunc Add(a, b int) int { return a + b }\n",
		"m_test.go": known,
	})
	res, err := h.delegate("gob", func(r *core.DelegateRequest) {
		r.Contract = []byte(strings.Replace(string(languageContract([][]string{{"go", "test", "./..."}})), `"write_scope":["NOTES.md"]`, `"write_scope":["m.go"]`, 1))
	})
	if err != nil || res.State != core.StateReviewRequired {
		t.Fatalf("delegate: %v %+v", err, res)
	}

	// (a) The build is broken: the base fails too (TestVendorAPI), but not with this failure.
	_, err = finalizeWith(h, res.TaskView, nil, "reads-well")
	e := mustCode(t, err, core.CodeVerificationFailed)
	got := failuresOf(t, e)
	if pre, ok := got["example.com/m: m.go: undefined: undefinedSymbol"]; !ok || pre || len(got) != 1 {
		t.Fatalf("failures %v\n%s", got, e.Message)
	}
	if e.Details["pre_existing_failure"] != false || strings.Contains(e.Message, "a pre-existing failure") ||
		!strings.Contains(e.Message, "- example.com/m: m.go: undefined: undefinedSymbol (pre_existing: false)") {
		t.Fatalf("details %+v\n%s", e.Details, e.Message)
	}
	base, _ := e.Details["baseline"].(*core.BaselineSummary)
	if base == nil || base.Status != core.BaselineFailed {
		t.Fatalf("the base should fail too (its TestVendorAPI): %+v", base)
	}
	d, _ := h.e.Get(t.Context(), "gob")
	v := d.Verification[0]
	if v.Excusable() || v.FailureFormat != core.FailureFormatGo || len(v.Baseline.Failures) != 1 || v.Baseline.Failures[0].ID != "example.com/m TestVendorAPI" {
		t.Fatalf("recorded: %+v\nbase: %+v", v, v.Baseline)
	}
	_, err = finalizeWith(h, d.View, []core.ExcusedCheck{{ID: "v1", Reason: "the vendor API is down upstream"}}, "reads-well")
	e = mustCode(t, err, core.CodeVerificationFailed)
	if e.Details["reason"] != "not_excusable" || !strings.Contains(e.Message, "undefined: undefinedSymbol") {
		t.Fatalf("an excuse covered a build failure the change caused: %+v\n%s", e.Details, e.Message)
	}
	d, _ = h.e.Get(t.Context(), "gob")
	if d.View.CommitHash != "" || d.Verification[0].Excused {
		t.Fatalf("committed or excused: %+v %+v", d.View, d.Verification[0])
	}

	// (b) Repaired: only the known failing test is left, moved down by the change's lines.
	view := steerAndWait(t, h, "gob", "Fix the build, please.")
	_, err = finalizeWith(h, view, nil, "reads-well")
	e = mustCode(t, err, core.CodeVerificationFailed)
	if got := failuresOf(t, e); len(got) != 1 || !got["example.com/m TestVendorAPI"] || e.Details["pre_existing_failure"] != true ||
		!strings.Contains(e.Message, "with the same failures") {
		t.Fatalf("failures %v details %+v\n%s", got, e.Details, e.Message)
	}
	d, _ = h.e.Get(t.Context(), "gob")
	committed, err := finalizeWith(h, d.View, []core.ExcusedCheck{{ID: "v1", Reason: "the vendor API is down upstream"}}, "reads-well")
	if err != nil || committed.State != core.StateCompleted || committed.CommitHash == "" {
		t.Fatalf("not committed: %v %+v", err, committed)
	}
	if src := git(t, h.repo, "show", committed.CommitHash+":m.go"); strings.Contains(src, "undefinedSymbol") {
		t.Fatalf("the commit holds the broken build:\n%s", src)
	}
	d, _ = h.e.Get(t.Context(), "gob")
	if v := d.Verification[0]; !v.Excused || len(v.Failures) != 1 || !v.Failures[0].PreExisting {
		t.Fatalf("recorded: %+v", v)
	}
}

// A unittest suite whose test_vendor_api already fails: a change that adds a failing test_result
// next to it is blocked, and an excuse is refused; the known failure alone stays pre-existing.
func TestExcuseCoversOnlyTheBaseFailuresUnittest(t *testing.T) {
	needTools(t, "python3")
	scn := &acptest.Scenario{Name: "py", Turns: []acptest.Turn{{
		Steps: []acptest.Step{{Write: &acptest.WriteFile{Path: "test_result.py",
			Content: "import unittest\n\nclass R(unittest.TestCase):\n    def test_result(self):\n        self.assertEqual(1, 2, 'broken by the change')\n"}}},
		Summary: "Wrote a test.",
	}}}
	h := newHarness(t, scn)
	commitFiles(t, h.repo, map[string]string{
		"pyproject.toml": "[project]\nname = \"calc\"\nversion = \"0.1.0\"\n",
		"test_calc.py": "import unittest\n\nclass T(unittest.TestCase):\n    def test_vendor_api(self):\n        self.fail('the vendor API is down')\n\n" +
			"    def test_add(self):\n        self.assertEqual(1 + 2, 3)\n",
	})
	res, err := h.delegate("py", func(r *core.DelegateRequest) {
		r.Contract = []byte(strings.Replace(string(languageContract([][]string{{"python3", "-m", "unittest"}})), `"write_scope":["NOTES.md"]`, `"write_scope":["test_result.py"]`, 1))
	})
	if err != nil || res.State != core.StateReviewRequired {
		t.Fatalf("delegate: %v %+v", err, res)
	}
	_, err = finalizeWith(h, res.TaskView, nil, "reads-well")
	e := mustCode(t, err, core.CodeVerificationFailed)
	got := failuresOf(t, e)
	if len(got) != 2 || got["test_result.R.test_result"] || !got["test_calc.T.test_vendor_api"] || e.Details["pre_existing_failure"] != false {
		t.Fatalf("failures %v details %+v\n%s", got, e.Details, e.Message)
	}
	if e.Details["failure_format"] != core.FailureFormatUnittest {
		t.Fatalf("read as %v", e.Details["failure_format"])
	}
	d, _ := h.e.Get(t.Context(), "py")
	_, err = finalizeWith(h, d.View, []core.ExcusedCheck{{ID: "v1", Reason: "vendor API down"}}, "reads-well")
	if e := mustCode(t, err, core.CodeVerificationFailed); e.Details["reason"] != "not_excusable" || !strings.Contains(e.Message, "test_result.R.test_result") {
		t.Fatalf("%+v\n%s", e.Details, e.Message)
	}
}

// A `make check` has no reporter we read: it is excusable only when its whole output, with
// times, durations and temporary paths taken out, is the base's. A change that leaves the
// output as it was is excusable; one more FAIL line is a new failure.
func TestExcuseOfACheckWithNoReporterComparesItsWholeOutput(t *testing.T) {
	needTools(t, "make", "sh")
	const checkScript = "#!/bin/sh\nstatus=0\nfor t in tests/*.sh; do\n  start=$(date +%s%N)\n" +
		"  if sh \"$t\" >/dev/null 2>&1; then r=ok; else r=FAIL; status=1; fi\n" +
		"  echo \"$r $t ($(( ($(date +%s%N) - start) / 1000 ))us)\"\ndone\n" +
		"echo \"finished at $(date +%H:%M:%S) in $(mktemp -d)\"\nexit $status\n"
	scn := &acptest.Scenario{Name: "make", Turns: []acptest.Turn{
		{Steps: []acptest.Step{{Write: &acptest.WriteFile{Path: "NOTES.md", Content: "checked\n"}}}, Summary: "Wrote NOTES.md."},
		{Match: "Add the result test", Steps: []acptest.Step{{Write: &acptest.WriteFile{Path: "tests/result.sh", Content: "test 1 -eq 2\n"}}},
			Summary: "Added a test."},
	}}
	h := newHarness(t, scn)
	commitFiles(t, h.repo, map[string]string{
		"Makefile":            "check:\n\t@sh ./check.sh\n",
		"check.sh":            checkScript,
		"tests/add.sh":        "test 3 -eq 3\n",
		"tests/vendor_api.sh": "echo 'the vendor API is down'; exit 1\n",
	})
	res, err := h.delegate("mk", func(r *core.DelegateRequest) {
		r.Contract = []byte(strings.Replace(string(languageContract([][]string{{"make", "check"}})), `"write_scope":["NOTES.md"]`, `"write_scope":["NOTES.md","tests/**"]`, 1))
	})
	if err != nil || res.State != core.StateReviewRequired {
		t.Fatalf("delegate: %v %+v", err, res)
	}
	_, err = finalizeWith(h, res.TaskView, nil, "reads-well")
	e := mustCode(t, err, core.CodeVerificationFailed)
	if got := failuresOf(t, e); e.Details["pre_existing_failure"] != true || e.Details["failure_format"] != core.FailureFormatOutput || !got["FAIL tests/vendor_api.sh (<dur>)"] {
		t.Fatalf("the same output after the change: failures %v details %+v\n%s", got, e.Details, e.Message)
	}

	view := steerAndWait(t, h, "mk", "Add the result test.")
	_, err = finalizeWith(h, view, nil, "reads-well")
	e = mustCode(t, err, core.CodeVerificationFailed)
	got := failuresOf(t, e)
	if e.Details["pre_existing_failure"] != false || got["FAIL tests/result.sh (<dur>)"] || !got["FAIL tests/vendor_api.sh (<dur>)"] {
		t.Fatalf("one more FAIL line: failures %v details %+v\n%s", got, e.Details, e.Message)
	}
	d, _ := h.e.Get(t.Context(), "mk")
	_, err = finalizeWith(h, d.View, []core.ExcusedCheck{{ID: "v1", Reason: "vendor API down"}}, "reads-well")
	if e := mustCode(t, err, core.CodeVerificationFailed); e.Details["reason"] != "not_excusable" {
		t.Fatalf("%+v\n%s", e.Details, e.Message)
	}
}

// Beyond the failures named, the run must end as the base's did: another exit status, a timeout
// or an output cut at the log's limit is a failure of its own that no excuse covers; a base
// that passes or is unknown makes every failure new.
func TestJudgeCheckComparesHowTheRunEnded(t *testing.T) {
	h := newHarness(t, &acptest.Scenario{Name: "none"})
	r := &taskRecord{TaskID: "j", Worktree: "/state/worktrees/r/j"}
	argv := []string{"go", "test", "./..."}
	logOf := func(out string) string {
		p := filepath.Join(t.TempDir(), "unit.log")
		writeFile(t, p, []byte("$ [\"go\",\"test\",\"./...\"]\ncwd: .\nexit: 1 timeout: false\n"+out))
		return p
	}
	known := "--- FAIL: TestVendorAPI (0.00s)\n    m_test.go:6: down\nFAIL\nFAIL\texample.com/m\t0.01s\nFAIL\n\n"
	one, two := 1, 2
	base := func(exit *int) *core.BaselineResult {
		return &core.BaselineResult{Status: core.BaselineFailed, Base: "b", ExitCode: exit, FailureFormat: core.FailureFormatGo,
			Failures: []core.CheckFailure{{ID: "example.com/m TestVendorAPI"}}}
	}
	for _, tc := range []struct {
		name      string
		v         core.VerificationResult
		excusable bool
		extra     string
	}{
		{"the same", core.VerificationResult{ExitCode: &one, Baseline: base(&one)}, true, ""},
		{"another exit status", core.VerificationResult{ExitCode: &two, Baseline: base(&one)}, false, "exit status"},
		{"timed out", core.VerificationResult{TimedOut: true, Baseline: base(&one)}, false, "timed out"},
		{"base cut", core.VerificationResult{ExitCode: &one, Baseline: &core.BaselineResult{Status: core.BaselineFailed, Base: "b", ExitCode: &one}}, false, "base output cut"},
		{"base passes", core.VerificationResult{ExitCode: &one, Baseline: &core.BaselineResult{Status: core.BaselinePassed, Base: "b", ExitCode: new(int)}}, false, ""},
		{"base unknown", core.VerificationResult{ExitCode: &one, Baseline: &core.BaselineResult{Status: core.BaselineUnknown, Base: "b", Reason: "no sandbox"}}, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.v
			v.ID, v.Argv, v.LogPath = "unit", argv, logOf(known)
			h.e.judgeCheck(r, &v)
			if v.Excusable() != tc.excusable || v.FailureFormat != core.FailureFormatGo || v.Failures[0].ID != "example.com/m TestVendorAPI" {
				t.Fatalf("%+v", v)
			}
			if last := v.Failures[len(v.Failures)-1]; tc.extra != "" && (last.ID != tc.extra || last.PreExisting) {
				t.Fatalf("want a new %q failure: %+v", tc.extra, v.Failures)
			}
			if tc.name == "base passes" && (v.Failures[0].PreExisting || !strings.Contains(JudgementSentence(v), "passes on the base")) {
				t.Fatalf("%+v", v)
			}
		})
	}
	// A log cut at its limit could hide any failure.
	v := core.VerificationResult{ID: "unit", Argv: argv, ExitCode: &one, Baseline: base(&one)}
	v.LogPath = logOf(known + strings.Repeat("x", core.VerificationLogMax))
	h.e.judgeCheck(r, &v)
	if v.Excusable() || v.Failures[len(v.Failures)-1].ID != "output cut" {
		t.Fatalf("%+v", v.Failures)
	}
}
