package mockllm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func start(t *testing.T, s Script) *Server {
	t.Helper()
	srv, err := Start(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

type chunk struct {
	Choices []struct {
		Delta struct {
			Role             string `json:"role"`
			Content          string `json:"content"`
			ReasoningContent string `json:"reasoning_content"`
			ToolCalls        []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		TotalTokens int `json:"total_tokens"`
	} `json:"usage"`
}

// stream posts a chat request and returns the decoded SSE chunks and whether [DONE] ended them.
func stream(t *testing.T, srv *Server, messages []map[string]any) ([]chunk, bool) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"model": "mock-model", "messages": messages, "stream": true,
		"stream_options": map[string]any{"include_usage": true}})
	resp, err := http.Post(srv.BaseURL()+"/chat/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	var out []chunk
	done := false
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("not an SSE data line: %q", line)
		}
		if done {
			t.Fatalf("data after [DONE]: %q", data)
		}
		if data == "[DONE]" {
			done = true
			continue
		}
		var c chunk
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("chunk %q: %v", data, err)
		}
		out = append(out, c)
	}
	return out, done
}

func user(text string) map[string]any { return map[string]any{"role": "user", "content": text} }

var testScript = Script{Scenarios: []Scenario{
	{Match: "SCENARIO:edit", Steps: []Step{
		{Text: "I'll write it.", ToolCalls: []ToolCall{{Name: "write_file", Arguments: map[string]any{"path": "a.txt", "content": "é\n"}}}},
		{Text: "Done.", Reasoning: "thinking hard", Chunks: 2},
	}},
	{Match: "SCENARIO:edit_more", Steps: []Step{{Text: "more"}}},
	{Match: "SCENARIO:boom", Steps: []Step{{HTTPStatus: 503, Error: "overloaded"}}},
	{Match: "SCENARIO:slow", Steps: []Step{{Text: "a slow answer in many pieces", Chunks: 10, ChunkDelayMS: 200}}},
}}

func TestStreamsToolCallsSplitAcrossChunks(t *testing.T) {
	srv := start(t, testScript)
	chunks, done := stream(t, srv, []map[string]any{{"role": "system", "content": "sys"}, user("please SCENARIO:edit now")})
	if !done {
		t.Fatal("stream did not end with [DONE]")
	}
	var text, args, name, id string
	var finish string
	var pieces int
	for _, c := range chunks {
		if c.Usage != nil {
			if len(c.Choices) != 0 || c.Usage.TotalTokens == 0 {
				t.Fatalf("bad usage chunk %+v", c)
			}
			continue
		}
		d := c.Choices[0].Delta
		text += d.Content
		for _, tc := range d.ToolCalls {
			pieces++
			args += tc.Function.Arguments
			name += tc.Function.Name
			id += tc.ID
		}
		if f := c.Choices[0].FinishReason; f != nil {
			finish = *f
		}
	}
	if text != "I'll write it." || name != "write_file" || id != "call_mock_1_0" || finish != "tool_calls" || pieces != 2 {
		t.Fatalf("text %q name %q id %q finish %q pieces %d", text, name, id, finish, pieces)
	}
	var got map[string]string
	if err := json.Unmarshal([]byte(args), &got); err != nil || got["content"] != "é\n" {
		t.Fatalf("arguments %q: %v", args, err)
	}
	if last := chunks[len(chunks)-1]; last.Usage == nil {
		t.Fatal("no final usage chunk")
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Scenario != "SCENARIO:edit" || reqs[0].Step != 0 || !reqs[0].Finished || reqs[0].ClientClosedEarly {
		t.Fatalf("recorded %+v", reqs)
	}
}

func TestStepIsAssistantMessagesSinceScenarioMessage(t *testing.T) {
	srv := start(t, testScript)
	msgs := []map[string]any{
		user("SCENARIO:edit"),
		{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": "c1", "type": "function",
			"function": map[string]any{"name": "write_file", "arguments": "{}"}}}},
		{"role": "tool", "tool_call_id": "c1", "name": "write_file", "content": "ok"},
		// a steer wrapper around a plain message must not reset the scenario
		user("[Mid-turn steer queued by the user. …]\nhurry up"),
	}
	chunks, _ := stream(t, srv, msgs)
	var text, reasoning string
	var textChunks int
	for _, c := range chunks {
		if len(c.Choices) == 0 {
			continue
		}
		if d := c.Choices[0].Delta; d.Content != "" {
			text += d.Content
			textChunks++
		}
		reasoning += c.Choices[0].Delta.ReasoningContent
	}
	if text != "Done." || reasoning != "thinking hard" || textChunks != 2 {
		t.Fatalf("text %q (%d chunks) reasoning %q", text, textChunks, reasoning)
	}
	r := srv.Requests()[0]
	if r.Step != 1 || len(r.Messages) != 4 || r.Messages[2].ToolCallID != "c1" || r.Messages[1].ToolCalls[0].Name != "write_file" {
		t.Fatalf("recorded %+v", r)
	}

	// past the last step the scenario reports it is finished
	msgs = append(msgs, map[string]any{"role": "assistant", "content": "Done."}, user("again SCENARIO:edit"),
		map[string]any{"role": "assistant", "content": "x"}, map[string]any{"role": "assistant", "content": "y"})
	chunks, _ = stream(t, srv, msgs)
	if got := joinText(chunks); got != "mock: scenario SCENARIO:edit finished (step 2)." {
		t.Fatalf("after last step: %q", got)
	}
}

func joinText(chunks []chunk) string {
	var s string
	for _, c := range chunks {
		if len(c.Choices) > 0 {
			s += c.Choices[0].Delta.Content
		}
	}
	return s
}

func TestMatchIsAWholeToken(t *testing.T) {
	srv := start(t, testScript)
	if got := joinText(first(stream(t, srv, []map[string]any{user("SCENARIO:edit_more")}))); got != "more" {
		t.Fatalf("SCENARIO:edit_more answered %q", got)
	}
	got := joinText(first(stream(t, srv, []map[string]any{user("no token here SCENARIO:editor")})))
	if got != "mock reply: no token here SCENARIO:editor" {
		t.Fatalf("unmatched answered %q", got)
	}
	if r := srv.Requests()[1]; r.Scenario != "" {
		t.Fatalf("unmatched request recorded scenario %q", r.Scenario)
	}
}

func first(c []chunk, _ bool) []chunk { return c }

func TestHTTPStatusAndRoutes(t *testing.T) {
	srv := start(t, testScript)
	body, _ := json.Marshal(map[string]any{"stream": true, "messages": []any{user("SCENARIO:boom")}})
	resp, err := http.Post(srv.BaseURL()+"/chat/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var e struct {
		Error struct{ Message string } `json:"error"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&e)
	resp.Body.Close()
	if resp.StatusCode != 503 || e.Error.Message != "overloaded" {
		t.Fatalf("status %d error %q", resp.StatusCode, e.Error.Message)
	}
	resp, err = http.Get(srv.BaseURL() + "/embeddings")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Fatalf("unknown route: %d", resp.StatusCode)
	}
	if reqs := srv.Requests(); len(reqs) != 2 || reqs[1].Path != "/v1/embeddings" {
		t.Fatalf("recorded %+v", reqs)
	}
}

func TestNonStreaming(t *testing.T) {
	srv := start(t, testScript)
	body, _ := json.Marshal(map[string]any{"messages": []any{user("SCENARIO:edit")}})
	resp, err := http.Post(srv.BaseURL()+"/chat/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Choices []struct {
			Message struct {
				Content   string `json:"content"`
				ToolCalls []struct {
					ID       string                `json:"id"`
					Function struct{ Name string } `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	c := out.Choices[0]
	if c.Message.Content != "I'll write it." || c.FinishReason != "tool_calls" || c.Message.ToolCalls[0].Function.Name != "write_file" {
		t.Fatalf("%+v", out)
	}
}

func TestClientClosingEarlyIsDetected(t *testing.T) {
	srv := start(t, testScript)
	ctx, cancel := context.WithCancel(context.Background())
	body, _ := json.Marshal(map[string]any{"stream": true, "messages": []any{user("SCENARIO:slow")}})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.BaseURL()+"/chat/completions", bytes.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	// read the first chunk, then hang up
	if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	cancel()
	resp.Body.Close()
	wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer wcancel()
	reqs, err := srv.WaitFor(wctx, func(r []Request) bool { return len(r) == 1 && r[0].Finished })
	if err != nil {
		t.Fatal(err)
	}
	if !reqs[0].ClientClosedEarly {
		t.Fatalf("early close not detected: %+v", reqs[0])
	}
}

func TestInvalidScripts(t *testing.T) {
	for name, s := range map[string]Script{
		"empty match":  {Scenarios: []Scenario{{Match: ""}}},
		"no tool name": {Scenarios: []Scenario{{Match: "x", Steps: []Step{{ToolCalls: []ToolCall{{Arguments: "{}"}}}}}}},
		"bad status":   {Scenarios: []Scenario{{Match: "x", Steps: []Step{{HTTPStatus: 42}}}}},
		"neg chunks":   {Scenarios: []Scenario{{Match: "x", Steps: []Step{{Chunks: -1}}}}},
		"bad args":     {Scenarios: []Scenario{{Match: "x", Steps: []Step{{ToolCalls: []ToolCall{{Name: "f", Arguments: func() {}}}}}}}},
	} {
		_, err := Start(s, nil)
		var se *ScriptError
		if !errors.As(err, &se) {
			t.Errorf("%s: got %v, want *ScriptError", name, err)
		}
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	_ = os.WriteFile(bad, []byte(`{"scenarios": 3}`), 0o600)
	var se *ScriptError
	if _, err := LoadScript(bad); !errors.As(err, &se) {
		t.Fatalf("LoadScript(bad) = %v", err)
	}
}

func TestLoadsTheReferenceScript(t *testing.T) {
	s, err := LoadScript("testdata/script.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Scenarios) == 0 || s.Scenarios[0].Match != "SCENARIO:text" || s.Scenarios[0].Steps[0].Chunks != 3 {
		t.Fatalf("%+v", s.Scenarios[0])
	}
}

func TestWriteReasonixHome(t *testing.T) {
	dir := t.TempDir()
	env, err := WriteReasonixHome(dir, "http://127.0.0.1:1234/v1")
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	home := filepath.Join(dir, "home")
	if vars["HOME"] != home || vars["REASONIX_HOME"] != filepath.Join(home, ".reasonix") || vars["REASONIX_TELEMETRY"] != "off" ||
		!strings.HasPrefix(vars["XDG_CACHE_HOME"], home) || vars["PATH"] == "" {
		t.Fatalf("env %v", env)
	}
	cfg, err := os.ReadFile(filepath.Join(home, ".reasonix", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`base_url = "http://127.0.0.1:1234/v1"`, `models = ["mock-thinker"]`, `reasoning_protocol = "deepseek"`, "[permissions]\nmode = \"ask\""} {
		if !strings.Contains(string(cfg), want) {
			t.Errorf("config lacks %q", want)
		}
	}
	if _, err := WriteReasonixHome(dir, "not a url"); err == nil {
		t.Fatal("accepted a bad base URL")
	}
}
