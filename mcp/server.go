package mcp

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

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
	// one for up to ten minutes, so a handful would starve parallel tasks.
	toolWorkers = 64
	// maxPendingCalls bounds running plus queued calls; beyond it a call is refused at once.
	maxPendingCalls = 1024
	// maxMessageBytes bounds one line of input; a longer line is refused and skipped.
	maxMessageBytes = 32 << 20
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
	// AskUser (CODEX_REASONIX_PERMISSIONS=ask) asks the client's own user, through MCP form
	// elicitation, about commands the policy does not know, when the client supports it and the
	// service can take a core.Asker; otherwise such commands are denied automatically.
	AskUser bool
	// ProgressInterval between notifications/progress during a call; 0 means 15 s.
	ProgressInterval time.Duration
}

// Server is the MCP front end of a core.Service.
type Server struct {
	opts          Options
	shutdownGrace time.Duration
	log           *slog.Logger
	service       *opener
	stateKey      []byte // signs the requestState of input_required results
}

// NewServer builds the server. open is called in the background once tools/list has been
// answered (or at the first tool call, and again by a call after a failed attempt); initialize
// and tools/list never wait for it, and do not compete with it for the CPU.
func NewServer(open func(context.Context) (core.Service, error), opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.ProgressInterval <= 0 {
		opts.ProgressInterval = defaultProgressInterval
	}
	if opts.PermissionMode == "" {
		opts.PermissionMode = core.PermissionAutomatic
	}
	return &Server{
		opts:          opts,
		shutdownGrace: shutdownGrace,
		log:           opts.Logger,
		service:       &opener{open: open},
		stateKey:      newStateKey(),
	}
}

// opener opens the service once. A failed attempt is not remembered, so a later call can retry
// (for instance after another reasonixctl released the store).
type opener struct {
	open func(context.Context) (core.Service, error)

	mu      sync.Mutex
	baseCtx context.Context
	svc     core.Service
	attempt *openAttempt
	onOpen  []func(core.Service)
}

type openAttempt struct {
	done chan struct{}
	svc  core.Service
	err  error
}

// bind ties later opening attempts to ctx (the server's lifetime).
func (o *opener) bind(ctx context.Context) {
	o.mu.Lock()
	if o.baseCtx == nil {
		o.baseCtx = ctx
	}
	o.mu.Unlock()
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
		var hooks []func(core.Service)
		if err == nil {
			o.svc = svc
			hooks, o.onOpen = o.onOpen, nil
		}
		o.attempt = nil
		o.mu.Unlock()
		// Before any call gets the service: a task it starts already finds what they set up.
		for _, f := range hooks {
			f(svc)
		}
		close(a.done)
	}()
	return a
}

// whenOpen runs f with the service once it is open (now, if it is), without starting to open it.
func (o *opener) whenOpen(f func(core.Service)) {
	o.mu.Lock()
	svc := o.svc
	if svc == nil {
		o.onOpen = append(o.onOpen, f)
	}
	o.mu.Unlock()
	if svc != nil {
		f(svc)
	}
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
