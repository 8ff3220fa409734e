package mcp

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"reasonixctl/core"
)

// maxModelReadBytes bounds what the model reads of the server in every turn: the tools'
// descriptions and input schemas and the instructions, as JSON. Output schemas are for the client
// to check results with and have no budget: a size limit there would only leave results unchecked.
const maxModelReadBytes = 16 << 10

// modelRead is what a model reads of the server, as the server writes it on the wire.
type modelRead struct {
	instructions int            // the JSON string initialize carries
	tools        map[string]int // per tool: its description (a JSON string) plus its input schema
	toolsList    int            // the whole tools/list result, output schemas included
}

func (m modelRead) total() int {
	n := m.instructions
	for _, b := range m.tools {
		n += b
	}
	return n
}

func readByModel(t *testing.T) modelRead {
	t.Helper()
	srv := NewServer(func(context.Context) (core.Service, error) { return &fakeService{}, nil }, Options{Version: "test"})
	p := startStdio(t, context.Background(), srv)
	defer p.close()
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	var initResp struct {
		Result struct {
			Instructions json.RawMessage `json:"instructions"`
		} `json:"result"`
	}
	if err := json.Unmarshal(p.rawResponse(1), &initResp); err != nil {
		t.Fatal(err)
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	var listResp struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(p.rawResponse(2), &listResp); err != nil {
		t.Fatal(err)
	}
	var list struct {
		Tools []struct {
			Name        string          `json:"name"`
			Description json.RawMessage `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(listResp.Result, &list); err != nil {
		t.Fatal(err)
	}
	m := modelRead{instructions: len(initResp.Result.Instructions), tools: map[string]int{}, toolsList: len(listResp.Result)}
	if m.instructions < len(`""`)+100 {
		t.Fatalf("initialize carries no instructions to measure: %s", initResp.Result.Instructions)
	}
	for _, tool := range list.Tools {
		if len(tool.Description) <= len(`""`) || len(tool.InputSchema) == 0 {
			t.Fatalf("%s has no description or input schema to measure", tool.Name)
		}
		m.tools[tool.Name] = len(tool.Description) + len(tool.InputSchema)
	}
	if len(m.tools) != 3 {
		t.Fatalf("measured %d tools, want 3", len(m.tools))
	}
	return m
}

func TestModelReadFitsItsBudget(t *testing.T) {
	m := readByModel(t)
	t.Logf("the model reads %d bytes (budget %d): instructions %d, tools %v; tools/list is %d bytes in all",
		m.total(), maxModelReadBytes, m.instructions, m.tools, m.toolsList)
	if m.total() > maxModelReadBytes {
		t.Fatalf("descriptions, input schemas and instructions are %d bytes, over their budget of %d", m.total(), maxModelReadBytes)
	}
}

// openOutputs are the output values that are any JSON by design, as the earlier bridge had them:
// what the worker asked and how it was answered, and an event's own data.
var openOutputs = map[string]bool{
	"reasonix_delegate.output.active_interaction.request":                 true,
	"reasonix_delegate.output.active_interaction.response":                true,
	"reasonix_inspect.output.sections.interactions/anyOf0/items.request":  true,
	"reasonix_inspect.output.sections.interactions/anyOf0/items.response": true,
	"reasonix_inspect.output.sections.events/anyOf0/items.data":           true,
}

// Every value in every result has a type, and every object lists its properties, so a client
// can check a result field by field; only openOutputs are left open.
func TestOutputSchemasAreTyped(t *testing.T) {
	seen := map[string]bool{}
	for _, tool := range decodeToolsList(t, toolsListJSON(t)).Tools {
		walkSchema(tool.OutputSchema, tool.Name+".output", func(at string, node map[string]any) {
			for open := range openOutputs {
				if at == open || strings.HasPrefix(at, open+"/") {
					seen[open] = true
					return
				}
			}
			_, typed := node["type"]
			_, alternatives := node["anyOf"]
			_, constant := node["const"]
			if !typed && !alternatives && !constant {
				t.Errorf("%s has no type", at)
			}
			if node["type"] == "object" && node["properties"] == nil {
				t.Errorf("%s is an object without properties", at)
			}
			if node["type"] == "array" && node["items"] == nil {
				t.Errorf("%s is an array without items", at)
			}
		})
	}
	for at := range openOutputs {
		if !seen[at] {
			t.Errorf("%s is listed as open but is not in any output schema", at)
		}
	}
}

// Every input property says what it means: a model has only the schemas and the instructions to
// go by. The output properties carry a few words each too, for whoever reads a result's schema.
func TestEverySchemaPropertyHasADescription(t *testing.T) {
	var missing []string
	inputs, outputs := 0, 0
	for _, tool := range decodeToolsList(t, toolsListJSON(t)).Tools {
		for kind, s := range map[string]map[string]any{"input": tool.InputSchema, "output": tool.OutputSchema} {
			walkSchema(s, tool.Name+"."+kind, func(at string, node map[string]any) {
				props, _ := node["properties"].(map[string]any)
				for name, p := range props {
					ps, _ := p.(map[string]any)
					d, _ := ps["description"].(string)
					if strings.TrimSpace(d) == "" {
						missing = append(missing, at+"."+name)
					}
					if kind == "input" {
						inputs++
					} else {
						outputs++
					}
				}
			})
		}
	}
	if len(missing) > 0 {
		t.Fatalf("%d properties without a description:\n%s", len(missing), strings.Join(missing, "\n"))
	}
	t.Logf("%d input and %d output properties, all described", inputs, outputs)
}

// The task view is one schema wherever a result carries it: control's result, inspect's status
// section and the start of delegate's result, word for word as tools/list advertises them.
func TestTaskViewIsTheSameInEveryResult(t *testing.T) {
	var delegate, control, inspect map[string]any
	for _, tool := range decodeToolsList(t, toolsListJSON(t)).Tools {
		switch tool.Name {
		case ToolDelegate:
			delegate = tool.OutputSchema
		case ToolControl:
			control = tool.OutputSchema
		case ToolInspect:
			inspect = tool.OutputSchema
		}
	}
	view := mustRoundTrip(t, taskView())
	if len(view["properties"].(map[string]any)) < len(taskViewRequired)+5 || !reflect.DeepEqual(view["required"], toAny(taskViewRequired)) {
		t.Fatalf("the view lists %d properties, required %v", len(view["properties"].(map[string]any)), view["required"])
	}

	withoutDraft := func(s map[string]any) map[string]any {
		out := map[string]any{}
		for k, v := range s {
			if k != "$schema" {
				out[k] = v
			}
		}
		return out
	}
	if got := withoutDraft(control); !reflect.DeepEqual(got, view) {
		t.Errorf("reasonix_control's result is not the task view:\n%s", mustJSON(t, got))
	}

	status := inspect["properties"].(map[string]any)["sections"].(map[string]any)["properties"].(map[string]any)["status"].(map[string]any)
	alts, _ := status["anyOf"].([]any)
	if len(alts) != 2 || !reflect.DeepEqual(alts[0], view) || !reflect.DeepEqual(alts[1], map[string]any{"type": "string"}) {
		t.Errorf("inspect's status section is not the task view or a page of it:\n%s", mustJSON(t, status))
	}

	props := delegate["properties"].(map[string]any)
	for name, want := range view["properties"].(map[string]any) {
		if !reflect.DeepEqual(props[name], want) {
			t.Errorf("reasonix_delegate's %s differs from the view's", name)
		}
	}
	if !reflect.DeepEqual(delegate["required"], view["required"]) || delegate["additionalProperties"] != false {
		t.Errorf("reasonix_delegate's result requires %v (closed: %v), the view %v", delegate["required"], delegate["additionalProperties"], view["required"])
	}
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// respond's decision says what it does to a question, not only to a permission: the model
// otherwise guesses what "allow" means for a question it was asked.
func TestDecisionSaysWhatItMeansForAQuestion(t *testing.T) {
	raw, err := controlInput().MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var in struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		t.Fatal(err)
	}
	d := in.Properties["decision"].Description
	for _, want := range []string{"respond: required", "Permission:", "Question:", "option_id", "answer", "only recorded", "deny"} {
		if !strings.Contains(d, want) {
			t.Errorf("decision's description %q does not say %q", d, want)
		}
	}
}
