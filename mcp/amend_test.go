package mcp

import (
	"reflect"
	"strings"
	"testing"

	"reasonixctl/core"
)

// amend_checks reaches the service with its drop_checks and add_checks as sent, without sandbox
// metadata (it runs nothing; finalize runs the amended checks under its own authority).
func TestControlAmendChecks(t *testing.T) {
	h := newHarness(t, Options{})
	args := map[string]any{"task_id": "cap-1", "action": "amend_checks", "drop_checks": []any{"go-vet"},
		"add_checks": []any{
			map[string]any{"id": "unit", "argv": []any{"go", "test", "./pkg/..."}, "cwd": "svc", "timeout_seconds": 300},
			map[string]any{"id": "lint", "argv": []any{"golangci-lint", "run"}},
		}}
	got := structuredOf(t, h.call(ToolControl, args, nil))
	if got["task_id"] != "cap-1" {
		t.Fatalf("got %v", got)
	}
	_, c, _ := h.fake.calls()
	if len(c) != 1 {
		t.Fatalf("%d control calls", len(c))
	}
	want := []core.AddedCheck{
		{ID: "unit", Argv: []string{"go", "test", "./pkg/..."}, Cwd: "svc", TimeoutSeconds: 300},
		{ID: "lint", Argv: []string{"golangci-lint", "run"}},
	}
	if a, ok := c[0].(core.AmendChecks); !ok || a.TaskID != "cap-1" || !reflect.DeepEqual(a.DropChecks, []string{"go-vet"}) ||
		!reflect.DeepEqual(a.AddChecks, want) {
		t.Fatalf("amend request = %#v", c[0])
	}
}

// The schema and core's union refuse a malformed amendment before the service sees it.
func TestControlAmendChecksRefused(t *testing.T) {
	long := strings.Repeat("a", 60) // "<id>-passes" would be 67 characters
	for _, tc := range []struct {
		name string
		args map[string]any
		want []core.Issue
	}{
		{"nothing to amend", map[string]any{"task_id": "t", "action": "amend_checks"},
			[]core.Issue{{Path: "drop_checks", Message: "drop_checks or add_checks must name at least one check"}}},
		{"empty lists", map[string]any{"task_id": "t", "action": "amend_checks", "drop_checks": []any{}, "add_checks": []any{}},
			[]core.Issue{{Path: "drop_checks", Message: "drop_checks or add_checks must name at least one check"}}},
		{"steer takes no drop_checks", map[string]any{"task_id": "t", "action": "steer", "message": "m", "drop_checks": []any{"v1"}},
			[]core.Issue{{Path: "drop_checks", Message: "Not allowed for action steer"}}},
		{"finalize takes no add_checks", map[string]any{"task_id": "t", "action": "finalize", "review_summary": "ok",
			"approved_review_criteria": []any{}, "expected_review_revision": 1, "expected_review_tree_hash": strings.Repeat("a", 40),
			"add_checks": []any{map[string]any{"id": "x", "argv": []any{"true"}}}},
			[]core.Issue{{Path: "add_checks", Message: "Not allowed for action finalize"}}},
		{"amend_checks takes no message", map[string]any{"task_id": "t", "action": "amend_checks", "drop_checks": []any{"v1"}, "message": "m"},
			[]core.Issue{{Path: "message", Message: "Not allowed for action amend_checks"}}},
		{"a check without argv", map[string]any{"task_id": "t", "action": "amend_checks", "add_checks": []any{map[string]any{"id": "x"}}},
			[]core.Issue{{Path: "add_checks.0.argv", Message: "Required"}}},
		{"an empty argv", map[string]any{"task_id": "t", "action": "amend_checks", "add_checks": []any{map[string]any{"id": "x", "argv": []any{}}}},
			[]core.Issue{{Path: "add_checks.0.argv", Message: "minItems: got 0, want 1"}}},
		{"a check proves only its own criterion", map[string]any{"task_id": "t", "action": "amend_checks",
			"add_checks": []any{map[string]any{"id": "x", "argv": []any{"true"}, "proves": []any{"other"}}}},
			[]core.Issue{{Path: "add_checks.0.proves", Message: "Unrecognized key"}}},
		{"a bad id", map[string]any{"task_id": "t", "action": "amend_checks", "add_checks": []any{map[string]any{"id": "-x", "argv": []any{"true"}}}},
			[]core.Issue{{Path: "add_checks.0.id", Message: "'-x' does not match pattern '^[A-Za-z][A-Za-z0-9._-]{0,63}$'"}}},
		{"an id too long for its criterion", map[string]any{"task_id": "t", "action": "amend_checks", "add_checks": []any{map[string]any{"id": long, "argv": []any{"true"}}}},
			[]core.Issue{{Path: "add_checks.0.id", Message: `must match ^[A-Za-z][A-Za-z0-9._-]{0,63}$ and leave room for "-passes" within 64 characters`}}},
		{"a drop id of the wrong type", map[string]any{"task_id": "t", "action": "amend_checks", "drop_checks": []any{1}},
			[]core.Issue{{Path: "drop_checks.0", Message: "got number, want string"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Options{})
			e := envelopeOf(t, h.call(ToolControl, tc.args, writableMeta("/r")))
			if e.Code != core.CodeInvalidRequest || e.NextAction != core.NextFixRequest {
				t.Fatalf("got %+v", e)
			}
			if got := issuesOf(t, e); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("issues = %+v\nwant %+v", got, tc.want)
			}
			if _, c, _ := h.fake.calls(); len(c) != 0 {
				t.Fatal("an invalid amendment reached the service")
			}
		})
	}
}
