package mockllm

import "fmt"

// OpenAI Chat Completions: the wire Reasonix, Qwen Code and opencode speak.

func decodeChat(body map[string]any) conversation {
	var c conversation
	list, _ := body["messages"].([]any)
	c.messages = make([]Message, 0, len(list))
	for _, item := range list {
		m, _ := item.(map[string]any)
		msg := Message{Text: textOf(m["content"])}
		msg.Role, _ = m["role"].(string)
		msg.Name, _ = m["name"].(string)
		msg.ToolCallID, _ = m["tool_call_id"].(string)
		calls, _ := m["tool_calls"].([]any)
		for _, call := range calls {
			cm, _ := call.(map[string]any)
			fn, _ := cm["function"].(map[string]any)
			var tc ToolCall
			tc.ID, _ = cm["id"].(string)
			tc.Name, _ = fn["name"].(string)
			tc.Arguments = fn["arguments"]
			msg.ToolCalls = append(msg.ToolCalls, tc)
		}
		c.messages = append(c.messages, msg)
	}
	tools, _ := body["tools"].([]any)
	for _, t := range tools {
		tm, _ := t.(map[string]any)
		fn, _ := tm["function"].(map[string]any)
		if name, _ := fn["name"].(string); name != "" {
			c.tools = append(c.tools, name)
		}
	}
	rf, _ := body["response_format"].(map[string]any)
	c.wantsJSON = rf["type"] == "json_object" || rf["type"] == "json_schema"
	return c
}

func (rp *reply) chatID() string { return fmt.Sprintf("chatcmpl-mock-%d", rp.seq) }

func (rp *reply) chatFinish() string {
	if len(rp.calls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

func (rp *reply) chatUsage() map[string]any {
	return map[string]any{"prompt_tokens": rp.input, "completion_tokens": rp.output, "total_tokens": rp.input + rp.output,
		"prompt_tokens_details": map[string]any{"cached_tokens": 0}}
}

func (rp *reply) chatWhole(Request) any {
	msg := map[string]any{"role": "assistant", "content": rp.text}
	if rp.text == "" && len(rp.calls) > 0 {
		msg["content"] = nil
	}
	if rp.reasoning != "" {
		msg["reasoning_content"] = rp.reasoning
	}
	if len(rp.calls) > 0 {
		calls := make([]any, len(rp.calls))
		for i, c := range rp.calls {
			calls[i] = map[string]any{"id": c.id, "type": "function", "function": map[string]any{"name": c.name, "arguments": c.args}}
		}
		msg["tool_calls"] = calls
	}
	return map[string]any{"id": rp.chatID(), "object": "chat.completion", "created": rp.created, "model": rp.model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": rp.chatFinish()}}, "usage": rp.chatUsage()}
}

// chatStream sends reasoning, then text, then each tool call in two argument pieces, then the
// finish reason, the usage when asked for, and [DONE].
func (rp *reply) chatStream(includeUsage bool, emit emitFunc) bool {
	chunk := func(delta map[string]any, finish any) bool {
		return emit("", map[string]any{"id": rp.chatID(), "object": "chat.completion.chunk", "created": rp.created, "model": rp.model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
	}
	if !chunk(map[string]any{"role": "assistant", "content": ""}, nil) {
		return false
	}
	for _, part := range rp.reasParts {
		if !chunk(map[string]any{"reasoning_content": part}, nil) {
			return false
		}
	}
	for _, part := range rp.textParts {
		if !chunk(map[string]any{"content": part}, nil) {
			return false
		}
	}
	for i, c := range rp.calls {
		a, b := halves(c.args)
		first := map[string]any{"index": i, "id": c.id, "type": "function", "function": map[string]any{"name": c.name, "arguments": a}}
		rest := map[string]any{"index": i, "function": map[string]any{"arguments": b}}
		if !chunk(map[string]any{"tool_calls": []any{first}}, nil) || !chunk(map[string]any{"tool_calls": []any{rest}}, nil) {
			return false
		}
	}
	if !chunk(map[string]any{}, rp.chatFinish()) {
		return false
	}
	if includeUsage {
		if !emit("", map[string]any{"id": rp.chatID(), "object": "chat.completion.chunk", "created": rp.created, "model": rp.model,
			"choices": []any{}, "usage": rp.chatUsage()}) {
			return false
		}
	}
	return emit("", rawData("[DONE]"))
}
