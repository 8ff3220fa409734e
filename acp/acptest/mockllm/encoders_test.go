package mockllm

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// The encoders on their own: each reply rendered into the events a real API sends, in its order.

type collected struct {
	names  []string
	events []sseEvent
}

func (c *collected) emit(name string, v any) bool {
	c.names = append(c.names, name)
	frame := sseFrame(name, v)
	data := strings.TrimSuffix(frame[strings.Index(frame, "data: ")+len("data: "):], "\n\n")
	c.events = append(c.events, sseEvent{Event: name, Data: data})
	return true
}

func replyFor(d Dialect, st Step, body map[string]any) *reply {
	return newReply(7, Request{Dialect: d, Model: "m", Body: body}, 400, st)
}

func TestAnthropicEncoder(t *testing.T) {
	var c collected
	rp := replyFor(AnthropicMessages, fullStep, nil)
	if !rp.anthropicStream(c.emit) {
		t.Fatal("stream cut short")
	}
	// thinking, text and two tool_use blocks, three text pieces each
	want := []string{"message_start", "ping",
		"content_block_start", "content_block_delta", "content_block_delta", "content_block_delta", "content_block_delta", "content_block_stop",
		"content_block_start", "content_block_delta", "content_block_delta", "content_block_delta", "content_block_stop",
		"content_block_start", "content_block_delta", "content_block_delta", "content_block_stop",
		"content_block_start", "content_block_delta", "content_block_delta", "content_block_stop",
		"message_delta", "message_stop"}
	if !slices.Equal(c.names, want) {
		t.Fatalf("events %v", c.names)
	}
	got := parseAnthropicSSE(t, c.events)
	checkRound(t, AnthropicMessages, got, fullStep)
	if got.Calls[0].ID != "toolu_mock_7_0" || got.Input != 100 || got.Output == 0 {
		t.Errorf("%+v", got)
	}
	if !strings.Contains(c.events[6].Data, `"signature_delta"`) {
		t.Errorf("no signature closing the thinking block: %v", c.events[6])
	}

	// a round with nothing to say still has a block, and ends the turn
	c = collected{}
	replyFor(AnthropicMessages, Step{}, nil).anthropicStream(c.emit)
	if got := parseAnthropicSSE(t, c.events); got.Finish != "end_turn" || got.Text != "" {
		t.Errorf("empty round %+v", got)
	}
	whole := replyFor(AnthropicMessages, fullStep, nil).anthropicMessage()
	b, _ := json.Marshal(whole)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	checkRound(t, AnthropicMessages, parseWhole(t, AnthropicMessages, m), fullStep)
}

func TestResponsesEncoder(t *testing.T) {
	body := map[string]any{"tools": []any{map[string]any{"type": "custom", "name": "apply_patch"}, map[string]any{"type": "function", "name": "write_file"}}}
	var c collected
	if !replyFor(Responses, fullStep, body).responsesStream(c.emit) {
		t.Fatal("stream cut short")
	}
	want := []string{"response.created", "response.in_progress",
		"response.output_item.added", "response.reasoning_summary_part.added",
		"response.reasoning_summary_text.delta", "response.reasoning_summary_text.delta", "response.reasoning_summary_text.delta",
		"response.reasoning_summary_text.done", "response.reasoning_summary_part.done", "response.output_item.done",
		"response.output_item.added", "response.content_part.added",
		"response.output_text.delta", "response.output_text.delta", "response.output_text.delta",
		"response.output_text.done", "response.content_part.done", "response.output_item.done",
		"response.output_item.added", "response.function_call_arguments.delta", "response.function_call_arguments.delta",
		"response.function_call_arguments.done", "response.output_item.done",
		"response.output_item.added", "response.custom_tool_call_input.delta", "response.custom_tool_call_input.delta",
		"response.custom_tool_call_input.done", "response.output_item.done",
		"response.completed"}
	if !slices.Equal(c.names, want) {
		t.Fatalf("events %v", c.names)
	}
	got := parseResponsesSSE(t, c.events)
	checkRound(t, Responses, got, fullStep)
	if got.Calls[0].Custom || !got.Calls[1].Custom || got.Calls[1].ID != "call_mock_7_1" {
		t.Errorf("calls %+v", got.Calls)
	}
	// the finished items as Codex parses them: an id on each, the call ids, the patch as it is
	var done map[string]any
	_ = json.Unmarshal([]byte(c.events[len(c.events)-2].Data), &done)
	item := obj(done["item"])
	if item["type"] != "custom_tool_call" || item["input"] != fullStep.ToolCalls[1].Arguments || item["status"] != "completed" || item["id"] == "" {
		t.Errorf("custom item %v", item)
	}

	// with the tool offered as a function, apply_patch is a function call carrying its string
	c = collected{}
	replyFor(Responses, fullStep, nil).responsesStream(c.emit)
	if got := parseResponsesSSE(t, c.events); got.Calls[1].Custom {
		t.Errorf("apply_patch not offered as custom came back custom")
	}
}

func TestGeminiEncoder(t *testing.T) {
	var c collected
	if !replyFor(Gemini, fullStep, nil).geminiStream(c.emit) {
		t.Fatal("stream cut short")
	}
	// three thought pieces, three text pieces, one chunk with both calls
	if len(c.events) != 7 || slices.ContainsFunc(c.names, func(n string) bool { return n != "" }) {
		t.Fatalf("events %v", c.events)
	}
	got := parseGeminiSSE(t, c.events)
	checkRound(t, Gemini, got, fullStep)
	if got.Calls[0].ID != "" {
		t.Errorf("gemini call id %q: the API sends none", got.Calls[0].ID)
	}
	// a scripted id is passed on
	c = collected{}
	replyFor(Gemini, Step{ToolCalls: []ToolCall{{Name: "f", ID: "f-1", Arguments: map[string]any{"a": 1}}}}, nil).geminiStream(c.emit)
	if got := parseGeminiSSE(t, c.events); len(c.events) != 1 || got.Calls[0].ID != "f-1" {
		t.Errorf("%d events, %+v", len(c.events), got)
	}
	// nothing to say is still one finished chunk
	c = collected{}
	replyFor(Gemini, Step{}, nil).geminiStream(c.emit)
	if got := parseGeminiSSE(t, c.events); len(c.events) != 1 || got.Finish != "STOP" {
		t.Errorf("empty round %+v", got)
	}
}

func TestChatEncoder(t *testing.T) {
	var c collected
	if !replyFor(ChatCompletions, fullStep, nil).chatStream(true, c.emit) {
		t.Fatal("stream cut short")
	}
	// role, 3 reasoning, 3 text, 2×2 call pieces, finish, usage, [DONE]
	if len(c.events) != 14 {
		t.Fatalf("%d events: %v", len(c.events), c.events)
	}
	got := parseChatSSE(t, c.events)
	checkRound(t, ChatCompletions, got, fullStep)
	if got.Calls[1].Args != fullStep.ToolCalls[1].Arguments {
		t.Errorf("a string argument is sent as it is: %q", got.Calls[1].Args)
	}
	c = collected{}
	replyFor(ChatCompletions, Step{Text: "x"}, nil).chatStream(false, c.emit)
	if len(c.events) != 4 {
		t.Errorf("without usage: %v", c.events)
	}
}

// A stream stops at the first event the client did not take.
func TestEncodersStopWhenTheClientGoes(t *testing.T) {
	body := map[string]any{"tools": []any{map[string]any{"type": "custom", "name": "apply_patch"}}}
	for d, run := range map[Dialect]func(*reply, emitFunc) bool{
		ChatCompletions:   func(rp *reply, e emitFunc) bool { return rp.chatStream(true, e) },
		AnthropicMessages: (*reply).anthropicStream,
		Responses:         (*reply).responsesStream,
		Gemini:            (*reply).geminiStream,
	} {
		for cut := range 6 {
			n := 0
			ok := run(replyFor(d, fullStep, body), func(string, any) bool { n++; return n <= cut })
			if ok || n != cut+1 {
				t.Errorf("%s cut after %d: ok=%v, %d events offered", d, cut, ok, n)
			}
		}
	}
}

func TestDecodeAnthropicToolResultsAreToolMessages(t *testing.T) {
	c := decodeAnthropic(map[string]any{
		"system": "sys",
		"messages": []any{
			map[string]any{"role": "user", "content": "SCENARIO:x"},
			map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "t1", "name": "Bash", "input": map[string]any{"command": "ls"}}}},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "t1",
				"content": []any{map[string]any{"type": "text", "text": "SCENARIO:x"}}}}},
		},
		"tools":         []any{map[string]any{"name": "Bash"}},
		"output_format": map[string]any{"type": "json_schema"},
	})
	roles := make([]string, len(c.messages))
	for i, m := range c.messages {
		roles[i] = m.Role
	}
	if !slices.Equal(roles, []string{"system", "user", "assistant", "tool"}) || c.messages[3].ToolCallID != "t1" ||
		c.messages[2].ToolCalls[0].Name != "Bash" || !slices.Equal(c.tools, []string{"Bash"}) || !c.wantsJSON {
		t.Fatalf("%+v", c)
	}
}

func TestDecodeResponsesMergesARoundsItems(t *testing.T) {
	c := decodeResponses(map[string]any{
		"input": []any{
			map[string]any{"role": "user", "content": "SCENARIO:x"}, // the short form, no type
			map[string]any{"type": "reasoning", "id": "r"},
			map[string]any{"type": "custom_tool_call", "call_id": "c1", "name": "apply_patch", "input": "*** Begin Patch"},
			map[string]any{"type": "function_call", "call_id": "c2", "name": "exec_command", "arguments": "{}"},
			map[string]any{"type": "custom_tool_call_output", "call_id": "c1", "output": "ok"},
			map[string]any{"type": "function_call_output", "call_id": "c2", "output": []any{map[string]any{"type": "input_text", "text": "done"}}},
			map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": "bye"}}},
		},
		"tools": []any{map[string]any{"type": "custom", "name": "apply_patch"}, map[string]any{"type": "local_shell"}},
		"text":  map[string]any{"format": map[string]any{"type": "json_schema"}},
	})
	if len(c.messages) != 5 || c.messages[1].Role != "assistant" || len(c.messages[1].ToolCalls) != 2 ||
		c.messages[1].ToolCalls[0].Arguments != "*** Begin Patch" || c.messages[3].Text != "done" || c.messages[4].Text != "bye" {
		t.Fatalf("%+v", c.messages)
	}
	if !slices.Equal(c.tools, []string{"apply_patch", "local_shell"}) || !c.wantsJSON {
		t.Fatalf("%+v", c)
	}
	if s := decodeResponses(map[string]any{"input": "hi"}); len(s.messages) != 1 || s.messages[0].Text != "hi" {
		t.Fatalf("string input %+v", s)
	}
}

func TestDecodeGeminiFunctionResponsesAreToolMessages(t *testing.T) {
	c := decodeGemini(map[string]any{
		"systemInstruction": map[string]any{"parts": []any{map[string]any{"text": "sys"}}},
		"contents": []any{
			map[string]any{"role": "user", "parts": []any{map[string]any{"text": "SCENARIO:x"}}},
			map[string]any{"role": "model", "parts": []any{map[string]any{"functionCall": map[string]any{"name": "write_file", "args": map[string]any{}}}}},
			map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{"name": "write_file", "id": "w1", "response": map[string]any{"output": "ok"}}}}},
		},
		"generationConfig": map[string]any{"responseMimeType": "application/json"},
	})
	if len(c.messages) != 4 || c.messages[2].Role != "assistant" || c.messages[3].Role != "tool" || c.messages[3].ToolCallID != "w1" ||
		c.messages[3].Text != `{"output":"ok"}` || len(c.tools) != 0 || !c.wantsJSON {
		t.Fatalf("%+v", c)
	}
}
