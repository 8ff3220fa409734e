package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"reasonixctl/core"
)

// A failed check's failures reach Codex one per failure with pre_existing (issue 37): in
// inspect's verification section, which its output schema admits, and in finalize's
// verification_failed error, whose message lists them one per line.
func TestCheckFailuresReachCodexWithPreExisting(t *testing.T) {
	h := newHarness(t, Options{})
	one := 1
	v := core.VerificationResult{ID: "unit", Argv: []string{"go", "test", "./..."}, Cwd: ".", ExitCode: &one, Proves: []string{"ok"},
		LogPath: "/state/verification/t/unit.log", SHA256: "x", FailureFormat: core.FailureFormatGo,
		Baseline: &core.BaselineResult{Status: core.BaselineFailed, Base: "abc", ExitCode: &one},
		Failures: []core.CheckFailure{
			{ID: "example.com/m: m.go: undefined: undefinedSymbol", Message: "undefined: undefinedSymbol"},
			{ID: "example.com/m TestVendorAPI", PreExisting: true},
		}}
	h.fake.inspect = func(_ context.Context, req core.InspectRequest) (core.InspectResult, error) {
		raw, _ := json.Marshal([]core.VerificationResult{v})
		return core.InspectResult{TaskID: req.TaskID, Sections: map[string]json.RawMessage{"verification": raw}, UpdatedAt: "2026-11-30T05:51:10.813Z"}, nil
	}
	got := structuredOf(t, h.call(ToolInspect, map[string]any{"task_id": "t", "include": []any{"verification"}}, nil))
	fs := got["sections"].(map[string]any)["verification"].([]any)[0].(map[string]any)["failures"].([]any)
	if len(fs) != 2 || fs[0].(map[string]any)["pre_existing"] != false || fs[1].(map[string]any)["pre_existing"] != true ||
		fs[0].(map[string]any)["id"] != "example.com/m: m.go: undefined: undefinedSymbol" {
		t.Fatalf("failures: %v", fs)
	}

	h.fake.control = func(context.Context, core.Command) (core.TaskView, error) {
		return core.TaskView{}, core.Errorf(core.CodeVerificationFailed, &core.FailedCheck{
			Verification: "unit", BaselineComparison: &core.BaselineComparison{PreExistingFailure: false,
				Failures: []core.CheckFailure{{ID: "example.com/m: m.go: undefined: undefinedSymbol", PreExisting: false},
					{ID: "example.com/m TestVendorAPI", PreExisting: true}}},
		}, "verification unit failed\nFailures:\n- example.com/m: m.go: undefined: undefinedSymbol (pre_existing: false)\n- example.com/m TestVendorAPI (pre_existing: true)")
	}
	e := envelopeOf(t, h.call(ToolControl, map[string]any{"task_id": "t", "action": "cancel"}, nil))
	list, _ := e.Details["failures"].([]any)
	if len(list) != 2 || list[0].(map[string]any)["pre_existing"] != false || list[1].(map[string]any)["pre_existing"] != true ||
		!strings.Contains(e.Message, "- example.com/m TestVendorAPI (pre_existing: true)") {
		t.Fatalf("envelope: %+v", e)
	}
}
