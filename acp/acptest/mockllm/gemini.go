package mockllm

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Gemini generateContent: the wire of Gemini CLI (GOOGLE_GEMINI_BASE_URL).

func decodeGemini(body map[string]any) conversation {
	var c conversation
	if sys, _ := body["systemInstruction"].(map[string]any); sys != nil {
		if t, _ := geminiParts(sys["parts"]); t != "" {
			c.messages = append(c.messages, Message{Role: "system", Text: t})
		}
	}
	list, _ := body["contents"].([]any)
	prevModel := false
	for _, item := range list {
		m, _ := item.(map[string]any)
		role, _ := m["role"].(string)
		text, calls := geminiParts(m["parts"])
		if role == "model" {
			// consecutive model contents are one round: the API alternates roles
			if !prevModel {
				c.messages = append(c.messages, Message{Role: "assistant"})
			}
			msg := &c.messages[len(c.messages)-1]
			if msg.Text != "" && text != "" {
				msg.Text += "\n"
			}
			msg.Text += text
			msg.ToolCalls = append(msg.ToolCalls, calls...)
			prevModel = true
			continue
		}
		prevModel = false
		// function responses ride in user contents; they become tool messages so a tool result
		// never counts as the user speaking
		parts, _ := m["parts"].([]any)
		for _, p := range parts {
			pm, _ := p.(map[string]any)
			fr, _ := pm["functionResponse"].(map[string]any)
			if fr == nil {
				continue
			}
			msg := Message{Role: "tool"}
			msg.Name, _ = fr["name"].(string)
			msg.ToolCallID, _ = fr["id"].(string)
			if b, err := json.Marshal(fr["response"]); err == nil {
				msg.Text = string(b)
			}
			c.messages = append(c.messages, msg)
		}
		if text != "" || len(parts) == 0 {
			if role == "" {
				role = "user"
			}
			c.messages = append(c.messages, Message{Role: role, Text: text})
		}
	}
	tools, _ := body["tools"].([]any)
	for _, t := range tools {
		tm, _ := t.(map[string]any)
		decls, _ := tm["functionDeclarations"].([]any)
		for _, d := range decls {
			dm, _ := d.(map[string]any)
			if name, _ := dm["name"].(string); name != "" {
				c.tools = append(c.tools, name)
			}
		}
	}
	gc, _ := body["generationConfig"].(map[string]any)
	c.wantsJSON = gc["responseMimeType"] == "application/json" || gc["responseSchema"] != nil || gc["responseJsonSchema"] != nil
	return c
}

// geminiParts reads the text (thoughts left out) and the function calls of a content's parts.
func geminiParts(v any) (string, []ToolCall) {
	parts, _ := v.([]any)
	var texts []string
	var calls []ToolCall
	for _, p := range parts {
		pm, _ := p.(map[string]any)
		if fc, _ := pm["functionCall"].(map[string]any); fc != nil {
			var tc ToolCall
			tc.ID, _ = fc["id"].(string)
			tc.Name, _ = fc["name"].(string)
			tc.Arguments = fc["args"]
			calls = append(calls, tc)
			continue
		}
		if t, ok := pm["text"].(string); ok && pm["thought"] != true {
			texts = append(texts, t)
		}
	}
	return strings.Join(texts, ""), calls
}

func (rp *reply) geminiCallParts() []any {
	var parts []any
	for _, c := range rp.calls {
		fc := map[string]any{"name": c.name, "args": jsonValue(c.args)}
		if c.id != "" {
			fc["id"] = c.id
		}
		parts = append(parts, map[string]any{"functionCall": fc})
	}
	return parts
}

// geminiChunk is one GenerateContentResponse; the last one carries the finish reason and usage.
func (rp *reply) geminiChunk(parts []any, last bool) map[string]any {
	cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
	out := map[string]any{"candidates": []any{cand}, "modelVersion": rp.model, "responseId": fmt.Sprintf("mock-%d", rp.seq)}
	if last {
		cand["finishReason"] = "STOP"
		out["usageMetadata"] = map[string]any{"promptTokenCount": rp.input, "candidatesTokenCount": rp.output,
			"totalTokenCount": rp.input + rp.output, "thoughtsTokenCount": len(rp.reasoning) >> 2}
	}
	return out
}

func (rp *reply) geminiWhole() any {
	var parts []any
	if rp.reasoning != "" {
		parts = append(parts, map[string]any{"text": rp.reasoning, "thought": true})
	}
	if rp.text != "" || len(rp.calls) == 0 {
		parts = append(parts, map[string]any{"text": rp.text})
	}
	return rp.geminiChunk(append(parts, rp.geminiCallParts()...), true)
}

// geminiStream sends a chunk per piece of thought and of text, then all function calls in one
// chunk as the API does (it never splits their arguments); the last chunk has finishReason STOP,
// without which Gemini CLI takes the stream for broken and retries.
func (rp *reply) geminiStream(emit emitFunc) bool {
	var chunks [][]any
	for _, p := range rp.reasParts {
		chunks = append(chunks, []any{map[string]any{"text": p, "thought": true}})
	}
	for _, p := range rp.textParts {
		chunks = append(chunks, []any{map[string]any{"text": p}})
	}
	if calls := rp.geminiCallParts(); len(calls) > 0 {
		chunks = append(chunks, calls)
	}
	if len(chunks) == 0 {
		chunks = [][]any{{map[string]any{"text": ""}}}
	}
	for i, parts := range chunks {
		if !emit("", rp.geminiChunk(parts, i == len(chunks)-1)) {
			return false
		}
	}
	return true
}
