package mcp

import (
	"testing"

	"reasonixctl/core"
)

// The envelope of an error with a typed detail is, byte for byte, the envelope of the same error
// when its details were a map literal: issue lists path first, everything else redacted through
// its JSON with keys sorted at every level, secrets cut.
func TestEnvelopeOfTypedDetailsIsTheOldOne(t *testing.T) {
	exit := 1
	issues := []core.Issue{{Path: "verification.0.argv", Message: "token ghp_abcdefghijklmnopqrstuvwxyz"}}
	view := core.TaskView{TaskID: "t1", State: core.StateVerifying, Phase: "checks", Reason: "AKIAABCDEFGHIJKLMNOP"}
	refusals := []core.PathRefusal{{Path: ".env", Reason: core.RefusedSensitive, Hint: core.RefusalHint(core.RefusedSensitive)}}
	for name, tc := range map[string]struct {
		code   core.Code
		detail core.Detail
		old    map[string]any
	}{
		"issues": {core.CodeInvalidRequest, &core.IssueList{Issues: issues}, map[string]any{"issues": issues}},
		"unfinished draft": {core.CodeInvalidContract, &core.UnfinishedDraft{Reason: "unfinished_draft", Placeholders: []string{"objective"}, Issues: issues},
			map[string]any{"reason": "unfinished_draft", "placeholders": []string{"objective"}, "issues": issues}},
		"stale": {core.CodeInvalidRequest,
			&core.StaleSnapshot{Checkpoint: "finalize_start", Expected: core.ReviewSnapshot{ReviewRevision: 2, ReviewTreeHash: "aa"},
				Current: core.ReviewSnapshot{ReviewRevision: 3, ReviewTreeHash: "bb"}},
			map[string]any{"checkpoint": "finalize_start",
				"expected": map[string]any{"review_revision": 2, "review_tree_hash": "aa"},
				"current":  map[string]any{"review_revision": 3, "review_tree_hash": "bb"}}},
		"failed check": {core.CodeVerificationFailed,
			&core.FailedCheck{Verification: "unit", Argv: []string{"go", "test"}, ExitCode: &exit, LogPath: "/l/unit.log", LogTail: "FAIL <x> & y",
				BaselineComparison: &core.BaselineComparison{Baseline: &core.BaselineSummary{Status: "passed", Base: "abc"},
					Failures: []core.CheckFailure{{ID: "TestA", PreExisting: false}}, FailureFormat: core.FailureFormatOutput}},
			map[string]any{"verification": "unit", "argv": []string{"go", "test"}, "exit_code": &exit, "timed_out": false,
				"log_path": "/l/unit.log", "log_tail": "FAIL <x> & y", "pre_existing_failure": false,
				"baseline": map[string]any{"status": "passed", "base": "abc"},
				"failures": []map[string]any{{"id": "TestA", "pre_existing": false}}, "failure_format": core.FailureFormatOutput}},
		"refused": {core.CodeScopeViolation, &core.ChangeRefused{Reason: core.RefusedSensitive, Paths: []string{".env"}, Refusals: refusals},
			map[string]any{"reason": core.RefusedSensitive, "paths": []string{".env"}, "refusals": refusals}},
		"task view": {core.CodeInvalidState, &core.FinalizeRunning{Task: view, TimedOut: true, Recoverable: true},
			map[string]any{"task": view, "timed_out": true, "recoverable": true}},
	} {
		t.Run(name, func(t *testing.T) {
			typed := core.Errorf(tc.code, tc.detail, "sample")
			old := *typed
			old.Details, old.Detail = tc.old, nil
			got, want := textOf(t, errorResult(typed)), textOf(t, errorResult(&old))
			if got != want {
				t.Fatalf("envelope\n%s\nwant\n%s", got, want)
			}
		})
	}
}
