package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"reasonixctl/assets"
	"reasonixctl/core"
)

var update = flag.Bool("update", false, "rewrite testdata/tools_list.golden.json from the current schemas")

const goldenToolsList = "testdata/tools_list.golden.json"

// toolsListJSON is the tools/list result exactly as the server writes it on the wire (a client's
// decoded view would drop keywords it does not model, such as $schema).
func toolsListJSON(t testing.TB) []byte {
	t.Helper()
	srv := NewServer(func(context.Context) (core.Service, error) { return &fakeService{}, nil }, Options{Version: "test"})
	p := startStdio(t, context.Background(), srv)
	defer p.close()
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	p.response(1)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	var resp struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(p.rawResponse(2), &resp); err != nil {
		t.Fatal(err)
	}
	return resp.Result
}

// TestToolsListEncodesAsMCPTypes holds the hand-written tools/list encoding to mcp-go's own
// encoding of the same tools.
func TestToolsListEncodesAsMCPTypes(t *testing.T) {
	var list mcp.ListToolsResult
	for _, sp := range toolSpecs() {
		in, err1 := sp.in.MarshalJSON()
		out, err2 := sp.out.MarshalJSON()
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		list.Tools = append(list.Tools, mcp.Tool{
			Name: sp.name, Title: sp.title, Description: assets.MCPToolDescription(sp.name),
			RawInputSchema: in, RawOutputSchema: out, Annotations: sp.ann,
		})
	}
	slices.SortFunc(list.Tools, func(a, b mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
	want, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	if got := toolsListResult(); !bytes.Equal(got, want) {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		from := max(0, i-60)
		t.Fatalf("tools/list encodings differ at byte %d:\n want …%s\n  got …%s", i,
			want[from:min(len(want), i+60)], got[from:min(len(got), i+60)])
	}
	// The fast string path agrees with encoding/json on the characters it must escape.
	for _, s := range []string{"plain", `q"uote`, `back\slash`, "<tag> & co", "tab\there", "é", "\u2028", "\xff"} {
		var b bytes.Buffer
		writeString(&b, s)
		if want, _ := json.Marshal(s); !bytes.Equal(b.Bytes(), want) {
			t.Errorf("writeString(%q) = %s, want %s", s, b.Bytes(), want)
		}
	}
}

// TestToolsListSnapshot fails whenever a schema, description or annotation changes, until the
// snapshot is regenerated on purpose: go test ./mcp -run TestToolsListSnapshot -update
func TestToolsListSnapshot(t *testing.T) {
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, toolsListJSON(t), "", "  "); err != nil {
		t.Fatal(err)
	}
	pretty.WriteByte('\n')
	if *update {
		if err := os.WriteFile(goldenToolsList, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(goldenToolsList)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(pretty.Bytes(), want) {
		t.Fatalf("tools/list changed; review the difference and run with -update if it is intended:\n%s",
			firstDifference(string(want), pretty.String()))
	}
}

func firstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n want %s\n  got %s", i+1, a, b)
		}
	}
	return "(no line differs)"
}

type toolsList struct {
	Tools []toolEntry `json:"tools"`
}

type toolEntry struct {
	Name         string         `json:"name"`
	Description  string         `json:"description"`
	InputSchema  map[string]any `json:"inputSchema"`
	OutputSchema map[string]any `json:"outputSchema"`
	Annotations  map[string]any `json:"annotations"`
}

func decodeToolsList(t *testing.T, raw []byte) toolsList {
	t.Helper()
	var l toolsList
	if err := json.Unmarshal(raw, &l); err != nil {
		t.Fatal(err)
	}
	return l
}

// codexKeywords is the draft-07 subset our schemas may use: what Codex's schema conversion
// understands, plus annotations it ignores harmlessly.
var codexKeywords = map[string]bool{
	"$schema": true, "type": true, "properties": true, "required": true, "additionalProperties": true,
	"items": true, "enum": true, "const": true, "description": true, "default": true, "anyOf": true,
	"minLength": true, "maxLength": true, "pattern": true, "minimum": true, "maximum": true,
	"minItems": true, "maxItems": true,
}

func TestSchemasStayInCodexSubset(t *testing.T) {
	for _, tool := range decodeToolsList(t, toolsListJSON(t)).Tools {
		for kind, s := range map[string]map[string]any{"input": tool.InputSchema, "output": tool.OutputSchema} {
			walkSchema(s, tool.Name+"."+kind, func(at string, node map[string]any) {
				for k := range node {
					if !codexKeywords[k] {
						t.Errorf("%s: keyword %q is outside the Codex subset", at, k)
					}
				}
				if node["type"] == "object" && node["properties"] != nil && node["additionalProperties"] != false {
					t.Errorf("%s: object with properties must be closed", at)
				}
				// One allowed value is a constant: const says so, where a one-value enum reads
				// as a choice the model has.
				if values, ok := node["enum"].([]any); ok && len(values) < 2 {
					t.Errorf("%s: enum %v has one value; use const", at, values)
				}
			})
			if s["$schema"] != "http://json-schema.org/draft-07/schema#" || s["type"] != "object" {
				t.Errorf("%s.%s: top level must be a draft-07 object schema", tool.Name, kind)
			}
		}
	}
}

// walkSchema calls fn on every subschema of s.
func walkSchema(s map[string]any, at string, fn func(string, map[string]any)) {
	fn(at, s)
	if props, ok := s["properties"].(map[string]any); ok {
		for name, p := range props {
			if ps, ok := p.(map[string]any); ok {
				walkSchema(ps, at+"."+name, fn)
			}
		}
	}
	for _, k := range []string{"items", "additionalProperties"} {
		if sub, ok := s[k].(map[string]any); ok {
			walkSchema(sub, at+"/"+k, fn)
		}
	}
	if alts, ok := s["anyOf"].([]any); ok {
		for i, a := range alts {
			if as, ok := a.(map[string]any); ok {
				walkSchema(as, fmt.Sprintf("%s/anyOf%d", at, i), fn)
			}
		}
	}
}

// TestSchemasMatchReference compares the schemas tools/list advertises, input and output of all
// three tools, with the earlier bridge's after resolving its $refs and dropping prose: names,
// types, enums, limits and required lists must be identical, except for the deliberate
// differences listed here, each of which must still be one.
func TestSchemasMatchReference(t *testing.T) {
	refRaw, err := os.ReadFile("testdata/reference_tools_list.json")
	if err != nil {
		t.Fatal(err)
	}
	ref := decodeToolsList(t, refRaw)
	ours := decodeToolsList(t, toolsListJSON(t))
	if len(ours.Tools) != len(ref.Tools) {
		t.Fatalf("want %d tools, got %d", len(ref.Tools), len(ours.Tools))
	}
	// Deliberate: input task ids carry the pattern the core enforces anyway, and inspect's event
	// items may carry the task id the journal records.
	deliberate := map[string]bool{
		"reasonix_delegate.input.task_id.pattern":                      true,
		"reasonix_control.input.task_id.pattern":                       true,
		"reasonix_inspect.input.task_id.pattern":                       true,
		"reasonix_inspect.output.sections.events/anyOf0/items.task_id": true,
		// An optional input of ours: finalize acknowledges the risks the review found (issue 24).
		"reasonix_control.input.acknowledged_risks": true,
		// Issue 28: excusing a pre-existing failure, and the base commit's result of a failed check.
		"reasonix_control.input.excused_checks":                                   true,
		"reasonix_inspect.output.sections.verification/anyOf0/items.baseline":     true,
		"reasonix_inspect.output.sections.verification/anyOf0/items.excused":      true,
		"reasonix_inspect.output.sections.verification/anyOf0/items.excuseReason": true,
		// Issue 37: a failed check's failures, one per failure, each pre-existing or not.
		"reasonix_inspect.output.sections.verification/anyOf0/items.failures":      true,
		"reasonix_inspect.output.sections.verification/anyOf0/items.failureFormat": true,
		// Issues 28 and 30: amending a task's checks in review, and rebasing it onto the source's HEAD.
		"reasonix_control.input.action.enum: want [steer respond cancel finalize close], got [steer respond cancel finalize close amend_checks rebase]": true,
		"reasonix_control.input.drop_checks": true,
		"reasonix_control.input.add_checks":  true,
		// Issue 38: an interaction names the client or person that answered it.
		// Issue 40: the worker is chosen per task (an optional input) and shown in the task's view.
		"reasonix_delegate.input.worker":                        true,
		"reasonix_delegate.output.worker":                       true,
		"reasonix_control.output.worker":                        true,
		"reasonix_inspect.output.sections.status/anyOf0.worker": true,
	}
	seen := map[string]bool{}
	for _, r := range ref.Tools {
		i := slices.IndexFunc(ours.Tools, func(o toolEntry) bool { return o.Name == r.Name })
		if i < 0 {
			t.Fatalf("tool %s is missing", r.Name)
		}
		o := ours.Tools[i]
		if !reflect.DeepEqual(o.Annotations, r.Annotations) {
			t.Errorf("%s annotations = %v, want %v", o.Name, o.Annotations, r.Annotations)
		}
		for kind, pair := range map[string][2]map[string]any{
			"input":  {r.InputSchema, o.InputSchema},
			"output": {r.OutputSchema, o.OutputSchema},
		} {
			want := normalize(resolveRefs(pair[0], pair[0]))
			got := normalize(pair[1])
			for _, d := range diffSchemas(want, got, o.Name+"."+kind) {
				seen[d] = true
				if !deliberate[d] {
					t.Errorf("differs from the reference: %s", d)
				}
			}
		}
	}
	for _, d := range slices.Sorted(maps.Keys(deliberate)) {
		if !seen[d] {
			t.Errorf("listed as a deliberate difference, but no longer one: %s", d)
		}
	}
}

func resolveRefs(v any, root map[string]any) any {
	switch x := v.(type) {
	case map[string]any:
		if ref, ok := x["$ref"].(string); ok {
			node := any(root)
			for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
				node = node.(map[string]any)[part]
			}
			return resolveRefs(node, root)
		}
		out := map[string]any{}
		for k, val := range x {
			out[k] = resolveRefs(val, root)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			out[i] = resolveRefs(val, root)
		}
		return out
	}
	return v
}

// normalize drops what is prose or presentation (descriptions, defaults, zero minimums).
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, val := range x {
			switch {
			case k == "description" || k == "default":
			case k == "minLength" && val == float64(0):
			case k == "required":
				req := slices.Clone(val.([]any))
				slices.SortFunc(req, func(a, b any) int { return strings.Compare(a.(string), b.(string)) })
				out[k] = req
			default:
				out[k] = normalize(val)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			out[i] = normalize(val)
		}
		return out
	}
	return v
}

// diffSchemas lists the paths (with the keyword) where two normalised schemas differ.
func diffSchemas(want, got any, at string) []string {
	wm, wok := want.(map[string]any)
	gm, gok := got.(map[string]any)
	if !wok || !gok {
		if !reflect.DeepEqual(want, got) {
			return []string{fmt.Sprintf("%s: want %v, got %v", at, want, got)}
		}
		return nil
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(union(wm, gm))) {
		wv, win := wm[k]
		gv, gin := gm[k]
		switch {
		case !win:
			out = append(out, pathKey(at, k))
		case !gin:
			out = append(out, pathKey(at, k)+" missing")
		case k == "properties":
			wp, gp := wv.(map[string]any), gv.(map[string]any)
			for _, name := range slices.Sorted(maps.Keys(union(wp, gp))) {
				if _, ok := wp[name]; !ok {
					out = append(out, at+"."+name)
					continue
				}
				if _, ok := gp[name]; !ok {
					out = append(out, at+"."+name+" missing")
					continue
				}
				out = append(out, diffSchemas(wp[name], gp[name], at+"."+name)...)
			}
		case k == "items" || k == "additionalProperties":
			out = append(out, diffSchemas(wv, gv, at+"/"+k)...)
		case k == "anyOf":
			wa, ga := wv.([]any), gv.([]any)
			if len(wa) != len(ga) {
				out = append(out, fmt.Sprintf("%s/anyOf: %d alternatives, want %d", at, len(ga), len(wa)))
				continue
			}
			for i := range wa {
				out = append(out, diffSchemas(wa[i], ga[i], fmt.Sprintf("%s/anyOf%d", at, i))...)
			}
		default:
			if !reflect.DeepEqual(wv, gv) {
				out = append(out, fmt.Sprintf("%s: want %v, got %v", pathKey(at, k), wv, gv))
			}
		}
	}
	return out
}

func pathKey(at, k string) string { return at + "." + k }

func union(a, b map[string]any) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}
