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
	"slices"
	"strings"
	"sync"
	"time"
)

// Request is one HTTP request the mock received, with the decision taken for it.
type Request struct {
	Seq    int
	Method string
	Path   string
	// Query is the raw query: "beta=true" from Claude, "alt=sse" from Gemini.
	Query string
	// Dialect is the API the request was addressed to by its path; "" for the probe and for
	// unknown routes.
	Dialect Dialect
	// Body is the decoded JSON body; nil when the body was empty or not a JSON object.
	Body map[string]any
	// Messages is the conversation in the dialect-neutral form the scenarios are matched on.
	Messages []Message
	// Tools names the tools the request offers the model, in its order.
	Tools  []string
	Stream bool
	// Model is the body's "model", or for Gemini the model named in the path.
	Model string
	// Aside reports a side call (no tools offered) answered by Script.Aside or Script.AsideJSON.
	Aside bool
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

// Message is one chat message of a request, its content flattened to text. Every dialect's
// history is brought to this form: Role is "system", "developer", "user", "assistant" (one per
// model round, with its text and tool calls) or "tool" (one per tool result, whatever the
// dialect carries it in).
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
func (s *Server) BaseURL() string { return s.Origin() + "/v1" }

// Origin is "http://127.0.0.1:PORT", the base URL Anthropic's and Google's clients take: they
// add their own "/v1" and "/v1beta".
func (s *Server) Origin() string { return "http://" + s.ln.Addr().String() }

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
	rt := routeOf(r)
	req := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Dialect: rt.dialect}
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &req.Body) // a non-object body stays nil and gets the default answer
	}
	conv := decodeConversation(rt.dialect, req.Body)
	req.Messages, req.Tools = conv.messages, conv.tools
	req.Stream, _ = req.Body["stream"].(bool)
	req.Model, _ = req.Body["model"].(string)
	if rt.dialect == Gemini {
		req.Stream, req.Model = rt.op == opStream, rt.model
	}

	switch rt.op {
	case opGenerate, opStream:
		var sc string
		var step int
		var resp Step
		if aside := s.aside(req, conv.wantsJSON); aside != nil {
			req.Aside, resp = true, *aside
		} else {
			sc, step, resp = s.pick(req.Messages)
		}
		req.Scenario, req.Step, req.Response = sc, step, resp
		seq := s.record(req)
		s.log.Debug("mockllm: decision", "seq", seq, "dialect", rt.dialect, "scenario", sc, "step", step, "aside", req.Aside)
		s.warnUnoffered(seq, req, resp)
		closed := s.answer(w, r, seq, req, len(raw), resp)
		s.finish(seq, closed)
		s.log.Debug("mockllm: answer finished", "seq", seq, "client_closed_early", closed)
	case opCount:
		seq := s.record(req)
		n := max(1, len(raw)>>2)
		if rt.dialect == Gemini {
			writeJSON(w, http.StatusOK, map[string]any{"totalTokens": n})
		} else {
			writeJSON(w, http.StatusOK, map[string]any{"input_tokens": n})
		}
		s.finish(seq, false)
	case opModels:
		seq := s.record(req)
		writeJSON(w, http.StatusOK, modelList(rt.dialect))
		s.finish(seq, false)
	case opProbe:
		// Claude Code sends HEAD / before its first round, to see the endpoint is up.
		seq := s.record(req)
		w.WriteHeader(http.StatusOK)
		s.finish(seq, false)
	default:
		seq := s.record(req)
		writeJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{"message": "mock: no route " + r.Method + " " + r.URL.Path}})
		s.finish(seq, false)
	}
}

// aside returns the answer for an agent's side call, nil when req is a turn's model round.
func (s *Server) aside(req Request, wantsJSON bool) *Step {
	if len(req.Tools) > 0 {
		return nil
	}
	if wantsJSON && s.script.AsideJSON != nil {
		return s.script.AsideJSON
	}
	return s.script.Aside
}

// warnUnoffered logs scripted tool calls the request did not offer: an agent answers those with
// an error the model is meant to read, which shows up in a test as a round that went nowhere.
func (s *Server) warnUnoffered(seq int, req Request, resp Step) {
	if len(req.Tools) == 0 {
		return
	}
	for _, tc := range resp.ToolCalls {
		if !slices.Contains(req.Tools, tc.Name) {
			s.log.Warn("mockllm: scripted tool not offered", "seq", seq, "tool", tc.Name, "offered", req.Tools)
		}
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

// answer writes resp in req's dialect and reports whether the client went away before it was
// complete. bodyLen stands in for the prompt's size in the token counts.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, seq int, req Request, bodyLen int, resp Step) (closedEarly bool) {
	ctx := r.Context()
	if !s.sleep(ctx, resp.DelayMS) {
		return true
	}
	if resp.HTTPStatus != 0 {
		msg := resp.Error
		if msg == "" {
			msg = "mock error"
		}
		writeJSON(w, resp.HTTPStatus, errorBody(req.Dialect, resp.HTTPStatus, msg))
		return false
	}
	rp := newReply(seq, req, bodyLen, resp)
	if !req.Stream {
		writeJSON(w, http.StatusOK, rp.whole(req))
		return false
	}
	if req.Dialect == Gemini && r.URL.Query().Get("alt") != "sse" {
		// without alt=sse the Gemini API streams one JSON array of the same chunks
		var chunks []any
		rp.stream(req, func(_ string, v any) bool { chunks = append(chunks, v); return true })
		writeJSON(w, http.StatusOK, chunks)
		return false
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	sent := 0
	emit := func(event string, v any) bool {
		if sent > 0 && !s.sleep(ctx, resp.ChunkDelayMS) {
			return false
		}
		sent++
		if ctx.Err() != nil {
			return false
		}
		if _, err := io.WriteString(w, sseFrame(event, v)); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return true
	}
	return !rp.stream(req, emit)
}

// emitFunc sends one server-sent event; false means the client or the server went away.
type emitFunc func(event string, v any) bool

// rawData is an SSE payload sent as it is rather than as JSON.
type rawData string

// sseFrame is one event: an "event:" line when named, the payload as one "data:" line.
func sseFrame(event string, v any) string {
	var data string
	if raw, ok := v.(rawData); ok {
		data = string(raw)
	} else {
		b, _ := json.Marshal(v)
		data = string(b)
	}
	if event == "" {
		return "data: " + data + "\n\n"
	}
	return "event: " + event + "\ndata: " + data + "\n\n"
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
