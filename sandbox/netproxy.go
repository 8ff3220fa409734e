package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// The worker's network (issue 40). A worker's sandbox has a network namespace of its own with
// only a loopback device: no route out, none of the host's loopback services, none of its
// abstract Unix sockets. What it may reach — its model endpoints, as host:port — it reaches
// through a proxy the supervisor runs for that sandbox alone. The proxy listens on a Unix socket
// in a folder of its own that is shown inside the sandbox (never the state directory), for one
// connection only: the forwarder's, made before the worker starts. The socket is then removed,
// and the forwarder gets each further connection over its own, as one end of a socket pair
// (SCM_RIGHTS): nothing else in the sandbox can connect to the proxy but through the
// forwarder's loopback ports, which the commands the worker runs in sandboxes without a network
// do not see. Every connection so given is an HTTP proxy request (CONNECT host:port, or a plain request for
// an absolute http:// URL) and the proxy dials only a target on the allow-list, by host:port
// exactly; a name is resolved here, by the host, so the sandbox needs no DNS.
//
// Inside the sandbox the forwarder (ForwardMain) makes that usable to an agent that knows
// nothing of it: it listens on each loopback endpoint's own address, so that a worker pointed at
// http://127.0.0.1:4567 connects as before, and on a loopback port named in HTTPS_PROXY and
// HTTP_PROXY for every other endpoint. The forwarder is a convenience, not the boundary: the
// worker can connect to its ports and send anything, and the proxy trusts nothing it reads.

// Limits of the worker's proxy: a hostile worker can hold at most maxProxyConns connections,
// send a request head of at most maxProxyHead bytes within proxyHandshake, and gets nothing but
// an allowed target.
const (
	maxProxyConns = 32
	maxProxyHead  = 8 << 10
	proxyDial     = 10 * time.Second
	// proxyLoggedRefusals are logged one by one; after them only every 100th, so that a worker
	// refused in a loop does not flood the log.
	proxyLoggedRefusals = 10
)

// Timeouts of the worker's proxy (variables for the tests): the request head must arrive within
// proxyHandshake, and a proxy waits proxyStartWait for its forwarder's first connection, since
// the sandbox it was made for may never be started.
var (
	proxyHandshake = 10 * time.Second
	proxyStartWait = time.Minute
)

// Mount points of the network's pieces inside a worker's sandbox: neutral names, nothing of the
// host's paths.
const (
	netDirInside       = "/.sandbox-net"
	netSocketName      = "proxy.sock"
	forwarderInside    = "/.sandbox-forward"
	ForwardCommand     = "sandbox-forward" // the hidden subcommand that runs ForwardMain
	netSocketInside    = netDirInside + "/" + netSocketName
	proxyReady         = 'r' // the proxy's first byte to its forwarder: no one else can connect
	proxyRefusalHeader = "X-Sandbox-Refused"
)

// Endpoint is one allowed target, host:port with the host lower-cased and without brackets.
type endpoint struct{ host, port string }

func (e endpoint) String() string { return net.JoinHostPort(e.host, e.port) }

// loopback reports whether the endpoint is on the host's loopback: the forwarder then listens at
// the same address inside the sandbox.
func (e endpoint) loopback() bool {
	if e.host == "localhost" {
		return true
	}
	ip := net.ParseIP(e.host)
	return ip != nil && ip.IsLoopback()
}

// parseEndpoint reads a "host:port" target; a URL, a path or a missing port is refused.
func parseEndpoint(s string) (endpoint, error) {
	host, port, err := net.SplitHostPort(strings.TrimSpace(s))
	if err != nil {
		return endpoint{}, err
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != port {
		return endpoint{}, fmt.Errorf("port %q is not a number from 1 to 65535", port)
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "" || strings.ContainsAny(host, "/@ \t\r\n") {
		return endpoint{}, fmt.Errorf("host %q is not a host name or address", host)
	}
	if ip := net.ParseIP(host); ip != nil {
		host = ip.String()
	}
	return endpoint{host: host, port: port}, nil
}

// parseEndpoints reads an allow-list, dropping repeats.
func parseEndpoints(list []string) ([]endpoint, error) {
	var out []endpoint
	for _, s := range list {
		e, err := parseEndpoint(s)
		if err != nil {
			return nil, invalid("endpoint %q: %v", truncateForLog(s), err)
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out, nil
}

// netProxy is the supervisor's side of one worker sandbox's network.
type netProxy struct {
	dir   string // the folder holding the socket, shown at netDirInside
	ln    *net.UnixListener
	allow []endpoint
	log   *slog.Logger
	dial  func(ctx context.Context, network, addr string) (net.Conn, error)

	slots    chan struct{} // one per connection being served
	refused  atomic.Int64
	closing  chan struct{}
	closeOne sync.Once
	done     chan struct{} // closed when every connection has ended and the folder is removed
	mu       sync.Mutex
	conns    map[net.Conn]struct{}
	wg       sync.WaitGroup
}

// startNetProxy listens on a socket in a new private folder and serves allow until Close, or
// until the first connection (the forwarder's own, held for its life) ends, or, when none comes
// within proxyStartWait, then.
// dial, nil for a plain dialer, is how targets are reached (the tests name hosts that do not
// exist).
func startNetProxy(allow []endpoint, log *slog.Logger, dial func(ctx context.Context, network, addr string) (net.Conn, error)) (*netProxy, error) {
	dir, err := os.MkdirTemp("", "reasonixctl-net-")
	if err != nil {
		return nil, &Error{Code: CodeInternal, Message: "making the worker network's folder", Err: err}
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(dir, netSocketName), Net: "unix"})
	if err != nil {
		os.RemoveAll(dir)
		return nil, &Error{Code: CodeInternal, Message: "listening for the worker's network", Err: err}
	}
	ln.SetUnlinkOnClose(true)
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if dial == nil {
		dial = (&net.Dialer{Timeout: proxyDial}).DialContext
	}
	p := &netProxy{
		dir: dir, ln: ln, allow: allow, log: log, dial: dial,
		slots: make(chan struct{}, maxProxyConns), closing: make(chan struct{}), done: make(chan struct{}), conns: map[net.Conn]struct{}{},
	}
	p.wg.Add(1)
	go p.serve()
	return p, nil
}

// Close stops the proxy and every connection it relays, and removes its folder.
func (p *netProxy) Close() {
	p.closeOne.Do(func() {
		close(p.closing)
		p.ln.Close()
		p.mu.Lock()
		for c := range p.conns {
			c.Close()
		}
		p.mu.Unlock()
		go func() {
			p.wg.Wait()
			os.RemoveAll(p.dir)
			close(p.done)
		}()
	})
}

func (p *netProxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.closing:
		return false
	default:
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *netProxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	c.Close()
}

func (p *netProxy) serve() {
	defer p.wg.Done()
	// The first connection is the forwarder's, made before it starts the worker and held until
	// it exits: the proxy lives as long as it does.
	first := make(chan *net.UnixConn, 1)
	go func() {
		c, err := p.ln.AcceptUnix()
		if err != nil {
			close(first)
			return
		}
		first <- c
	}()
	timer := time.NewTimer(proxyStartWait)
	defer timer.Stop()
	var ctl *net.UnixConn
	select {
	case c, ok := <-first:
		if !ok {
			p.Close()
			return
		}
		ctl = c
	case <-timer.C:
		p.Close()
		return
	case <-p.closing:
		return
	}
	// No one else connects: the socket goes, and with it the only way into the proxy but the
	// forwarder's. The commands the worker runs in sandboxes of their own, which may show this
	// folder, find nothing to connect to.
	p.ln.Close()
	if !p.track(ctl) {
		ctl.Close()
		return
	}
	defer p.Close()
	defer p.untrack(ctl)
	// The forwarder starts the worker only after this: by then the socket is gone.
	_ = ctl.SetWriteDeadline(time.Now().Add(proxyHandshake))
	if _, err := ctl.Write([]byte{proxyReady}); err != nil {
		return
	}
	var req [1]byte
	for {
		// Each byte the forwarder sends asks for one connection, answered with one end of a new
		// socket pair; the proxy serves the other end.
		if _, err := ctl.Read(req[:]); err != nil {
			return
		}
		c, err := p.pair(ctl)
		if err != nil {
			p.log.Warn("worker network: cannot give the forwarder a connection", "err", err)
			return
		}
		select {
		case p.slots <- struct{}{}:
		default:
			p.refuse(c, http.StatusServiceUnavailable, "too many connections", "")
			c.Close()
			continue
		}
		if !p.track(c) {
			c.Close()
			<-p.slots
			return
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			defer func() { <-p.slots }()
			defer p.untrack(c)
			p.handle(c)
		}()
	}
}

// pair makes a connected pair of sockets, sends one end over ctl and returns the other.
func (p *netProxy) pair(ctl *net.UnixConn) (*net.UnixConn, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	theirs := os.NewFile(uintptr(fds[1]), "worker-net")
	defer theirs.Close()
	ours, err := fileUnixConn(os.NewFile(uintptr(fds[0]), "worker-net"))
	if err != nil {
		return nil, err
	}
	_ = ctl.SetWriteDeadline(time.Now().Add(proxyHandshake))
	if _, _, err := ctl.WriteMsgUnix([]byte{'c'}, syscall.UnixRights(int(theirs.Fd())), nil); err != nil {
		ours.Close()
		return nil, err
	}
	return ours, nil
}

// fileUnixConn turns a socket's file into a connection, closing the file.
func fileUnixConn(f *os.File) (*net.UnixConn, error) {
	defer f.Close()
	c, err := net.FileConn(f)
	if err != nil {
		return nil, err
	}
	uc, ok := c.(*net.UnixConn)
	if !ok {
		c.Close()
		return nil, errors.New("not a Unix socket")
	}
	return uc, nil
}

// handle serves one proxy request: its head is read within proxyHandshake and maxProxyHead
// bytes, its target checked against the allow-list, and then the bytes relayed both ways.
func (p *netProxy) handle(c *net.UnixConn) {
	_ = c.SetReadDeadline(time.Now().Add(proxyHandshake))
	head := &io.LimitedReader{R: c, N: maxProxyHead}
	br := bufio.NewReaderSize(head, 4096)
	req, err := http.ReadRequest(br)
	if err != nil {
		reason := "not a proxy request"
		var ne net.Error
		switch {
		case errors.As(err, &ne) && ne.Timeout():
			reason = "no request within the handshake's time"
		case head.N <= 0:
			reason = "a request head larger than " + strconv.Itoa(maxProxyHead) + " bytes"
		}
		p.refuse(c, http.StatusBadRequest, reason, "")
		return
	}
	target, plain := "", false
	switch {
	case req.Method == http.MethodConnect:
		target = req.RequestURI
	case req.URL != nil && req.URL.Scheme == "http" && req.URL.Host != "":
		target, plain = req.URL.Host, true
		if req.URL.Port() == "" {
			target = net.JoinHostPort(req.URL.Hostname(), "80")
		}
	default:
		p.refuse(c, http.StatusBadRequest, "not a CONNECT or an absolute http:// request", "")
		return
	}
	ep, err := parseEndpoint(target)
	if err != nil || !slices.Contains(p.allow, ep) {
		p.refuse(c, http.StatusForbidden, "not an endpoint of this worker", target)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), proxyDial)
	up, err := p.dial(ctx, "tcp", ep.String())
	cancel()
	if err != nil {
		p.refuse(c, http.StatusBadGateway, "the endpoint cannot be reached: "+dialReason(err), target)
		return
	}
	if !p.track(up) {
		up.Close()
		return
	}
	defer p.untrack(up)
	_ = c.SetReadDeadline(time.Time{})
	head.N = math.MaxInt64 // the head is read; the body and the tunnel are not limited
	if plain {
		// The request goes on to the endpoint in origin form; what follows on this connection
		// goes to that same endpoint, whatever it asks for.
		req.RequestURI = ""
		req.Header.Del("Proxy-Connection")
		req.Header.Del("Proxy-Authorization")
		if err := req.Write(up); err != nil {
			return
		}
	} else if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	relay(c, br, up)
}

// relay copies both ways until both directions end; a direction that ends is half-closed on the
// other side, so a request body's end reaches the endpoint.
func relay(down *net.UnixConn, downR io.Reader, up net.Conn) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = io.Copy(down, up)
		_ = down.CloseWrite()
	}()
	_, _ = io.Copy(up, downR)
	if cw, ok := up.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	} else {
		up.Close()
	}
	<-done
}

// refuse answers a request the proxy will not serve, with the reason in the answer's body for the
// worker's own log, and logs it here: the target only, quoted and shortened, never the headers.
func (p *netProxy) refuse(c net.Conn, status int, reason, target string) {
	msg := "the worker's sandbox reaches only its model endpoints (" + p.allowText() + "): " + reason
	if target != "" {
		msg = fmt.Sprintf("the worker's sandbox reaches only its model endpoints (%s): %q is %s", p.allowText(), truncateForLog(target), reason)
	}
	_ = c.SetWriteDeadline(time.Now().Add(proxyHandshake))
	_, _ = fmt.Fprintf(c, "HTTP/1.1 %d %s\r\n%s: 1\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s\n",
		status, http.StatusText(status), proxyRefusalHeader, len(msg)+1, msg)
	if n := p.refused.Add(1); n <= proxyLoggedRefusals || n%100 == 0 {
		p.log.Warn("worker network: refused a connection", "target", truncateForLog(target), "reason", reason, "refused_so_far", n)
	}
}

func (p *netProxy) allowText() string {
	if len(p.allow) == 0 {
		return "none"
	}
	parts := make([]string, len(p.allow))
	for i, e := range p.allow {
		parts[i] = e.String()
	}
	return strings.Join(parts, ", ")
}

// dialReason keeps the cause of a failed dial without the address dressing Go adds around it.
func dialReason(err error) string {
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return oe.Err.Error()
	}
	return err.Error()
}

// truncateForLog makes text the worker chose safe for a log line: printable and short.
func truncateForLog(s string) string {
	const max = 200
	var b strings.Builder
	for _, r := range s {
		if b.Len() >= max {
			b.WriteString("…")
			break
		}
		if r < 0x20 || r == 0x7f || r == 0xfffd {
			b.WriteRune('?')
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
