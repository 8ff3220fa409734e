package main

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"reasonixctl/core"
	"reasonixctl/core/remote"
	"reasonixctl/tui"
)

// link is one connection to the engine: the service to call, who owns the directory, a
// channel closed when that owner goes away (nil when this process owns it and never loses it),
// and how to tell that owner whether the person at this dashboard is there (nil for an engine
// this process owns).
type link struct {
	svc       core.Service
	owner     tui.Owner
	gone      <-chan struct{}
	close     func()
	supervise func(ctx context.Context, on bool) error
}

// attachment is a core.Service that forwards to whichever process owns the state directory and
// follows the owner leaving and a new one arriving. connect makes a link: the dashboard dials
// the owner's socket; the MCP server first tries to become the owner itself.
type attachment struct {
	connect func(ctx context.Context) (link, error)
	log     *slog.Logger
	ctx     context.Context
	stop    context.CancelFunc
	done    chan struct{}

	mu      sync.Mutex
	cur     link
	present bool
	lastPID int
	changed chan struct{}
	// asker is the MCP server's elicitation asker: given to every link that can use one (an
	// engine this process owns), so it survives a take-over.
	asker core.Asker
}

// SetAsker installs the asker on the current link and every later one that takes it.
func (a *attachment) SetAsker(asker core.Asker) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asker = asker
	if a.present {
		a.cur.svc.SetAsker(asker)
	}
}

var (
	_ core.Service   = (*attachment)(nil)
	_ tui.Attachment = (*attachment)(nil)
)

// Supervise tells the owner whether the person at this dashboard is there to answer (see
// remote.Client.Supervise); an engine this process owns is left as it is.
func (a *attachment) Supervise(on bool) {
	a.mu.Lock()
	supervise, present := a.cur.supervise, a.present
	a.mu.Unlock()
	if supervise == nil || !present {
		return
	}
	ctx, cancel := context.WithTimeout(a.ctx, 2*time.Second)
	defer cancel()
	if err := supervise(ctx, on); err != nil {
		a.log.Warn("telling the owner whether its supervisor is here failed", "on", on, "err", err)
	}
}

// redialEvery is how often a link whose owner left tries again: a new owner is found within
// this much of starting, and an idle dashboard costs one failed connect per interval.
const redialEvery = 250 * time.Millisecond

// newAttachment connects once (failing if that fails) and then keeps the link alive.
func newAttachment(ctx context.Context, log *slog.Logger, connect func(ctx context.Context) (link, error)) (*attachment, error) {
	l, err := connect(ctx)
	if err != nil {
		return nil, err
	}
	ctx, stop := context.WithCancel(ctx)
	a := &attachment{connect: connect, log: log, ctx: ctx, stop: stop, done: make(chan struct{}),
		cur: l, present: true, lastPID: l.owner.PID, changed: make(chan struct{}, 1)}
	go a.follow()
	return a, nil
}

// follow waits for the owner to leave and connects again, until Close.
func (a *attachment) follow() {
	defer close(a.done)
	for {
		a.mu.Lock()
		gone := a.cur.gone
		a.mu.Unlock()
		select {
		case <-a.ctx.Done():
			return
		case <-gone:
		}
		a.log.Info("the owner of the state directory went away", "pid", a.lastPID)
		a.dropLink()
		a.signal()
		ticker := time.NewTicker(redialEvery)
		for {
			l, err := a.connect(a.ctx)
			if err == nil {
				a.mu.Lock()
				a.cur, a.present, a.lastPID = l, true, l.owner.PID
				if a.asker != nil {
					l.svc.SetAsker(a.asker)
				}
				a.mu.Unlock()
				a.log.Info("attached to a new owner", "pid", l.owner.PID, "mode", l.owner.Mode)
				a.signal()
				break
			}
			select {
			case <-a.ctx.Done():
				ticker.Stop()
				return
			case <-ticker.C:
			}
		}
		ticker.Stop()
	}
}

func (a *attachment) signal() {
	select {
	case a.changed <- struct{}{}:
	default:
	}
}

// Close stops following and closes the current link.
func (a *attachment) Close() {
	a.stop()
	<-a.done
	a.dropLink()
}

// dropLink forgets the current link and closes it.
func (a *attachment) dropLink() {
	a.mu.Lock()
	l := a.cur
	a.cur, a.present = link{}, false
	a.mu.Unlock()
	if l.close != nil {
		l.close()
	}
}

// Owner implements tui.Attachment.
func (a *attachment) Owner() (tui.Owner, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.present {
		return tui.Owner{PID: a.lastPID}, false
	}
	return a.cur.owner, true
}

// Changed implements tui.Attachment.
func (a *attachment) Changed() <-chan struct{} { return a.changed }

// service returns the current owner's service, or a retryable error while there is none.
func (a *attachment) service() (core.Service, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.present {
		return nil, &core.Error{Code: core.CodeReasonixUnavailable, Retryable: true, NextAction: core.NextRetry,
			Message: fmt.Sprintf("the process that owned the state directory (pid %d) exited; waiting for a new owner", a.lastPID)}
	}
	return a.cur.svc, nil
}

// through calls f with the current owner's service, or says why there is none.
func through[T any](a *attachment, f func(core.Service) (T, error)) (T, error) {
	svc, err := a.service()
	if err != nil {
		var zero T
		return zero, err
	}
	return f(svc)
}

func (a *attachment) Delegate(ctx context.Context, req core.DelegateRequest) (core.DelegateResult, error) {
	return through(a, func(s core.Service) (core.DelegateResult, error) { return s.Delegate(ctx, req) })
}

func (a *attachment) Control(ctx context.Context, cmd core.Command) (core.TaskView, error) {
	return through(a, func(s core.Service) (core.TaskView, error) { return s.Control(ctx, cmd) })
}

func (a *attachment) Inspect(ctx context.Context, req core.InspectRequest) (core.InspectResult, error) {
	return through(a, func(s core.Service) (core.InspectResult, error) { return s.Inspect(ctx, req) })
}

func (a *attachment) List(ctx context.Context, f core.ListFilter) ([]core.TaskView, error) {
	return through(a, func(s core.Service) ([]core.TaskView, error) { return s.List(ctx, f) })
}

func (a *attachment) Get(ctx context.Context, id string) (core.TaskDetail, error) {
	return through(a, func(s core.Service) (core.TaskDetail, error) { return s.Get(ctx, id) })
}

func (a *attachment) Subscribe(ctx context.Context, opts core.SubscribeOptions) (*core.Subscription, error) {
	return through(a, func(s core.Service) (*core.Subscription, error) { return s.Subscribe(ctx, opts) })
}

// dialOwner is the dashboard's connect: it attaches to the owner's socket.
func dialOwner(dir, role string) func(ctx context.Context) (link, error) {
	return func(ctx context.Context) (link, error) {
		c, err := remote.Dial(ctx, dir, role)
		if err != nil {
			return link{}, err
		}
		info := c.Owner()
		return link{svc: c, owner: tui.Owner{PID: info.PID, Mode: info.Mode}, gone: c.Done(), close: func() { c.Close() }, supervise: c.Supervise}, nil
	}
}

// VerificationLog forwards to the owner (an engine, or a socket client).
func (a *attachment) VerificationLog(ctx context.Context, taskID, id string, offset, limit int64) (core.LogPage, error) {
	return through(a, func(s core.Service) (core.LogPage, error) {
		return s.VerificationLog(ctx, taskID, id, offset, limit)
	})
}

func (a *attachment) Comment(ctx context.Context, req core.CommentRequest) (core.ReviewComment, error) {
	return through(a, func(s core.Service) (core.ReviewComment, error) { return s.Comment(ctx, req) })
}

func (a *attachment) SendComments(ctx context.Context, taskID string) (core.TaskView, error) {
	return through(a, func(s core.Service) (core.TaskView, error) { return s.SendComments(ctx, taskID) })
}

func (a *attachment) ReviewFile(ctx context.Context, taskID, path string) ([]byte, error) {
	return through(a, func(s core.Service) ([]byte, error) { return s.ReviewFile(ctx, taskID, path) })
}

func (a *attachment) CherryPickPreview(ctx context.Context, taskID string) (core.CherryPickPreview, error) {
	return through(a, func(s core.Service) (core.CherryPickPreview, error) { return s.CherryPickPreview(ctx, taskID) })
}

func (a *attachment) DraftContract(ctx context.Context, req core.DraftRequest) (core.DraftResult, error) {
	return through(a, func(s core.Service) (core.DraftResult, error) { return s.DraftContract(ctx, req) })
}

func (a *attachment) Grants(ctx context.Context) ([]core.Grant, error) {
	return through(a, func(s core.Service) ([]core.Grant, error) { return s.Grants(ctx) })
}

func (a *attachment) RevokeGrant(ctx context.Context, id string) (core.Grant, error) {
	return through(a, func(s core.Service) (core.Grant, error) { return s.RevokeGrant(ctx, id) })
}
