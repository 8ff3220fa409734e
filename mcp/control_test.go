package mcp

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"reasonixctl/core"
)

// serverSet are the command fields the server fills in and a reasonix_control client never
// sends: the flat form has no key for them.
var serverSet = []string{"authority", "answered_by", "outcome", "client", "grant"}

// jsonNames lists the JSON names of a struct type's fields.
func jsonNames(t reflect.Type) []string {
	var out []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// Each action takes on the wire exactly the fields of its command type, and every action has a
// command type: the flat form and the types cannot drift apart.
func TestControlFieldsAreTheCommandsFields(t *testing.T) {
	flat := jsonNames(reflect.TypeFor[controlArgs]())
	seen := map[string]bool{}
	for _, c := range core.Commands() {
		action := c.Action()
		seen[action] = true
		rule, ok := controlFields[action]
		if !ok {
			t.Errorf("%T (%s) has no entry in controlFields", c, action)
			continue
		}
		var want []string
		for _, f := range jsonNames(reflect.TypeOf(c)) {
			if f != "task_id" && !slices.Contains(serverSet, f) {
				want = append(want, f)
			}
		}
		got := append(slices.Clone(rule.required), rule.optional...)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s takes %v on the wire, but %T has %v", action, got, c, want)
		}
		for _, f := range want {
			if !slices.Contains(flat, f) {
				t.Errorf("%T's %s has no key in controlArgs", c, f)
			}
		}
	}
	for action := range controlFields {
		if !seen[action] {
			t.Errorf("controlFields has %s, which no command type is", action)
		}
	}
	for _, f := range serverSet {
		if slices.Contains(flat, f) {
			t.Errorf("controlArgs has %s, which only the server may set", f)
		}
	}
}

// A request that sets every field its action takes becomes a command holding every one of them,
// and nothing a client may not set.
func TestParseControlKeepsEveryField(t *testing.T) {
	values := map[string]any{
		"message":                   "fix the test",
		"interaction_id":            "permission-2",
		"decision":                  "deny",
		"option_id":                 "reject",
		"answer":                    "no",
		"review_summary":            "looks right",
		"approved_review_criteria":  []any{"a1"},
		"expected_review_revision":  3,
		"expected_review_tree_hash": "4a7748752d0e678809fc033f586028da8e82c3c6",
		"commit_message":            "Fix it",
		"wait_timeout_seconds":      30,
		"acknowledged_risks":        []any{"risk-1"},
		"excused_checks":            []any{map[string]any{"id": "lint", "reason": "fails on main too"}},
		"drop_checks":               []any{"vet"},
		"add_checks":                []any{map[string]any{"id": "unit", "argv": []any{"go", "test"}, "cwd": "svc", "timeout_seconds": 60}},
	}
	for _, action := range slices.Sorted(maps.Keys(controlFields)) {
		rule := controlFields[action]
		args := map[string]any{"task_id": "t-1", "action": action}
		for _, f := range append(slices.Clone(rule.required), rule.optional...) {
			args[f] = values[f]
		}
		raw, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		cmd, err := parseControl(raw)
		if err != nil {
			t.Fatalf("%s: %v", action, err)
		}
		if cmd.Action() != action || cmd.Task() != "t-1" {
			t.Fatalf("%s became %#v", action, cmd)
		}
		got := map[string]any{}
		b, err := json.Marshal(cmd)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if a, ok := got["authority"]; ok {
			if a.(map[string]any)["Cwd"] != "" {
				t.Errorf("%s: an authority from the arguments: %v", action, a)
			}
			delete(got, "authority") // Finalize's is always encoded, empty until the server sets it
		}
		delete(args, "action")
		want, _ := json.Marshal(args)
		have, _ := json.Marshal(got)
		if string(want) != string(have) {
			t.Errorf("%s:\n sent    %s\n command %s", action, want, have)
		}
	}
}
