package mcp

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"reasonixctl/core"
)

// FuzzValidateInput: the input validator answers any bytes with a bounded, sorted, repeatable
// issue list, and arguments it accepts decode into the request struct or fail as
// invalid_request, never otherwise.
func FuzzValidateInput(f *testing.F) {
	for _, s := range []string{
		`{"task_id":"t1","action":"status"}`,
		`{"contract":{"acceptance_criteria":[{"evidence":"review","id":"a1","requirement":"file exists"}],"objective":"Create result.txt","schema_version":1,"user_outcome":"result.txt exists","verification":[],"write_scope":["result.txt"]},"task_id":"t1"}`,
		`{"task_id":"t1","action":"pause","pause_revision":1e400}`,
		`{"task_id":"t1","include":["events","diff"],"max_bytes":4096,"cursor":"x.y"}`,
		`{"task_id":"t1","cwd":"/r","contract":{"schema_version":1,"objective":"o","verification":[{"argv":[1]}]}}`,
		`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"r":18,"s":19,"t":20,"u":21,"v":22,"w":23,"x":24,"y":25,"z":26}`,
		`[]`, `null`, `{} {}`, `{"task_id":"\ud800"}`, `{"max_bytes":1.5e-9}`,
	} {
		for tool := range uint8(3) {
			f.Add(tool, []byte(s))
		}
	}
	rules, err := inputRules()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, tool uint8, args []byte) {
		name := []string{ToolDelegate, ToolControl, ToolInspect}[tool%3]
		issues := validateInput(rules[name], args)
		if len(issues) > maxIssues+1 {
			t.Fatalf("%d issues", len(issues))
		}
		listed := issues
		if len(issues) == maxIssues+1 {
			if last := issues[maxIssues]; last != (core.Issue{Path: "arguments", Message: "further issues omitted"}) {
				t.Fatalf("%d issues end with %+v", len(issues), last)
			}
			listed = issues[:maxIssues]
		}
		for i, is := range listed {
			if is.Path == "" || is.Message == "" || !utf8.ValidString(is.Path) || !utf8.ValidString(is.Message) {
				t.Fatalf("malformed issue %+v", is)
			}
			if i > 0 && strings.Compare(listed[i-1].Path+"\x00"+listed[i-1].Message, is.Path+"\x00"+is.Message) >= 0 {
				t.Fatalf("issues not sorted and unique: %+v", issues)
			}
		}
		if again := validateInput(rules[name], args); !reflect.DeepEqual(again, issues) {
			t.Fatalf("validation is not repeatable:\n%+v\n%+v", issues, again)
		}
		if len(issues) > 0 {
			return
		}
		var into any
		switch name {
		case ToolDelegate:
			into = new(core.DelegateRequest)
		case ToolControl:
			into = new(controlArgs)
		default:
			into = new(core.InspectRequest)
		}
		if err := decodeStrict(name, args, into); err != nil {
			var e *core.Error
			if !errors.As(err, &e) || e.Code != core.CodeInvalidRequest {
				t.Fatalf("accepted arguments failed to decode with %v", err)
			}
		}
	})
}
