package mockllm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

// checkRound compares what a client read with the step the mock was scripted to answer.
func checkRound(t *testing.T, d Dialect, got parsedRound, want Step) {
	t.Helper()
	if got.Text != want.Text || got.Reasoning != want.Reasoning {
		t.Errorf("text %q reasoning %q, want %q and %q", got.Text, got.Reasoning, want.Text, want.Reasoning)
	}
	if len(got.Calls) != len(want.ToolCalls) {
		t.Fatalf("calls %+v, want %+v", got.Calls, want.ToolCalls)
	}
	for i, c := range got.Calls {
		w := want.ToolCalls[i]
		args, _ := w.argumentsJSON()
		if c.Name != w.Name || (d != Gemini && c.ID == "") {
			t.Errorf("call %d: %+v, want %s", i, c, w.Name)
		}
		if c.Custom {
			if c.Args != args {
				t.Errorf("call %d input %q, want %q", i, c.Args, args)
			}
			continue
		}
		var g, e any
		if json.Unmarshal([]byte(c.Args), &g) != nil || json.Unmarshal([]byte(args), &e) != nil || !reflect.DeepEqual(g, e) {
			t.Errorf("call %d arguments %s, want %s", i, c.Args, args)
		}
	}
	finish := map[Dialect][2]string{ChatCompletions: {"stop", "tool_calls"}, AnthropicMessages: {"end_turn", "tool_use"},
		Responses: {"completed", "completed"}, Gemini: {"STOP", "STOP"}}[d]
	want1 := finish[0]
	if len(want.ToolCalls) > 0 {
		want1 = finish[1]
	}
	if got.Finish != want1 {
		t.Errorf("finish %q, want %q", got.Finish, want1)
	}
	if got.Input <= 0 {
		t.Errorf("input tokens %d", got.Input)
	}
}

// A round scripted with everything a step can hold, answered in every dialect. The second call's
// arguments are a string: JSON text to a function tool, the raw input of a custom one.
var fullStep = Step{Reasoning: "thinking it over", Text: "Doing two things: é.", Chunks: 3, ToolCalls: []ToolCall{
	{Name: "write_file", Arguments: map[string]any{"path": "a.txt", "content": "é\n"}},
	{Name: "apply_patch", Arguments: `{"patch":"*** Begin Patch\n*** Add File: a.txt\n+é\n*** End Patch\n"}`},
}}

var dialectPaths = map[Dialect]string{
	ChatCompletions:   "/v1/chat/completions",
	Responses:         "/v1/responses",
	AnthropicMessages: "/v1/messages?beta=true",
	Gemini:            "/v1beta/models/gemini-x:streamGenerateContent?alt=sse",
}

// firstRequest is a faithful reduction of the first request each agent sends: the prompt with
// the scenario token, the tools by the agent's names, streaming on.
func firstRequest(d Dialect, prompt string, stream bool) map[string]any {
	switch d {
	case Responses:
		return map[string]any{"model": "gpt-5.4", "instructions": "You are Codex.", "stream": stream, "store": false,
			"input": []any{
				map[string]any{"type": "message", "role": "developer", "content": []any{map[string]any{"type": "input_text", "text": "<permissions instructions>"}}},
				map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "<environment_context>"}}},
				map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": prompt}}},
			},
			"tools": []any{
				map[string]any{"type": "function", "name": "write_file", "parameters": map[string]any{"type": "object"}},
				map[string]any{"type": "custom", "name": "apply_patch", "format": map[string]any{"type": "grammar", "syntax": "lark", "definition": "start: patch"}},
				map[string]any{"type": "web_search"},
			}}
	case AnthropicMessages:
		return map[string]any{"model": "claude-sonnet-4-6", "max_tokens": 32000, "stream": stream,
			"system": []any{map[string]any{"type": "text", "text": "You are Claude Code."}},
			"messages": []any{map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "text", "text": "<system-reminder>context</system-reminder>"},
				map[string]any{"type": "text", "text": prompt},
			}}},
			"tools": []any{map[string]any{"name": "write_file", "input_schema": map[string]any{"type": "object"}},
				map[string]any{"name": "apply_patch", "input_schema": map[string]any{"type": "object"}}}}
	case Gemini:
		return map[string]any{
			"systemInstruction": map[string]any{"role": "user", "parts": []any{map[string]any{"text": "You are Gemini CLI."}}},
			"contents":          []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": "<session context>"}, map[string]any{"text": prompt}}}},
			"tools": []any{map[string]any{"functionDeclarations": []any{
				map[string]any{"name": "write_file"}, map[string]any{"name": "apply_patch"}}}},
			"generationConfig": map[string]any{"temperature": 1, "thinkingConfig": map[string]any{"includeThoughts": true}}}
	}
	return map[string]any{"model": "mock-model", "stream": stream, "stream_options": map[string]any{"include_usage": true},
		"messages": []any{map[string]any{"role": "system", "content": "You are an agent."},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": prompt}}}},
		"tools": []any{map[string]any{"type": "function", "function": map[string]any{"name": "write_file"}},
			map[string]any{"type": "function", "function": map[string]any{"name": "apply_patch"}}}}
}

// TestEveryDialectAnswersTheSameStep streams and then fetches whole the same scripted round in
// each dialect, and reads it back with that dialect's framing.
func TestEveryDialectAnswersTheSameStep(t *testing.T) {
	for d, path := range dialectPaths {
		for _, stream := range []bool{true, false} {
			t.Run(string(d)+map[bool]string{true: "/stream", false: "/whole"}[stream], func(t *testing.T) {
				srv := start(t, Script{Scenarios: []Scenario{{Match: "SCENARIO:full", Steps: []Step{fullStep}}}})
				p := path
				if d == Gemini && !stream {
					p = "/v1beta/models/gemini-x:generateContent"
				}
				got := roundOf(t, d, post(t, srv, p, firstRequest(d, "please SCENARIO:full", stream)))
				checkRound(t, d, got, fullStep)
				// Codex's apply_patch is offered as a custom tool: its call carries the patch as
				// it is; everywhere else it is a function like any other
				if apply := got.Calls[1]; apply.Custom != (d == Responses) {
					t.Errorf("apply_patch custom=%v in %s", apply.Custom, d)
				}
				r := srv.Requests()[0]
				if r.Dialect != d || r.Scenario != "SCENARIO:full" || r.Stream != stream || !r.Finished || r.ClientClosedEarly {
					t.Errorf("recorded %+v", r)
				}
				if len(r.Tools) < 2 || r.Tools[0] != "write_file" || r.Tools[1] != "apply_patch" {
					t.Errorf("tools %v", r.Tools)
				}
				if d == Gemini && r.Model != "gemini-x" {
					t.Errorf("gemini model %q", r.Model)
				}
			})
		}
	}
}

// TestStepsCountRoundsInEveryDialect sends the second request of a turn as each agent shapes it
// (the first round's call and its result in the dialect's own form) and expects step 1.
func TestStepsCountRoundsInEveryDialect(t *testing.T) {
	script := Script{Scenarios: []Scenario{{Match: "SCENARIO:two", Steps: []Step{
		{Text: "first", ToolCalls: []ToolCall{{Name: "write_file", Arguments: map[string]any{"path": "x"}}}},
		{Text: "second"},
	}}}}
	second := map[Dialect]func(map[string]any){
		ChatCompletions: func(b map[string]any) {
			b["messages"] = append(b["messages"].([]any),
				map[string]any{"role": "assistant", "content": "first", "tool_calls": []any{map[string]any{"id": "c1", "type": "function",
					"function": map[string]any{"name": "write_file", "arguments": `{"path":"x"}`}}}},
				map[string]any{"role": "tool", "tool_call_id": "c1", "content": "ok SCENARIO:two echoed by a tool"})
		},
		AnthropicMessages: func(b map[string]any) {
			b["messages"] = append(b["messages"].([]any),
				map[string]any{"role": "assistant", "content": []any{
					map[string]any{"type": "thinking", "thinking": "hm", "signature": "s"},
					map[string]any{"type": "text", "text": "first"},
					map[string]any{"type": "tool_use", "id": "toolu_1", "name": "write_file", "input": map[string]any{"path": "x"}}}},
				map[string]any{"role": "user", "content": []any{
					map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok SCENARIO:two echoed by a tool"},
					map[string]any{"type": "text", "text": "<system-reminder>nothing</system-reminder>"}}})
		},
		Responses: func(b map[string]any) {
			b["input"] = append(b["input"].([]any),
				map[string]any{"type": "reasoning", "id": "rs_1", "summary": []any{}, "encrypted_content": "x"},
				map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": "first"}}},
				map[string]any{"type": "function_call", "call_id": "c1", "name": "write_file", "arguments": `{"path":"x"}`},
				map[string]any{"type": "function_call_output", "call_id": "c1", "output": "ok SCENARIO:two echoed by a tool"})
		},
		Gemini: func(b map[string]any) {
			b["contents"] = append(b["contents"].([]any),
				map[string]any{"role": "model", "parts": []any{map[string]any{"text": "hm", "thought": true}, map[string]any{"text": "first"}}},
				map[string]any{"role": "model", "parts": []any{map[string]any{"functionCall": map[string]any{"name": "write_file", "args": map[string]any{"path": "x"}}}}},
				map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{"id": "write_file_1", "name": "write_file",
					"response": map[string]any{"output": "ok SCENARIO:two echoed by a tool"}}}}})
		},
	}
	for d, path := range dialectPaths {
		t.Run(string(d), func(t *testing.T) {
			srv := start(t, script)
			body := firstRequest(d, "SCENARIO:two", true)
			second[d](body)
			checkRound(t, d, roundOf(t, d, post(t, srv, path, body)), script.Scenarios[0].Steps[1])
			r := srv.Requests()[0]
			if r.Step != 1 {
				t.Fatalf("step %d", r.Step)
			}
			var assistants, tools int
			for _, m := range r.Messages {
				switch m.Role {
				case "assistant":
					assistants++
					if m.Text != "first" || len(m.ToolCalls) != 1 || m.ToolCalls[0].Name != "write_file" {
						t.Errorf("assistant message %+v", m)
					}
				case "tool":
					tools++
				}
			}
			if assistants != 1 || tools != 1 {
				t.Errorf("messages %+v", r.Messages)
			}
		})
	}
}

func TestAsides(t *testing.T) {
	scenario := Scenario{Match: "SCENARIO:a", Steps: []Step{{ToolCalls: []ToolCall{{Name: "write_file", Arguments: map[string]any{}}}}}}
	srv := start(t, Script{Scenarios: []Scenario{scenario}}.WithAsides())

	// Gemini's router: the prompt quoted, no tools, a JSON answer asked for
	router := firstRequest(Gemini, "SCENARIO:a", false)
	delete(router, "tools")
	router["generationConfig"] = map[string]any{"responseMimeType": "application/json", "responseJsonSchema": map[string]any{"type": "object"}}
	got := roundOf(t, Gemini, post(t, srv, "/v1beta/models/gemini-lite:generateContent", router))
	var checks map[string]any
	if err := json.Unmarshal([]byte(got.Text), &checks); err != nil || checks["next_speaker"] != "user" || len(got.Calls) != 0 {
		t.Fatalf("router answered %+v", got)
	}
	// opencode's title: no tools, plain text
	title := firstRequest(ChatCompletions, "SCENARIO:a", true)
	delete(title, "tools")
	if got := roundOf(t, ChatCompletions, post(t, srv, "/v1/chat/completions", title)); got.Text != "Mock title" {
		t.Fatalf("title answered %+v", got)
	}
	// the turn itself still starts at step 0
	got = roundOf(t, AnthropicMessages, post(t, srv, "/v1/messages", firstRequest(AnthropicMessages, "SCENARIO:a", true)))
	if len(got.Calls) != 1 {
		t.Fatalf("turn answered %+v", got)
	}
	reqs := srv.Requests()
	if !reqs[0].Aside || !reqs[1].Aside || reqs[2].Aside || reqs[2].Step != 0 || reqs[0].Scenario != "" {
		t.Fatalf("recorded %+v", reqs)
	}

	// without asides a tool-less request is a round like any other, as Reasonix scripts expect
	plain := start(t, Script{Scenarios: []Scenario{scenario}})
	if got := roundOf(t, ChatCompletions, post(t, plain, "/v1/chat/completions", title)); len(got.Calls) != 1 {
		t.Fatalf("without asides: %+v", got)
	}
}

func TestErrorsInEachDialect(t *testing.T) {
	srv := start(t, Script{Scenarios: []Scenario{{Match: "SCENARIO:boom", Steps: []Step{{HTTPStatus: 529, Error: "overloaded"}}}}})
	for d, path := range dialectPaths {
		resp := post(t, srv, path, firstRequest(d, "SCENARIO:boom", true))
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		resp.Body.Close()
		e := obj(m["error"])
		if resp.StatusCode != 529 || e["message"] != "overloaded" {
			t.Errorf("%s: %d %v", d, resp.StatusCode, m)
		}
		switch d {
		case AnthropicMessages:
			if m["type"] != "error" || e["type"] != "overloaded_error" {
				t.Errorf("anthropic error %v", m)
			}
		case Gemini:
			if num(e["code"]) != 529 || e["status"] != "UNKNOWN" {
				t.Errorf("gemini error %v", m)
			}
		}
	}
}

func TestSideRoutes(t *testing.T) {
	srv := start(t, testScript)
	check := func(method, pathQuery string, header []string, body any, want func(map[string]any) bool) {
		t.Helper()
		var resp *http.Response
		if body != nil {
			resp = post(t, srv, pathQuery, body, header...)
		} else {
			req, _ := http.NewRequest(method, srv.Origin()+pathQuery, nil)
			for i := 0; i+1 < len(header); i += 2 {
				req.Header.Set(header[i], header[i+1])
			}
			var err error
			if resp, err = http.DefaultClient.Do(req); err != nil {
				t.Fatal(err)
			}
		}
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		if resp.StatusCode != http.StatusOK || (want != nil && !want(m)) {
			t.Errorf("%s %s: %d %v", method, pathQuery, resp.StatusCode, m)
		}
	}
	check(http.MethodHead, "/", nil, nil, nil)
	check(http.MethodPost, "/v1/messages/count_tokens?beta=true", nil, firstRequest(AnthropicMessages, "x", false),
		func(m map[string]any) bool { return num(m["input_tokens"]) > 0 })
	check(http.MethodPost, "/v1beta/models/gemini-x:countTokens", nil, firstRequest(Gemini, "x", false),
		func(m map[string]any) bool { return num(m["totalTokens"]) > 0 })
	check(http.MethodGet, "/v1/models", []string{"anthropic-version", "2023-06-01"}, nil,
		func(m map[string]any) bool { return obj(list(m["data"])[0])["type"] == "model" })
	check(http.MethodGet, "/v1beta/models", nil, nil,
		func(m map[string]any) bool {
			return strings.HasPrefix(str(obj(list(m["models"])[0])["name"]), "models/")
		})
	check(http.MethodGet, "/v1/models", nil, nil, func(m map[string]any) bool { return m["object"] == "list" })
	want := []struct {
		d    Dialect
		path string
	}{{"", "/"}, {AnthropicMessages, "/v1/messages/count_tokens"}, {Gemini, "/v1beta/models/gemini-x:countTokens"},
		{AnthropicMessages, "/v1/models"}, {Gemini, "/v1beta/models"}, {ChatCompletions, "/v1/models"}}
	reqs := srv.Requests()
	for i, w := range want {
		if reqs[i].Dialect != w.d || reqs[i].Path != w.path || reqs[i].Scenario != "" || !reqs[i].Finished {
			t.Errorf("request %d recorded %+v, want %s %s", i, reqs[i], w.d, w.path)
		}
	}
	if reqs[0].Method != http.MethodHead || reqs[1].Query != "beta=true" {
		t.Errorf("recorded %+v and %+v", reqs[0], reqs[1])
	}
}

func TestRouteOf(t *testing.T) {
	for _, c := range []struct {
		method, url string
		want        route
	}{
		{"POST", "/v1/chat/completions", route{dialect: ChatCompletions, op: opGenerate}},
		{"POST", "/proxy/v1/responses", route{dialect: Responses, op: opGenerate}},
		{"POST", "/v1/messages?beta=true", route{dialect: AnthropicMessages, op: opGenerate}},
		{"POST", "/v1/messages/count_tokens", route{dialect: AnthropicMessages, op: opCount}},
		{"POST", "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse", route{dialect: Gemini, op: opStream, model: "gemini-2.5-pro"}},
		{"POST", "/v1beta/models/gemini-2.5-pro:generateContent", route{dialect: Gemini, op: opGenerate, model: "gemini-2.5-pro"}},
		{"POST", "/v1beta/models/g:countTokens", route{dialect: Gemini, op: opCount, model: "g"}},
		{"POST", "/v1beta/models/g:embedContent", route{}},
		{"GET", "/v1/chat/completions", route{}},
		{"GET", "/", route{op: opProbe}},
		{"GET", "/v1/models", route{dialect: ChatCompletions, op: opModels}},
		{"DELETE", "/v1/models", route{}},
	} {
		r, _ := http.NewRequest(c.method, "http://x"+c.url, nil)
		if got := routeOf(r); got != c.want {
			t.Errorf("%s %s: %+v, want %+v", c.method, c.url, got, c.want)
		}
	}
}

// TestGeminiWithoutSSE: without alt=sse the API streams a JSON array of the same chunks.
func TestGeminiWithoutSSE(t *testing.T) {
	srv := start(t, Script{Scenarios: []Scenario{{Match: "SCENARIO:full", Steps: []Step{fullStep}}}})
	resp := post(t, srv, "/v1beta/models/g:streamGenerateContent", firstRequest(Gemini, "SCENARIO:full", true))
	defer resp.Body.Close()
	var chunks []map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&chunks); err != nil {
		t.Fatal(err)
	}
	var r parsedRound
	for i, c := range chunks {
		r.addGemini(t, c, i == len(chunks)-1)
	}
	checkRound(t, Gemini, r, fullStep)
}

// TestClientClosingEarlyInEachDialect: a client hanging up mid-stream is recorded whatever the
// dialect, so a cancel test can tell the agent really stopped reading.
func TestClientClosingEarlyInEachDialect(t *testing.T) {
	slow := Step{Text: "a slow answer in many pieces", Chunks: 10, ChunkDelayMS: 200}
	for d, path := range dialectPaths {
		t.Run(string(d), func(t *testing.T) {
			srv := start(t, Script{Scenarios: []Scenario{{Match: "SCENARIO:slow", Steps: []Step{slow}}}})
			ctx, cancel := context.WithCancel(context.Background())
			b, _ := json.Marshal(firstRequest(d, "SCENARIO:slow", true))
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.Origin()+path, bytes.NewReader(b))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
				t.Fatal(err)
			}
			cancel()
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer wcancel()
			reqs, err := srv.WaitFor(wctx, func(r []Request) bool { return len(r) == 1 && r[0].Finished })
			if err != nil || !reqs[0].ClientClosedEarly {
				t.Fatalf("early close not detected: %v %+v", err, reqs)
			}
		})
	}
}
