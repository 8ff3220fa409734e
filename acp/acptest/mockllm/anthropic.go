package mockllm

import (
	"fmt"
	"strings"
)

// Anthropic Messages: the wire of Claude Code, which claude-agent-acp runs.

func decodeAnthropic(body map[string]any) conversation {
	var c conversation
	if sys := textOf(body["system"]); sys != "" {
		c.messages = append(c.messages, Message{Role: "system", Text: sys})
	}
	list, _ := body["messages"].([]any)
	for _, item := range list {
		m, _ := item.(map[string]any)
		role, _ := m["role"].(string)
		blocks, isList := m["content"].([]any)
		if !isList {
			c.messages = append(c.messages, Message{Role: role, Text: textOf(m["content"])})
			continue
		}
		if role == "assistant" {
			msg := Message{Role: role}
			var texts []string
			for _, b := range blocks {
				bm, _ := b.(map[string]any)
				switch bm["type"] {
				case "text":
					t, _ := bm["text"].(string)
					texts = append(texts, t)
				case "tool_use", "server_tool_use":
					var tc ToolCall
					tc.ID, _ = bm["id"].(string)
					tc.Name, _ = bm["name"].(string)
					tc.Arguments = bm["input"]
					msg.ToolCalls = append(msg.ToolCalls, tc)
				}
			}
			msg.Text = strings.Join(texts, "\n")
			c.messages = append(c.messages, msg)
			continue
		}
		// A user turn carries the results of the previous round's tool calls as blocks of its
		// own; they become tool messages, as Chat Completions has them, so a tool result never
		// counts as the user speaking.
		var texts []string
		for _, b := range blocks {
			bm, _ := b.(map[string]any)
			if bm["type"] == "tool_result" {
				msg := Message{Role: "tool", Text: textOf(bm["content"])}
				msg.ToolCallID, _ = bm["tool_use_id"].(string)
				c.messages = append(c.messages, msg)
				continue
			}
			if t, ok := bm["text"].(string); ok {
				texts = append(texts, t)
			}
		}
		if len(texts) > 0 {
			c.messages = append(c.messages, Message{Role: role, Text: strings.Join(texts, "\n")})
		}
	}
	tools, _ := body["tools"].([]any)
	for _, t := range tools {
		tm, _ := t.(map[string]any)
		if name, _ := tm["name"].(string); name != "" {
			c.tools = append(c.tools, name)
		}
	}
	oc, _ := body["output_config"].(map[string]any)
	c.wantsJSON = body["output_format"] != nil || oc["format"] != nil
	return c
}

func (rp *reply) anthropicStop() string {
	if len(rp.calls) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

func (rp *reply) anthropicSignature() string { return fmt.Sprintf("mock-signature-%d", rp.seq) }

// anthropicHasText: a message always has a block, so a round with nothing to say still gets an
// empty text block.
func (rp *reply) anthropicHasText() bool { return rp.text != "" || len(rp.calls) == 0 }

func (rp *reply) anthropicMessage() map[string]any {
	var content []any
	if rp.reasoning != "" {
		content = append(content, map[string]any{"type": "thinking", "thinking": rp.reasoning, "signature": rp.anthropicSignature()})
	}
	if rp.anthropicHasText() {
		content = append(content, map[string]any{"type": "text", "text": rp.text})
	}
	for _, c := range rp.calls {
		content = append(content, map[string]any{"type": "tool_use", "id": c.id, "name": c.name, "input": jsonValue(c.args)})
	}
	return map[string]any{"id": fmt.Sprintf("msg_mock_%d", rp.seq), "type": "message", "role": "assistant", "model": rp.model,
		"content": content, "stop_reason": rp.anthropicStop(), "stop_sequence": nil, "usage": rp.anthropicUsage(rp.output)}
}

func (rp *reply) anthropicUsage(output int) map[string]any {
	return map[string]any{"input_tokens": rp.input, "output_tokens": output,
		"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
}

// anthropicStream sends message_start, one content block per thinking, text and tool call (its
// input as input_json_delta pieces), message_delta with the stop reason, and message_stop.
func (rp *reply) anthropicStream(emit emitFunc) bool {
	start := rp.anthropicMessage()
	start["content"], start["stop_reason"], start["usage"] = []any{}, nil, rp.anthropicUsage(1)
	if !emit("message_start", map[string]any{"type": "message_start", "message": start}) ||
		!emit("ping", map[string]any{"type": "ping"}) {
		return false
	}
	index := 0
	block := func(first map[string]any, deltas []map[string]any) bool {
		if !emit("content_block_start", map[string]any{"type": "content_block_start", "index": index, "content_block": first}) {
			return false
		}
		for _, d := range deltas {
			if !emit("content_block_delta", map[string]any{"type": "content_block_delta", "index": index, "delta": d}) {
				return false
			}
		}
		ok := emit("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
		index++
		return ok
	}
	if rp.reasoning != "" {
		var deltas []map[string]any
		for _, p := range rp.reasParts {
			deltas = append(deltas, map[string]any{"type": "thinking_delta", "thinking": p})
		}
		deltas = append(deltas, map[string]any{"type": "signature_delta", "signature": rp.anthropicSignature()})
		if !block(map[string]any{"type": "thinking", "thinking": "", "signature": ""}, deltas) {
			return false
		}
	}
	if rp.anthropicHasText() {
		var deltas []map[string]any
		for _, p := range rp.textParts {
			deltas = append(deltas, map[string]any{"type": "text_delta", "text": p})
		}
		if !block(map[string]any{"type": "text", "text": ""}, deltas) {
			return false
		}
	}
	for _, c := range rp.calls {
		a, b := halves(c.args)
		deltas := []map[string]any{{"type": "input_json_delta", "partial_json": a}, {"type": "input_json_delta", "partial_json": b}}
		if !block(map[string]any{"type": "tool_use", "id": c.id, "name": c.name, "input": map[string]any{}}, deltas) {
			return false
		}
	}
	return emit("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": rp.anthropicStop(), "stop_sequence": nil}, "usage": map[string]any{"output_tokens": rp.output}}) &&
		emit("message_stop", map[string]any{"type": "message_stop"})
}
