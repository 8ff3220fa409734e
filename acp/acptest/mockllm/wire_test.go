package mockllm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// The clients' side of each dialect, written from the APIs' framing rules rather than from the
// encoders, so the tests read the mock's answers the way an agent would and complain about what
// an agent would choke on.

type sseEvent struct{ Event, Data string }

// readSSE splits a stream into events, refusing any line that is not "event:", "data:" or blank.
func readSSE(t *testing.T, r io.Reader) []sseEvent {
	t.Helper()
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.Data != "" {
				out = append(out, cur)
			} else if cur.Event != "" {
				t.Errorf("event %q without data", cur.Event)
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			cur.Event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if cur.Data != "" {
				t.Errorf("two data lines in one event: %q", line)
			}
			cur.Data = strings.TrimPrefix(line, "data: ")
		default:
			t.Errorf("not an SSE line: %q", line)
		}
	}
	if cur.Data != "" {
		t.Errorf("stream ended inside an event: %+v", cur)
	}
	return out
}

// parsedCall and parsedRound are what a client makes of one answer.
type parsedCall struct {
	ID, Name string
	// Args is the arguments' JSON, or a custom tool's raw input.
	Args   string
	Custom bool
}

type parsedRound struct {
	Text, Reasoning string
	Calls           []parsedCall
	Finish          string
	Input, Output   int
}

func decodeData(t *testing.T, data string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(data), &m); err != nil {
		t.Fatalf("event data %q: %v", data, err)
	}
	return m
}

func num(v any) int { f, _ := v.(float64); return int(f) }

func str(v any) string { s, _ := v.(string); return s }

func obj(v any) map[string]any { m, _ := v.(map[string]any); return m }

func list(v any) []any { l, _ := v.([]any); return l }

// parseChatSSE reads Chat Completions chunks: data-only events ending with [DONE], tool calls
// assembled by index.
func parseChatSSE(t *testing.T, events []sseEvent) parsedRound {
	t.Helper()
	var r parsedRound
	if len(events) == 0 || events[len(events)-1].Data != "[DONE]" {
		t.Fatalf("chat stream does not end with [DONE]: %+v", events)
	}
	for _, e := range events[:len(events)-1] {
		if e.Event != "" {
			t.Errorf("chat event named %q", e.Event)
		}
		m := decodeData(t, e.Data)
		if m["object"] != "chat.completion.chunk" {
			t.Errorf("chunk object %v", m["object"])
		}
		if u := obj(m["usage"]); u != nil {
			r.Input, r.Output = num(u["prompt_tokens"]), num(u["completion_tokens"])
		}
		for _, c := range list(m["choices"]) {
			cm := obj(c)
			d := obj(cm["delta"])
			r.Text += str(d["content"])
			r.Reasoning += str(d["reasoning_content"])
			for _, tc := range list(d["tool_calls"]) {
				tm := obj(tc)
				i := num(tm["index"])
				for len(r.Calls) <= i {
					r.Calls = append(r.Calls, parsedCall{})
				}
				fn := obj(tm["function"])
				r.Calls[i].ID += str(tm["id"])
				r.Calls[i].Name += str(fn["name"])
				r.Calls[i].Args += str(fn["arguments"])
			}
			if f := str(cm["finish_reason"]); f != "" {
				r.Finish = f
			}
		}
	}
	return r
}

// parseAnthropicSSE reads Messages events, checking that each names its data's type, that the
// message starts and stops once, that blocks open, take deltas of their own kind and close in
// index order, and that tool input assembles to JSON.
func parseAnthropicSSE(t *testing.T, events []sseEvent) parsedRound {
	t.Helper()
	var r parsedRound
	if len(events) < 2 || events[0].Event != "message_start" || events[len(events)-1].Event != "message_stop" {
		t.Fatalf("messages stream not framed by message_start … message_stop: %+v", events)
	}
	open, next := -1, 0
	var kind string
	var call *parsedCall
	sawDelta := false
	for _, e := range events {
		m := decodeData(t, e.Data)
		if m["type"] != e.Event {
			t.Errorf("event %q carries type %v", e.Event, m["type"])
		}
		switch e.Event {
		case "message_start":
			msg := obj(m["message"])
			if msg["role"] != "assistant" || msg["type"] != "message" || len(list(msg["content"])) != 0 {
				t.Errorf("message_start %v", msg)
			}
			r.Input = num(obj(msg["usage"])["input_tokens"])
		case "content_block_start":
			if open >= 0 || num(m["index"]) != next {
				t.Errorf("block %v starts while %d is open (next %d)", m["index"], open, next)
			}
			open = num(m["index"])
			cb := obj(m["content_block"])
			kind = str(cb["type"])
			if kind == "tool_use" {
				r.Calls = append(r.Calls, parsedCall{ID: str(cb["id"]), Name: str(cb["name"])})
				call = &r.Calls[len(r.Calls)-1]
			}
		case "content_block_delta":
			if num(m["index"]) != open {
				t.Errorf("delta for block %v while %d is open", m["index"], open)
			}
			d := obj(m["delta"])
			switch {
			case d["type"] == "text_delta" && kind == "text":
				r.Text += str(d["text"])
			case d["type"] == "thinking_delta" && kind == "thinking":
				r.Reasoning += str(d["thinking"])
			case d["type"] == "signature_delta" && kind == "thinking":
			case d["type"] == "input_json_delta" && kind == "tool_use":
				call.Args += str(d["partial_json"])
			default:
				t.Errorf("%v in a %s block", d["type"], kind)
			}
		case "content_block_stop":
			if num(m["index"]) != open {
				t.Errorf("stop of block %v while %d is open", m["index"], open)
			}
			if kind == "tool_use" && !json.Valid([]byte(call.Args)) {
				t.Errorf("tool input %q is not JSON", call.Args)
			}
			open, next = -1, next+1
		case "message_delta":
			sawDelta = true
			r.Finish = str(obj(m["delta"])["stop_reason"])
			r.Output = num(obj(m["usage"])["output_tokens"])
		case "message_stop", "ping":
		default:
			t.Errorf("unknown event %q", e.Event)
		}
	}
	if open >= 0 || !sawDelta || next == 0 {
		t.Errorf("block %d left open, message_delta seen %v, %d blocks", open, sawDelta, next)
	}
	return r
}

// parseResponsesSSE reads Responses events as Codex does: the round's items are the
// output_item.done ones, and only response.completed ends it. It also checks that every item
// opens before it is done, that sequence numbers rise, and that the deltas add up to the item.
func parseResponsesSSE(t *testing.T, events []sseEvent) parsedRound {
	t.Helper()
	var r parsedRound
	if len(events) < 2 || events[0].Event != "response.created" || events[len(events)-1].Event != "response.completed" {
		t.Fatalf("responses stream not framed by response.created … response.completed: %+v", events)
	}
	added := map[int]bool{}
	deltas := map[string]string{}
	for i, e := range events {
		m := decodeData(t, e.Data)
		if m["type"] != e.Event {
			t.Errorf("event %q carries type %v", e.Event, m["type"])
		}
		if num(m["sequence_number"]) != i {
			t.Errorf("event %d has sequence_number %v", i, m["sequence_number"])
		}
		switch e.Event {
		case "response.output_item.added":
			added[num(m["output_index"])] = true
		case "response.output_text.delta", "response.function_call_arguments.delta", "response.custom_tool_call_input.delta",
			"response.reasoning_summary_text.delta":
			if !added[num(m["output_index"])] {
				t.Errorf("%s before its item was added", e.Event)
			}
			deltas[str(m["item_id"])] += str(m["delta"])
		case "response.output_item.done":
			if !added[num(m["output_index"])] {
				t.Errorf("item %v done before added", m["output_index"])
			}
			item := obj(m["item"])
			id := str(item["id"])
			switch item["type"] {
			case "message":
				for _, c := range list(item["content"]) {
					r.Text += str(obj(c)["text"])
				}
				if deltas[id] != r.Text {
					t.Errorf("text deltas %q, item %q", deltas[id], r.Text)
				}
			case "reasoning":
				for _, s := range list(item["summary"]) {
					r.Reasoning += str(obj(s)["text"])
				}
			case "function_call":
				r.Calls = append(r.Calls, parsedCall{ID: str(item["call_id"]), Name: str(item["name"]), Args: str(item["arguments"])})
			case "custom_tool_call":
				r.Calls = append(r.Calls, parsedCall{ID: str(item["call_id"]), Name: str(item["name"]), Args: str(item["input"]), Custom: true})
			default:
				t.Errorf("unknown item type %v", item["type"])
			}
			if n := len(r.Calls); n > 0 && (item["type"] == "function_call" || item["type"] == "custom_tool_call") && deltas[id] != r.Calls[n-1].Args {
				t.Errorf("argument deltas %q, item %q", deltas[id], r.Calls[n-1].Args)
			}
		case "response.completed":
			resp := obj(m["response"])
			u := obj(resp["usage"])
			if resp["status"] != "completed" || u == nil || num(u["total_tokens"]) != num(u["input_tokens"])+num(u["output_tokens"]) {
				t.Errorf("response.completed %v", resp)
			}
			r.Input, r.Output = num(u["input_tokens"]), num(u["output_tokens"])
			if len(list(resp["output"])) != len(added) {
				t.Errorf("completed with %d items, %d were streamed", len(list(resp["output"])), len(added))
			}
		}
	}
	r.Finish = "completed"
	return r
}

// parseGeminiSSE reads GenerateContentResponse chunks: unnamed events, parts gathered, the last
// chunk alone carrying the finish reason and the usage.
func parseGeminiSSE(t *testing.T, events []sseEvent) parsedRound {
	t.Helper()
	var r parsedRound
	if len(events) == 0 {
		t.Fatal("empty gemini stream")
	}
	for i, e := range events {
		if e.Event != "" {
			t.Errorf("gemini event named %q", e.Event)
		}
		m := decodeData(t, e.Data)
		last := i == len(events)-1
		r.addGemini(t, m, last)
	}
	return r
}

func (r *parsedRound) addGemini(t *testing.T, m map[string]any, last bool) {
	t.Helper()
	cands := list(m["candidates"])
	if len(cands) != 1 {
		t.Fatalf("candidates %v", m["candidates"])
	}
	c := obj(cands[0])
	content := obj(c["content"])
	if content["role"] != "model" {
		t.Errorf("content role %v", content["role"])
	}
	for _, p := range list(content["parts"]) {
		pm := obj(p)
		if fc := obj(pm["functionCall"]); fc != nil {
			if obj(fc["args"]) == nil {
				t.Errorf("functionCall args %v are not an object", fc["args"])
			}
			b, _ := json.Marshal(fc["args"])
			r.Calls = append(r.Calls, parsedCall{ID: str(fc["id"]), Name: str(fc["name"]), Args: string(b)})
			continue
		}
		if pm["thought"] == true {
			r.Reasoning += str(pm["text"])
		} else {
			r.Text += str(pm["text"])
		}
	}
	f, u := str(c["finishReason"]), obj(m["usageMetadata"])
	if last != (f != "") || last != (u != nil) {
		t.Errorf("finishReason %q and usage %v on a chunk that is last=%v", f, u, last)
	}
	if last {
		r.Finish, r.Input, r.Output = f, num(u["promptTokenCount"]), num(u["candidatesTokenCount"])
	}
}

// parseWhole reads a non-streamed answer in dialect d.
func parseWhole(t *testing.T, d Dialect, m map[string]any) parsedRound {
	t.Helper()
	var r parsedRound
	switch d {
	case ChatCompletions:
		c := obj(list(m["choices"])[0])
		msg := obj(c["message"])
		r.Text, r.Reasoning, r.Finish = str(msg["content"]), str(msg["reasoning_content"]), str(c["finish_reason"])
		for _, tc := range list(msg["tool_calls"]) {
			fn := obj(obj(tc)["function"])
			r.Calls = append(r.Calls, parsedCall{ID: str(obj(tc)["id"]), Name: str(fn["name"]), Args: str(fn["arguments"])})
		}
		r.Input = num(obj(m["usage"])["prompt_tokens"])
	case AnthropicMessages:
		for _, b := range list(m["content"]) {
			bm := obj(b)
			switch bm["type"] {
			case "text":
				r.Text += str(bm["text"])
			case "thinking":
				r.Reasoning += str(bm["thinking"])
			case "tool_use":
				args, _ := json.Marshal(bm["input"])
				r.Calls = append(r.Calls, parsedCall{ID: str(bm["id"]), Name: str(bm["name"]), Args: string(args)})
			}
		}
		r.Finish, r.Input = str(m["stop_reason"]), num(obj(m["usage"])["input_tokens"])
	case Responses:
		for _, it := range list(m["output"]) {
			item := obj(it)
			switch item["type"] {
			case "message":
				r.Text += str(obj(list(item["content"])[0])["text"])
			case "reasoning":
				r.Reasoning += str(obj(list(item["summary"])[0])["text"])
			case "function_call":
				r.Calls = append(r.Calls, parsedCall{ID: str(item["call_id"]), Name: str(item["name"]), Args: str(item["arguments"])})
			case "custom_tool_call":
				r.Calls = append(r.Calls, parsedCall{ID: str(item["call_id"]), Name: str(item["name"]), Args: str(item["input"]), Custom: true})
			}
		}
		r.Finish, r.Input = str(m["status"]), num(obj(m["usage"])["input_tokens"])
	case Gemini:
		r.addGemini(t, m, true)
	}
	return r
}

// roundOf reads resp as a client of dialect d would, streamed or not.
func roundOf(t *testing.T, d Dialect, resp *http.Response) parsedRound {
	t.Helper()
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		var m map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
			t.Fatal(err)
		}
		return parseWhole(t, d, m)
	}
	events := readSSE(t, resp.Body)
	switch d {
	case AnthropicMessages:
		return parseAnthropicSSE(t, events)
	case Responses:
		return parseResponsesSSE(t, events)
	case Gemini:
		return parseGeminiSSE(t, events)
	}
	return parseChatSSE(t, events)
}

// post sends body to the server at pathQuery ("/v1/messages?beta=true").
func post(t *testing.T, srv *Server, pathQuery string, body any, header ...string) *http.Response {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, srv.Origin()+pathQuery, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}
