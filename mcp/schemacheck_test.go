package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"reasonixctl/core"
)

// The server does not check results against the advertised output schemas at run time: the
// tests do, with a complete JSON Schema validator, for every result a test call produces. The
// same validator is the reference for the server's own input validator.

var printer = message.NewPrinter(language.English)

// fullSchemas compiles every tool's input and output schema, as tools/list advertises them, with
// the reference validator.
var fullSchemas = sync.OnceValues(func() (map[string][2]*jsonschema.Schema, error) {
	out := map[string][2]*jsonschema.Schema{}
	for _, sp := range toolSpecs() {
		in, err := compileFull(sp.name+".input", sp.in)
		if err != nil {
			return nil, fmt.Errorf("%s input schema: %w", sp.name, err)
		}
		res, err := compileFull(sp.name+".output", sp.out)
		if err != nil {
			return nil, fmt.Errorf("%s output schema: %w", sp.name, err)
		}
		out[sp.name] = [2]*jsonschema.Schema{in, res}
	}
	return out, nil
})

func compileFull(name string, s object) (*jsonschema.Schema, error) {
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	url := "mem:///reasonixctl/" + name + ".json"
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// fullIssues validates raw JSON with the reference validator and reports issues in the form the
// server uses (sorted, deduplicated, bounded).
func fullIssues(s *jsonschema.Schema, raw []byte) []core.Issue {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return []core.Issue{{Path: "arguments", Message: "not valid JSON: " + err.Error()}}
	}
	err = s.Validate(v)
	if err == nil {
		return nil
	}
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		return []core.Issue{{Path: "arguments", Message: err.Error()}}
	}
	var issues []core.Issue
	collectIssues(verr, &issues)
	slices.SortFunc(issues, func(a, b core.Issue) int {
		return strings.Compare(a.Path+"\x00"+a.Message, b.Path+"\x00"+b.Message)
	})
	issues = slices.Compact(issues)
	if len(issues) > maxIssues {
		issues = append(issues[:maxIssues], core.Issue{Path: "arguments", Message: "further issues omitted"})
	}
	return issues
}

func collectIssues(e *jsonschema.ValidationError, out *[]core.Issue) {
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			collectIssues(c, out)
		}
		return
	}
	at := func(extra ...string) string {
		p := strings.Join(append(slices.Clone(e.InstanceLocation), extra...), ".")
		if p == "" {
			return "arguments"
		}
		return p
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		for _, name := range k.Missing {
			*out = append(*out, core.Issue{Path: at(name), Message: "Required"})
		}
	case *kind.AdditionalProperties:
		for _, name := range k.Properties {
			*out = append(*out, core.Issue{Path: at(name), Message: "Unrecognized key"})
		}
	default:
		*out = append(*out, core.Issue{Path: at(), Message: e.ErrorKind.LocalizedString(printer)})
	}
}

// outputIssues checks a call's structuredContent, if any, against the tool's output schema.
func outputIssues(t testing.TB, tool string, res *mcp.CallToolResult) []core.Issue {
	t.Helper()
	if res.StructuredContent == nil {
		return nil
	}
	schemas, err := fullSchemas()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	return fullIssues(schemas[tool][1], raw)
}

// Control's result is checked field by field, as delegate's is: a view the client must not take
// fails on exactly the field that is wrong.
func TestOutputCheckCatchesResultOutsideSchema(t *testing.T) {
	for _, c := range []struct {
		path string
		edit func(*core.TaskView)
	}{
		{"effective_reasoning_effort", func(v *core.TaskView) { v.EffectiveReasoningEffort = "auto" }}, // not in the enum Codex knows
		{"commit_hash", func(v *core.TaskView) { v.CommitHash = "HEAD" }},
		{"commit_hash", func(v *core.TaskView) { v.CommitHash = strings.Repeat("A", 40) }},
		{"state", func(v *core.TaskView) { v.State = "done" }},
		{"review_tree_hash", func(v *core.TaskView) { v.ReviewTreeHash = "4a77" }},
		{"source_checkout_integrated", func(v *core.TaskView) { v.SourceCheckoutIntegrated = true }},
		{"source_collision.dirtyPaths", func(v *core.TaskView) {
			v.SourceCollision = &core.SourceCollision{Checkpoint: "c", BaseCommit: "b", DetectedAt: "d"}
		}},
	} {
		h := newHarness(t, Options{})
		h.fake.control = func(_ context.Context, req core.Command) (core.TaskView, error) {
			v := sampleView(req.Task())
			c.edit(&v)
			return v, nil
		}
		res := h.callUnchecked(ToolControl, map[string]any{"task_id": "t", "action": "close"}, nil)
		got := outputIssues(t, ToolControl, res)
		field, _, _ := strings.Cut(c.path, ".")
		if !slices.ContainsFunc(got, func(is core.Issue) bool { return is.Path == c.path }) ||
			slices.ContainsFunc(got, func(is core.Issue) bool { return !strings.HasPrefix(is.Path, field) }) {
			t.Errorf("%s: issues = %+v", c.path, got)
		}
	}
	// The untouched view passes, so the cases above fail for their own field alone.
	h := newHarness(t, Options{})
	if got := outputIssues(t, ToolControl, h.callUnchecked(ToolControl, map[string]any{"task_id": "t", "action": "close"}, nil)); len(got) > 0 {
		t.Fatalf("the sample view: %+v", got)
	}
}

// TestInputValidatorMatchesReference compares the server's input validator with the reference
// validator on hand-written and randomly mutated arguments: same verdict, same issues.
func TestInputValidatorMatchesReference(t *testing.T) {
	rules, err := inputRules()
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := fullSchemas()
	if err != nil {
		t.Fatal(err)
	}
	compare := func(tool, args string) {
		t.Helper()
		want := fullIssues(schemas[tool][0], []byte(args))
		got := validateInput(rules[tool], []byte(args))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s %s:\n got %#v\nwant %#v", tool, args, got, want)
		}
	}
	hash := strings.Repeat("a", 40)
	long := strings.Repeat("é", 20001)
	for _, c := range []struct{ tool, args string }{
		{ToolInspect, `{"task_id":"t"}`},
		{ToolInspect, `{}`},
		{ToolInspect, `[]`},
		{ToolInspect, `null`},
		{ToolInspect, `"x"`},
		{ToolInspect, `5`},
		{ToolInspect, `{"task_id":5}`},
		{ToolInspect, `{"task_id":null}`},
		{ToolInspect, `{"task_id":""}`},
		{ToolInspect, `{"task_id":"it's \"quoted\"\n\u0001"}`},
		{ToolInspect, `{"task_id":"` + strings.Repeat("x", 65) + `"}`},
		{ToolInspect, `{"task_id":"t","wait_ms":1.5}`},
		{ToolInspect, `{"task_id":"t","wait_ms":5.0}`},
		{ToolInspect, `{"task_id":"t","wait_ms":1e3}`},
		{ToolInspect, `{"task_id":"t","wait_ms":30001}`},
		{ToolInspect, `{"task_id":"t","wait_ms":10000000}`},
		{ToolInspect, `{"task_id":"t","wait_ms":-1}`},
		{ToolInspect, `{"task_id":"t","wait_ms":-1234567}`},
		{ToolInspect, `{"task_id":"t","wait_ms":1e400}`},
		{ToolInspect, `{"task_id":"t","max_bytes":12}`},
		{ToolInspect, `{"task_id":"t","include":["status","status","x",1]}`},
		{ToolInspect, `{"task_id":"t","include":"status"}`},
		{ToolInspect, `{"task_id":"t","include":["status","summary","changed_files","diff_stat","diff","verification","acceptance_evidence","risks","usage","interactions","events","status"]}`},
		{ToolInspect, `{"task_id":"t","wait_until":"never","cursor":""}`},
		{ToolControl, `{"task_id":"t","action":"finalize","expected_review_revision":-1,"expected_review_tree_hash":"` + hash + `x"}`},
		{ToolControl, `{"task_id":"t","action":"steer","message":"` + long + `"}`},
		{ToolControl, `{"task_id":"t","action":"respond","decision":"maybe","approved_review_criteria":[""]}`},
		{ToolControl, `{"task_id":"t","action":true,"extra":1,"more":{}}`},
		{ToolDelegate, `{"task_id":"t","contract":{"schema_version":2}}`},
		{ToolDelegate, `{"task_id":"t","contract":{"schema_version":2},"worker":"cursor"}`},
		{ToolDelegate, `{"task_id":"t","contract":{"schema_version":2},"worker":"codex"}`},
		{ToolDelegate, `{"task_id":"t","contract":{"schema_version":2},"worker":null}`},
		{ToolDelegate, `{"task_id":"t","contract":{"schema_version":"1"}}`},
		{ToolDelegate, `{"task_id":"t","contract":{"schema_version":1.0,"objective":"o","user_outcome":"u","write_scope":[],"acceptance_criteria":[{}],"verification":[{"id":"1x","argv":[],"proves":["a"],"timeout_seconds":0}]}}`},
		{ToolDelegate, `{"task_id":"t","contract":[],"resume":"yes","wait_mode":"review","execution_timeout_seconds":59}`},
		{ToolDelegate, `{"task_id":"t","contract":{"schema_version":1,"objective":"o","user_outcome":"u","write_scope":["a"],"acceptance_criteria":[{"id":"a","requirement":"r","evidence":"e","x":1}],"verification":[{"id":"v","argv":[` + strings.Repeat(`"a",`, 128) + `"a"],"proves":[]}]}}`},
	} {
		compare(c.tool, c.args)
	}

	// Mutations of valid requests: each replaces a few values anywhere in the tree.
	valid := map[string]map[string]any{
		ToolDelegate: mustRoundTrip(t, map[string]any{"task_id": "t-1", "contract": fullContract(), "wait_timeout_seconds": 30,
			"worker_lane": "deep", "reasoning_effort": "low", "pause_reason_hash": strings.Repeat("0", 64), "resume": false}),
		ToolControl: mustRoundTrip(t, map[string]any{"task_id": "t", "action": "finalize", "review_summary": "ok",
			"approved_review_criteria": []any{"a1"}, "expected_review_revision": 1, "expected_review_tree_hash": hash}),
		ToolInspect: mustRoundTrip(t, map[string]any{"task_id": "t", "include": []any{"status"}, "wait_ms": 10,
			"cursor": "c", "max_bytes": 2048, "wait_until": "terminal"}),
	}
	pool := []any{nil, true, 0, -1, 1.5, 64, 601, 20001, 1e7, "", "x", "../y", "review", strings.Repeat("z", 70),
		[]any{}, []any{"a"}, []any{1, "b"}, map[string]any{}, map[string]any{"k": 1}}
	rnd := rand.New(rand.NewPCG(1, 2))
	for tool, base := range valid {
		compare(tool, string(mustJSON(t, base)))
		for range 300 {
			v := deepCopy(base)
			for range 1 + rnd.IntN(3) {
				v = mutate(rnd, v, pool).(map[string]any)
			}
			compare(tool, string(mustJSON(t, v)))
		}
	}
}

func fullContract() map[string]any {
	c := sampleContract()
	c["verified_context"] = []any{map[string]any{"path": "a.go", "reason": "read it"}}
	c["forbidden_scope"] = []any{"secret/**"}
	c["invariants"] = []any{"keep the API"}
	c["verification"] = []any{map[string]any{"id": "t1", "argv": []any{"go", "test"}, "cwd": "", "timeout_seconds": 60, "proves": []any{"a1"}}}
	c["allowed_commands"] = []any{map[string]any{"id": "c1", "argv": []any{"ls"}}}
	c["file_assertions"] = []any{map[string]any{"id": "f1", "path": "result.txt", "expected_utf8": "x", "proves": []any{"a1"}}}
	return c
}

// mutate replaces one randomly chosen node of v (or adds an unknown key) with a pool value.
func mutate(rnd *rand.Rand, v any, pool []any) any {
	switch x := v.(type) {
	case map[string]any:
		keys := slices.Sorted(maps.Keys(x))
		if len(keys) == 0 || rnd.IntN(8) == 0 {
			x[fmt.Sprintf("extra%d", rnd.IntN(3))] = pool[rnd.IntN(len(pool))]
			return x
		}
		k := keys[rnd.IntN(len(keys))]
		if rnd.IntN(3) == 0 {
			if rnd.IntN(4) == 0 {
				delete(x, k)
			} else {
				x[k] = deepCopy(pool[rnd.IntN(len(pool))])
			}
			return x
		}
		x[k] = mutate(rnd, x[k], pool)
		return x
	case []any:
		if len(x) == 0 || rnd.IntN(3) == 0 {
			return append(x, deepCopy(pool[rnd.IntN(len(pool))]))
		}
		i := rnd.IntN(len(x))
		x[i] = mutate(rnd, x[i], pool)
		return x
	}
	return deepCopy(pool[rnd.IntN(len(pool))])
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			out[k] = deepCopy(val)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			out[i] = deepCopy(val)
		}
		return out
	}
	return v
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustRoundTrip(t *testing.T, v any) map[string]any {
	t.Helper()
	var out map[string]any
	if err := json.Unmarshal(mustJSON(t, v), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestInputSchemasCompile(t *testing.T) {
	rules, err := inputRules()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{ToolDelegate, ToolControl, ToolInspect} {
		if rules[name] == nil {
			t.Errorf("no input rules for %s", name)
		}
	}
	// A keyword the validator does not implement must fail compilation, never pass silently.
	if _, err := compileInput(object{kv("type", "object"), kv("oneOf", []object{})}); err == nil {
		t.Fatal("an unsupported keyword compiled")
	}
}
