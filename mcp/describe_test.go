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

// Every input property says what it means: a model has only the schemas and the instructions to
// go by. Of the output properties, those a model must act on say so too (which field of the
// next call they feed); describing all ~180 output properties would not fit the budget above
// (each description costs at least 18 bytes), and Codex reads the results, not their schemas.
func TestEverySchemaPropertyHasADescription(t *testing.T) {
	view := []string{"state", "review_revision", "review_tree_hash", "pause_revision", "reason"}
	var wantOut []string
	for _, at := range []string{"reasonix_control.output", "reasonix_delegate.output", "reasonix_inspect.output.sections.status/anyOf0"} {
		for _, f := range view {
			wantOut = append(wantOut, at+"."+f)
		}
	}
	wantOut = append(wantOut, "reasonix_delegate.output.timed_out", "reasonix_delegate.output.active_interaction",
		"reasonix_delegate.output.required_review_criteria", "reasonix_delegate.output.active_interaction.id",
		"reasonix_delegate.output.active_interaction.response", "reasonix_inspect.output.sections.interactions/anyOf0/items.id",
		"reasonix_inspect.output.sections.interactions/anyOf0/items.response")
	described := map[string]bool{}
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
					described[at+"."+name] = has
					switch {
					case kind == "input":
						inputs++
						if !has {
							missing = append(missing, at+"."+name)
						}
					case has:
						outputs++
					}
				}
			})
		}
	}
	for _, at := range wantOut {
		if !described[at] {
			missing = append(missing, at)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("%d properties without a description:\n%s", len(missing), strings.Join(missing, "\n"))
	}
	t.Logf("%d input properties, all described; %d output properties described", inputs, outputs)
}
