package remote

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"connectrpc.com/connect"

	"reasonixctl/core"
	"reasonixctl/core/engine"
	"reasonixctl/store"
)

// backend is what the server needs of the engine; *engine.Engine is the only production one.
type backend interface {
	core.Service
	ListStored(ctx context.Context, f core.ListFilter) ([]core.StoredTask, error)
	Archive(ctx context.Context, id string, apply bool) (core.ArchiveResult, error)
	Prune(ctx context.Context, olderThan time.Duration, apply bool) ([]core.PruneResult, error)
	Journal(ctx context.Context, id string) ([]core.Event, error)
	AttachSupervisor() (detach func())
	// SetRemoteAskers routes the engine's questions to the attached clients that asked for them.
	SetRemoteAskers(func(taskID string) (core.Asker, bool))
}

var _ backend = (*engine.Engine)(nil)

// Limits on a peer. A client is our own uid, but a wedged or buggy one must not hold the
// owner's goroutines or memory: each stage of a request has a deadline.
const (
	// headerTimeout and bodyTimeout bound how long a peer may take to send a request (a
	// slow-loris peer is cut off); maxHeaderBytes bounds its headers.
	headerTimeout  = 5 * time.Second
	bodyTimeout    = 10 * time.Second
	maxHeaderBytes = 16 << 10
	// idleTimeout closes kept-alive connections nobody uses.
	idleTimeout = 2 * time.Minute
	// frameTimeout is how long one response or stream frame may wait for a peer that does not
	// read before the connection is dropped.
	frameTimeout = 10 * time.Second
	// streamBuffer is how many events a Subscribe stream queues for a slow peer before it is
	// dropped with a lag error (the engine's own subscription queue comes before it).
	streamBuffer = 1024
	// closeGrace bounds how long Close waits for handlers to finish their last frame.
	closeGrace = 2 * time.Second
	// presenceTimeout is how long a dashboard counts as a supervisor without saying it is still
	// there (its client does every presenceEvery): a stopped or wedged dashboard keeps its
	// connection open, and tasks must not wait on it.
	presenceTimeout = 30 * time.Second
)

// Server serves one engine on its state directory's socket.
type Server struct {
	e    backend
	path string
	info Info
	log  *slog.Logger

	ln    net.Listener
	sock  os.FileInfo // the socket file we created, so Close removes only that one
	srv   *http.Server
	ctx   context.Context
	stop  context.CancelFunc
	done  chan struct{} // closed when http.Server.Serve has returned
	close sync.Once
	err   error

	// Tunables; tests shrink them.
	frameTimeout time.Duration
	streamBuffer int
	batchEvents  int
	tune         func(net.Conn)
	presence     time.Duration // presenceTimeout

	// supervisors holds each attached dashboard's hold on the engine's supervisor count, by
	// its Hello session, so that Supervise can let go of it while the dashboard is suspended.
	supMu       sync.Mutex
	supervisors map[string]*supervision

	ask askRegistry // the clients that ask their person, and who delegated each task (ask.go)

	refused atomic.Int64 // connections closed because the peer was another uid or in a sandbox
	dropped atomic.Int64 // Subscribe streams ended because their peer fell behind
	streams atomic.Int64 // Subscribe streams open now
	clients atomic.Int64 // Hello streams open now: the processes attached
}

// Clients is how many processes are attached now (their Hello streams are open).
func (s *Server) Clients() int { return int(s.clients.Load()) }

// Serve listens on <dir>/owner.sock and serves e until ctx ends or Close. The caller owns e
// (holds the owner lock), which is what makes a socket file already there a dead owner's.
func Serve(ctx context.Context, e *engine.Engine, dir string, info Info, log *slog.Logger) (*Server, error) {
	return serve(ctx, e, dir, info, log)
}

// serve is Serve for any backend; tweaks adjust the server before it starts (tests shrink its
// limits).
func serve(ctx context.Context, e backend, dir string, info Info, log *slog.Logger, tweaks ...func(*Server)) (*Server, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if info.Protocol == 0 {
		info.Protocol = Protocol
	}
	if info.PID == 0 {
		info.PID = os.Getpid()
	}
	s := &Server{e: e, path: SocketPath(dir), info: info, log: log,
		frameTimeout: frameTimeout, streamBuffer: streamBuffer, batchEvents: maxBatchEvents, done: make(chan struct{}), supervisors: map[string]*supervision{}, presence: presenceTimeout}
	for _, t := range tweaks {
		t(s)
	}
	if err := s.listen(dir); err != nil {
		return nil, err
	}
	s.ctx, s.stop = context.WithCancel(context.Background())
	s.srv = &http.Server{
		Handler:           s.routes(),
		ReadHeaderTimeout: headerTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		IdleTimeout:       idleTimeout,
		BaseContext:       func(net.Listener) context.Context { return s.ctx },
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
	go func() {
		defer close(s.done)
		s.srv.Serve(s.ln)
	}()
	go func() {
		select {
		case <-ctx.Done():
			s.Close()
		case <-s.ctx.Done():
		}
	}()
	e.SetRemoteAskers(s.routeQuestion)
	context.AfterFunc(s.ctx, func() { e.SetRemoteAskers(nil) })
	log.Info("serving the engine on the owner socket", "path", s.path, "protocol", Protocol)
	return s, nil
}

// listen creates the socket, replacing a dead owner's and refusing anything else.
func (s *Server) listen(dir string) error {
	if len(s.path) > maxSocketPath {
		return core.Errorf(core.CodeInternalError, &core.PathRef{Path: s.path},
			"owner socket path %s is %d bytes, longer than a Unix socket allows (%d); use a shorter state directory", s.path, len(s.path), maxSocketPath)
	}
	if err := checkDir(dir); err != nil {
		return err
	}
	ns, err := ownNamespaces()
	if err != nil {
		return core.Errorf(core.CodeInternalError, nil, "owner socket: cannot read our own namespaces, so a front end could not be told from a sandboxed process: %w", err)
	}
	stale, err := inspectSocket(s.path)
	if err != nil {
		return err
	}
	if stale {
		// We hold the owner lock, so whoever made this socket is gone.
		if err := os.Remove(s.path); err != nil {
			return core.Errorf(core.CodeInternalError, nil, "remove a dead owner's socket: %w", err)
		}
		s.log.Info("replaced a dead owner's socket", "path", s.path)
	}
	ln, err := net.Listen("unix", s.path)
	if err != nil {
		return core.Errorf(core.CodeInternalError, nil, "listen on the owner socket: %w", err)
	}
	if err := os.Chmod(s.path, 0o600); err != nil {
		ln.Close()
		return core.Errorf(core.CodeInternalError, nil, "owner socket: %w", err)
	}
	s.sock, _ = os.Lstat(s.path)
	s.ln = &peerListener{Listener: ln, uid: os.Getuid(), ns: ns, tune: func(c net.Conn) {
		if s.tune != nil {
			s.tune(c)
		}
	}, refuse: func(err error) {
		s.refused.Add(1)
		s.log.Warn("refused a connection to the owner socket", "err", err)
	}}
	return nil
}

// Path is the socket the server listens on.
func (s *Server) Path() string { return s.path }

// Close stops accepting, ends streams and removes the socket file.
func (s *Server) Close() error {
	s.close.Do(func() {
		s.stop() // every handler's context: Hello and Subscribe streams end now
		ctx, cancel := context.WithTimeout(context.Background(), closeGrace)
		defer cancel()
		if err := s.srv.Shutdown(ctx); err != nil {
			s.srv.Close()
		}
		<-s.done
		if fi, err := os.Lstat(s.path); err == nil && s.sock != nil && os.SameFile(fi, s.sock) {
			if err := os.Remove(s.path); err != nil {
				s.err = err
			}
		}
	})
	return s.err
}

type connKey struct{}

// routes mounts the procedures behind a wrapper that bounds how long a request body may take
// and gives handlers the connection's deadlines.
func (s *Server) routes() http.Handler {
	opts := []connect.HandlerOption{
		connect.WithCodec(jsonCodec{}),
		// Compressing bytes that only cross a local socket costs CPU and latency for nothing.
		connect.WithCompression("gzip", nil, nil),
		connect.WithReadMaxBytes(maxMessageBytes),
		connect.WithSendMaxBytes(maxMessageBytes),
	}
	mux := http.NewServeMux()
	mux.Handle(procHello, connect.NewServerStreamHandler(procHello, s.hello, opts...))
	mux.Handle(procSubscribe, connect.NewServerStreamHandler(procSubscribe, s.subscribe, opts...))
	mux.Handle(unary(s, procSupervise, opts, s.supervise))
	mux.Handle(procQuestions, connect.NewServerStreamHandler(procQuestions, s.questions, opts...))
	mux.Handle(unary(s, procAnswer, opts, s.answer))
	mux.Handle(unary(s, procList, opts, func(ctx context.Context, r *listRequest) (*tasksReply, error) {
		tasks, err := s.e.List(ctx, r.Filter)
		return &tasksReply{Tasks: tasks}, err
	}))
	mux.Handle(unary(s, procGet, opts, func(ctx context.Context, r *getRequest) (*core.TaskDetail, error) {
		d, err := s.e.Get(ctx, r.TaskID)
		return &d, err
	}))
	mux.Handle(unary(s, procDelegate, opts, func(ctx context.Context, r *delegateRequest) (*delegateReply, error) {
		req := r.Request
		req.Authority, req.PermissionMode = r.Authority, r.PermissionMode
		// The task's questions may come before Delegate returns: route them to this client
		// from the start, and undo it if the call was refused.
		undo := s.delegated(req.TaskID, r.Session)
		res, err := s.e.Delegate(ctx, req)
		if err != nil {
			undo()
		}
		return &delegateReply{View: res.TaskView, TimedOut: res.TimedOut, Bundle: res.ReviewBundle}, err
	}))
	mux.Handle(unary(s, procControl, opts, func(ctx context.Context, r *controlRequest) (*core.TaskView, error) {
		v, err := s.e.Control(ctx, r.Command)
		return &v, err
	}))
	mux.Handle(unary(s, procInspect, opts, func(ctx context.Context, r *core.InspectRequest) (*core.InspectResult, error) {
		res, err := s.e.Inspect(ctx, *r)
		return &res, err
	}))
	mux.Handle(unary(s, procListStored, opts, func(ctx context.Context, r *listRequest) (*storedReply, error) {
		tasks, err := s.e.ListStored(ctx, r.Filter)
		return &storedReply{Tasks: tasks}, err
	}))
	mux.Handle(unary(s, procJournal, opts, func(ctx context.Context, r *journalRequest) (*journalReply, error) {
		evs, err := s.e.Journal(ctx, r.TaskID)
		return &journalReply{Events: evs}, err
	}))
	mux.Handle(unary(s, procLog, opts, func(ctx context.Context, r *logRequest) (*core.LogPage, error) {
		page, err := s.e.VerificationLog(ctx, r.TaskID, r.ID, r.Offset, r.Limit)
		return &page, err
	}))
	mux.Handle(unary(s, procComment, opts, func(ctx context.Context, r *core.CommentRequest) (*core.ReviewComment, error) {
		c, err := s.e.Comment(ctx, *r)
		return &c, err
	}))
	mux.Handle(unary(s, procSend, opts, func(ctx context.Context, r *taskRequest) (*core.TaskView, error) {
		v, err := s.e.SendComments(ctx, r.TaskID)
		return &v, err
	}))
	mux.Handle(unary(s, procReviewFile, opts, func(ctx context.Context, r *fileRequest) (*fileReply, error) {
		b, err := s.e.ReviewFile(ctx, r.TaskID, r.Path)
		return &fileReply{Content: b}, err
	}))
	mux.Handle(unary(s, procPreview, opts, func(ctx context.Context, r *taskRequest) (*core.CherryPickPreview, error) {
		p, err := s.e.CherryPickPreview(ctx, r.TaskID)
		return &p, err
	}))
	mux.Handle(unary(s, procDraft, opts, func(ctx context.Context, r *core.DraftRequest) (*core.DraftResult, error) {
		res, err := s.e.DraftContract(ctx, *r)
		return &res, err
	}))
	mux.Handle(unary(s, procGrants, opts, func(ctx context.Context, _ *grantsRequest) (*grantsReply, error) {
		grants, err := s.e.Grants(ctx)
		return &grantsReply{Grants: grants}, err
	}))
	mux.Handle(unary(s, procRevoke, opts, func(ctx context.Context, r *revokeRequest) (*core.Grant, error) {
		g, err := s.e.RevokeGrant(ctx, r.ID)
		return &g, err
	}))
	mux.Handle(unary(s, procApply, opts, func(ctx context.Context, r *archiveRequest) (*core.ApplyResult, error) {
		res, err := s.e.ApplyToCheckout(ctx, r.TaskID, r.Apply)
		return &res, err
	}))
	mux.Handle(unary(s, procArchive, opts, func(ctx context.Context, r *archiveRequest) (*core.ArchiveResult, error) {
		res, err := s.e.Archive(ctx, r.TaskID, r.Apply)
		return &res, err
	}))
	mux.Handle(unary(s, procPrune, opts, func(ctx context.Context, r *pruneRequest) (*pruneReply, error) {
		res, err := s.e.Prune(ctx, r.OlderThan, r.Apply)
		if err != nil && len(res) > 0 {
			// The tasks pruned before the error travel with it, as Engine.Prune returns both.
			return &pruneReply{Results: res, Error: &core.SocketError{Err: core.AsError(err)}}, nil
		}
		return &pruneReply{Results: res}, err
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		// A kept-alive connection carries the last request's write deadline; clear it, and give
		// this request's body its own.
		rc.SetWriteDeadline(time.Time{})
		rc.SetReadDeadline(time.Now().Add(bodyTimeout))
		mux.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), connKey{}, rc)))
	})
}

// unary mounts one request-response procedure whose errors travel as core.Error.
func unary[Req, Res any](s *Server, proc string, opts []connect.HandlerOption, fn func(context.Context, *Req) (*Res, error)) (string, http.Handler) {
	return proc, connect.NewUnaryHandler(proc, func(ctx context.Context, req *connect.Request[Req]) (*connect.Response[Res], error) {
		s.bodyRead(ctx)
		res, err := fn(ctx, req.Msg)
		s.frameDeadline(ctx)
		if err != nil {
			return nil, toWire(err)
		}
		return connect.NewResponse(res), nil
	}, opts...)
}

// bodyRead lifts the body deadline once the request is read: a Delegate may wait for minutes,
// and a stream lasts as long as its client.
func (s *Server) bodyRead(ctx context.Context) {
	if rc, ok := ctx.Value(connKey{}).(*http.ResponseController); ok {
		rc.SetReadDeadline(time.Time{})
	}
}

// frameDeadline gives the next write frameTimeout to reach a peer that may have stopped
// reading; a zero frameTimeout clears the deadline.
func (s *Server) frameDeadline(ctx context.Context) {
	rc, ok := ctx.Value(connKey{}).(*http.ResponseController)
	if !ok {
		return
	}
	if s.frameTimeout == 0 {
		rc.SetWriteDeadline(time.Time{})
		return
	}
	rc.SetWriteDeadline(time.Now().Add(s.frameTimeout))
}

func send[T any](s *Server, ctx context.Context, stream *connect.ServerStream[T], msg *T) error {
	s.frameDeadline(ctx)
	err := stream.Send(msg)
	if rc, ok := ctx.Value(connKey{}).(*http.ResponseController); ok {
		rc.SetWriteDeadline(time.Time{})
	}
	return err
}

func (s *Server) shuttingDown() error {
	return toWire(core.Errorf(core.CodeReasonixUnavailable, &core.OwnerShuttingDown{PID: s.info.PID},
		"the owner (pid %d) is shutting down", s.info.PID))
}

// hello answers the handshake and then holds the stream open for the client's life: its end
// is how each side learns the other went away.
func (s *Server) hello(ctx context.Context, req *connect.Request[helloRequest], stream *connect.ServerStream[Info]) error {
	s.bodyRead(ctx)
	m := req.Msg
	if m.Protocol != Protocol {
		return wireError(connect.CodeFailedPrecondition, incompatible(
			"this reasonixctl speaks owner protocol %d but the owner (pid %d) speaks %d: run the same reasonixctl version as the owner, or stop the owner",
			m.Protocol, s.info.PID, Protocol))
	}
	switch m.Role {
	case RoleDashboard, RoleMCP, RoleCLI:
	default:
		return toWire(core.Errorf(core.CodeInvalidRequest, nil, "unknown client role %q: use dashboard, mcp or cli", m.Role))
	}
	if m.Role == RoleDashboard {
		sv := &supervision{detach: s.e.AttachSupervisor(), seen: time.Now()}
		if m.Session != "" {
			s.supMu.Lock()
			s.supervisors[m.Session] = sv
			s.supMu.Unlock()
			// A client that names its session says it is still there; one that goes quiet
			// stops counting until it speaks again.
			go s.watchPresence(ctx, sv)
		}
		defer func() {
			s.supMu.Lock()
			if s.supervisors[m.Session] == sv {
				delete(s.supervisors, m.Session)
			}
			s.supMu.Unlock()
			sv.close()
		}()
	}
	s.clients.Add(1)
	defer s.clients.Add(-1)
	s.log.Debug("client attached", "role", m.Role, "pid", m.PID)
	defer s.log.Debug("client detached", "role", m.Role, "pid", m.PID)
	info := s.info
	if err := send(s, ctx, stream, &info); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}

// supervision is one dashboard's hold on the engine's supervisor count.
type supervision struct {
	mu     sync.Mutex
	detach func()    // nil while not counted
	closed bool      // the dashboard left: nothing counts it again
	seen   time.Time // when the dashboard last said whether it is there
}

// watchPresence lets go of a dashboard that has not said it is there for s.presence, until the
// Hello stream (ctx) ends.
func (s *Server) watchPresence(ctx context.Context, sv *supervision) {
	tick := time.NewTicker(s.presence / 4)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			sv.mu.Lock()
			stale := sv.detach != nil && now.Sub(sv.seen) > s.presence
			sv.mu.Unlock()
			if stale {
				s.log.Info("a dashboard stopped answering; tasks no longer wait for it", "after", s.presence)
				sv.turn(false, nil)
			}
		}
	}
}

// turn counts the dashboard's person in (on) or out, through attach.
func (sv *supervision) turn(on bool, attach func() func()) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	switch {
	case on && sv.detach == nil && !sv.closed:
		sv.detach = attach()
	case !on && sv.detach != nil:
		sv.detach()
		sv.detach = nil
	}
}

// close lets go of the hold for good.
func (sv *supervision) close() {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	sv.closed = true
	if sv.detach != nil {
		sv.detach()
		sv.detach = nil
	}
}

// supervise counts a dashboard's person in or out while its Hello stream stays open.
func (s *Server) supervise(_ context.Context, r *superviseRequest) (*superviseReply, error) {
	s.supMu.Lock()
	sv := s.supervisors[r.Session]
	s.supMu.Unlock()
	if sv == nil {
		return nil, core.Errorf(core.CodeInvalidRequest, nil, "no dashboard attached with session %q", r.Session)
	}
	sv.mu.Lock()
	sv.seen = time.Now()
	sv.mu.Unlock()
	sv.turn(r.On, s.e.AttachSupervisor)
	return &superviseReply{}, nil
}

// subscribe relays an engine subscription. The engine's events are moved into a bounded queue
// on their own goroutine, and this one writes them to the peer: a peer that stops reading
// fills the queue and is dropped, and the engine's subscription is closed at once, so the
// owner never waits for it.
func (s *Server) subscribe(ctx context.Context, req *connect.Request[subscribeRequest], stream *connect.ServerStream[subscribeFrame]) error {
	s.bodyRead(ctx)
	s.streams.Add(1)
	defer s.streams.Add(-1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sub, err := s.e.Subscribe(ctx, req.Msg.Options)
	if err != nil {
		return toWire(err)
	}
	queue := make(chan core.Event, s.streamBuffer)
	var lagged bool
	var subErr error
	go func() {
		defer close(queue)
		for ev := range sub.C {
			select {
			case queue <- ev:
			default:
				lagged = true
				s.dropped.Add(1)
				cancel()
				return
			}
		}
		subErr = sub.Err()
	}()
	if err := send(s, ctx, stream, &subscribeFrame{Ready: true}); err != nil {
		return err
	}
	batch := make([]core.Event, 0, s.batchEvents)
	for ev := range queue {
		batch = append(batch[:0], ev)
		size := len(ev.Data)
	more:
		for len(batch) < s.batchEvents && size < maxBatchBytes {
			select {
			case ev, ok := <-queue:
				if !ok {
					break more
				}
				batch = append(batch, ev)
				size += len(ev.Data)
			default:
				break more
			}
		}
		if err := send(s, ctx, stream, &subscribeFrame{Events: batch}); err != nil {
			return err
		}
	}
	// queue is closed, so lagged and subErr are settled.
	switch {
	case lagged || errors.Is(subErr, store.ErrSubscriberOverflow):
		if !lagged {
			s.dropped.Add(1)
		}
		s.log.Debug("dropped a subscriber that fell behind", "task", req.Msg.Options.TaskID)
		return lagError()
	case s.ctx.Err() != nil:
		return s.shuttingDown()
	case ctx.Err() != nil:
		return nil // the client went away
	case subErr == nil:
		return s.shuttingDown() // the engine ended the subscription: it is closing
	}
	return toWire(fmt.Errorf("subscription: %w", subErr))
}
