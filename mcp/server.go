package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"reasonixctl/assets"
	"reasonixctl/core"
)

// ServerName is the name Codex knows the server by.
const ServerName = "reasonix_worker"

const (
	defaultProgressInterval = 15 * time.Second
	// shutdownGrace bounds how long ServeStdio waits for in-flight calls after its context ends
	// or stdin closes; their contexts are cancelled first, so only a stuck service can use it up.
	shutdownGrace = 5 * time.Second
	// toolWorkers is how many tool calls run at once. Each waiting delegate or finalize holds
	// one for up to ten minutes, so the mcp-go default of five would starve parallel tasks.
	toolWorkers = 64
)

// Options configure a Server.
type Options struct {
	Version string       // reported in serverInfo
	Logger  *slog.Logger // nil: discard
	// Network is the operator's consent to worker network access (CODEX_REASONIX_NETWORK=on);
	// a task gets it only when Codex's sandbox has the network too.
	Network bool
	// PermissionMode for tasks created over MCP; empty means automatic (BEHAVIOUR §0.4).
	PermissionMode core.PermissionMode
	// ProgressInterval between notifications/progress during a call; 0 means 15 s.
	ProgressInterval time.Duration
}

// Server is the MCP front end of a core.Service.
type Server struct {
	opts          Options
	shutdownGrace time.Duration
	log           *slog.Logger
	mcp           *server.MCPServer
	tools         map[string]*toolDef
	service       *opener
}

// NewServer builds the server. open is called once, in the background, when serving starts (or
// at the first tool call); initialize and tools/list never wait for it, so Codex sees the tools
// while the store and engine are still opening.
func NewServer(open func(context.Context) (core.Service, error), opts Options) *Server {
	return newServer(open, opts)
}

// newServer lets tests add mcp-go options, such as its own output validation.
func newServer(open func(context.Context) (core.Service, error), opts Options, extra ...server.ServerOption) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.ProgressInterval <= 0 {
		opts.ProgressInterval = defaultProgressInterval
	}
	if opts.PermissionMode == "" {
		opts.PermissionMode = core.PermissionAutomatic
	}
	s := &Server{
		opts:          opts,
		shutdownGrace: shutdownGrace,
		log:           opts.Logger,
		service:       &opener{open: open},
	}
	s.tools = toolDefs()
	s.mcp = server.NewMCPServer(ServerName, opts.Version, append([]server.ServerOption{
		server.WithInstructions(assets.MCPInstructions()),
		server.WithExperimental(map[string]any{sandboxMetaKey: map[string]any{}}),
		server.WithToolCapabilities(false),
		server.WithRecovery(),
	}, extra...)...)
	for _, name := range toolOrder {
		t := s.tools[name]
		s.mcp.AddTool(t.tool, s.handler(t))
	}
	return s
}

// MCPServer exposes the underlying mcp-go server, for in-process clients and tests.
func (s *Server) MCPServer() *server.MCPServer { return s.mcp }

// ServeStdio serves one client over in/out until in closes or ctx ends, then cancels the calls
// still running (their tasks keep running in the engine) and returns within a bounded time.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.service.start(ctx)
	go validators()

	errLog := log.New(slogWriter{s.log}, "", 0)
	stdio := server.NewStdioServer(s.mcp)
	for _, o := range []server.StdioOption{
		server.WithErrorLogger(errLog), server.WithWorkerPoolSize(toolWorkers), server.WithQueueSize(1000),
	} {
		o(stdio)
	}
	// mcp-go returns from Listen only after every in-flight call has; a call stuck in the
	// service would hold the process forever, so the wait is bounded once input is over.
	inputOver := make(chan struct{})
	in = &eofSignal{r: in, over: inputOver}
	done := make(chan error, 1)
	go func() { done <- stdio.Listen(ctx, in, out) }()

	var err error
	finished := false
	select {
	case err = <-done:
		finished = true
	case <-ctx.Done():
	case <-inputOver:
	}
	if !finished {
		select {
		case err = <-done:
		case <-time.After(s.shutdownGrace):
			cancel()
			s.log.Warn("mcp: in-flight calls did not finish within the shutdown grace period")
		}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		err = nil
	}
	return err
}

// eofSignal closes over when the first read fails: stdin is closed or broken.
type eofSignal struct {
	r    io.Reader
	over chan struct{}
	once sync.Once
}

func (e *eofSignal) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil {
		e.once.Do(func() { close(e.over) })
	}
	return n, err
}

// slogWriter adapts mcp-go's *log.Logger output to our logger, keeping stderr quiet.
type slogWriter struct{ l *slog.Logger }

func (w slogWriter) Write(p []byte) (int, error) {
	w.l.Warn("mcp-go", "msg", string(p))
	return len(p), nil
}

// opener opens the service once. A failed attempt is not remembered, so a later call can retry
// (for instance after another reasonixctl released the store).
type opener struct {
	open func(context.Context) (core.Service, error)

	mu      sync.Mutex
	baseCtx context.Context
	svc     core.Service
	attempt *openAttempt
}

type openAttempt struct {
	done chan struct{}
	svc  core.Service
	err  error
}

// start begins opening in the background, bound to ctx (the server's lifetime).
func (o *opener) start(ctx context.Context) {
	o.mu.Lock()
	if o.baseCtx == nil {
		o.baseCtx = ctx
	}
	o.mu.Unlock()
	o.begin()
}

func (o *opener) begin() *openAttempt {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.svc != nil {
		a := &openAttempt{done: make(chan struct{}), svc: o.svc}
		close(a.done)
		return a
	}
	if o.attempt != nil {
		return o.attempt
	}
	ctx := o.baseCtx
	if ctx == nil {
		ctx = context.Background()
	}
	a := &openAttempt{done: make(chan struct{})}
	o.attempt = a
	go func() {
		svc, err := o.open(ctx)
		if err == nil && svc == nil {
			err = errors.New("service opener returned nothing")
		}
		o.mu.Lock()
		a.svc, a.err = svc, err
		if err == nil {
			o.svc = svc
		}
		o.attempt = nil
		o.mu.Unlock()
		close(a.done)
	}()
	return a
}

// get waits for the service, or for ctx.
func (o *opener) get(ctx context.Context) (core.Service, error) {
	a := o.begin()
	select {
	case <-a.done:
		if a.err != nil {
			return nil, a.err
		}
		return a.svc, nil
	case <-ctx.Done():
		return nil, core.Errorf(core.CodeReasonixUnavailable, nil, "the request ended while reasonixctl was still starting: %v", ctx.Err())
	}
}

// progress sends notifications/progress at once and then every interval until stop is called,
// when the request carries a progress token. Codex uses them to keep long waits alive.
func (s *Server) progress(ctx context.Context, token mcp.ProgressToken, tool string) (stop func()) {
	if token == nil {
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
			msg := fmt.Sprintf("%s running (%s elapsed)", tool, time.Since(start).Round(time.Second))
			err := s.mcp.SendNotificationToClient(ctx, "notifications/progress", map[string]any{
				"progressToken": token, "progress": n, "message": msg,
			})
			if err != nil {
				s.log.Debug("mcp: progress notification not sent", "tool", tool, "err", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return func() { cancel(); <-finished }
}
