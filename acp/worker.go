package acp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"reasonixctl/acp/agents"
)

const (
	maxLineBytes = 16 << 20
	// maxOrphans bounds events held for session ids not (yet) registered: session/new's reply
	// and the session's first notifications race between the reader and the caller.
	maxOrphans = 256
)

// ErrUnavailable: the worker could not be started or did not answer initialize.
var ErrUnavailable = errors.New("acp: worker unavailable")

// ConnectConfig configures a connection to a worker over given pipes.
type ConnectConfig struct {
	Logger        *slog.Logger // nil discards
	ClientName    string       // default "reasonixctl"
	ClientVersion string
	// Agent is the worker's profile; the zero Profile is Reasonix, which must offer its
	// status and steer extensions. Every other agent is driven with plain ACP.
	Agent agents.Profile
	// FSRoot, when set, advertises fs/read_text_file and fs/write_text_file and serves them
	// inside this folder (the worktree), writes through the session's permission gate.
	FSRoot string
}

// WorkerInfo is what the worker said about itself at initialize.
type WorkerInfo struct {
	AgentName       string
	AgentVersion    string
	ProtocolVersion int
	LoadSession     bool
	ResumeSession   bool
	CloseSession    bool
	ListSessions    bool
	SteerMethod     string
	// Worker is the profile's name (reasonix for the zero profile).
	Worker string
	// StatusExtension says the worker offers Reasonix's status and status_update extensions;
	// without them a session's status is made from stopReason and usage_update (Session.Status).
	StatusExtension bool
	// Steer says how Session.Steer reaches a running turn: agents.SteerExtension, or
	// agents.SteerCancelPrompt for an agent without the steer extension.
	Steer string
	// FS says fs/read_text_file and fs/write_text_file were offered to the agent.
	FS bool
}

// Worker is one connected worker (a child process or an in-process agent). Sessions are routed by
// id within this Worker only, so two workers may hand out the same session id.
type Worker struct {
	log    *slog.Logger
	conn   *sdk.ClientSideConnection
	info   WorkerInfo
	toSDK  *io.PipeWriter
	closer []io.Closer
	proc   *process
	stderr *stderrRing
	agent  agents.Profile
	fsRoot string

	mu       sync.Mutex
	sessions map[string]*Session
	orphans  []Event
	err      error
	ended    bool     // Done is closed
	onDone   []func() // called once Done is closed (OnDone)

	failOnce   sync.Once
	readerDone chan struct{}
	done       chan struct{}
}

// Connect speaks ACP to an agent over r (its output) and w (its input), for example an in-process
// fake worker, and initializes it. The Worker owns r and w from then on and closes them (when
// they are io.Closers) on Close or failure. ctx bounds the handshake only.
func Connect(ctx context.Context, r io.Reader, w io.Writer, cfg ConnectConfig) (*Worker, error) {
	wk := newWorker(r, w, cfg.Logger, nil, nil)
	wk.agent, wk.fsRoot = cfg.Agent, cfg.FSRoot
	if err := wk.initialize(ctx, cfg); err != nil {
		return nil, err
	}
	return wk, nil
}

func newWorker(r io.Reader, w io.Writer, log *slog.Logger, proc *process, ring *stderrRing) *Worker {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if ring == nil {
		ring = &stderrRing{}
	}
	pr, pw := io.Pipe()
	wk := &Worker{
		log:        log,
		toSDK:      pw,
		proc:       proc,
		stderr:     ring,
		sessions:   map[string]*Session{},
		readerDone: make(chan struct{}),
		done:       make(chan struct{}),
	}
	for _, c := range []any{w, r} {
		if c, ok := c.(io.Closer); ok {
			wk.closer = append(wk.closer, c)
		}
	}
	wk.conn = sdk.NewClientSideConnection(clientHandler{wk}, w, pr)
	wk.conn.SetLogger(log)
	go wk.read(r)
	return wk
}

func (w *Worker) initialize(ctx context.Context, cfg ConnectConfig) error {
	name := cfg.ClientName
	if name == "" {
		name = "reasonixctl"
	}
	req := sdk.InitializeRequest{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientInfo:      &sdk.Implementation{Name: name, Version: cfg.ClientVersion},
	}
	if w.fsRoot != "" {
		req.ClientCapabilities.Fs = sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}
	}
	resp, err := w.conn.Initialize(ctx, req)
	if err != nil {
		err = w.callErr(ctx, "initialize", err)
		w.Close()
		if tail := lastLines(w.Stderr(), 3); tail != "" {
			return fmt.Errorf("%w: %w (stderr: %s)", ErrUnavailable, err, tail)
		}
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	info, err := checkCapabilities(resp, w.agent.IsReasonix())
	info.FS = w.fsRoot != ""
	if !w.agent.IsReasonix() {
		info.Worker = w.agent.Name
	}
	if err != nil {
		w.Close()
		return err
	}
	w.info = info
	w.log.Debug("worker initialized", "agent", info.AgentName, "version", info.AgentVersion)
	return nil
}

// checkCapabilities requires ACP v1, and of Reasonix (reasonix) its status and steer
// extensions; for any other agent they are optional features reported in WorkerInfo.
func checkCapabilities(resp sdk.InitializeResponse, reasonix bool) (WorkerInfo, error) {
	info := WorkerInfo{ProtocolVersion: int(resp.ProtocolVersion), LoadSession: resp.AgentCapabilities.LoadSession}
	if resp.AgentInfo != nil {
		info.AgentName, info.AgentVersion = resp.AgentInfo.Name, resp.AgentInfo.Version
	}
	sc := resp.AgentCapabilities.SessionCapabilities
	info.ResumeSession, info.CloseSession, info.ListSessions = sc.Resume != nil, sc.Close != nil, sc.List != nil

	var meta struct {
		Status       *struct{ SchemaVersion int } `json:"_reasonix.io/session/status"`
		StatusUpdate *struct{ SchemaVersion int } `json:"_reasonix.io/session/status_update"`
		Reasonix     struct {
			SessionSteer struct{ Method string } `json:"sessionSteer"`
		} `json:"reasonix.io"`
	}
	if raw, err := json.Marshal(resp.AgentCapabilities.Meta); err == nil {
		_ = json.Unmarshal(raw, &meta)
	}
	var missing []string
	if info.ProtocolVersion != 1 {
		missing = append(missing, fmt.Sprintf("protocolVersion 1 (got %d)", info.ProtocolVersion))
	}
	info.StatusExtension = meta.Status != nil && meta.Status.SchemaVersion == statusSchemaVersion &&
		meta.StatusUpdate != nil && meta.StatusUpdate.SchemaVersion == statusSchemaVersion
	info.Worker, info.Steer = agents.Reasonix, agents.SteerExtension
	if !reasonix {
		info.SteerMethod = meta.Reasonix.SessionSteer.Method
		if !strings.HasPrefix(info.SteerMethod, "_") {
			info.SteerMethod = ""
		}
		if info.SteerMethod == "" || !info.StatusExtension {
			info.SteerMethod, info.StatusExtension, info.Steer = "", false, agents.SteerCancelPrompt
		}
		info.Worker = ""
		if len(missing) > 0 {
			agent := strings.TrimSpace(info.AgentName + " " + info.AgentVersion)
			return info, &IncompatibleError{Agent: agent, Missing: missing}
		}
		return info, nil
	}
	if meta.Status == nil || meta.Status.SchemaVersion != statusSchemaVersion {
		missing = append(missing, methodStatus+" schemaVersion 1")
	}
	if meta.StatusUpdate == nil || meta.StatusUpdate.SchemaVersion != statusSchemaVersion {
		missing = append(missing, methodStatusUpdate+" schemaVersion 1")
	}
	info.SteerMethod = meta.Reasonix.SessionSteer.Method
	if !strings.HasPrefix(info.SteerMethod, "_") {
		missing = append(missing, "reasonix.io sessionSteer method")
	}
	if len(missing) > 0 {
		agent := strings.TrimSpace(info.AgentName + " " + info.AgentVersion)
		return info, &IncompatibleError{Agent: agent, Missing: missing}
	}
	return info, nil
}

// read owns the worker's output: notifications become events here, in wire order and before
// any later request or response reaches the SDK, so a permission request is always preceded by
// its tool_call event.
func (w *Worker) read(r io.Reader) {
	defer close(w.readerDone)
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	for {
		chunk, isPrefix, err := br.ReadLine()
		if err != nil {
			w.fail(w.exitCause(err))
			return
		}
		line = append(line, chunk...)
		if len(line) > maxLineBytes {
			w.fail(protocolError("line longer than 16 MiB", line[:maxProtocolExcerpt]))
			return
		}
		if isPrefix {
			continue
		}
		if len(bytes.TrimSpace(line)) > 0 && !w.handleLine(line) {
			return
		}
		line = line[:0]
	}
}

func (w *Worker) handleLine(line []byte) bool {
	in, err := decodeLine(line)
	if err != nil {
		w.fail(err)
		return false
	}
	if in.class == classNotification {
		w.route(in.event)
		return true
	}
	if _, err := w.toSDK.Write(append(line, '\n')); err != nil {
		return false // the connection is failing; fail has the cause
	}
	return true
}

// route hands e to its session, or holds it until the session registers.
func (w *Worker) route(e Event) {
	sid := e.Session()
	if sid == "" {
		w.log.Debug("dropping message without session", "kind", e.Kind())
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if s := w.sessions[sid]; s != nil {
		s.deliver(e)
		return
	}
	if w.err != nil {
		return
	}
	if len(w.orphans) >= maxOrphans {
		w.log.Warn("dropping event for unknown session", "session", w.orphans[0].Session(), "kind", w.orphans[0].Kind())
		w.orphans = w.orphans[1:]
	}
	w.orphans = append(w.orphans, e)
}

// register makes s receive its events, first any that arrived before it was known.
func (w *Worker) register(s *Session) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if _, dup := w.sessions[s.id]; dup {
		return fmt.Errorf("%w: session %s is already open on this worker", ErrInvalidConfig, s.id)
	}
	w.sessions[s.id] = s
	kept := w.orphans[:0]
	for _, e := range w.orphans {
		if e.Session() == s.id {
			s.deliver(e)
		} else {
			kept = append(kept, e)
		}
	}
	w.orphans = kept
	return nil
}

func (w *Worker) unregister(s *Session) {
	w.mu.Lock()
	if w.sessions[s.id] == s {
		delete(w.sessions, s.id)
	}
	w.mu.Unlock()
}

func (w *Worker) session(id string) *Session {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.sessions[id]
}

// fail ends the worker once: pending calls fail, every session gets an ErrorEvent with cause,
// the pipes close and the process group is reaped.
func (w *Worker) fail(cause error) {
	w.failOnce.Do(func() {
		w.mu.Lock()
		w.err = cause
		sessions := make([]*Session, 0, len(w.sessions))
		for _, s := range w.sessions {
			sessions = append(sessions, s)
		}
		w.sessions = map[string]*Session{}
		w.orphans = nil
		w.mu.Unlock()

		w.log.Debug("worker ended", "cause", cause)
		_ = w.toSDK.CloseWithError(cause)
		for _, s := range sessions {
			s.terminate(cause)
		}
		go func() {
			for _, c := range w.closer {
				_ = c.Close()
			}
			if w.proc != nil {
				w.proc.stop()
			}
			<-w.conn.Done()
			close(w.done)
			w.mu.Lock()
			w.ended = true
			after := w.onDone
			w.onDone = nil
			w.mu.Unlock()
			for _, f := range after {
				f()
			}
		}()
	})
}

func (w *Worker) exitCause(readErr error) error {
	if w.proc != nil {
		return w.proc.exitCause(readErr)
	}
	if errors.Is(readErr, io.EOF) {
		return fmt.Errorf("%w: output closed", ErrWorkerExited)
	}
	return fmt.Errorf("%w: reading output: %v", ErrWorkerExited, readErr)
}

// callErr turns an SDK call error into this package's errors, preferring the reason the
// worker or the call's context ended.
func (w *Worker) callErr(ctx context.Context, method string, err error) error {
	if werr := w.Err(); werr != nil {
		return fmt.Errorf("%s: %w", method, werr)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %w", method, context.Cause(ctx))
	}
	var re *sdk.RequestError
	if errors.As(err, &re) {
		return &RPCError{Method: method, Code: re.Code, Message: re.Message + dataSuffix(re.Data)}
	}
	return fmt.Errorf("%s: %w", method, err)
}

func dataSuffix(data any) string {
	if data == nil {
		return ""
	}
	b, err := json.Marshal(data)
	if err != nil {
		return ""
	}
	return " " + string(b)
}

// Info returns what the worker advertised at initialize.
func (w *Worker) Info() WorkerInfo { return w.info }

// Suspend stops every process the worker runs (SIGSTOP) — the worker, the commands it started,
// whatever they left running in the background — and returns once each of them is stopped, so
// that nothing of the worker's can change a file until resume is called; resume continues them
// (SIGCONT), once, however often it is called. A confined worker (LaunchConfig.Confine) keeps
// every process it starts below its sandbox's outermost one, which the pid namespace makes
// certain. An unconfined worker's process that left both its parent and its process group is
// not found. For a worker connected over pipes, or one that has exited, both do nothing.
// Close continues a suspended worker itself, after asking it to end.
func (w *Worker) Suspend() (resume func(), err error) {
	if w.proc == nil {
		return func() {}, nil
	}
	return w.proc.suspend()
}

// Pid is the worker process id, 0 for a worker connected over pipes. For a confined worker it is
// the sandbox's outermost process.
func (w *Worker) Pid() int {
	if w.proc == nil {
		return 0
	}
	return w.proc.cmd.Process.Pid
}

// Done is closed once the worker has ended and its process group is reaped.
func (w *Worker) Done() <-chan struct{} { return w.done }

// OnDone calls f once the worker has ended and Done is closed, on the goroutine that closed it,
// or at once when it has already ended. It lets an owner follow its workers without a goroutine
// per worker waiting on Done.
func (w *Worker) OnDone(f func()) {
	w.mu.Lock()
	if !w.ended {
		w.onDone = append(w.onDone, f)
		w.mu.Unlock()
		return
	}
	w.mu.Unlock()
	f()
}

// Err returns why the worker ended, or nil while it runs.
func (w *Worker) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Stderr returns the last lines the worker wrote to stderr, with obvious secrets redacted.
func (w *Worker) Stderr() string { return w.stderr.String() }

// Close ends the worker (SIGTERM to its process group, SIGKILL after 2 s) and waits for it.
// Open sessions get an ErrorEvent wrapping ErrWorkerClosed.
func (w *Worker) Close() error {
	w.fail(ErrWorkerClosed)
	<-w.done
	return nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// clientHandler answers the worker's requests. Notifications never reach it (see Worker.read).
type clientHandler struct{ w *Worker }

var _ sdk.Client = clientHandler{}
var _ sdk.ExtensionMethodHandler = clientHandler{}

func (h clientHandler) RequestPermission(ctx context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	s := h.w.session(string(p.SessionId))
	if s == nil {
		h.w.log.Warn("permission request for unknown session", "session", p.SessionId)
		return permissionResponse(PermissionOutcome{}), nil
	}
	return permissionResponse(s.decide(ctx, p)), nil
}

func permissionResponse(o PermissionOutcome) sdk.RequestPermissionResponse {
	if o.Cancelled() {
		return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{
			Cancelled: &sdk.RequestPermissionOutcomeCancelled{Outcome: "cancelled"}}}
	}
	return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{
		Selected: &sdk.RequestPermissionOutcomeSelected{Outcome: "selected", OptionId: sdk.PermissionOptionId(o.OptionID)}}}
}

func (h clientHandler) SessionUpdate(context.Context, sdk.SessionNotification) error { return nil }

func unsupported(method string) error {
	return &sdk.RequestError{Code: CodeMethodNotFound, Message: "Method not found", Data: map[string]any{"method": method}}
}

func (clientHandler) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, unsupported("terminal/create")
}

func (clientHandler) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, unsupported("terminal/kill")
}

func (clientHandler) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, unsupported("terminal/output")
}

func (clientHandler) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, unsupported("terminal/release")
}

func (clientHandler) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, unsupported("terminal/wait_for_exit")
}

func (h clientHandler) HandleExtensionMethod(_ context.Context, method string, _ json.RawMessage) (any, error) {
	h.w.log.Debug("unsupported extension request", "method", method)
	return nil, unsupported(method)
}
