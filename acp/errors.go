package acp

import (
	"errors"
	"fmt"
	"strings"
)

// Causes of a worker or session ending. Errors returned by this package wrap one of these (test
// with errors.Is); ErrorEvent.Err carries the same values.
var (
	// ErrWorkerExited: the worker process ended or closed its output.
	ErrWorkerExited = errors.New("acp: worker exited")
	// ErrProtocol: the worker wrote something that is not a JSON-RPC message.
	ErrProtocol = errors.New("acp: protocol violation")
	// ErrFlood: a session produced more unconsumed events than the queue holds.
	ErrFlood = errors.New("acp: event queue overflow")
	// ErrWorkerClosed: Worker.Close was called.
	ErrWorkerClosed = errors.New("acp: worker closed")
	// ErrSessionClosed: Session.Close was called or the session was never usable.
	ErrSessionClosed = errors.New("acp: session closed")
	// ErrTurnActive: a prompt was sent while another turn of the same session runs.
	ErrTurnActive = errors.New("acp: session already has an active turn")
	// ErrNoActiveTurn: a steer was sent while the session is idle.
	ErrNoActiveTurn = errors.New("acp: session has no active turn")
	// ErrUnsupported: the worker does not offer the requested capability (resume, load, close).
	ErrUnsupported = errors.New("acp: not supported by the worker")
	// ErrInvalidConfig: the caller asked for something malformed (empty cwd, unknown effort).
	ErrInvalidConfig = errors.New("acp: invalid configuration")
)

// IncompatibleError says which required capabilities the worker failed to advertise at
// initialize. It is returned by Start and Connect.
type IncompatibleError struct {
	Agent   string   // agentInfo name and version, when given
	Missing []string // e.g. "_reasonix.io/session/status schemaVersion 1"
}

func (e *IncompatibleError) Error() string {
	agent := e.Agent
	if agent == "" {
		agent = "worker"
	}
	return fmt.Sprintf("acp: incompatible worker %s: missing %s", agent, strings.Join(e.Missing, ", "))
}

// OptionError says that a session setting could not be applied because the worker does not offer
// it (or not the wanted value).
type OptionError struct {
	Option  string   // config option id or category, or "mode"
	Want    string   // the value asked for
	Offered []string // what the worker offers ("" list when the option is absent)
}

func (e *OptionError) Error() string {
	if len(e.Offered) == 0 {
		return fmt.Sprintf("acp: worker does not offer %s (wanted %q)", e.Option, e.Want)
	}
	return fmt.Sprintf("acp: worker offers %s %s, not %q", e.Option, strings.Join(e.Offered, "|"), e.Want)
}

// RPCError is an error answer of the worker to one of our requests.
type RPCError struct {
	Method  string
	Code    int
	Message string
}

func (e *RPCError) Error() string {
	return fmt.Sprintf("acp: %s: worker error %d: %s", e.Method, e.Code, e.Message)
}

// JSON-RPC codes the worker uses and that callers may want to test for.
const (
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
)
