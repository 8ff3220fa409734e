package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"reasonixctl/assets"
	"reasonixctl/core"
)

// The stdio transport is newline-delimited JSON-RPC 2.0, and Codex uses a small part of MCP:
// initialize, ping, tools/list, tools/call, notifications/cancelled and our
// notifications/progress. Serving exactly that here keeps a general server runtime, and the
// schema machinery it loads at start-up, out of the process Codex waits for.

// JSON-RPC 2.0 error codes.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternalError  = -32603
)

// incoming is any message the client sends: a request, a notification, or a response.
type incoming struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type notification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

type progressParams struct {
	ProgressToken json.RawMessage `json:"progressToken"`
	Progress      int             `json:"progress"`
	Message       string          `json:"message"`
}

type callParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Meta      json.RawMessage `json:"_meta"`
}

var nullID = json.RawMessage("null")

// session is one client connection: its writer, its calls in flight and their cancellation.
type session struct {
	srv  *Server
	ctx  context.Context // ends when serving ends; every call's context derives from it
	out  chan outgoing
	stop chan struct{} // closed when serving is over: later messages are dropped

	slots chan struct{} // one per running tool call
	calls sync.WaitGroup

	mu       sync.Mutex
	inFlight map[string]*inFlightCall
	closing  bool // no call starts once serving is ending
}

// outgoing is one line for stdout and what to do once it is written.
type outgoing struct {
	line    []byte
	written func()
}

type inFlightCall struct {
	cancel    context.CancelFunc
	cancelled bool // by the client: its response is not sent
}

// ServeStdio serves one client over in/out until in closes or ctx ends, then cancels the calls
// still running (their tasks keep running in the engine) and returns within a bounded time.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.service.bind(ctx)
	go toolsListResult() // encoded while initialize is read and answered
	sess := &session{
		srv: s, ctx: ctx,
		out:      make(chan outgoing, 64),
		stop:     make(chan struct{}),
		slots:    make(chan struct{}, toolWorkers),
		inFlight: map[string]*inFlightCall{},
	}
	written := make(chan struct{})
	go func() { defer close(written); sess.writeLoop(out) }()
	readErr := make(chan error, 1)
	go func() { readErr <- sess.readLoop(in) }()

	var err error
	select {
	case err = <-readErr:
	case <-ctx.Done():
	}
	cancel()
	sess.mu.Lock()
	sess.closing = true // after this no call is added to sess.calls
	sess.mu.Unlock()
	grace, stopWaiting := context.WithTimeout(context.Background(), s.shutdownGrace)
	defer stopWaiting()
	callsDone := make(chan struct{})
	go func() { sess.calls.Wait(); close(callsDone) }()
	select {
	case <-callsDone:
	case <-grace.Done():
		s.log.Warn("mcp: in-flight calls did not finish within the shutdown grace period")
	}
	close(sess.stop)
	select {
	case <-written:
	case <-grace.Done():
		s.log.Warn("mcp: stdout did not take the last messages within the shutdown grace period")
	}
	return err
}

// jsonSpace is the whitespace JSON allows around a value. Only such a line is blank: one of
// form feeds or Unicode spaces is not JSON, and gets a parse error like any other.
const jsonSpace = " \t\r\n"

// readLoop handles one line at a time until in ends; a broken line is answered and skipped.
func (c *session) readLoop(in io.Reader) error {
	r := bufio.NewReaderSize(in, 1<<20)
	var line []byte
	tooLong := false
	for {
		chunk, err := r.ReadSlice('\n')
		switch {
		case tooLong:
		case len(line)+len(chunk) > maxMessageBytes:
			tooLong, line = true, nil
		default:
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			c.replyError(nullID, codeInvalidRequest, fmt.Sprintf("message longer than %d bytes", maxMessageBytes))
		} else if len(bytes.Trim(line, jsonSpace)) > 0 && c.ctx.Err() == nil {
			c.handle(line)
		}
		line, tooLong = line[:0], false
		if cap(line) > 1<<20 {
			line = nil // one large message does not keep its buffer for the whole session
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

func (c *session) writeLoop(w io.Writer) {
	failed := false
	write := func(o outgoing) {
		if failed {
			return
		}
		if _, err := w.Write(o.line); err != nil {
			failed = true
			c.srv.log.Warn("mcp: writing to stdout failed; later messages are dropped", "err", err)
			return
		}
		if o.written != nil {
			o.written()
		}
	}
	for {
		select {
		case o := <-c.out:
			write(o)
		case <-c.stop:
			for {
				select {
				case o := <-c.out:
					write(o)
				default:
					return
				}
			}
		}
	}
}

// send queues one message for stdout; done (when not nil) lets a sender give up, and written
// (when not nil) runs once the message is out.
func (c *session) send(msg any, done <-chan struct{}, written func()) {
	b, err := json.Marshal(msg)
	if err != nil {
		c.srv.log.Error("mcp: encoding a message failed", "err", err)
		return
	}
	c.sendRaw(append(b, '\n'), done, written)
}

// encodeResponse writes a response around an already encoded result, which json.Marshal would
// parse and compact once more.
func encodeResponse(id, result json.RawMessage) []byte {
	line := make([]byte, 0, len(result)+len(id)+40)
	line = append(line, `{"jsonrpc":"2.0","id":`...)
	line = append(line, id...)
	line = append(line, `,"result":`...)
	line = append(line, result...)
	return append(line, "}\n"...)
}

func (c *session) sendRaw(line []byte, done <-chan struct{}, written func()) {
	select {
	case c.out <- outgoing{line, written}:
	case <-c.stop:
	case <-done:
	}
}

func (c *session) reply(id json.RawMessage, result any) {
	c.send(response{JSONRPC: "2.0", ID: id, Result: result}, nil, nil)
}

func (c *session) replyError(id json.RawMessage, code int, msg string) {
	c.send(response{JSONRPC: "2.0", ID: id, Error: &rpcError{Code: code, Message: msg}}, nil, nil)
}

// handle dispatches one message. Requests other than tools/call are answered in order, at once.
func (c *session) handle(line []byte) {
	if !json.Valid(line) {
		c.replyError(nullID, codeParseError, "Parse error")
		return
	}
	var m incoming
	if err := json.Unmarshal(line, &m); err != nil {
		c.replyError(nullID, codeInvalidRequest, "Invalid Request: not a JSON-RPC message object")
		return
	}
	key, idOK := idKey(m.ID)
	isNotification := m.ID == nil
	switch {
	case m.JSONRPC != "2.0":
		c.replyError(replyID(m.ID, idOK), codeInvalidRequest, `Invalid Request: jsonrpc must be "2.0"`)
		return
	case !isNotification && !idOK:
		c.replyError(nullID, codeInvalidRequest, "Invalid Request: id must be a string or a number")
		return
	case m.Method == "" && !isNotification && (m.Result != nil || m.Error != nil):
		return // a response, yet this server sends no requests
	case m.Method == "":
		c.replyError(replyID(m.ID, idOK), codeInvalidRequest, "Invalid Request: method is missing")
		return
	case isNotification:
		c.notified(m)
		return
	}
	switch m.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if err := unmarshalParams(m.Params, &p); err != nil {
			c.replyError(m.ID, codeInvalidParams, "Invalid params: "+err.Error())
			return
		}
		c.reply(m.ID, c.srv.initializeResult(p.ProtocolVersion))
	case "ping":
		c.reply(m.ID, json.RawMessage("{}"))
	case "tools/list":
		// Opening the service starts once Codex has its tools: on a small machine the two
		// would otherwise share the CPU while Codex waits.
		c.sendRaw(encodeResponse(m.ID, toolsListResult()), nil, func() {
			if c.ctx.Err() == nil {
				c.srv.service.begin()
			}
		})
	case "tools/call":
		c.startCall(m, key)
	default:
		c.replyError(m.ID, codeMethodNotFound, fmt.Sprintf("Method %s not found", m.Method))
	}
}

func unmarshalParams(raw json.RawMessage, into any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return json.Unmarshal(raw, into)
}

// notified handles a notification; those Codex may send that need nothing are ignored.
func (c *session) notified(m incoming) {
	if m.Method != "notifications/cancelled" {
		return
	}
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if unmarshalParams(m.Params, &p) != nil {
		return
	}
	key, ok := idKey(p.RequestID)
	if !ok {
		return
	}
	c.mu.Lock()
	if call := c.inFlight[key]; call != nil {
		call.cancelled = true
		call.cancel()
	}
	c.mu.Unlock()
}

// idKey names a request id so that 7 and "7" stay distinct and 7 and 7.0 do not.
func idKey(id json.RawMessage) (string, bool) {
	if len(id) == 0 {
		return "", false
	}
	switch id[0] {
	case '"':
		var s string
		if json.Unmarshal(id, &s) != nil {
			return "", false
		}
		return "s:" + s, true
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		f, err := strconv.ParseFloat(string(id), 64)
		if errors.Is(err, strconv.ErrRange) {
			return "r:" + string(id), true // a JSON number beyond float64 is still a valid id
		}
		if err != nil {
			return "", false
		}
		return "n:" + strconv.FormatFloat(f, 'g', -1, 64), true
	}
	return "", false
}

func replyID(id json.RawMessage, ok bool) json.RawMessage {
	if ok {
		return id
	}
	return nullID
}

func (s *Server) initializeResult(clientVersion string) *mcp.InitializeResult {
	return &mcp.InitializeResult{
		ProtocolVersion: mcp.NegotiateLegacyVersion(clientVersion),
		Capabilities: mcp.ServerCapabilities{
			Experimental: map[string]any{sandboxMetaKey: map[string]any{}},
			Tools: &struct {
				ListChanged bool `json:"listChanged,omitempty"`
			}{},
		},
		ServerInfo:   mcp.Implementation{Name: ServerName, Version: s.opts.Version},
		Instructions: assets.MCPInstructions(),
	}
}

// startCall runs a tool call on its own goroutine, at most toolWorkers at once, with a context
// that notifications/cancelled for its id or the end of serving cancels.
func (c *session) startCall(m incoming, key string) {
	var p callParams
	if err := unmarshalParams(m.Params, &p); err != nil {
		c.replyError(m.ID, codeInvalidParams, "Invalid params: "+err.Error())
		return
	}
	run := toolRuns[p.Name]
	if run == nil {
		c.replyError(m.ID, codeInvalidParams, fmt.Sprintf("Unknown tool: %q", p.Name))
		return
	}
	ctx, cancel := context.WithCancel(c.ctx)
	call := &inFlightCall{cancel: cancel}
	c.mu.Lock()
	_, duplicate := c.inFlight[key]
	busy := len(c.inFlight) >= maxPendingCalls
	start := !duplicate && !busy && !c.closing
	if start {
		c.inFlight[key] = call
		c.calls.Add(1)
	}
	c.mu.Unlock()
	switch {
	case start:
	case duplicate:
		cancel()
		c.replyError(m.ID, codeInvalidRequest, "Invalid Request: a call with this id is still running")
		return
	case busy:
		cancel()
		c.replyError(m.ID, codeInternalError, fmt.Sprintf("too many calls in progress (%d)", maxPendingCalls))
		return
	default:
		cancel()
		return // serving is ending
	}
	go func() {
		defer c.calls.Done()
		defer cancel()
		var res *mcp.CallToolResult
		select {
		case c.slots <- struct{}{}:
			res = c.srv.callTool(ctx, c, run, p)
			<-c.slots
		case <-ctx.Done():
			res = errorResult(core.Errorf(core.CodeReasonixUnavailable, nil,
				"the request ended while waiting for one of %d call slots: %v", toolWorkers, ctx.Err()))
		}
		c.mu.Lock()
		delete(c.inFlight, key)
		cancelled := call.cancelled
		c.mu.Unlock()
		if !cancelled { // the client cancelled it and expects no response
			c.reply(m.ID, res)
		}
	}()
}

// progress sends notifications/progress at once and then every interval until stop is called,
// when the request carries a progress token. Codex uses them to keep long waits alive.
func (c *session) progress(ctx context.Context, token json.RawMessage, tool string) (stop func()) {
	if len(token) == 0 || string(token) == "null" {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		start := time.Now()
		tick := time.NewTicker(c.srv.opts.ProgressInterval)
		defer tick.Stop()
		for n := 0; ; n++ {
			c.send(notification{JSONRPC: "2.0", Method: "notifications/progress", Params: progressParams{
				ProgressToken: token, Progress: n,
				Message: fmt.Sprintf("%s running (%s elapsed)", tool, time.Since(start).Round(time.Second)),
			}}, ctx.Done(), nil)
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return func() { cancel(); <-finished }
}
