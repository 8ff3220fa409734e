package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ForwardMain is the forwarder a worker's sandbox starts first (`<reasonixctl> sandbox-forward
// --socket S [--listen host:port]... -- argv...`, made by ConfineWorker): it connects to the
// supervisor's proxy on S, the only connection the proxy accepts (it waits until the proxy says
// the socket is gone), gets every further one over it, and holds it for its life (the proxy ends
// with it);
// it listens on each --listen address, a loopback endpoint's own, and on a loopback port it names
// in HTTPS_PROXY and HTTP_PROXY, then runs argv as its child with stdin, stdout and stderr its
// own, passes it the signals it gets, and exits with its status. Connections to an endpoint's
// address are tunnelled to the same host:port through the proxy; connections to the proxy port
// are relayed to the proxy as they are, for it to judge. What fails is said on stderr, which is
// the worker's log.
func ForwardMain(args []string) int {
	socket, listens, argv, err := parseForwardArgs(args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", ForwardCommand, err)
		return 2
	}
	ctl, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: socket, Net: "unix"})
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: the sandbox's network proxy is gone: %v\n", ForwardCommand, err)
		return 1
	}
	defer ctl.Close()
	if err := awaitReady(ctl); err != nil {
		fmt.Fprintf(os.Stderr, "%s: the sandbox's network proxy did not answer: %v\n", ForwardCommand, err)
		return 1
	}
	link := &proxyLink{ctl: ctl}
	for _, l := range listens {
		addrs := []string{l.String()}
		if l.host == "localhost" {
			addrs = []string{net.JoinHostPort("127.0.0.1", l.port), net.JoinHostPort("::1", l.port)}
		}
		bound, lastErr := 0, error(nil)
		for _, a := range addrs {
			ln, err := net.Listen("tcp", a)
			if err != nil {
				lastErr = err
				continue
			}
			bound++
			go acceptLoop(ln, func(c net.Conn) { tunnel(c, link, l.String()) })
		}
		if bound == 0 {
			// An ordinary user cannot bind a port below 1024, not even in a namespace of its own.
			fmt.Fprintf(os.Stderr, "%s: cannot listen on %s inside the sandbox, so the worker cannot reach that endpoint (a loopback endpoint needs a port from 1024): %v\n", ForwardCommand, l, lastErr)
			return 1
		}
	}
	proxyLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: cannot listen for the proxy inside the sandbox: %v\n", ForwardCommand, err)
		return 1
	}
	go acceptLoop(proxyLn, func(c net.Conn) { pass(c, link) })

	proxyURL := "http://" + proxyLn.Addr().String()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = forwardEnv(os.Environ(), proxyURL)
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", ForwardCommand, err)
		return 127
	}
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()
	err = cmd.Wait()
	signal.Stop(sigs)
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exitErr):
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return exitErr.ExitCode()
	default:
		fmt.Fprintf(os.Stderr, "%s: %v\n", ForwardCommand, err)
		return 1
	}
}

func parseForwardArgs(args []string) (socket string, listens []endpoint, argv []string, err error) {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--":
			argv = args[i+1:]
			i = len(args)
		case (a == "--socket" || a == "--listen") && i+1 < len(args):
			i++
			if a == "--socket" {
				socket = args[i]
				continue
			}
			e, err := parseEndpoint(args[i])
			if err != nil {
				return "", nil, nil, fmt.Errorf("--listen %q: %v", args[i], err)
			}
			if !e.loopback() {
				return "", nil, nil, fmt.Errorf("--listen %s is not a loopback address", e)
			}
			listens = append(listens, e)
		default:
			return "", nil, nil, fmt.Errorf("unexpected argument %q", a)
		}
	}
	if socket == "" || len(argv) == 0 {
		return "", nil, nil, errors.New("usage: " + ForwardCommand + " --socket PATH [--listen HOST:PORT]... -- COMMAND...")
	}
	return socket, listens, argv, nil
}

// proxyVars are the variables that tell a worker's HTTP clients where the proxy is; every
// spelling is set (or removed) so that none left from outside points elsewhere.
var proxyVars = []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"}

// forwardEnv points env's HTTP clients at the proxy: loopback endpoints are reached directly, at
// the forwarder's listeners; Node's own fetch reads the variables only with NODE_USE_ENV_PROXY.
func forwardEnv(env []string, proxyURL string) []string {
	drop := append([]string{"NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "NODE_USE_ENV_PROXY"}, proxyVars...)
	out := make([]string, 0, len(env)+8)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !containsString(drop, k) {
			out = append(out, kv)
		}
	}
	for _, k := range proxyVars {
		out = append(out, k+"="+proxyURL)
	}
	return append(out, "NO_PROXY=localhost,127.0.0.1,::1", "no_proxy=localhost,127.0.0.1,::1", "NODE_USE_ENV_PROXY=1")
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func acceptLoop(ln net.Listener, serve func(net.Conn)) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go serve(c)
	}
}

// awaitReady waits for the proxy to say that it serves this connection alone.
func awaitReady(ctl *net.UnixConn) error {
	_ = ctl.SetReadDeadline(time.Now().Add(time.Minute))
	defer ctl.SetReadDeadline(time.Time{})
	var b [1]byte
	if _, err := io.ReadFull(ctl, b[:]); err != nil {
		return err
	}
	if b[0] != proxyReady {
		return fmt.Errorf("unexpected byte %#x", b[0])
	}
	return nil
}

// proxyLink is the forwarder's connection to the proxy, over which it asks for each connection
// it relays; the proxy's socket itself is gone once it is made.
type proxyLink struct {
	mu  sync.Mutex
	ctl *net.UnixConn
}

// open asks the proxy for a connection and receives it as a socket.
func (l *proxyLink) open() (net.Conn, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.ctl.Write([]byte{'c'}); err != nil {
		return nil, err
	}
	var b [1]byte
	oob := make([]byte, syscall.CmsgSpace(4))
	_, oobn, _, _, err := l.ctl.ReadMsgUnix(b[:], oob)
	if err != nil {
		return nil, err
	}
	msgs, err := syscall.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return nil, errors.New("the proxy sent no connection")
	}
	fds, err := syscall.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		for _, fd := range fds {
			syscall.Close(fd)
		}
		return nil, errors.New("the proxy sent no connection")
	}
	syscall.CloseOnExec(fds[0])
	f := os.NewFile(uintptr(fds[0]), "proxy")
	defer f.Close()
	return net.FileConn(f)
}

// pass relays a connection to the proxy as it is: the proxy reads the request and judges it.
func pass(c net.Conn, link *proxyLink) {
	defer c.Close()
	up, err := link.open()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: the sandbox's network proxy is gone: %v\n", ForwardCommand, err)
		return
	}
	defer up.Close()
	copyBoth(c, up, up)
}

// tunnel connects a connection made to a loopback endpoint's address to the same address on the
// host, through the proxy.
func tunnel(c net.Conn, link *proxyLink, target string) {
	defer c.Close()
	up, err := link.open()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: the sandbox's network proxy is gone: %v\n", ForwardCommand, err)
		return
	}
	defer up.Close()
	if _, err := fmt.Fprintf(up, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target); err != nil {
		return
	}
	br := bufio.NewReader(up)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %s: no answer from the sandbox's network proxy: %v\n", ForwardCommand, target, err)
		return
	}
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		fmt.Fprintf(os.Stderr, "%s: %s: %s\n", ForwardCommand, resp.Status, strings.TrimSpace(string(msg)))
		return
	}
	copyBoth(c, br, up)
}

// copyBoth relays down (read through downR) and up both ways until both end, half-closing each
// side when the other's direction ends.
func copyBoth(down net.Conn, upR io.Reader, up net.Conn) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = io.Copy(up, down)
		closeWrite(up)
	}()
	_, _ = io.Copy(down, upR)
	closeWrite(down)
	<-done
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
		return
	}
	c.Close()
}
