package mockllm

import "fmt"

// OpenAI Responses: the wire of Codex (model_providers with wire_api = "responses").

func decodeResponses(body map[string]any) conversation {
	var c conversation
	if s, ok := body["input"].(string); ok {
		c.messages = []Message{{Role: "user", Text: s}}
	}
	items, _ := body["input"].([]any)
	// One model round is a run of output items (reasoning, a message, calls) with nothing of
	// the client's between them; it becomes one assistant message, so rounds count alike in
	// every dialect.
	inRound := false
	round := func() *Message {
		if !inRound {
			c.messages = append(c.messages, Message{Role: "assistant"})
			inRound = true
		}
		return &c.messages[len(c.messages)-1]
	}
	for _, it := range items {
		m, _ := it.(map[string]any)
		kind, _ := m["type"].(string)
		if kind == "" && m["role"] != nil {
			kind = "message"
		}
		switch kind {
		case "message":
			role, _ := m["role"].(string)
			text := textOf(m["content"])
			if role != "assistant" {
				c.messages = append(c.messages, Message{Role: role, Text: text})
				inRound = false
				continue
			}
			msg := round()
			if msg.Text != "" && text != "" {
				msg.Text += "\n"
			}
			msg.Text += text
		case "function_call", "custom_tool_call", "local_shell_call":
			var tc ToolCall
			tc.ID, _ = m["call_id"].(string)
			tc.Name, _ = m["name"].(string)
			switch kind {
			case "function_call":
				tc.Arguments = m["arguments"]
			case "custom_tool_call":
				tc.Arguments = m["input"]
			default:
				tc.Name, tc.Arguments = "local_shell", m["action"]
			}
			msg := round()
			msg.ToolCalls = append(msg.ToolCalls, tc)
		case "reasoning", "web_search_call", "image_generation_call":
			round()
		case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
			msg := Message{Role: "tool", Text: textOf(m["output"])}
			msg.ToolCallID, _ = m["call_id"].(string)
			c.messages = append(c.messages, msg)
			inRound = false
		}
	}
	tools, _ := body["tools"].([]any)
	for _, t := range tools {
		tm, _ := t.(map[string]any)
		name, _ := tm["name"].(string)
		if name == "" {
			name, _ = tm["type"].(string) // web_search, local_shell: offered, but unnamed
		}
		if name != "" {
			c.tools = append(c.tools, name)
		}
	}
	text, _ := body["text"].(map[string]any)
	format, _ := text["format"].(map[string]any)
	c.wantsJSON = format["type"] == "json_schema" || format["type"] == "json_object"
	return c
}

// customTools names the request's custom (freeform) tools: a call to one is a custom_tool_call
// whose input is the scripted string as it is, where a function tool gets function_call JSON.
func customTools(body map[string]any) map[string]bool {
	out := map[string]bool{}
	tools, _ := body["tools"].([]any)
	for _, t := range tools {
		tm, _ := t.(map[string]any)
		if name, _ := tm["name"].(string); tm["type"] == "custom" && name != "" {
			out[name] = true
		}
	}
	return out
}

func (rp *reply) responsesUsage() map[string]any {
	return map[string]any{"input_tokens": rp.input, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": rp.output, "output_tokens_details": map[string]any{"reasoning_tokens": len(rp.reasoning) >> 2},
		"total_tokens": rp.input + rp.output}
}

// responsesObject is the response envelope; usage is there once it is complete.
func (rp *reply) responsesObject(status string, output []map[string]any) map[string]any {
	if output == nil {
		output = []map[string]any{}
	}
	obj := map[string]any{"id": fmt.Sprintf("resp_mock_%d", rp.seq), "object": "response", "created_at": rp.created,
		"status": status, "model": rp.model, "output": output, "error": nil, "incomplete_details": nil}
	if status == "completed" {
		obj["usage"] = rp.responsesUsage()
	}
	return obj
}

// responsesItems are the finished output items: reasoning, the message, then the calls.
func (rp *reply) responsesItems() []map[string]any {
	var items []map[string]any
	if rp.reasoning != "" {
		items = append(items, map[string]any{"id": fmt.Sprintf("rs_mock_%d", rp.seq), "type": "reasoning",
			"summary": []any{map[string]any{"type": "summary_text", "text": rp.reasoning}}})
	}
	if rp.text != "" || len(rp.calls) == 0 {
		items = append(items, map[string]any{"id": fmt.Sprintf("msg_mock_%d", rp.seq), "type": "message", "role": "assistant",
			"status": "completed", "content": []any{outputText(rp.text)}})
	}
	for i, c := range rp.calls {
		if c.custom {
			items = append(items, map[string]any{"id": fmt.Sprintf("ctc_mock_%d_%d", rp.seq, i), "type": "custom_tool_call",
				"status": "completed", "call_id": c.id, "name": c.name, "input": c.args})
			continue
		}
		items = append(items, map[string]any{"id": fmt.Sprintf("fc_mock_%d_%d", rp.seq, i), "type": "function_call",
			"status": "completed", "call_id": c.id, "name": c.name, "arguments": c.args})
	}
	return items
}

func outputText(s string) map[string]any {
	return map[string]any{"type": "output_text", "text": s, "annotations": []any{}}
}

// responsesStream sends response.created, each item between output_item.added and
// output_item.done with its deltas (summary text, output text, function arguments or custom
// input), and response.completed with the usage. Codex builds its history from the .done items
// and ends the round only on response.completed.
func (rp *reply) responsesStream(emit emitFunc) bool {
	seqNo := 0
	ev := func(kind string, fields map[string]any) bool {
		fields["type"], fields["sequence_number"] = kind, seqNo
		seqNo++
		return emit(kind, fields)
	}
	if !ev("response.created", map[string]any{"response": rp.responsesObject("in_progress", nil)}) ||
		!ev("response.in_progress", map[string]any{"response": rp.responsesObject("in_progress", nil)}) {
		return false
	}
	items := rp.responsesItems()
	calls := 0
	for out, item := range items {
		id := item["id"]
		at := func(fields map[string]any) map[string]any {
			fields["item_id"], fields["output_index"] = id, out
			return fields
		}
		opening := map[string]any{}
		for k, v := range item {
			opening[k] = v
		}
		var body []func() bool
		switch item["type"] {
		case "reasoning":
			opening["summary"] = []any{}
			body = append(body, func() bool {
				return ev("response.reasoning_summary_part.added", at(map[string]any{"summary_index": 0,
					"part": map[string]any{"type": "summary_text", "text": ""}}))
			})
			for _, p := range rp.reasParts {
				body = append(body, func() bool {
					return ev("response.reasoning_summary_text.delta", at(map[string]any{"summary_index": 0, "delta": p}))
				})
			}
			body = append(body, func() bool {
				return ev("response.reasoning_summary_text.done", at(map[string]any{"summary_index": 0, "text": rp.reasoning})) &&
					ev("response.reasoning_summary_part.done", at(map[string]any{"summary_index": 0,
						"part": map[string]any{"type": "summary_text", "text": rp.reasoning}}))
			})
		case "message":
			opening["status"], opening["content"] = "in_progress", []any{}
			body = append(body, func() bool {
				return ev("response.content_part.added", at(map[string]any{"content_index": 0, "part": outputText("")}))
			})
			for _, p := range rp.textParts {
				body = append(body, func() bool {
					return ev("response.output_text.delta", at(map[string]any{"content_index": 0, "delta": p, "logprobs": []any{}}))
				})
			}
			body = append(body, func() bool {
				return ev("response.output_text.done", at(map[string]any{"content_index": 0, "text": rp.text, "logprobs": []any{}})) &&
					ev("response.content_part.done", at(map[string]any{"content_index": 0, "part": outputText(rp.text)}))
			})
		default:
			c := rp.calls[calls]
			calls++
			kind, field := "response.function_call_arguments", "arguments"
			if c.custom {
				kind, field = "response.custom_tool_call_input", "input"
			}
			opening["status"], opening[field] = "in_progress", ""
			a, b := halves(c.args)
			body = append(body, func() bool {
				return ev(kind+".delta", at(map[string]any{"delta": a})) &&
					ev(kind+".delta", at(map[string]any{"delta": b})) &&
					ev(kind+".done", at(map[string]any{field: c.args}))
			})
		}
		if !ev("response.output_item.added", map[string]any{"output_index": out, "item": opening}) {
			return false
		}
		for _, f := range body {
			if !f() {
				return false
			}
		}
		if !ev("response.output_item.done", map[string]any{"output_index": out, "item": item}) {
			return false
		}
	}
	return ev("response.completed", map[string]any{"response": rp.responsesObject("completed", items)})
}
