package baseline

import (
	"strings"
	"testing"

	"reasonixctl/core"
	"reasonixctl/core/contract"
	"reasonixctl/core/failures"
	"reasonixctl/sandbox"
)

// LogOutput takes off exactly the header CheckLog writes, a task's and a base run's alike.
func TestLogOutputTakesOffTheHeader(t *testing.T) {
	v := contract.Verification{Command: contract.Command{ID: "t", Argv: []string{"go", "test", "./..."}, Cwd: "."}}
	res := sandbox.Result{ExitCode: 1, Stdout: []byte("exit: 3 is printed by the test\n--- FAIL: TestX (0.00s)\n"), Stderr: []byte("# m\n")}
	want := "exit: 3 is printed by the test\n--- FAIL: TestX (0.00s)\n\n# m\n"
	for _, status := range []string{"exit: 1 timeout: false", "base: 0123abcd\nexit: 1"} {
		if got := LogOutput(CheckLog(v, status, res)); got != want {
			t.Errorf("%q: %q", status, got)
		}
	}
	if got := LogOutput([]byte("not a log")); got != "not a log" {
		t.Errorf("%q", got)
	}
}

// A base run's log cut at its limit names no failure: what was cut could hold any.
func TestReadFailuresOfACutLogNamesNone(t *testing.T) {
	v := contract.Verification{Command: contract.Command{ID: "t", Argv: []string{"go", "test", "./..."}, Cwd: "."}}
	log := CheckLog(v, "base: 0123\nexit: 1", sandbox.Result{ExitCode: 1, Stdout: []byte("--- FAIL: TestX (0.00s)\nFAIL\tm\t0.1s\n")})
	var out core.BaselineResult
	readFailures(&out, v, log, failures.Roots{})
	if out.FailureFormat != core.FailureFormatGo || len(out.Failures) != 1 || out.Failures[0].ID != "m TestX" || out.OutputDigest == "" {
		t.Fatalf("%+v", out)
	}
	cut := append(log, []byte(strings.Repeat("x", core.VerificationLogMax))...)[:core.VerificationLogMax]
	out = core.BaselineResult{}
	readFailures(&out, v, cut, failures.Roots{})
	if out.FailureFormat != "" || len(out.Failures) != 0 {
		t.Fatalf("a cut log named failures: %+v", out)
	}
}
