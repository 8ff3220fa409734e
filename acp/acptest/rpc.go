package acptest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("json-rpc %d: %s", e.Code, e.Message) }

func errInvalidParams(format string, a ...any) *rpcError {
	return &rpcError{Code: -32602, Message: fmt.Sprintf(format, a...)}
}

type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// request is an inbound call; reply must be called exactly once.
type request struct {
	c      *conn
	id     json.RawMessage
	method string
	params json.RawMessage
}

func (r *request) reply(result any, err *rpcError) {
	if err != nil {
		r.c.write(map[string]any{"jsonrpc": "2.0", "id": r.id, "error": err})
		return
	}
	r.c.write(map[string]any{"jsonrpc": "2.0", "id": r.id, "result": result})
}

// conn is a newline-delimited JSON-RPC 2.0 peer. It is hand-written rather than taken from the
// ACP SDK because the fake must reproduce the worker's exact shapes (fields the SDK types do
// not carry) and must be able to misbehave on the wire: raw garbage, floods, freezing.
type conn struct {
	w   io.Writer
	log *slog.Logger

	writeMu sync.Mutex
	frozen  atomic.Bool

	mu      sync.Mutex
	nextID  int
	pending map[string]chan message

	// handlers counts the request goroutines. A handler is only started while the connection
	// has not stopped, under handlersMu, so the count never rises while Serve waits for it.
	handlersMu sync.Mutex
	stopped    bool
	handlers   sync.WaitGroup
}

func newConn(w io.Writer, log *slog.Logger) *conn {
	return &conn{w: w, log: log, pending: map[string]chan message{}}
}

func (c *conn) writeLine(b []byte) error {
	if c.frozen.Load() {
		return errFrozen
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.w.Write(append(b, '\n'))
	return err
}

var errFrozen = errors.New("acptest: worker is frozen")

func (c *conn) write(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		c.log.Error("acptest: encode", "err", err)
		return
	}
	if err := c.writeLine(b); err != nil && !errors.Is(err, errFrozen) {
		c.log.Debug("acptest: write", "err", err)
	}
}

func (c *conn) notify(method string, params any) {
	c.write(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// call sends a request to the client and waits for its answer. A ctx that ends first abandons
// the request: a late answer is dropped.
func (c *conn) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	key := fmt.Sprint(id)
	ch := make(chan message, 1)
	c.pending[key] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, key)
		c.mu.Unlock()
	}()
	c.write(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	select {
	case m := <-ch:
		if m.Error != nil {
			return nil, m.Error
		}
		return m.Result, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// readLoop dispatches every inbound line until r ends. Requests are handled concurrently, each
// on its own goroutine; notifications run in order on the reading goroutine, so their handlers
// must not block.
func (c *conn) readLoop(r io.Reader, h handler) error {
	br := bufio.NewReaderSize(r, 1<<16)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 && !c.frozen.Load() {
			c.dispatch(line, h)
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// handler answers what the connection reads. It is an interface rather than two func values:
// a method value handed to a go statement is a closure the new goroutine reads after it starts,
// and the race detector then reports the closure's memory when it is reused.
type handler interface {
	handleRequest(*request)
	handleNotification(method string, params json.RawMessage)
}

// startRequest handles req on its own goroutine, unless the connection has stopped.
func (c *conn) startRequest(h handler, req *request) {
	c.handlersMu.Lock()
	defer c.handlersMu.Unlock()
	if c.stopped {
		return
	}
	c.handlers.Add(1)
	go c.runRequest(h, req)
}

func (c *conn) runRequest(h handler, req *request) {
	defer c.handlers.Done()
	h.handleRequest(req)
}

// stopRequests starts no further handler and waits up to grace for the running ones.
func (c *conn) stopRequests(grace time.Duration) bool {
	c.handlersMu.Lock()
	c.stopped = true
	c.handlersMu.Unlock()
	done := make(chan struct{})
	go func() {
		c.handlers.Wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(grace):
		return false
	}
}

func (c *conn) dispatch(line []byte, h handler) {
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		c.log.Warn("acptest: unparsable input line", "err", err)
		c.write(map[string]any{"jsonrpc": "2.0", "id": nil, "error": rpcError{Code: -32700, Message: "parse error: " + err.Error()}})
		return
	}
	hasID := len(m.ID) > 0 && string(m.ID) != "null"
	switch {
	case m.Method != "" && hasID:
		c.startRequest(h, &request{c: c, id: m.ID, method: m.Method, params: m.Params})
	case m.Method != "":
		h.handleNotification(m.Method, m.Params)
	case hasID:
		var key any
		_ = json.Unmarshal(m.ID, &key)
		c.mu.Lock()
		ch := c.pending[fmt.Sprint(key)]
		c.mu.Unlock()
		if ch == nil {
			c.log.Debug("acptest: answer to no pending request (abandoned or unknown)", "id", string(m.ID))
			return
		}
		ch <- m
	default:
		c.log.Warn("acptest: message with neither method nor id")
	}
}
