package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"reasonixctl/assets"
	"reasonixctl/core"
	"reasonixctl/mcp/internal/jsonrpc"
)

// The methods served: the part of MCP Codex uses, in every revision up to 2026-07-28 as mcp-go
// v1.2.1 serves them. From 2026-07-28 a request names its protocol version in
// params._meta (there is no handshake to remember one): such a request may not use initialize
// or ping, is the only one that may use server/discover, and gets its result stamped with
// resultType, the server's identity and (for lists and discover) caching hints.
const (
	methodInitialize = "initialize"
	methodPing       = "ping"
	methodDiscover   = "server/discover"
	methodToolsList  = "tools/list"
	methodToolsCall  = "tools/call"
)

// codeUnsupportedProtocolVersion answers a request naming a revision after those served.
const codeUnsupportedProtocolVersion = mcp.UNSUPPORTED_PROTOCOL_VERSION

type progressParams struct {
	ProgressToken json.RawMessage `json:"progressToken"`
	Progress      int             `json:"progress"`
	Message       string          `json:"message"`
}

type callParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Meta      json.RawMessage `json:"_meta"`
	// 2026-07-28: the answers to an input_required result, and its state echoed.
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
	RequestState   string                     `json:"requestState"`
	// Client is the client's name and version (clientFor), kept with the answers it gives.
	Client string `json:"-"`
}

// session is one client connection's MCP state: its call slots. The protocol revision is a
// property of each request, never of the session.
type session struct {
	srv    *Server
	slots  chan struct{} // one per running tool call
	asker  askerSlot
	gate   answerGate
	inline inlineQuestions
	forms  openForms
}

// ServeStdio serves one client over in/out until in closes or ctx ends, then cancels the calls
// still running (their tasks keep running in the engine) and returns within a bounded time.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.service.bind(ctx)
	go toolsListResult() // encoded while initialize is read and answered
	sess := &session{srv: s, slots: make(chan struct{}, toolWorkers)}
	defer sess.asker.end()
	return jsonrpc.Run(ctx, in, out, sess, jsonrpc.Options{
		Logger:          s.log,
		MaxMessageBytes: maxMessageBytes,
		MaxPending:      maxPendingCalls,
		ShutdownGrace:   s.shutdownGrace,
	})
}

// requestEra is what a request's params._meta says about its protocol revision.
type requestEra struct {
	modern  bool   // 2026-07-28 or later
	version string // as named; empty for a request of an earlier revision without one
}

// eraOf reads the protocol revision from params._meta, as mcp-go does: a request is modern when
// it names 2026-07-28 or later, and a modern request must carry the client's capabilities.
func eraOf(params json.RawMessage) (requestEra, *jsonrpc.Error) {
	if !bytes.Contains(params, []byte(`"_meta"`)) {
		return requestEra{}, nil // the common case, without decoding anything
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return requestEra{}, nil // the method's own decoding reports a malformed body
	}
	var version string
	if json.Unmarshal(p.Meta[mcp.MetaKeyProtocolVersion], &version) != nil || !mcp.IsModernProtocol(version) {
		return requestEra{version: version}, nil
	}
	var caps map[string]any
	if raw := p.Meta[mcp.MetaKeyClientCapabilities]; json.Unmarshal(raw, &caps) != nil || caps == nil {
		return requestEra{}, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "missing or invalid _meta field %s", mcp.MetaKeyClientCapabilities)
	}
	if !mcp.IsValidProtocolVersion(version) {
		e := mcp.UnsupportedProtocolVersionError{Version: version, Supported: servedVersions}
		return requestEra{}, &jsonrpc.Error{Code: codeUnsupportedProtocolVersion, Message: e.Error(),
			Data: mcp.UnsupportedProtocolVersionData{Supported: e.Supported, Requested: version}}
	}
	return requestEra{modern: true, version: version}, nil
}

func fail(e *jsonrpc.Error) jsonrpc.Serve {
	return func(context.Context, *jsonrpc.Conn) jsonrpc.Reply { return jsonrpc.Reply{Err: e} }
}

func answer(result any) jsonrpc.Serve {
	return func(context.Context, *jsonrpc.Conn) jsonrpc.Reply { return jsonrpc.Reply{Result: result} }
}

// Route implements jsonrpc.Handler. Everything but tools/call is answered in order, at once.
func (c *session) Route(req *jsonrpc.Request) (jsonrpc.Serve, bool) {
	era, eraErr := eraOf(req.Params)
	if eraErr != nil {
		return fail(eraErr), false
	}
	switch req.Method {
	case methodInitialize, methodPing:
		if era.modern {
			return fail(jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "%q was removed in protocol version %s", req.Method, mcp.ProtocolVersion20260728)), false
		}
		if req.Method == methodPing {
			return answer(json.RawMessage("{}")), false
		}
		return c.initialize(req.Params), false
	case methodDiscover:
		if !era.modern {
			return fail(jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "%q requires protocol version %s or later", req.Method, mcp.ProtocolVersion20260728)), false
		}
		return answer(json.RawMessage(c.srv.stamp(c.srv.discoverResult(), true))), false
	case methodToolsList:
		return c.toolsList(req.Params, era), false
	case methodToolsCall:
		return c.toolsCall(req.Params, era)
	}
	return nil, false
}

func (c *session) initialize(params json.RawMessage) jsonrpc.Serve {
	var p struct {
		ProtocolVersion *string `json:"protocolVersion"`
	}
	if err := unmarshalParams(params, &p); err != nil {
		return fail(jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: %v", err))
	}
	if p.ProtocolVersion == nil {
		// The schema requires it; guessing a revision would hide a broken client.
		return fail(jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: protocolVersion is required"))
	}
	result := c.srv.initializeResult(*p.ProtocolVersion)
	client := initializeClient(params)
	c.asker.mu.Lock()
	c.asker.client = client
	c.asker.mu.Unlock()
	if !c.srv.opts.AskUser || !elicitsForms(params) {
		return answer(result)
	}
	return func(_ context.Context, conn *jsonrpc.Conn) jsonrpc.Reply {
		// The form may be sent once the client says it is initialized, not before.
		c.asker.mu.Lock()
		c.asker.conn, c.asker.version = conn, result.ProtocolVersion
		c.asker.mu.Unlock()
		return jsonrpc.Reply{Result: result}
	}
}

func (c *session) toolsList(params json.RawMessage, era requestEra) jsonrpc.Serve {
	var p struct {
		Cursor *string `json:"cursor"`
	}
	if err := unmarshalParams(params, &p); err != nil {
		return fail(jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: %v", err))
	}
	if p.Cursor != nil && *p.Cursor != "" {
		// The whole list goes in one page, so no cursor was ever issued.
		return fail(jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: unknown cursor %q", *p.Cursor))
	}
	result := toolsListResult()
	if era.modern {
		result = c.srv.stamp(result, true)
	}
	return func(ctx context.Context, _ *jsonrpc.Conn) jsonrpc.Reply {
		// Opening the service starts once Codex has its tools: on a small machine the two
		// would otherwise share the CPU while Codex waits.
		return jsonrpc.Reply{Result: json.RawMessage(result), Written: func() {
			if ctx.Err() == nil {
				c.srv.service.begin()
			}
		}}
	}
}

func (c *session) toolsCall(params json.RawMessage, era requestEra) (jsonrpc.Serve, bool) {
	var p callParams
	if err := unmarshalParams(params, &p); err != nil {
		return fail(jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: %v", err)), false
	}
	p.Client = c.clientFor(params, era)
	run := toolRuns[p.Name]
	if run == nil {
		return fail(jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Unknown tool: %q", p.Name)), false
	}
	if e := checkProgressToken(p.Meta); e != nil {
		return fail(e), false
	}
	// A 2026-07-28 client that can show forms gets them inline, in input_required results.
	inline := era.modern && c.srv.opts.AskUser && modernElicitsForms(params)
	if inline {
		c.install(func() core.Asker { return c.inline.asker })
	}
	// Taken on the read loop: the answers the client gave before this call are recorded first.
	answered := c.gate.wait()
	return func(ctx context.Context, conn *jsonrpc.Conn) jsonrpc.Reply {
		if answered != nil {
			select {
			case <-answered:
			case <-ctx.Done():
			}
		}
		if inline {
			c.srv.applyInputResponses(ctx, p)
		}
		var res *mcp.CallToolResult
		select {
		case c.slots <- struct{}{}:
			res = c.srv.callTool(ctx, conn, run, p)
			if p.Name == ToolDelegate {
				res = c.awaitForm(ctx, res, func() *mcp.CallToolResult { return c.srv.callTool(ctx, conn, run, p) })
			}
			<-c.slots
		case <-ctx.Done():
			res = errorResult(core.Errorf(core.CodeReasonixUnavailable, nil,
				"the request ended while waiting for one of %d call slots: %v", toolWorkers, ctx.Err()))
		}
		if !era.modern {
			return jsonrpc.Reply{Result: res}
		}
		if inline && p.Name == ToolDelegate {
			if input := c.inputRequired(res); input != nil {
				return jsonrpc.Reply{Result: json.RawMessage(c.srv.stampAs(input, false, mcp.ResultTypeInputRequired))}
			}
		}
		raw, err := json.Marshal(res)
		if err != nil {
			return jsonrpc.Reply{Err: jsonrpc.Errorf(jsonrpc.CodeInternalError, "encoding the result: %v", err)}
		}
		return jsonrpc.Reply{Result: json.RawMessage(c.srv.stamp(raw, false))}
	}, true
}

// awaitForm keeps a reasonix_delegate call waiting while its task waits on an interaction whose
// form this session's client is showing: once the person answered (and the answer is recorded)
// the call resumes the task again, and so returns what follows the answer.
func (c *session) awaitForm(ctx context.Context, res *mcp.CallToolResult, again func() *mcp.CallToolResult) *mcp.CallToolResult {
	for range 16 { // each round is one form answered; the bound only guards against a loop
		raw, ok := res.StructuredContent.(json.RawMessage)
		if !ok || res.IsError {
			return res
		}
		var view struct {
			TaskID            string            `json:"task_id"`
			ActiveInteraction *core.Interaction `json:"active_interaction"`
		}
		if json.Unmarshal(raw, &view) != nil || view.ActiveInteraction == nil || view.ActiveInteraction.Status != core.InteractionPending {
			return res
		}
		shown := c.forms.shown(view.TaskID, view.ActiveInteraction.ID)
		if shown == nil {
			return res
		}
		select {
		case <-shown:
		case <-ctx.Done():
			return res
		}
		res = again()
	}
	return res
}

// checkProgressToken refuses a _meta.progressToken that is neither a string nor an integer
// (null counts as none): echoing it into notifications/progress would send the client a token
// it cannot match.
func checkProgressToken(meta json.RawMessage) *jsonrpc.Error {
	if !bytes.Contains(meta, []byte(`"progressToken"`)) {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(meta, &m) != nil {
		return nil // the call reports a malformed _meta
	}
	tok := bytes.TrimSpace(m["progressToken"])
	if len(tok) == 0 || string(tok) == "null" || isInteger(tok) {
		return nil
	}
	var str string
	if tok[0] == '"' && json.Unmarshal(tok, &str) == nil {
		return nil
	}
	return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: _meta.progressToken must be a string or an integer, not %s", truncateRunes(string(tok), 64))
}

// isInteger reports whether a JSON value is an integer literal: -?digits, no fraction or exponent.
func isInteger(v []byte) bool {
	if len(v) > 0 && v[0] == '-' {
		v = v[1:]
	}
	if len(v) == 0 || (v[0] == '0' && len(v) > 1) {
		return false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func unmarshalParams(raw json.RawMessage, into any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return json.Unmarshal(raw, into)
}

func (s *Server) capabilities() mcp.ServerCapabilities {
	return mcp.ServerCapabilities{
		Experimental: map[string]any{sandboxMetaKey: map[string]any{}},
		Tools: &struct {
			ListChanged bool `json:"listChanged,omitempty"`
		}{},
	}
}

// servedVersions are the revisions served: all mcp-go knows but 2025-03-26, whose JSON-RPC
// batches (which that revision requires servers to accept) this loop does not take. A client
// asking for it is offered the latest revision instead, as for any revision not served.
var servedVersions = slices.DeleteFunc(slices.Clone(mcp.ValidProtocolVersions), func(v string) bool {
	return v == mcp.ProtocolVersion20250326
})

// negotiate answers initialize's protocolVersion: the client's when it is served and uses the
// initialize handshake, else the latest such revision (also for an empty one: a client that
// names none gets what the server prefers).
func negotiate(clientVersion string) string {
	if slices.Contains(servedVersions, clientVersion) && !mcp.IsModernProtocol(clientVersion) {
		return clientVersion
	}
	return mcp.LATEST_LEGACY_PROTOCOL_VERSION
}

func (s *Server) initializeResult(clientVersion string) *mcp.InitializeResult {
	return &mcp.InitializeResult{
		ProtocolVersion: negotiate(clientVersion),
		Capabilities:    s.capabilities(),
		ServerInfo:      mcp.Implementation{Name: ServerName, Version: s.opts.Version},
		Instructions:    assets.MCPInstructions(),
	}
}

// discoverResult lists every revision served: this transport serves them all.
func (s *Server) discoverResult() []byte {
	b, err := json.Marshal(mcp.DiscoverResult{
		SupportedVersions: servedVersions,
		Capabilities:      s.capabilities(),
		Instructions:      assets.MCPInstructions(),
	})
	if err != nil {
		panic(fmt.Sprintf("mcp: encoding server/discover: %v", err)) // constants of this package
	}
	return b
}

// stamp adds what 2026-07-28 asks of every result (resultType, the server's identity in _meta)
// and of list and discover results (caching hints: always revalidate, never shared) to an
// encoded result object that has none of them.
func (s *Server) stamp(result []byte, cacheable bool) []byte {
	return s.stampAs(result, cacheable, mcp.ResultTypeComplete)
}

// stampAs is stamp with another resultType (input_required).
func (s *Server) stampAs(result []byte, cacheable bool, resultType mcp.ResultType) []byte {
	meta, err := json.Marshal(map[string]any{mcp.MetaKeyServerInfo: mcp.Implementation{Name: ServerName, Version: s.opts.Version}})
	if err != nil {
		panic(fmt.Sprintf("mcp: encoding serverInfo: %v", err))
	}
	out := make([]byte, 0, len(result)+len(meta)+80)
	out = append(out, bytes.TrimSuffix(bytes.TrimSpace(result), []byte("}"))...)
	if len(bytes.TrimSpace(out)) > 1 {
		out = append(out, ',')
	}
	out = append(out, `"_meta":`...)
	out = append(out, meta...)
	out = append(out, `,"resultType":"`+string(resultType)+`"`...)
	if cacheable {
		out = append(out, `,"ttlMs":0,"cacheScope":"`+string(mcp.CacheScopePrivate)+`"`...)
	}
	return append(out, '}')
}

// progress sends notifications/progress at once and then every interval until stop is called,
// when the request carries a progress token. Codex uses them to keep long waits alive.
func (s *Server) progress(ctx context.Context, conn *jsonrpc.Conn, token json.RawMessage, tool string) (stop func()) {
	if len(token) == 0 || string(token) == "null" {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		start := time.Now()
		tick := time.NewTicker(s.opts.ProgressInterval)
		defer tick.Stop()
		for n := 0; ; n++ {
			conn.Notify(ctx, "notifications/progress", progressParams{
				ProgressToken: token, Progress: n,
				Message: fmt.Sprintf("%s running (%s elapsed)", tool, time.Since(start).Round(time.Second)),
			})
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return func() { cancel(); <-finished }
}
