package remote

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"reasonixctl/core"
)

// Protocol is the version of the procedures below; Hello refuses a peer speaking another one.
// 2: Control carries a typed command (controlRequest) instead of reasonix_control's flat form.
const Protocol = 2

// SocketName is the owner's socket inside the state directory.
const SocketName = "owner.sock"

// maxMessageBytes bounds one message either way. The largest legitimate message is a
// TaskDetail, which carries the full review diff and the interactions of a task; 32 MiB is far
// above any diff a reviewer can read, and small enough that a confused or hostile peer cannot
// make the other side buffer without limit.
const maxMessageBytes = 32 << 20

// Procedure paths. The service name is versioned with Protocol so that a future, incompatible
// server answers an old client with "unimplemented" rather than misreading its messages.
const (
	service        = "/reasonixctl.remote.v1.Owner/"
	procHello      = service + "Hello"
	procList       = service + "List"
	procGet        = service + "Get"
	procSubscribe  = service + "Subscribe"
	procDelegate   = service + "Delegate"
	procControl    = service + "Control"
	procInspect    = service + "Inspect"
	procListStored = service + "ListStored"
	procArchive    = service + "Archive"
	procPrune      = service + "Prune"
	procJournal    = service + "Journal"
	procLog        = service + "VerificationLog"
	procComment    = service + "Comment"
	procSend       = service + "SendComments"
	procReviewFile = service + "ReviewFile"
	procPreview    = service + "CherryPickPreview"
	procSupervise  = service + "Supervise"
	procApply      = service + "ApplyToCheckout"
	procDraft      = service + "DraftContract"
	procGrants     = service + "Grants"
	procRevoke     = service + "RevokeGrant"
)

// Info describes the process that owns a state directory and serves its socket.
type Info struct {
	PID       int       `json:"pid"`
	Mode      string    `json:"mode"` // "tui" | "mcp" | … as engine.Config.Mode
	Version   string    `json:"version"`
	Protocol  int       `json:"protocol"`
	StartedAt time.Time `json:"started_at"`
}

// Client roles.
const (
	RoleDashboard = "dashboard"
	RoleMCP       = "mcp"
	RoleCLI       = "cli"
)

// jsonCodec carries any Go value as encoding/json, replacing Connect's protobuf JSON codec of
// the same name: the wire types are core's own structs, which already have JSON forms. An
// empty list is written as [] even under omitempty (keepEmptyLists), so that every message
// arrives as it was sent: "none" stays "none" rather than becoming "not given".
type jsonCodec struct{}

func (jsonCodec) Name() string { return "json" }

func (jsonCodec) Marshal(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return keepEmptyLists(b, v)
}

func (jsonCodec) Unmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

type helloRequest struct {
	Protocol int    `json:"protocol"`
	Role     string `json:"role"`
	PID      int    `json:"pid"`
	// Session names this client's Hello stream for its later Supervise calls.
	Session string `json:"session,omitempty"`
}

// superviseRequest says whether a dashboard's person is there to answer (false while its
// dashboard is suspended).
type superviseRequest struct {
	Session string `json:"session"`
	On      bool   `json:"on"`
}

type superviseReply struct{}

type listRequest struct {
	Filter core.ListFilter `json:"filter"`
}

type tasksReply struct {
	Tasks []core.TaskView `json:"tasks"`
}

type getRequest struct {
	TaskID string `json:"task_id"`
}

type subscribeRequest struct {
	Options core.SubscribeOptions `json:"options"`
}

// subscribeFrame is one message of the Subscribe stream: the first says the subscription is
// in place, every other carries the events that were waiting when it was written (one, unless
// the peer is behind: batching is how it catches up with fewer writes).
type subscribeFrame struct {
	Ready  bool         `json:"ready,omitempty"`
	Events []core.Event `json:"events,omitempty"`
}

// Bounds of one batch of events.
const (
	maxBatchEvents = 256
	maxBatchBytes  = 1 << 20
)

// delegateRequest carries the fields core keeps out of the JSON form (json:"-") because an MCP
// client must not choose them. The peer runs as our uid and could open the directory itself,
// so trusting its Authority grants nothing it does not have.
type delegateRequest struct {
	Request        core.DelegateRequest `json:"request"`
	Authority      core.Authority       `json:"authority"`
	PermissionMode core.PermissionMode  `json:"permission_mode"`
	// Session names the client, so that the task's questions go to it (ask.go).
	Session string `json:"session,omitempty"`
}

// delegateReply keeps the view and the bundle apart: core.DelegateResult embeds both, and a
// bundle whose fields are all empty would not survive the flattened form.
type delegateReply struct {
	View     core.TaskView      `json:"view"`
	TimedOut bool               `json:"timed_out"`
	Bundle   *core.ReviewBundle `json:"bundle,omitempty"`
}

// controlRequest carries a command as its kind (its action) and its fields, so that the owner
// rebuilds the same Go type. The fields include what a reasonix_control client cannot set
// (Finalize.Authority, Respond.AnsweredBy, Outcome, Client and Grant): as with
// delegateRequest, the peer runs as our uid, so trusting them grants it nothing it lacks.
type controlRequest struct {
	Kind    string       `json:"kind"`
	Command core.Command `json:"command"`
}

func newControlRequest(cmd core.Command) *controlRequest {
	r := &controlRequest{Command: cmd}
	if cmd != nil {
		r.Kind = cmd.Action()
	}
	return r
}

// UnmarshalJSON rebuilds the command as the type its kind names. No kind is no command, which
// the engine refuses as it would in process.
func (r *controlRequest) UnmarshalJSON(b []byte) error {
	var m struct {
		Kind    string          `json:"kind"`
		Command json.RawMessage `json:"command"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	var cmd core.Command
	var err error
	switch m.Kind {
	case "":
	case core.ActionSteer:
		cmd, err = decodeCommand[core.Steer](m.Command)
	case core.ActionRespond:
		cmd, err = decodeCommand[core.Respond](m.Command)
	case core.ActionCancel:
		cmd, err = decodeCommand[core.Cancel](m.Command)
	case core.ActionClose:
		cmd, err = decodeCommand[core.Close](m.Command)
	case core.ActionFinalize:
		cmd, err = decodeCommand[core.Finalize](m.Command)
	case core.ActionAmendChecks:
		cmd, err = decodeCommand[core.AmendChecks](m.Command)
	case core.ActionRebase:
		cmd, err = decodeCommand[core.Rebase](m.Command)
	default:
		return fmt.Errorf("unknown command kind %q", m.Kind)
	}
	if err != nil {
		return fmt.Errorf("command %s: %w", m.Kind, err)
	}
	r.Kind, r.Command = m.Kind, cmd
	return nil
}

func decodeCommand[C core.Command](raw json.RawMessage) (core.Command, error) {
	var c C
	err := json.Unmarshal(raw, &c)
	return c, err
}

type grantsRequest struct{}

type grantsReply struct {
	Grants []core.Grant `json:"grants"`
}

type revokeRequest struct {
	ID string `json:"id"`
}

type storedReply struct {
	Tasks []core.StoredTask `json:"tasks"`
}

type journalRequest struct {
	TaskID string `json:"task_id"`
}

type journalReply struct {
	Events []core.Event `json:"events"`
}

type logRequest struct {
	TaskID string `json:"task_id"`
	ID     string `json:"id"`
	Offset int64  `json:"offset"`
	Limit  int64  `json:"limit"`
}

type taskRequest struct {
	TaskID string `json:"task_id"`
}

type fileRequest struct {
	TaskID string `json:"task_id"`
	Path   string `json:"path"`
}

type fileReply struct {
	Content []byte `json:"content"`
}

type archiveRequest struct {
	TaskID string `json:"task_id"`
	Apply  bool   `json:"apply"`
}

type pruneRequest struct {
	OlderThan time.Duration `json:"older_than"`
	Apply     bool          `json:"apply"`
}

// pruneReply carries the tasks pruned before an error along with it, as Engine.Prune returns
// both.
type pruneReply struct {
	Results []core.PruneResult `json:"results"`
	Error   *core.SocketError  `json:"error,omitempty"`
}

// connectCode is the Connect code a core code travels with; the core code itself travels in
// the error detail.
func connectCode(c core.Code) connect.Code {
	switch c {
	case core.CodeInvalidContract, core.CodeInvalidRequest:
		return connect.CodeInvalidArgument
	case core.CodeTaskNotFound, core.CodeInteractionNotFound:
		return connect.CodeNotFound
	case core.CodeTaskConflict:
		return connect.CodeAlreadyExists
	case core.CodeInvalidState, core.CodeReasonixIncompatible:
		return connect.CodeFailedPrecondition
	case core.CodeReasonixUnavailable:
		return connect.CodeUnavailable
	case core.CodeInternalError:
		return connect.CodeInternal
	}
	return connect.CodeUnknown
}

// toWire turns any error into a Connect error whose detail is the core.Error's JSON form.
func toWire(err error) error {
	if err == nil {
		return nil
	}
	ce := core.AsError(err)
	return wireError(connectCode(ce.Code), ce)
}

func wireError(code connect.Code, ce *core.Error) error {
	cerr := connect.NewError(code, errors.New(ce.Message))
	data, err := json.Marshal(core.SocketError{Err: ce})
	if err == nil {
		if d, err := connect.NewErrorDetail(wrapperspb.Bytes(data)); err == nil {
			cerr.AddDetail(d)
		}
	}
	return cerr
}

// coreDetail returns the core.Error a Connect error carries, if it carries one.
func coreDetail(err error) (*core.Error, *connect.Error) {
	var cerr *connect.Error
	if !errors.As(err, &cerr) {
		return nil, nil
	}
	for _, d := range cerr.Details() {
		v, err := d.Value()
		if err != nil {
			continue
		}
		b, ok := v.(*wrapperspb.BytesValue)
		if !ok {
			continue
		}
		var se core.SocketError
		if json.Unmarshal(b.Value, &se) == nil && se.Err != nil && se.Err.Code != "" {
			return se.Err, cerr
		}
	}
	return nil, cerr
}

// lagError ends a Subscribe stream whose client fell behind.
func lagError() error {
	return wireError(connect.CodeResourceExhausted, core.Errorf(core.CodeReasonixUnavailable,
		&core.SubscriberLagged{Reason: "subscriber_lagged"},
		"the subscriber fell behind the owner's events and was dropped; subscribe again from the last seq received + 1"))
}

func isLag(err error) bool {
	return connect.CodeOf(err) == connect.CodeResourceExhausted
}

func incompatible(format string, args ...any) *core.Error {
	return core.Errorf(core.CodeReasonixIncompatible, nil, "%s", fmt.Sprintf(format, args...))
}
