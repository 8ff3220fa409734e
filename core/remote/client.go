package remote

import (
	"context"
	"crypto/rand"
	"errors"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"connectrpc.com/connect"

	"reasonixctl/core"
	"reasonixctl/core/statedir"
	"reasonixctl/store"
)

// helloTimeout bounds the handshake when the caller's context has no sooner deadline: an owner
// that accepts but never answers is as good as none.
const helloTimeout = 5 * time.Second

// Client drives the owner's engine over its socket. It implements core.Service, and every
// method returns *core.Error on failure.
type Client struct {
	dir   string
	owner Info
	hc    *http.Client
	tr    *http.Transport

	ctx    context.Context // the client's life; Close cancels it
	cancel context.CancelFunc
	done   chan struct{} // closed when the Hello stream ends

	subBuffer int // events queued per subscription; tests shrink it

	hello      *connect.Client[helloRequest, Info]
	list       *connect.Client[listRequest, tasksReply]
	get        *connect.Client[getRequest, core.TaskDetail]
	subscribe  *connect.Client[subscribeRequest, subscribeFrame]
	delegate   *connect.Client[delegateRequest, delegateReply]
	control    *connect.Client[controlRequest, core.TaskView]
	inspect    *connect.Client[core.InspectRequest, core.InspectResult]
	listStored *connect.Client[listRequest, storedReply]
	archive    *connect.Client[archiveRequest, core.ArchiveResult]
	apply      *connect.Client[archiveRequest, core.ApplyResult]
	journal    *connect.Client[journalRequest, journalReply]
	log        *connect.Client[logRequest, core.LogPage]
	comment    *connect.Client[core.CommentRequest, core.ReviewComment]
	send       *connect.Client[taskRequest, core.TaskView]
	reviewFile *connect.Client[fileRequest, fileReply]
	preview    *connect.Client[taskRequest, core.CherryPickPreview]
	draft      *connect.Client[core.DraftRequest, core.DraftResult]
	grants     *connect.Client[grantsRequest, grantsReply]
	revoke     *connect.Client[revokeRequest, core.Grant]
	prune      *connect.Client[pruneRequest, pruneReply]
	supervise  *connect.Client[superviseRequest, superviseReply]
	questions  *connect.Client[questionsRequest, questionFrame]
	answerCl   *connect.Client[answerRequest, answerReply]

	// The Asker this client answers its owner's questions with (ask.go).
	askMu      sync.Mutex
	asker      core.Asker
	stopAsking context.CancelFunc

	session string // names the Hello stream for Supervise

	// A dashboard client says every presenceEvery whether its person is there (present), so
	// that the owner stops counting it once it goes quiet (stopped, wedged).
	presenceEvery time.Duration
	presentMu     sync.Mutex
	present       bool
}

// presenceEvery is how often a dashboard tells the owner it is still there: well within the
// owner's presenceTimeout. (A variable so that tests can shorten both.)
var presenceEvery = 10 * time.Second

var _ core.Service = (*Client)(nil)

// Dial connects to the owner of dir. role is "dashboard", "mcp" or "cli"; a dashboard counts
// as an attached supervisor of the owner's engine until Close. With nobody serving dir the
// error is a retryable reasonix_unavailable; a socket path someone else could have planted is
// refused (errors.Is ErrUnsafeSocket).
func Dial(ctx context.Context, dir, role string) (*Client, error) {
	return dial(ctx, dir, role, Protocol)
}

func dial(ctx context.Context, dir, role string, protocol int) (*Client, error) {
	switch role {
	case RoleDashboard, RoleMCP, RoleCLI:
	default:
		return nil, core.Errorf(core.CodeInvalidRequest, nil, "unknown client role %q: use dashboard, mcp or cli", role)
	}
	path := SocketPath(dir)
	ours, err := inspectSocket(path)
	if err != nil {
		return nil, err
	}
	if !ours {
		if err := statedir.Check(dir); errors.Is(err, statedir.ErrUnsafe) {
			// An owner refuses to serve a socket here: say why rather than that none runs.
			return nil, core.Errorf(core.CodeReasonixUnavailable, &core.PathRef{Path: path},
				"no reasonixctl can serve %s to other processes: %v", dir, err)
		}
		return nil, core.Errorf(core.CodeReasonixUnavailable, &core.PathRef{Path: path},
			"no reasonixctl serves %s (no socket at %s)", dir, path)
	}
	uid := os.Getuid()
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			c, err := d.DialContext(ctx, "unix", path)
			if err != nil {
				return nil, err
			}
			// The owner must be us too: a socket file of ours could still be bound by
			// another user's process if the directory was loosened and restored.
			peer, err := peerUID(c)
			if err == nil {
				err = checkPeer(peer, uid)
			}
			if err != nil {
				c.Close()
				return nil, err
			}
			return c, nil
		},
		MaxIdleConnsPerHost: 8,
		IdleConnTimeout:     idleTimeout / 2, // before the server's, so we never reuse one it is closing
		DisableCompression:  true,
	}
	c := &Client{dir: dir, tr: tr, hc: &http.Client{Transport: tr}, done: make(chan struct{}), subBuffer: subBuffer,
		presenceEvery: presenceEvery, present: true}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	opts := []connect.ClientOption{
		connect.WithCodec(jsonCodec{}),
		connect.WithAcceptCompression("gzip", nil, nil), // see the server's options

		connect.WithReadMaxBytes(maxMessageBytes),
		connect.WithSendMaxBytes(maxMessageBytes),
	}
	const base = "http://owner" // the host is ignored: every connection goes to path
	c.hello = connect.NewClient[helloRequest, Info](c.hc, base+procHello, opts...)
	c.list = connect.NewClient[listRequest, tasksReply](c.hc, base+procList, opts...)
	c.get = connect.NewClient[getRequest, core.TaskDetail](c.hc, base+procGet, opts...)
	c.subscribe = connect.NewClient[subscribeRequest, subscribeFrame](c.hc, base+procSubscribe, opts...)
	c.delegate = connect.NewClient[delegateRequest, delegateReply](c.hc, base+procDelegate, opts...)
	c.control = connect.NewClient[controlRequest, core.TaskView](c.hc, base+procControl, opts...)
	c.inspect = connect.NewClient[core.InspectRequest, core.InspectResult](c.hc, base+procInspect, opts...)
	c.listStored = connect.NewClient[listRequest, storedReply](c.hc, base+procListStored, opts...)
	c.archive = connect.NewClient[archiveRequest, core.ArchiveResult](c.hc, base+procArchive, opts...)
	c.apply = connect.NewClient[archiveRequest, core.ApplyResult](c.hc, base+procApply, opts...)
	c.journal = connect.NewClient[journalRequest, journalReply](c.hc, base+procJournal, opts...)
	c.log = connect.NewClient[logRequest, core.LogPage](c.hc, base+procLog, opts...)
	c.comment = connect.NewClient[core.CommentRequest, core.ReviewComment](c.hc, base+procComment, opts...)
	c.send = connect.NewClient[taskRequest, core.TaskView](c.hc, base+procSend, opts...)
	c.reviewFile = connect.NewClient[fileRequest, fileReply](c.hc, base+procReviewFile, opts...)
	c.preview = connect.NewClient[taskRequest, core.CherryPickPreview](c.hc, base+procPreview, opts...)
	c.draft = connect.NewClient[core.DraftRequest, core.DraftResult](c.hc, base+procDraft, opts...)
	c.grants = connect.NewClient[grantsRequest, grantsReply](c.hc, base+procGrants, opts...)
	c.revoke = connect.NewClient[revokeRequest, core.Grant](c.hc, base+procRevoke, opts...)
	c.prune = connect.NewClient[pruneRequest, pruneReply](c.hc, base+procPrune, opts...)
	c.supervise = connect.NewClient[superviseRequest, superviseReply](c.hc, base+procSupervise, opts...)
	c.questions = connect.NewClient[questionsRequest, questionFrame](c.hc, base+procQuestions, opts...)
	c.answerCl = connect.NewClient[answerRequest, answerReply](c.hc, base+procAnswer, opts...)
	c.session = rand.Text()
	if err := c.handshake(ctx, role, protocol); err != nil {
		c.cancel()
		tr.CloseIdleConnections()
		return nil, err
	}
	if role == RoleDashboard {
		go c.keepPresent()
	}
	return c, nil
}

// keepPresent repeats the dashboard's last Supervise every presenceEvery until the client ends.
func (c *Client) keepPresent() {
	tick := time.NewTicker(c.presenceEvery)
	defer tick.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-c.done:
			return
		case <-tick.C:
			c.presentMu.Lock()
			on := c.present
			c.presentMu.Unlock()
			ctx, cancel := context.WithTimeout(c.ctx, c.presenceEvery)
			_, _ = unaryCall(c, ctx, c.supervise, &superviseRequest{Session: c.session, On: on})
			cancel()
		}
	}
}

// handshake opens the Hello stream, waits for the owner's Info and then watches the stream on
// its own goroutine until it ends.
func (c *Client) handshake(ctx context.Context, role string, protocol int) error {
	ctx, cancel := context.WithTimeout(ctx, helloTimeout)
	defer cancel()
	type first struct {
		stream *connect.ServerStreamForClient[Info]
		err    error
	}
	got := make(chan first, 1)
	go func() {
		stream, err := c.hello.CallServerStream(c.ctx, connect.NewRequest(&helloRequest{Protocol: protocol, Role: role, PID: os.Getpid(), Session: c.session}))
		if err == nil && !stream.Receive() {
			err = stream.Err()
			if err == nil {
				err = errors.New("the owner ended the handshake without an answer")
			}
			stream.Close()
		}
		got <- first{stream, err}
	}()
	select {
	case f := <-got:
		if f.err != nil {
			if ce, _ := coreDetail(f.err); ce != nil {
				return ce
			}
			if connect.CodeOf(f.err) == connect.CodeUnimplemented {
				return incompatible("the owner of %s does not speak owner protocol %d: run the same reasonixctl version as the owner, or stop the owner", c.dir, protocol)
			}
			return core.Errorf(core.CodeReasonixUnavailable, &core.DirRef{Dir: c.dir},
				"the owner of %s does not answer on its socket: %w", c.dir, f.err)
		}
		c.owner = *f.stream.Msg()
		go func() {
			defer close(c.done)
			for f.stream.Receive() {
			}
			f.stream.Close()
		}()
		return nil
	case <-ctx.Done():
		c.cancel() // ends the call; the goroutine above sends into its buffered channel
		return core.Errorf(core.CodeReasonixUnavailable, &core.DirRef{Dir: c.dir},
			"the owner of %s did not answer the handshake: %w", c.dir, ctx.Err())
	}
}

// Supervise tells the owner whether this dashboard's person is there to answer: false while
// the dashboard is suspended, so that tasks stop waiting for it, and true again after.
func (c *Client) Supervise(ctx context.Context, on bool) error {
	c.presentMu.Lock()
	c.present = on
	c.presentMu.Unlock()
	_, err := unaryCall(c, ctx, c.supervise, &superviseRequest{Session: c.session, On: on})
	return err
}

// Owner describes the process the client is attached to.
func (c *Client) Owner() Info { return c.owner }

// Done is closed when the owner goes away (it exited, closed its socket or the connection
// broke) or after Close.
func (c *Client) Done() <-chan struct{} { return c.done }

// Close detaches from the owner.
func (c *Client) Close() error {
	c.cancel()
	<-c.done
	c.tr.CloseIdleConnections()
	return nil
}

func (c *Client) ownerGone() *core.Error {
	return core.Errorf(core.CodeReasonixUnavailable, &core.OwnerGone{PID: c.owner.PID, Dir: c.dir},
		"the owner (pid %d) of %s exited; run the command again to open the state directory or attach to its next owner",
		c.owner.PID, c.dir)
}

// gone returns the owner-gone error once the Hello stream has ended.
func (c *Client) gone() error {
	select {
	case <-c.done:
		if c.ctx.Err() != nil {
			return core.Errorf(core.CodeInvalidRequest, nil, "the client is closed")
		}
		return c.ownerGone()
	default:
		return nil
	}
}

// fromWire turns what a call returned into the *core.Error callers expect.
func (c *Client) fromWire(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if ce, _ := coreDetail(err); ce != nil {
		return ce
	}
	if ctx.Err() != nil {
		return core.Errorf(core.CodeInternalError, nil, "%w", ctx.Err())
	}
	switch connect.CodeOf(err) {
	case connect.CodeUnimplemented:
		return incompatible("the owner (pid %d) does not know this call: %v", c.owner.PID, err)
	case connect.CodeResourceExhausted:
		return core.Errorf(core.CodeOutputLimitExceeded, nil, "a message to or from the owner exceeds %d bytes: %v", maxMessageBytes, err)
	}
	// Anything else without our detail is the transport failing: the owner is gone, or going.
	gone := c.ownerGone()
	gone.Cause = err
	return gone
}

func unaryCall[Req, Res any](c *Client, ctx context.Context, cl *connect.Client[Req, Res], req *Req) (*Res, error) {
	if err := c.gone(); err != nil {
		return nil, err
	}
	res, err := cl.CallUnary(ctx, connect.NewRequest(req))
	if err != nil {
		return nil, c.fromWire(ctx, err)
	}
	return res.Msg, nil
}

// List implements core.Service.
func (c *Client) List(ctx context.Context, filter core.ListFilter) ([]core.TaskView, error) {
	res, err := unaryCall(c, ctx, c.list, &listRequest{Filter: filter})
	if err != nil {
		return nil, err
	}
	return res.Tasks, nil
}

// Get implements core.Service.
func (c *Client) Get(ctx context.Context, taskID string) (core.TaskDetail, error) {
	res, err := unaryCall(c, ctx, c.get, &getRequest{TaskID: taskID})
	if err != nil {
		return core.TaskDetail{}, err
	}
	return *res, nil
}

// Delegate implements core.Service; the request's Authority and PermissionMode go with it.
func (c *Client) Delegate(ctx context.Context, req core.DelegateRequest) (core.DelegateResult, error) {
	res, err := unaryCall(c, ctx, c.delegate, &delegateRequest{Request: req, Authority: req.Authority, PermissionMode: req.PermissionMode, Session: c.session})
	if err != nil {
		return core.DelegateResult{}, err
	}
	return core.DelegateResult{TaskView: res.View, TimedOut: res.TimedOut, ReviewBundle: res.Bundle}, nil
}

// Control implements core.Service; the command goes whole, fields outside reasonix_control's
// JSON included.
func (c *Client) Control(ctx context.Context, cmd core.Command) (core.TaskView, error) {
	res, err := unaryCall(c, ctx, c.control, newControlRequest(cmd))
	if err != nil {
		return core.TaskView{}, err
	}
	return *res, nil
}

// Inspect implements core.Service.
func (c *Client) Inspect(ctx context.Context, req core.InspectRequest) (core.InspectResult, error) {
	res, err := unaryCall(c, ctx, c.inspect, &req)
	if err != nil {
		return core.InspectResult{}, err
	}
	return *res, nil
}

// ListStored is Engine.ListStored through the owner.
func (c *Client) ListStored(ctx context.Context, f core.ListFilter) ([]core.StoredTask, error) {
	res, err := unaryCall(c, ctx, c.listStored, &listRequest{Filter: f})
	if err != nil {
		return nil, err
	}
	return res.Tasks, nil
}

// Journal is Engine.Journal through the owner.
func (c *Client) Journal(ctx context.Context, id string) ([]core.Event, error) {
	res, err := unaryCall(c, ctx, c.journal, &journalRequest{TaskID: id})
	if err != nil {
		return nil, err
	}
	return res.Events, nil
}

// VerificationLog implements core.Service through the owner.
func (c *Client) VerificationLog(ctx context.Context, taskID, id string, offset, limit int64) (core.LogPage, error) {
	res, err := unaryCall(c, ctx, c.log, &logRequest{TaskID: taskID, ID: id, Offset: offset, Limit: limit})
	if err != nil {
		return core.LogPage{}, err
	}
	return *res, nil
}

// Comment implements core.Service through the owner.
func (c *Client) Comment(ctx context.Context, req core.CommentRequest) (core.ReviewComment, error) {
	res, err := unaryCall(c, ctx, c.comment, &req)
	if err != nil {
		return core.ReviewComment{}, err
	}
	return *res, nil
}

// SendComments implements core.Service through the owner.
func (c *Client) SendComments(ctx context.Context, taskID string) (core.TaskView, error) {
	res, err := unaryCall(c, ctx, c.send, &taskRequest{TaskID: taskID})
	if err != nil {
		return core.TaskView{}, err
	}
	return *res, nil
}

// ReviewFile implements core.Service through the owner.
func (c *Client) ReviewFile(ctx context.Context, taskID, path string) ([]byte, error) {
	res, err := unaryCall(c, ctx, c.reviewFile, &fileRequest{TaskID: taskID, Path: path})
	if err != nil {
		return nil, err
	}
	return res.Content, nil
}

// CherryPickPreview implements core.Service through the owner.
func (c *Client) CherryPickPreview(ctx context.Context, taskID string) (core.CherryPickPreview, error) {
	res, err := unaryCall(c, ctx, c.preview, &taskRequest{TaskID: taskID})
	if err != nil {
		return core.CherryPickPreview{}, err
	}
	return *res, nil
}

// DraftContract implements core.Service through the owner, which writes the draft under its
// state directory and runs the checks.
func (c *Client) DraftContract(ctx context.Context, req core.DraftRequest) (core.DraftResult, error) {
	res, err := unaryCall(c, ctx, c.draft, &req)
	if err != nil {
		return core.DraftResult{}, err
	}
	return *res, nil
}

// Grants implements core.Service through the owner: the grants it reads, so that an attached
// front end and the owner never disagree about them.
func (c *Client) Grants(ctx context.Context) ([]core.Grant, error) {
	res, err := unaryCall(c, ctx, c.grants, &grantsRequest{})
	if err != nil {
		return nil, err
	}
	return res.Grants, nil
}

// RevokeGrant implements core.Service through the owner.
func (c *Client) RevokeGrant(ctx context.Context, id string) (core.Grant, error) {
	res, err := unaryCall(c, ctx, c.revoke, &revokeRequest{ID: id})
	if err != nil {
		return core.Grant{}, err
	}
	return *res, nil
}

// ApplyToCheckout is Engine.ApplyToCheckout through the owner.
func (c *Client) ApplyToCheckout(ctx context.Context, id string, apply bool) (core.ApplyResult, error) {
	res, err := unaryCall(c, ctx, c.apply, &archiveRequest{TaskID: id, Apply: apply})
	if err != nil {
		return core.ApplyResult{}, err
	}
	return *res, nil
}

// Archive is Engine.Archive through the owner.
func (c *Client) Archive(ctx context.Context, id string, apply bool) (core.ArchiveResult, error) {
	res, err := unaryCall(c, ctx, c.archive, &archiveRequest{TaskID: id, Apply: apply})
	if err != nil {
		return core.ArchiveResult{}, err
	}
	return *res, nil
}

// Prune is Engine.Prune through the owner: on an error, the tasks pruned before it are
// returned with it.
func (c *Client) Prune(ctx context.Context, olderThan time.Duration, apply bool) ([]core.PruneResult, error) {
	res, err := unaryCall(c, ctx, c.prune, &pruneRequest{OlderThan: olderThan, Apply: apply})
	if err != nil {
		return nil, err
	}
	if res.Error != nil && res.Error.Err != nil {
		return res.Results, res.Error.Err
	}
	return res.Results, nil
}

// subBuffer is the client side's event queue per subscription, as the engine's own.
const subBuffer = 256

// maxResubscribes bounds how often in a row a task subscription is re-opened without
// receiving an event in between.
const maxResubscribes = 3

// Subscribe implements core.Service. A task subscription that falls behind is re-opened from
// the last seq received, so its channel keeps delivering without a gap; a subscription to all
// tasks is live only and cannot be resumed, so it ends with a reasonix_unavailable error
// wrapping store.ErrSubscriberOverflow, as the engine's does in process.
func (c *Client) Subscribe(ctx context.Context, opts core.SubscribeOptions) (*core.Subscription, error) {
	// The stream ends with the caller's context or with the client.
	ctx, cancel := context.WithCancel(ctx)
	stopAfter := context.AfterFunc(c.ctx, cancel)
	stream, err := c.openSubscription(ctx, opts)
	if err != nil {
		stopAfter()
		cancel()
		return nil, err
	}
	out := make(chan core.Event, c.subBuffer)
	var mu sync.Mutex
	var final error
	next := opts.FromSeq
	if opts.TaskID != "" && next == 0 {
		next = 1
	}
	go func() {
		defer close(out)
		defer cancel()
		defer stopAfter()
		end := func(err error) {
			mu.Lock()
			final = err
			mu.Unlock()
		}
		retries := 0
		for {
			for stream.Receive() {
				for _, ev := range stream.Msg().Events {
					select {
					case out <- ev:
					case <-ctx.Done():
						stream.Close()
						end(nil)
						return
					}
					next, retries = ev.Seq+1, 0
				}
			}
			err := stream.Err()
			stream.Close()
			if ctx.Err() != nil {
				end(nil)
				return
			}
			if opts.TaskID == "" || retries >= maxResubscribes {
				end(c.subscriptionEnd(ctx, err))
				return
			}
			if ce, _ := coreDetail(err); ce != nil && !isLag(err) {
				end(ce)
				return
			}
			// Fell behind, or the stream broke while the owner lives: resume where we were.
			retries++
			stream, err = c.openSubscription(ctx, core.SubscribeOptions{TaskID: opts.TaskID, FromSeq: next})
			if err != nil {
				if ctx.Err() != nil {
					err = nil
				}
				end(err)
				return
			}
		}
	}()
	return &core.Subscription{C: out, Err: func() error {
		mu.Lock()
		defer mu.Unlock()
		return final
	}}, nil
}

// subscriptionEnd is why a stream ended, as the engine's subscription would say it.
func (c *Client) subscriptionEnd(ctx context.Context, err error) error {
	if isLag(err) {
		ce, _ := coreDetail(err)
		if ce == nil {
			ce = core.Errorf(core.CodeReasonixUnavailable, nil, "%v", store.ErrSubscriberOverflow)
		}
		ce.Cause = store.ErrSubscriberOverflow
		return ce
	}
	if err == nil {
		// A stream that ends cleanly without our asking: the owner is closing.
		return c.ownerGone()
	}
	return c.fromWire(ctx, err)
}

// openSubscription starts a Subscribe stream and waits for its ready frame, so that a bad task
// id fails here and not on the channel.
func (c *Client) openSubscription(ctx context.Context, opts core.SubscribeOptions) (*connect.ServerStreamForClient[subscribeFrame], error) {
	if err := c.gone(); err != nil {
		return nil, err
	}
	stream, err := c.subscribe.CallServerStream(ctx, connect.NewRequest(&subscribeRequest{Options: opts}))
	if err != nil {
		return nil, c.fromWire(ctx, err)
	}
	if !stream.Receive() {
		err := stream.Err()
		stream.Close()
		if err == nil {
			return nil, c.ownerGone()
		}
		return nil, c.fromWire(ctx, err)
	}
	return stream, nil
}
