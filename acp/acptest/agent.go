package acptest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Version is the Reasonix release whose wire behaviour the fake reproduces.
const Version = "v1.38.11"

// Options configures a fake worker.
type Options struct {
	// Scenario is played for every session; nil means DefaultScenario().
	Scenario *Scenario
	// Legacy offers the earlier worker generation's options: tool_approval ask|auto, work_mode
	// economy|balanced|delivery and effort low|medium|high|max on every model.
	Legacy bool
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
}

// CrashError is returned by Serve when the scenario crashed the worker.
type CrashError struct {
	ExitCode int
	Stderr   string
}

func (e *CrashError) Error() string {
	return fmt.Sprintf("acptest: worker crashed (exit code %d)", e.ExitCode)
}

// Serve runs one fake worker speaking ACP on r (client to agent) and w (agent to client) until r
// ends (nil), ctx ends (its error) or the scenario crashes the worker (*CrashError). When it
// returns it closes r and w if they are io.Closers, so the client sees the worker go away.
func Serve(ctx context.Context, r io.Reader, w io.Writer, opts Options) error {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Scenario == nil {
		opts.Scenario = DefaultScenario()
	} else if err := opts.Scenario.Validate(); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	a := &agent{opts: opts, log: opts.Logger, ctx: ctx, crashed: make(chan *CrashError, 1), sessions: map[string]*session{}}
	a.conn = newConn(w, opts.Logger)

	readDone := make(chan error, 1)
	go func() {
		readDone <- a.conn.readLoop(r, a)
	}()
	var err error
	select {
	case err = <-readDone:
	case <-ctx.Done():
		err = ctx.Err()
	case crash := <-a.crashed:
		err = crash
	}
	cancel()
	for _, c := range []any{w, r} {
		if cl, ok := c.(io.Closer); ok {
			_ = cl.Close()
		}
	}
	if !a.conn.stopRequests(handlerGrace) {
		a.log.Warn("acptest: request handlers still running after the worker stopped")
	}
	return err
}

type agent struct {
	opts    Options
	log     *slog.Logger
	conn    *conn
	ctx     context.Context
	crashed chan *CrashError

	mu       sync.Mutex
	sessions map[string]*session
}

func (a *agent) crash(c *CrashError) {
	select {
	case a.crashed <- c:
	default:
	}
}

func (a *agent) handleNotification(method string, params json.RawMessage) {
	switch method {
	case "session/cancel":
		var p struct {
			SessionID string `json:"sessionId"`
		}
		_ = json.Unmarshal(params, &p)
		if s := a.session(p.SessionID); s != nil {
			s.cancelTurn()
		}
	default:
		a.log.Debug("acptest: ignored notification", "method", method)
	}
}

// handlerGrace bounds how long Serve waits for its request handlers once it stops.
const handlerGrace = 5 * time.Second

func (a *agent) handleRequest(req *request) {
	if a.ctx.Err() != nil {
		return
	}
	a.log.Debug("acptest: request", "method", req.method)
	switch req.method {
	case "initialize":
		req.reply(a.initializeResult(), nil)
	case "session/new", "session/resume", "session/load":
		a.openSession(req)
	case "session/list":
		req.reply(a.listSessions(req.params), nil)
	case "session/prompt":
		a.prompt(req)
	case "session/set_config_option":
		a.setConfigOption(req)
	case "session/set_mode":
		a.setMode(req)
	case "session/set_model":
		a.setModel(req)
	case "session/close":
		a.closeSession(req)
	case "_reasonix.io/session/status":
		s, err := a.sessionParam(req)
		if err != nil {
			req.reply(nil, err)
			return
		}
		s.mu.Lock()
		st := s.statusLocked()
		s.mu.Unlock()
		req.reply(st, nil)
	case "_reasonix.io/session/steer":
		a.steer(req)
	case "_reasonix.io/session/inbox/list":
		if _, err := a.sessionParam(req); err != nil {
			req.reply(nil, err)
			return
		}
		req.reply(map[string]any{"schemaVersion": 3, "revision": 0, "paused": false, "recovered": false, "items": nil,
			"capacity": map[string]any{"items": 0, "maxItems": 64, "bytes": 0, "maxBytes": 67108864, "maxItemBytes": 4194304}}, nil)
	default:
		req.reply(nil, &rpcError{Code: -32601, Message: "method not found: " + req.method})
	}
}

func (a *agent) initializeResult() map[string]any {
	return map[string]any{
		"protocolVersion": 1,
		"agentCapabilities": map[string]any{
			"loadSession":         true,
			"sessionCapabilities": map[string]any{"list": map[string]any{}, "resume": map[string]any{}, "close": map[string]any{}, "delete": map[string]any{}},
			"promptCapabilities":  map[string]any{"image": false, "audio": false, "embeddedContext": true},
			"mcpCapabilities":     map[string]any{"http": true, "sse": false},
			"_meta": map[string]any{
				"_reasonix.io/session/status":        map[string]any{"schemaVersion": 1},
				"_reasonix.io/session/status_update": map[string]any{"schemaVersion": 1},
				"reasonix.io": map[string]any{
					"mcpInteraction": map[string]any{"supported": true, "schemaVersion": 1, "method": "_reasonix.io/mcp/request_interaction"},
					"sessionSteer":   map[string]any{"method": "_reasonix.io/session/steer"},
					"sessionInbox": map[string]any{"schemaVersion": 1, "methods": map[string]any{
						"delete": "_reasonix.io/session/inbox/delete", "enqueue": "_reasonix.io/session/inbox/enqueue",
						"get": "_reasonix.io/session/inbox/get", "list": "_reasonix.io/session/inbox/list",
						"move": "_reasonix.io/session/inbox/move", "refresh": "_reasonix.io/session/inbox/refresh",
						"retry": "_reasonix.io/session/inbox/retry", "setPaused": "_reasonix.io/session/inbox/setPaused",
						"update": "_reasonix.io/session/inbox/update"}},
					"sessionReloadExtensions": map[string]any{"method": "_reasonix.io/session/reloadExtensions"},
					"extensionSurface":        map[string]any{"supported": true, "schemaVersion": 1},
				},
			},
		},
		"agentInfo": map[string]any{"name": "reasonix", "version": Version},
		"authMethods": []any{map[string]any{"id": "reasonix-setup", "name": "Reasonix setup",
			"description": "Configure Reasonix providers and credentials in a terminal", "type": "terminal", "args": []string{"setup"}}},
	}
}

func (a *agent) session(id string) *session {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sessions[id]
}

// sessionParam finds the session named by the request's sessionId.
func (a *agent) sessionParam(req *request) (*session, *rpcError) {
	var p struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(req.params, &p); err != nil {
		return nil, errInvalidParams("%s: %v", req.method, err)
	}
	s := a.session(p.SessionID)
	if s == nil {
		return nil, errInvalidParams("%s: unknown session %s", req.method, p.SessionID)
	}
	return s, nil
}

// openSession serves session/new, and session/resume and session/load, which the fake accepts
// for any id (recreating a session it does not know, as after a worker restart) without replay.
func (a *agent) openSession(req *request) {
	var p struct {
		SessionID  string `json:"sessionId"`
		Cwd        string `json:"cwd"`
		McpServers []any  `json:"mcpServers"`
	}
	if err := json.Unmarshal(req.params, &p); err != nil {
		req.reply(nil, errInvalidParams("%s: %v", req.method, err))
		return
	}
	if !filepath.IsAbs(p.Cwd) {
		req.reply(nil, errInvalidParams("%s: cwd %q must be an absolute path", req.method, p.Cwd))
		return
	}
	if fi, err := os.Stat(p.Cwd); err != nil || !fi.IsDir() {
		req.reply(nil, errInvalidParams("%s: cwd %q is not a directory", req.method, p.Cwd))
		return
	}
	if req.method != "session/new" && p.SessionID == "" {
		req.reply(nil, errInvalidParams("%s: missing sessionId", req.method))
		return
	}
	a.mu.Lock()
	s := a.sessions[p.SessionID]
	if s == nil {
		id := p.SessionID
		if req.method == "session/new" {
			id = newSessionID()
		}
		s = newSession(a, id, filepath.Clean(p.Cwd))
		a.sessions[id] = s
	}
	a.mu.Unlock()
	s.mu.Lock()
	result := map[string]any{"models": s.modelsLocked(), "modes": s.modesLocked(), "configOptions": s.configOptionsLocked()}
	s.mu.Unlock()
	if req.method == "session/new" {
		result["sessionId"] = s.id
	}
	req.reply(result, nil)
	s.notifyCommands()
}

func (a *agent) listSessions(params json.RawMessage) map[string]any {
	var p struct {
		Cwd string `json:"cwd"`
	}
	_ = json.Unmarshal(params, &p)
	a.mu.Lock()
	all := make([]*session, 0, len(a.sessions))
	for _, s := range a.sessions {
		all = append(all, s)
	}
	a.mu.Unlock()
	sort.Slice(all, func(i, j int) bool { return all[i].created.Before(all[j].created) })
	out := []any{}
	for _, s := range all {
		if p.Cwd != "" && p.Cwd != s.cwd {
			continue
		}
		s.mu.Lock()
		out = append(out, map[string]any{"sessionId": s.id, "cwd": s.cwd, "title": s.title,
			"updatedAt": s.updated.UTC().Format(time.RFC3339Nano), "_meta": map[string]any{"messageCount": s.messages}})
		s.mu.Unlock()
	}
	return map[string]any{"sessions": out}
}

func (a *agent) closeSession(req *request) {
	s, err := a.sessionParam(req)
	if err != nil {
		req.reply(nil, err)
		return
	}
	s.cancelTurn()
	a.mu.Lock()
	delete(a.sessions, s.id)
	a.mu.Unlock()
	req.reply(map[string]any{}, nil)
}

func (a *agent) setMode(req *request) {
	s, rerr := a.sessionParam(req)
	if rerr != nil {
		req.reply(nil, rerr)
		return
	}
	var p struct {
		ModeID string `json:"modeId"`
	}
	_ = json.Unmarshal(req.params, &p)
	switch p.ModeID {
	case "normal", "plan", "goal":
	default:
		req.reply(nil, errInvalidParams("session/set_mode: unknown modeId %s", p.ModeID))
		return
	}
	s.mu.Lock()
	s.mode = p.ModeID
	s.mu.Unlock()
	s.update(map[string]any{"sessionUpdate": "current_mode_update", "currentModeId": p.ModeID})
	req.reply(map[string]any{}, nil)
}

func (a *agent) setModel(req *request) {
	s, rerr := a.sessionParam(req)
	if rerr != nil {
		req.reply(nil, rerr)
		return
	}
	var p struct {
		ModelID string `json:"modelId"`
	}
	_ = json.Unmarshal(req.params, &p)
	if !knownModel(p.ModelID) {
		req.reply(nil, errInvalidParams("session/set_model: unknown model %s", p.ModelID))
		return
	}
	s.mu.Lock()
	s.setModelLocked(p.ModelID)
	opts := s.configOptionsLocked()
	s.mu.Unlock()
	s.notifyCommands()
	s.update(map[string]any{"sessionUpdate": "config_option_update", "configOptions": opts})
	req.reply(map[string]any{}, nil)
}

func (a *agent) setConfigOption(req *request) {
	s, rerr := a.sessionParam(req)
	if rerr != nil {
		req.reply(nil, rerr)
		return
	}
	var p struct {
		ConfigID string `json:"configId"`
		Value    any    `json:"value"`
	}
	_ = json.Unmarshal(req.params, &p)
	value, _ := p.Value.(string)
	deprecated, opts, rerr := s.applyOption(p.ConfigID, value)
	if rerr != nil {
		req.reply(nil, rerr)
		return
	}
	s.notifyCommands()
	result := map[string]any{"configOptions": opts}
	if deprecated {
		result["deprecatedNotice"] = "Execution modes have been retired; this setting is accepted for compatibility and uses standard execution."
	} else {
		s.update(map[string]any{"sessionUpdate": "config_option_update", "configOptions": opts})
	}
	req.reply(result, nil)
}

func (a *agent) steer(req *request) {
	s, text, rerr := a.sessionPrompt(req, "_reasonix.io/session/steer")
	if rerr != nil {
		req.reply(nil, rerr)
		return
	}
	s.mu.Lock()
	t := s.turn
	if t != nil {
		t.steers = append(t.steers, text)
		t.signal()
	}
	s.mu.Unlock()
	if t == nil {
		req.reply(nil, &rpcError{Code: -32600, Message: "_reasonix.io/session/steer: session has no active prompt"})
		return
	}
	req.reply(map[string]any{"disposition": "steer_accepted"}, nil)
}

// sessionPrompt reads the session and the joined text blocks of a request that carries a
// prompt (session/prompt, the steer extension).
func (a *agent) sessionPrompt(req *request, method string) (*session, string, *rpcError) {
	s, rerr := a.sessionParam(req)
	if rerr != nil {
		return nil, "", rerr
	}
	var p struct {
		Prompt []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"prompt"`
	}
	if err := json.Unmarshal(req.params, &p); err != nil {
		return nil, "", errInvalidParams("%s: %v", method, err)
	}
	var parts []string
	for _, b := range p.Prompt {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return s, strings.Join(parts, "\n"), nil
}

func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
