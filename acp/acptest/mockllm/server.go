package mockllm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Request is one HTTP request the mock received, with the decision taken for it.
type Request struct {
	Seq    int
	Method string
	Path   string
	// Body is the decoded JSON body; nil when the body was empty or not a JSON object.
	Body     map[string]any
	Messages []Message
	Stream   bool
	// Scenario is the Match of the chosen scenario, "" when none matched.
	Scenario string
	Step     int
	// Response is the step that was (or is being) answered.
	Response Step
	// Finished is set once the answer is complete or the client has gone.
	Finished bool
	// ClientClosedEarly reports a client that hung up before the answer was complete.
	ClientClosedEarly bool
}

// Message is one chat message of a request, its content flattened to text.
type Message struct {
	Role       string
	Text       string
	Name       string
	ToolCallID string
	ToolCalls  []ToolCall
}

// Server is a running mock provider.
type Server struct {
	script Script
	log    *slog.Logger
	ln     net.Listener
	http   *http.Server
	stop   chan struct{}
	served chan struct{}

	mu       sync.Mutex
	reqs     []Request
	changed  chan struct{} // closed and replaced whenever reqs changes
	stopOnce sync.Once
}

// Start validates the script and serves it on a free loopback port until Close.
func Start(s Script, logger *slog.Logger) (*Server, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("mockllm: listen: %w", err)
	}
	srv := &Server{script: s, log: logger, ln: ln, stop: make(chan struct{}), served: make(chan struct{}), changed: make(chan struct{})}
	srv.http = &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(srv.served)
		if err := srv.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("mockllm: serve", "err", err)
		}
	}()
	logger.Debug("mockllm: listening", "addr", ln.Addr().String())
	return srv, nil
}

// BaseURL is the OpenAI-style base URL, "http://127.0.0.1:PORT/v1".
func (s *Server) BaseURL() string { return "http://" + s.ln.Addr().String() + "/v1" }

// Requests returns a copy of everything received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// WaitFor blocks until cond holds for the requests received so far, or ctx ends.
func (s *Server) WaitFor(ctx context.Context, cond func([]Request) bool) ([]Request, error) {
	for {
		s.mu.Lock()
		reqs, changed := append([]Request(nil), s.reqs...), s.changed
		s.mu.Unlock()
		if cond(reqs) {
			return reqs, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return reqs, ctx.Err()
		}
	}
}

// Close stops the server, aborting answers in progress.
func (s *Server) Close() error {
	s.stopOnce.Do(func() { close(s.stop) })
	err := s.http.Close()
	<-s.served
	return err
}

func (s *Server) record(r Request) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	r.Seq = len(s.reqs) + 1
	s.reqs = append(s.reqs, r)
	s.notifyLocked()
	return r.Seq
}

func (s *Server) finish(seq int, closedEarly bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs[seq-1].Finished = true
	s.reqs[seq-1].ClientClosedEarly = closedEarly
	s.notifyLocked()
}

func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		http.Error(w, "mockllm: read body: "+err.Error(), http.StatusBadRequest)
		return
	}
	req := Request{Method: r.Method, Path: r.URL.Path}
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &req.Body) // a non-object body stays nil and gets the default answer
	}
	req.Messages = decodeMessages(req.Body["messages"])
	req.Stream, _ = req.Body["stream"].(bool)

	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions"):
		sc, step, resp := s.pick(req.Messages)
		req.Scenario, req.Step, req.Response = sc, step, resp
		seq := s.record(req)
		s.log.Debug("mockllm: decision", "seq", seq, "scenario", sc, "step", step)
		closed := s.answer(w, r, seq, req, resp)
		s.finish(seq, closed)
		s.log.Debug("mockllm: answer finished", "seq", seq, "client_closed_early", closed)
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models"):
		seq := s.record(req)
		writeJSON(w, http.StatusOK, map[string]any{"object": "list",
			"data": []any{map[string]any{"id": "mock-model", "object": "model", "owned_by": "mock"}}})
		s.finish(seq, false)
	default:
		seq := s.record(req)
		writeJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{"message": "mock: no route " + r.Method + " " + r.URL.Path}})
		s.finish(seq, false)
	}
}

// pick chooses the scenario from the latest user message carrying any scenario token; the step
// is the number of model rounds already answered since that message.
func (s *Server) pick(msgs []Message) (scenario string, step int, resp Step) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != "user" {
			continue
		}
		for _, sc := range s.script.Scenarios {
			if !containsToken(msgs[i].Text, sc.Match) {
				continue
			}
			for _, m := range msgs[i+1:] {
				if m.Role == "assistant" {
					step++
				}
			}
			switch {
			case step < len(sc.Steps):
				return sc.Match, step, sc.Steps[step]
			case sc.After != nil:
				return sc.Match, step, *sc.After
			}
			return sc.Match, step, Step{Text: fmt.Sprintf("mock: scenario %s finished (step %d).", sc.Match, step)}
		}
	}
	if s.script.Default != nil {
		return "", 0, *s.script.Default
	}
	last := ""
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			last = msgs[i].Text
			break
		}
	}
	return "", 0, Step{Text: "mock reply: " + truncateRunes(last, 200)}
}

// containsToken reports whether tok occurs in text with no word character or ':' directly
// around it, so "SCENARIO:edit" does not select "SCENARIO:edit_more".
func containsToken(text, tok string) bool {
	for from := 0; ; {
		i := strings.Index(text[from:], tok)
		if i < 0 {
			return false
		}
		start, end := from+i, from+i+len(tok)
		if (start == 0 || !tokenByte(text[start-1])) && (end == len(text) || !tokenByte(text[end])) {
			return true
		}
		from = start + 1
	}
}

func tokenByte(b byte) bool {
	return b == '_' || b == ':' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// answer writes resp and reports whether the client went away before it was complete.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, seq int, req Request, resp Step) (closedEarly bool) {
	ctx := r.Context()
	if !s.sleep(ctx, resp.DelayMS) {
		return true
	}
	if resp.HTTPStatus != 0 {
		msg := resp.Error
		if msg == "" {
			msg = "mock error"
		}
		writeJSON(w, resp.HTTPStatus, map[string]any{"error": map[string]any{"message": msg, "type": "mock"}})
		return false
	}
	model, _ := req.Body["model"].(string)
	if model == "" {
		model = "mock-model"
	}
	id := fmt.Sprintf("chatcmpl-mock-%d", seq)
	created := time.Now().Unix()
	calls := make([]wireToolCall, len(resp.ToolCalls))
	for i, tc := range resp.ToolCalls {
		args, _ := tc.argumentsJSON() // validated by Start
		cid := tc.ID
		if cid == "" {
			cid = fmt.Sprintf("call_mock_%d_%d", seq, i)
		}
		calls[i] = wireToolCall{Index: i, ID: cid, Type: "function", Function: wireFunction{Name: tc.Name, Arguments: args}}
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	msgsJSON, _ := json.Marshal(req.Body["messages"])
	callsJSON, _ := json.Marshal(calls)
	prompt := len(msgsJSON) >> 2
	completion := (len(resp.Text) + len(resp.Reasoning) + len(callsJSON)) >> 2
	usage := map[string]any{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
		"prompt_tokens_details": map[string]any{"cached_tokens": 0}}

	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": resp.Text}
		if resp.Text == "" && len(calls) > 0 {
			msg["content"] = nil
		}
		if resp.Reasoning != "" {
			msg["reasoning_content"] = resp.Reasoning
		}
		if len(calls) > 0 {
			plain := make([]map[string]any, len(calls))
			for i, c := range calls {
				plain[i] = map[string]any{"id": c.ID, "type": c.Type, "function": c.Function}
			}
			msg["tool_calls"] = plain
		}
		writeJSON(w, http.StatusOK, map[string]any{"id": id, "object": "chat.completion", "created": created, "model": model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return false
	}

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	write := func(payload string) bool {
		if ctx.Err() != nil {
			return false
		}
		if _, err := io.WriteString(w, "data: "+payload+"\n\n"); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return true
	}
	chunk := func(delta map[string]any, finishReason any) bool {
		b, _ := json.Marshal(map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finishReason}}})
		return write(string(b)) && s.sleep(ctx, resp.ChunkDelayMS)
	}
	n := resp.Chunks
	if n == 0 {
		n = 4
	}
	if !chunk(map[string]any{"role": "assistant", "content": ""}, nil) {
		return true
	}
	for _, part := range splitN(resp.Reasoning, n) {
		if !chunk(map[string]any{"reasoning_content": part}, nil) {
			return true
		}
	}
	for _, part := range splitN(resp.Text, n) {
		if !chunk(map[string]any{"content": part}, nil) {
			return true
		}
	}
	for _, c := range calls {
		a := c.Function.Arguments
		half := len(a) / 2
		for half < len(a) && !utf8.RuneStart(a[half]) {
			half++
		}
		first := map[string]any{"index": c.Index, "id": c.ID, "type": c.Type, "function": map[string]any{"name": c.Function.Name, "arguments": a[:half]}}
		rest := map[string]any{"index": c.Index, "function": map[string]any{"arguments": a[half:]}}
		if !chunk(map[string]any{"tool_calls": []any{first}}, nil) || !chunk(map[string]any{"tool_calls": []any{rest}}, nil) {
			return true
		}
	}
	if !chunk(map[string]any{}, finish) {
		return true
	}
	if opts, _ := req.Body["stream_options"].(map[string]any); opts["include_usage"] == true {
		b, _ := json.Marshal(map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": model,
			"choices": []any{}, "usage": usage})
		if !write(string(b)) {
			return true
		}
	}
	return !write("[DONE]")
}

// sleep waits ms milliseconds; false means the client or the server went away meanwhile.
func (s *Server) sleep(ctx context.Context, ms int) bool {
	if ms <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-s.stop:
		return false
	}
}

type wireToolCall struct {
	Index    int          `json:"index"`
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// splitN cuts s into at most n pieces of equal rune count (the last may be shorter).
func splitN(s string, n int) []string {
	if s == "" {
		return nil
	}
	runes := []rune(s)
	size := (len(runes) + n - 1) / n
	var out []string
	for i := 0; i < len(runes); i += size {
		out = append(out, string(runes[i:min(i+size, len(runes))]))
	}
	return out
}

func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n])
	}
	return s
}

func decodeMessages(v any) []Message {
	list, _ := v.([]any)
	out := make([]Message, 0, len(list))
	for _, item := range list {
		m, _ := item.(map[string]any)
		msg := Message{Text: textOf(m["content"])}
		msg.Role, _ = m["role"].(string)
		msg.Name, _ = m["name"].(string)
		msg.ToolCallID, _ = m["tool_call_id"].(string)
		calls, _ := m["tool_calls"].([]any)
		for _, c := range calls {
			cm, _ := c.(map[string]any)
			fn, _ := cm["function"].(map[string]any)
			var tc ToolCall
			tc.ID, _ = cm["id"].(string)
			tc.Name, _ = fn["name"].(string)
			tc.Arguments = fn["arguments"]
			msg.ToolCalls = append(msg.ToolCalls, tc)
		}
		out = append(out, msg)
	}
	return out
}

// textOf flattens string or content-part-array message content.
func textOf(content any) string {
	switch c := content.(type) {
	case string:
		return c
	case []any:
		parts := make([]string, 0, len(c))
		for _, p := range c {
			pm, _ := p.(map[string]any)
			t, _ := pm["text"].(string)
			if t == "" {
				t, _ = pm["content"].(string)
			}
			parts = append(parts, t)
		}
		return strings.Join(parts, "\n")
	}
	return ""
}
