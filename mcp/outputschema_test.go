package mcp

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
	"reasonixctl/core/engine"
)

// Every reasonix_control action, run on a real engine over MCP, returns a result that its
// advertised output schema accepts (the harness checks each one): the question and the
// permission answered, a repair steered, checks amended, a conflict rebased, a finalize
// committed, tasks cancelled and closed. The delegate and inspect results along the way are
// checked too, inspect with every section.
func TestEveryControlResultMatchesItsSchema(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	repo := riskRepo(t)
	write := func(content string) acptest.Step {
		return acptest.Step{Write: &acptest.WriteFile{Path: "result.txt", Content: content}, Permission: "ask"}
	}
	scn := &acptest.Scenario{Turns: []acptest.Turn{
		{Match: "Greet after asking", Steps: []acptest.Step{
			{Ask: &acptest.Question{Question: "Which greeting?", Options: []acptest.Choice{{Label: "ok"}, {Label: "hello"}}}},
			{Shell: &acptest.Shell{Command: "make lint", Output: "fine"}, Permission: "ask"},
			write("hello\n"),
		}},
		{Match: "Say hello twice", Steps: []acptest.Step{write("hello\nhello\n")}},
		{Match: "Leave a note", Steps: []acptest.Step{write("note\n")}},
		{Match: "These files conflict: result.txt", Steps: []acptest.Step{{Hang: true}}},
	}}
	e, err := engine.Open(engine.Config{StateDir: t.TempDir(), Mode: "test",
		Worker: engine.PipeWorker(func(ctx context.Context, r io.Reader, w io.Writer) error {
			return acptest.Serve(ctx, r, w, acptest.Options{Scenario: scn})
		})})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	// Supervised, so that a command the policy does not know waits for respond.
	h := newHarnessWith(t, Options{PermissionMode: core.PermissionSupervised}, &fakeService{},
		func(context.Context) (core.Service, error) { return e, nil })

	checked := map[string]bool{}
	control := func(args map[string]any, meta map[string]any) map[string]any {
		t.Helper()
		v := structuredOf(t, h.call(ToolControl, args, meta))
		checked[args["action"].(string)] = true
		return v
	}
	delegate := func(id, objective string) map[string]any {
		t.Helper()
		c := sampleContract()
		c["objective"] = objective
		return structuredOf(t, h.call(ToolDelegate, map[string]any{"task_id": id, "contract": c, "wait_timeout_seconds": 60}, writableMeta(repo)))
	}
	want := func(v map[string]any, state core.State) {
		t.Helper()
		if v["state"] != string(state) {
			t.Fatalf("state %v, want %s: %v", v["state"], state, v)
		}
	}
	interaction := func(v map[string]any, kind string) string {
		t.Helper()
		ia, _ := v["active_interaction"].(map[string]any)
		if ia == nil || ia["kind"] != kind {
			t.Fatalf("active_interaction %v, want a pending %s", v["active_interaction"], kind)
		}
		return ia["id"].(string)
	}

	// A question, then a command, each answered with respond.
	v := delegate("schema-a", "Greet after asking")
	want(v, core.StateWaitingInput)
	want(control(map[string]any{"task_id": "schema-a", "action": "respond", "interaction_id": interaction(v, core.InteractionInput),
		"decision": "allow", "answer": "hello"}, nil), core.StateRunning)
	v = delegate("schema-a", "Greet after asking")
	want(v, core.StateWaitingPermission)
	want(control(map[string]any{"task_id": "schema-a", "action": "respond", "interaction_id": interaction(v, core.InteractionPermission),
		"decision": "allow"}, nil), core.StateRunning)
	want(delegate("schema-a", "Greet after asking"), core.StateReviewRequired)

	// A repair round, then finalize.
	want(control(map[string]any{"task_id": "schema-a", "action": "steer", "message": "Say hello twice"}, nil), core.StateRunning)
	v = delegate("schema-a", "Greet after asking")
	want(v, core.StateReviewRequired)
	done := control(map[string]any{"task_id": "schema-a", "action": "finalize", "review_summary": "greets twice",
		"approved_review_criteria": []any{"a1"}, "expected_review_revision": v["review_revision"],
		"expected_review_tree_hash": v["review_tree_hash"], "wait_timeout_seconds": 60}, writableMeta(repo))
	want(done, core.StateCompleted)
	commit, _ := done["commit_hash"].(string)
	if !regexp.MustCompile(commitHashPattern).MatchString(commit) || done["integration_command"] != "git cherry-pick "+commit {
		t.Fatalf("finalize: commit_hash %q, integration_command %v", commit, done["integration_command"])
	}
	all := structuredOf(t, h.call(ToolInspect, map[string]any{"task_id": "schema-a", "include": toAny(core.InspectSections),
		"max_bytes": core.MaxInspectMaxBytes}, nil))
	sections, _ := all["sections"].(map[string]any)
	if ias, _ := sections["interactions"].([]any); len(ias) != 2 {
		t.Fatalf("inspect's interactions: %v", sections["interactions"])
	}

	// Checks amended in review, then the task closed.
	want(delegate("schema-b", "Leave a note"), core.StateReviewRequired)
	want(control(map[string]any{"task_id": "schema-b", "action": "amend_checks",
		"add_checks": []any{map[string]any{"id": "lists", "argv": []any{"ls"}}}}, nil), core.StateReviewRequired)
	want(control(map[string]any{"task_id": "schema-b", "action": "close"}, nil), core.StateClosed)

	// A review that conflicts with a commit made since on the source is rebased onto it, and the
	// repair round cancelled.
	want(delegate("schema-c", "Leave a note"), core.StateReviewRequired)
	if err := os.WriteFile(filepath.Join(repo, "result.txt"), []byte("theirs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"add", "result.txt"}, {"commit", "-q", "-m", "theirs"}} {
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	want(control(map[string]any{"task_id": "schema-c", "action": "rebase"}, nil), core.StateRunning)
	want(control(map[string]any{"task_id": "schema-c", "action": "cancel"}, nil), core.StateCancelled)

	for _, c := range core.Commands() {
		if action := c.Action(); !checked[action] {
			t.Errorf("no result of reasonix_control %s was checked against its schema", action)
		}
	}
}

// The earlier bridge's own results, as Codex has seen them, fit the schemas we advertise: a
// client that took those takes ours.
func TestReferenceResultsMatchOurSchemas(t *testing.T) {
	schemas, err := fullSchemas()
	if err != nil {
		t.Fatal(err)
	}
	for file, tool := range map[string]string{
		"testdata/reference_delegate_review.json": ToolDelegate,
		"testdata/reference_finalize_ok.json":     ToolControl,
		"testdata/reference_inspect_all.json":     ToolInspect,
		"testdata/reference_inspect_paged.json":   ToolInspect,
	} {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var res struct {
			StructuredContent json.RawMessage `json:"structuredContent"`
		}
		if err := json.Unmarshal(raw, &res); err != nil || len(res.StructuredContent) == 0 {
			t.Fatalf("%s: no structuredContent (%v)", file, err)
		}
		if issues := fullIssues(schemas[tool][1], res.StructuredContent); len(issues) > 0 {
			t.Errorf("%s does not fit %s's output schema: %+v", file, tool, issues)
		}
	}
}

// The Go types the results are encoded from fit the output schemas: every field they can
// encode is a property of the schema with the JSON type it encodes to, and every property the
// schema requires is one they always encode. A field added to a core type without its schema
// fails here rather than in a client that checks results.
func TestOutputSchemasCoverCoreTypes(t *testing.T) {
	schemas := map[string]map[string]any{}
	for _, tool := range decodeToolsList(t, toolsListJSON(t)).Tools {
		schemas[tool.Name] = tool.OutputSchema
	}
	section := func(name string) map[string]any {
		return schemas[ToolInspect]["properties"].(map[string]any)["sections"].(map[string]any)["properties"].(map[string]any)[name].(map[string]any)
	}
	for _, c := range []struct {
		at     string
		typ    reflect.Type
		schema map[string]any
	}{
		{ToolControl, reflect.TypeFor[core.TaskView](), schemas[ToolControl]},
		{ToolDelegate, reflect.TypeFor[core.DelegateResult](), schemas[ToolDelegate]},
		{ToolInspect, reflect.TypeFor[core.InspectResult](), schemas[ToolInspect]},
		{"sections.status", reflect.TypeFor[core.TaskView](), section("status")},
		{"sections.changed_files", reflect.TypeFor[[]string](), section("changed_files")},
		{"sections.verification", reflect.TypeFor[[]core.VerificationResult](), section("verification")},
		{"sections.acceptance_evidence", reflect.TypeFor[[]core.AcceptanceEvidence](), section("acceptance_evidence")},
		{"sections.risks", reflect.TypeFor[[]string](), section("risks")},
		{"sections.usage", reflect.TypeFor[core.Usage](), section("usage")},
		{"sections.interactions", reflect.TypeFor[[]core.Interaction](), section("interactions")},
	} {
		checkCoreType(t, c.at, c.typ, c.schema)
	}
}

var (
	rawJSONType = reflect.TypeFor[json.RawMessage]()
	timeType    = reflect.TypeFor[time.Time]()
)

// checkCoreType holds the JSON encoding of typ to schema (see TestOutputSchemasCoverCoreTypes).
func checkCoreType(t *testing.T, at string, typ reflect.Type, schema map[string]any) {
	t.Helper()
	checkEncoding(t, at, typ, schema, typ.Kind() == reflect.Pointer)
}

// checkEncoding is checkCoreType for a value that encodes as null when null is set (a pointer
// field without omitempty), which the schema must then take too.
func checkEncoding(t *testing.T, at string, typ reflect.Type, schema map[string]any, null bool) {
	t.Helper()
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	var want string
	switch {
	case typ == rawJSONType || typ.Kind() == reflect.Interface || typ.Kind() == reflect.Map:
		return // any JSON: the schema says what it may be
	case typ == timeType, typ.Kind() == reflect.String:
		want = "string"
	case typ.Kind() == reflect.Bool:
		want = "boolean"
	case typ.Kind() >= reflect.Int && typ.Kind() <= reflect.Uint64:
		want = "integer"
	case typ.Kind() == reflect.Float32 || typ.Kind() == reflect.Float64:
		want = "number"
	case typ.Kind() == reflect.Slice:
		want = "array"
	case typ.Kind() == reflect.Struct:
		want = "object"
	default:
		t.Errorf("%s: Go type %s has no JSON type here", at, typ)
		return
	}
	node := alternative(schema, want, null)
	if node == nil {
		t.Errorf("%s: the schema %v does not take the %s that %s encodes to (null too: %v)", at, schema, want, typ, null)
		return
	}
	switch want {
	case "array":
		items, _ := node["items"].(map[string]any)
		checkEncoding(t, at+"[]", typ.Elem(), items, typ.Elem().Kind() == reflect.Pointer)
	case "object":
		props, ok := node["properties"].(map[string]any)
		if !ok {
			return // an open object takes any fields
		}
		fields := jsonFields(typ, true)
		for name, f := range fields {
			p, ok := props[name].(map[string]any)
			if !ok {
				t.Errorf("%s: %s.%s encodes as %q, which the schema does not list", at, typ, f.Name, name)
				continue
			}
			checkEncoding(t, at+"."+name, f.Type, p, f.Type.Kind() == reflect.Pointer && !f.omitEmpty)
		}
		required, _ := node["required"].([]any)
		for _, r := range required {
			if f, ok := fields[r.(string)]; !ok || !f.always {
				t.Errorf("%s: the schema requires %v, which %s does not always encode", at, r, typ)
			}
		}
	}
}

// alternative is the part of schema that takes a JSON value of type want: schema itself, or one
// of its anyOf alternatives. An integer is also a number. With null, the schema must take null
// too.
func alternative(schema map[string]any, want string, null bool) map[string]any {
	takes := func(s map[string]any, typ string) bool {
		switch v := s["type"].(type) {
		case string:
			return v == typ || typ == "integer" && v == "number"
		case []any:
			return slices.Contains(v, any(typ)) || typ == "integer" && slices.Contains(v, any("number"))
		}
		return false
	}
	alts := []map[string]any{schema}
	if list, ok := schema["anyOf"].([]any); ok {
		alts = nil
		for _, a := range list {
			alts = append(alts, a.(map[string]any))
		}
	}
	var found map[string]any
	tookNull := !null
	for _, a := range alts {
		if found == nil && takes(a, want) {
			found = a
		}
		tookNull = tookNull || takes(a, "null")
	}
	if !tookNull {
		return nil
	}
	return found
}

type jsonField struct {
	reflect.StructField
	omitEmpty bool
	always    bool // encoded whatever its value
}

// jsonFields are the fields encoding/json writes for typ, by name, embedded structs flattened.
// present says whether typ itself is always there (not behind an embedded pointer).
func jsonFields(typ reflect.Type, present bool) map[string]jsonField {
	out := map[string]jsonField{}
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			inner, there := f.Type, present
			if inner.Kind() == reflect.Pointer {
				inner, there = inner.Elem(), false
			}
			maps.Copy(out, jsonFields(inner, there))
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		omit := slices.Contains(strings.Split(opts, ","), "omitempty")
		out[name] = jsonField{StructField: f, omitEmpty: omit, always: present && !omit}
	}
	return out
}
