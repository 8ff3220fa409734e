package mcp

import (
	"strings"
	"testing"
)

// maxToolsListBytes bounds tools/list: Codex pays for it in every turn.
const maxToolsListBytes = 24 << 10

func TestToolsListFitsItsBudget(t *testing.T) {
	n := len(toolsListResult())
	t.Logf("tools/list is %d bytes (budget %d)", n, maxToolsListBytes)
	if n > maxToolsListBytes {
		t.Fatalf("tools/list is %d bytes, over its budget of %d", n, maxToolsListBytes)
	}
}

// Every property, input and output, says what it means: a model has only the schemas and the
// instructions to go by. The task view is listed once, in reasonix_delegate's result; control's
// result and inspect's status section point there (the three copies, described, would not fit
// the budget above).
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
					has := strings.TrimSpace(d) != ""
					if !has {
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

// The pointer is true: control's result and inspect's status section carry exactly the view
// that reasonix_delegate's result describes, so the tests check them against it.
func TestViewPointerNamesDelegatesFields(t *testing.T) {
	var list toolsList = decodeToolsList(t, toolsListJSON(t))
	var delegate map[string]any
	for _, tool := range list.Tools {
		if tool.Name == ToolDelegate {
			delegate = tool.OutputSchema["properties"].(map[string]any)
		}
	}
	for _, f := range taskViewFields() {
		if _, ok := delegate[f.key]; !ok {
			t.Errorf("reasonix_delegate's result lacks the view field %s", f.key)
		}
	}
	last := taskViewFields()[len(taskViewFields())-1].key
	d, _ := viewPointer.MarshalJSON()
	if !strings.Contains(string(d), "reasonix_delegate") || !strings.Contains(string(d), last) {
		t.Fatalf("the pointer %s does not name reasonix_delegate's result up to %s", d, last)
	}
}
