package jsonrpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"
)

// JSON-RPC 2.0 error codes.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
)

// CancelMethod is MCP's notification that withdraws a request still in flight; the withdrawn
// request gets no response.
const CancelMethod = "notifications/cancelled"

// Message is anything a peer sends: a request, a notification or a response.
type Message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// Error is the error member of a response.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// Errorf builds an Error.
func Errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Response is one answer.
type Response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// Notification is a message that expects no answer.
type Notification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

// Request is a request as the Handler sees it; its id has been checked.
type Request struct {
	ID     json.RawMessage
	Method string
	Params json.RawMessage
}

// Reply is the answer to one request: a result or an error.
type Reply struct {
	Result any // a json.RawMessage is written as it is
	Err    *Error
	// Written (when not nil) runs once the response has been written.
	Written func()
}

// Serve answers one request.
type Serve func(ctx context.Context, c *Conn) Reply

// Handler routes requests.
type Handler interface {
	// Route says how req is served: on the read loop before the next line is read when
	// concurrent is false, else on its own goroutine with a context that the client's
	// cancellation or the end of serving cancels. A nil Serve answers -32601.
	Route(req *Request) (serve Serve, concurrent bool)
}

// NotificationHandler is implemented by a Handler that wants to hear the peer's notifications
// (all but notifications/cancelled, which the connection handles itself). Notified runs on the
// read loop, in order with Route, and must not block.
type NotificationHandler interface {
	Notified(method string, params json.RawMessage)
}

// Options bound one connection.
type Options struct {
	Logger *slog.Logger // nil: discard
	// MaxMessageBytes bounds one line; a longer line is refused and skipped.
	MaxMessageBytes int
	// MaxPending bounds the concurrent requests in flight; beyond it one is refused at once.
	MaxPending int
	// ShutdownGrace bounds how long Run waits for concurrent requests, once their contexts are
	// cancelled, and then for the output to take the last messages.
	ShutdownGrace time.Duration
}

// Conn is one client connection.
type Conn struct {
	h    Handler
	opts Options
	log  *slog.Logger
	ctx  context.Context // ends when serving ends; every request's context derives from it
	out  chan outgoing
	stop chan struct{} // closed when serving is over: later messages are dropped

	calls    sync.WaitGroup
	mu       sync.Mutex
	inFlight map[string]*inFlight
	closing  bool // no request starts once serving is ending

	// Requests this side sent to the peer, by id key. Their ids are strings with a prefix of
	// their own ("rx-1", "rx-2", …), so a peer's response can only reach the call it answers.
	lastOut  uint64
	outCalls map[string]outCall
}

type callResult struct {
	result json.RawMessage
	err    *Error
}

// outCall is a request this side sent: where its response goes, and what runs on the read
// loop when it arrives.
type outCall struct {
	ch      chan callResult
	arrived func()
}

type outgoing struct {
	line    []byte
	written func()
}

type inFlight struct {
	cancel    context.CancelFunc
	cancelled bool // by the client: its response is not sent
}

var nullID = json.RawMessage("null")

// Run serves one client over in/out until in closes or ctx ends, then cancels the requests still
// running and returns within a bounded time.
func Run(ctx context.Context, in io.Reader, out io.Writer, h Handler, opts Options) error {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c := &Conn{
		h: h, opts: opts, log: opts.Logger, ctx: ctx,
		out:      make(chan outgoing, 64),
		stop:     make(chan struct{}),
		inFlight: map[string]*inFlight{},
		outCalls: map[string]outCall{},
	}
	written := make(chan struct{})
	go func() { defer close(written); c.writeLoop(out) }()
	readErr := make(chan error, 1)
	go func() { readErr <- c.readLoop(in) }()

	var err error
	select {
	case err = <-readErr:
	case <-ctx.Done():
	}
	cancel()
	c.mu.Lock()
	c.closing = true // after this no request is added to c.calls
	c.mu.Unlock()
	grace, stopWaiting := context.WithTimeout(context.Background(), opts.ShutdownGrace)
	defer stopWaiting()
	callsDone := make(chan struct{})
	go func() { c.calls.Wait(); close(callsDone) }()
	select {
	case <-callsDone:
	case <-grace.Done():
		c.log.Warn("mcp: in-flight calls did not finish within the shutdown grace period")
	}
	close(c.stop)
	select {
	case <-written:
	case <-grace.Done():
		c.log.Warn("mcp: stdout did not take the last messages within the shutdown grace period")
	}
	return err
}

// jsonSpace is the whitespace JSON allows around a value. Only such a line is blank: one of
// form feeds or Unicode spaces is not JSON, and gets a parse error like any other.
const jsonSpace = " \t\r\n"

// readLoop handles one line at a time until in ends; a broken line is answered and skipped.
func (c *Conn) readLoop(in io.Reader) error {
	r := bufio.NewReaderSize(in, 1<<20)
	var line []byte
	tooLong := false
	for {
		chunk, err := r.ReadSlice('\n')
		switch {
		case tooLong:
		case len(line)+len(chunk) > c.opts.MaxMessageBytes:
			tooLong, line = true, nil
		default:
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			c.replyError(nullID, Errorf(CodeInvalidRequest, "message longer than %d bytes", c.opts.MaxMessageBytes))
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

func (c *Conn) writeLoop(w io.Writer) {
	failed := false
	write := func(o outgoing) {
		if failed {
			return
		}
		if _, err := w.Write(o.line); err != nil {
			failed = true
			c.log.Warn("mcp: writing to stdout failed; later messages are dropped", "err", err)
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

// Notify sends a notification; it gives up when ctx ends first.
func (c *Conn) Notify(ctx context.Context, method string, params any) {
	c.send(Notification{JSONRPC: "2.0", Method: method, Params: params}, ctx.Done(), nil)
}

func (c *Conn) send(msg any, done <-chan struct{}, written func()) {
	b, err := json.Marshal(msg)
	if err != nil {
		c.log.Error("mcp: encoding a message failed", "err", err)
		return
	}
	c.sendRaw(append(b, '\n'), done, written)
}

// sendRaw queues a line for the writer; it reports false when serving ended or done closed first.
func (c *Conn) sendRaw(line []byte, done <-chan struct{}, written func()) bool {
	select {
	case c.out <- outgoing{line, written}:
		return true
	case <-c.stop:
	case <-done:
	}
	return false
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

func (c *Conn) reply(id json.RawMessage, r Reply) {
	if r.Err != nil {
		c.send(Response{JSONRPC: "2.0", ID: id, Error: r.Err}, nil, r.Written)
		return
	}
	if raw, ok := r.Result.(json.RawMessage); ok {
		c.sendRaw(encodeResponse(id, raw), nil, r.Written)
		return
	}
	c.send(Response{JSONRPC: "2.0", ID: id, Result: r.Result}, nil, r.Written)
}

func (c *Conn) replyError(id json.RawMessage, e *Error) { c.reply(id, Reply{Err: e}) }

// handle dispatches one line.
func (c *Conn) handle(line []byte) {
	if !json.Valid(line) {
		c.replyError(nullID, Errorf(CodeParseError, "Parse error"))
		return
	}
	var m Message
	if err := json.Unmarshal(line, &m); err != nil {
		c.replyError(nullID, Errorf(CodeInvalidRequest, "Invalid Request: not a JSON-RPC message object"))
		return
	}
	key, idOK := IDKey(m.ID)
	isNotification := m.ID == nil
	switch {
	case m.Method == "" && (m.Result != nil || m.Error != nil):
		// A response, whatever its id (an error response to an unparsable message carries
		// null): answering it could start an endless exchange. It goes to the call it answers,
		// if this side is still waiting for one with its id.
		c.answered(m)
		return
	case m.JSONRPC != "2.0":
		c.replyError(replyID(m.ID, idOK), Errorf(CodeInvalidRequest, `Invalid Request: jsonrpc must be "2.0"`))
		return
	case !isNotification && !idOK:
		c.replyError(nullID, Errorf(CodeInvalidRequest, "Invalid Request: id must be a string or a number"))
		return
	case m.Method == "":
		c.replyError(replyID(m.ID, idOK), Errorf(CodeInvalidRequest, "Invalid Request: method is missing"))
		return
	case isNotification:
		if m.Method == CancelMethod {
			c.cancelled(m.Params)
		} else if n, ok := c.h.(NotificationHandler); ok {
			n.Notified(m.Method, m.Params)
		}
		return
	}
	req := &Request{ID: m.ID, Method: m.Method, Params: m.Params}
	serve, concurrent := c.h.Route(req)
	switch {
	case serve == nil:
		c.replyError(m.ID, Errorf(CodeMethodNotFound, "Method %s not found", m.Method))
	case concurrent:
		c.start(req, key, serve)
	default:
		c.reply(m.ID, serve(c.ctx, c))
	}
}

// CallIDPrefix starts the id of every request this side sends.
const CallIDPrefix = "rx-"

// ErrClosed is what Call returns when serving ends before the peer answers.
var ErrClosed = errors.New("jsonrpc: the connection closed before the peer answered")

// CallError is a peer's error response to a Call.
type CallError struct {
	Method string
	Err    *Error
}

func (e *CallError) Error() string {
	return fmt.Sprintf("the peer answered %s with error %d: %s", e.Method, e.Err.Code, e.Err.Message)
}

// Call sends a request to the peer and waits for its response. When ctx ends first, a request
// already on its way is withdrawn with notifications/cancelled (a late response is ignored);
// when serving ends, Call returns ErrClosed.
func (c *Conn) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return c.CallNotify(ctx, method, params, nil)
}

// CallNotify is Call, with arrived (when not nil) run on the read loop as soon as the peer's
// response arrives, before the next message is read: what the peer sends after its answer is
// handled only after arrived returned. arrived must not block. Once arrived has run, CallNotify
// returns the response even if ctx or serving ends meanwhile.
func (c *Conn) CallNotify(ctx context.Context, method string, params any, arrived func()) (json.RawMessage, error) {
	ch := make(chan callResult, 1)
	c.mu.Lock()
	if c.closing || c.ctx.Err() != nil {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	c.lastOut++
	id := CallIDPrefix + strconv.FormatUint(c.lastOut, 10)
	key := "s:" + id
	c.outCalls[key] = outCall{ch: ch, arrived: arrived}
	c.mu.Unlock()
	// forget stops waiting; it reports false when the response was already taken for delivery
	// (it is then on ch at once).
	forget := func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		_, waiting := c.outCalls[key]
		delete(c.outCalls, key)
		return waiting
	}
	result := func(r callResult) (json.RawMessage, error) {
		if r.err != nil {
			return nil, &CallError{Method: method, Err: r.err}
		}
		return r.result, nil
	}
	line, err := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      string `json:"id"`
		Method  string `json:"method"`
		Params  any    `json:"params,omitempty"`
	}{"2.0", id, method, params})
	if err != nil {
		forget()
		return nil, fmt.Errorf("jsonrpc: encoding %s: %w", method, err)
	}
	if !c.sendRaw(append(line, '\n'), ctx.Done(), nil) {
		forget()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, ErrClosed
	}
	select {
	case r := <-ch:
		return result(r)
	case <-ctx.Done():
		if !forget() {
			return result(<-ch) // the answer arrived first
		}
		// The peer may be showing the request to someone: tell it no answer is wanted any more.
		c.Notify(c.ctx, CancelMethod, map[string]any{"requestId": id, "reason": ctx.Err().Error()})
		return nil, ctx.Err()
	case <-c.ctx.Done():
		if !forget() {
			return result(<-ch)
		}
		return nil, ErrClosed
	}
}

// answered hands a response to the Call waiting for its id; any other response is dropped.
func (c *Conn) answered(m Message) {
	key, ok := IDKey(m.ID)
	if !ok {
		return
	}
	c.mu.Lock()
	call, ok := c.outCalls[key]
	delete(c.outCalls, key)
	c.mu.Unlock()
	if !ok {
		return
	}
	if call.arrived != nil {
		call.arrived()
	}
	ch := call.ch
	r := callResult{result: m.Result}
	if m.Error != nil {
		var e Error
		if json.Unmarshal(m.Error, &e) != nil {
			e = Error{Code: CodeInternalError, Message: "malformed error object: " + string(m.Error)}
		}
		r.err = &e
	} else if m.JSONRPC != "2.0" {
		r.err = Errorf(CodeInvalidRequest, `response with jsonrpc other than "2.0"`)
	}
	ch <- r // buffered, and only one response is delivered per id
}

// cancelled withdraws the request a notifications/cancelled names, when it is still running.
func (c *Conn) cancelled(params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if len(params) == 0 || json.Unmarshal(params, &p) != nil {
		return
	}
	key, ok := IDKey(p.RequestID)
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

// start runs a concurrent request on its own goroutine.
func (c *Conn) start(req *Request, key string, serve Serve) {
	ctx, cancel := context.WithCancel(c.ctx)
	call := &inFlight{cancel: cancel}
	c.mu.Lock()
	_, duplicate := c.inFlight[key]
	busy := len(c.inFlight) >= c.opts.MaxPending
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
		c.replyError(req.ID, Errorf(CodeInvalidRequest, "Invalid Request: a call with this id is still running"))
		return
	case busy:
		cancel()
		c.replyError(req.ID, Errorf(CodeInternalError, "too many calls in progress (%d)", c.opts.MaxPending))
		return
	default:
		cancel()
		return // serving is ending
	}
	go func() {
		defer c.calls.Done()
		defer cancel()
		r := serve(ctx, c)
		c.mu.Lock()
		delete(c.inFlight, key)
		withdrawn := call.cancelled
		c.mu.Unlock()
		if !withdrawn { // the client cancelled it and expects no response
			c.reply(req.ID, r)
		}
	}()
}

// IDKey names a request id so that 7 and "7" stay distinct and 7, 7.0 and 70e-1 do not; ok is
// false for anything but a string or a number. Numbers are compared by their exact decimal value:
// as float64, 2^53+1 and 2^53 would be one id, so a cancellation could reach the wrong call.
func IDKey(id json.RawMessage) (key string, ok bool) {
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
		return numberKey(string(id))
	}
	return "", false
}

// numberKey writes a JSON number as sign, significant digits and exponent.
func numberKey(n string) (string, bool) {
	if !json.Valid([]byte(n)) {
		return "", false
	}
	sign := ""
	if n[0] == '-' {
		sign, n = "-", n[1:]
	}
	exp := 0
	if i := strings.IndexAny(n, "eE"); i >= 0 {
		e, err := strconv.Atoi(strings.TrimPrefix(n[i+1:], "+"))
		if err != nil {
			return "r:" + sign + n, true // an exponent beyond int: kept as written
		}
		exp, n = e, n[:i]
	}
	digits := n
	if i := strings.IndexByte(n, '.'); i >= 0 {
		digits = n[:i] + n[i+1:]
		exp -= len(n) - i - 1
	}
	digits = strings.TrimLeft(digits, "0")
	if digits == "" {
		return "n:0", true // -0 and 0.00 are 0
	}
	trimmed := strings.TrimRight(digits, "0")
	exp += len(digits) - len(trimmed)
	return "n:" + sign + trimmed + "e" + strconv.Itoa(exp), true
}

func replyID(id json.RawMessage, ok bool) json.RawMessage {
	if ok {
		return id
	}
	return nullID
}
