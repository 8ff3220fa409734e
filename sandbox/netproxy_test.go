package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// netHelper runs the helper modes of the worker-network tests inside the sandbox.
func netHelper(mode string, args []string) int {
	switch mode {
	case "net-probe": // net-probe ALLOWED_URL OTHER_ADDR OUTSIDE_FILE [CONNECT_TARGET=WANT]...
		client := &http.Client{Timeout: 5 * time.Second}
		if resp, err := client.Get(args[0]); err != nil {
			fmt.Println("ALLOWED failed:", err)
		} else {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			fmt.Printf("ALLOWED %d %s\n", resp.StatusCode, b)
		}
		if c, err := net.DialTimeout("tcp", args[1], 2*time.Second); err != nil {
			fmt.Println("OTHER failed:", err)
		} else {
			c.Close()
			fmt.Println("OTHER reached")
		}
		if err := os.WriteFile(args[2], []byte("escaped"), 0o644); err != nil {
			fmt.Println("OUTSIDE failed:", err)
		} else {
			fmt.Println("OUTSIDE written")
		}
		if c, err := net.DialTimeout("unix", netSocketInside, 2*time.Second); err != nil {
			fmt.Println("SOCKET failed:", err)
		} else {
			c.Close()
			fmt.Println("SOCKET reached")
		}
		for _, target := range args[3:] {
			fmt.Printf("CONNECT %s %s\n", target, connectThroughProxy(target))
		}
	}
	return 0
}

// connectThroughProxy asks the proxy named in HTTPS_PROXY for a tunnel to target and, when it
// opens, speaks plain HTTP through it; it returns the proxy's status and the answer.
func connectThroughProxy(target string) string {
	u, err := url.Parse(os.Getenv("HTTPS_PROXY"))
	if err != nil || u.Host == "" {
		return "no proxy: " + os.Getenv("HTTPS_PROXY")
	}
	c, err := net.DialTimeout("tcp", u.Host, 2*time.Second)
	if err != nil {
		return "proxy unreachable: " + err.Error()
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		return "no answer: " + err.Error()
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Sprintf("status=%d", resp.StatusCode)
	}
	fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", target)
	inner, err := http.ReadResponse(br, nil)
	if err != nil {
		return "status=200 then " + err.Error()
	}
	b, _ := io.ReadAll(inner.Body)
	return fmt.Sprintf("status=200 body=%s", b)
}

// requireWorkerNet is a Runner for the worker-network tests, skipped without bubblewrap.
func requireWorkerNet(t *testing.T) *Runner {
	t.Helper()
	r := &Runner{}
	if p := r.Probe(); !p.Available {
		t.Skipf("the worker's network needs bubblewrap, which does not work here: %s", p.Detail)
	}
	return r
}

// lockedBuffer is a log sink the proxy's goroutines write to while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func answering(t *testing.T, text string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, text)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A worker confined with its endpoints reaches an allowed loopback endpoint at the address it
// was given, and a name on the list through the proxy; it reaches no other loopback port of the
// host, directly or through the proxy, no other name, and writes nothing outside its worktree and
// home. Each refusal is a line in our log.
func TestWorkerNetworkReachesOnlyItsEndpoints(t *testing.T) {
	r := requireWorkerNet(t)
	logs := &lockedBuffer{}
	r.Logger = slog.New(slog.NewTextHandler(logs, nil))
	model, other := answering(t, "from the model"), answering(t, "from another service")
	modelAddr := strings.TrimPrefix(model.URL, "http://")
	otherAddr := strings.TrimPrefix(other.URL, "http://")
	// The name on the list does not exist: the proxy, not the sandbox, resolves it.
	r.dialNet = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if addr == "model.example:443" {
			addr = modelAddr
		}
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}
	root := t.TempDir()
	wt, home, outside := filepath.Join(root, "wt"), filepath.Join(root, "home"), filepath.Join(root, "outside")
	for _, d := range []string{wt, home, outside} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	argv, vars, err := r.ConfineWorker(Spec{
		Argv: []string{exe, model.URL + "/v1", otherAddr, filepath.Join(outside, "x"),
			"model.example:443", "evil.example:443", otherAddr, modelAddr},
		Worktree:  wt,
		Endpoints: []string{modelAddr, "model.example:443"},
		Env:       map[string]string{"PATH": "/usr/bin:/bin"},
	}, Home{Dir: home})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "SANDBOX_HELPER=net-probe", "HTTPS_PROXY=http://planted.example:1"}
	for k, v := range vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	text := string(out)
	if err != nil {
		t.Fatalf("%v\n%s\nstderr: %s", err, text, stderr.String())
	}
	for _, want := range []string{
		"ALLOWED 200 from the model",
		"OTHER failed:",
		"OUTSIDE failed:",
		"SOCKET failed:", // only the forwarder's connection reaches the proxy
		"CONNECT model.example:443 status=200 body=from the model",
		"CONNECT evil.example:443 status=403",
		"CONNECT " + otherAddr + " status=403",
		// The loopback endpoint itself is on the list, so a tunnel to it opens too.
		"CONNECT " + modelAddr + " status=200 body=from the model",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in:\n%s\nstderr: %s", want, text, stderr.String())
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "x")); err == nil {
		t.Error("the worker wrote outside its worktree and home")
	}
	log := logs.String()
	for _, want := range []string{"evil.example:443", otherAddr, "not an endpoint of this worker"} {
		if !strings.Contains(log, want) {
			t.Errorf("our log does not name the refusal (%q):\n%s", want, log)
		}
	}
	if strings.Contains(text+stderr.String(), "planted.example") {
		t.Error("a proxy variable from outside reached the worker")
	}
}

// The worker's exit status and its signals pass through the forwarder.
func TestForwarderPassesTheExitStatus(t *testing.T) {
	r := requireWorkerNet(t)
	wt, home := t.TempDir(), t.TempDir()
	argv, vars, err := r.ConfineWorker(Spec{
		Argv: []string{"/bin/sh", "-c", "exit 7"}, Worktree: wt,
		Endpoints: []string{"127.0.0.1:9"}, Env: map[string]string{"PATH": "/usr/bin:/bin"},
	}, Home{Dir: home})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	for k, v := range vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 7 {
		t.Fatalf("exit %v, want 7: %s", err, out)
	}
}

// A worker gets the host's network or its endpoints, never both, and an endpoint is host:port.
func TestWorkerEndpointsAreCheckedAndExclusive(t *testing.T) {
	r := requireWorkerNet(t)
	wt, home := t.TempDir(), t.TempDir()
	for _, s := range []Spec{
		{Argv: []string{"/bin/true"}, Worktree: wt, Network: true, Endpoints: []string{"127.0.0.1:1"}},
		{Argv: []string{"/bin/true"}, Worktree: wt, Endpoints: []string{"http://api.example.com/v1"}},
		{Argv: []string{"/bin/true"}, Worktree: wt, Endpoints: []string{"api.example.com"}},
		{Argv: []string{"/bin/true"}, Worktree: wt, Endpoints: []string{"api.example.com:0"}},
	} {
		if _, _, err := r.ConfineWorker(s, Home{Dir: home}); err == nil {
			t.Errorf("accepted network %v endpoints %q", s.Network, s.Endpoints)
		}
	}
	if _, err := r.Run(context.Background(), Spec{Argv: []string{"/bin/true"}, Worktree: wt, Endpoints: []string{"127.0.0.1:1"}}); err == nil {
		t.Error("a command was run with a worker's endpoints")
	}
}

// startTestProxy is a proxy for allow whose forwarder link the test holds, as the forwarder
// would; closing the link's connection ends the proxy.
func startTestProxy(t *testing.T, allow []string, log *slog.Logger, dial func(ctx context.Context, network, addr string) (net.Conn, error)) (*netProxy, *proxyLink) {
	t.Helper()
	eps, err := parseEndpoints(allow)
	if err != nil {
		t.Fatal(err)
	}
	p, err := startNetProxy(eps, log, dial)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	ctl, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: filepath.Join(p.dir, netSocketName), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ctl.Close() })
	if err := awaitReady(ctl); err != nil {
		t.Fatal(err)
	}
	return p, &proxyLink{ctl: ctl}
}

func openProxy(t *testing.T, link *proxyLink) net.Conn {
	t.Helper()
	c, err := link.open()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// readStatus reads the proxy's answer on c within a deadline.
func readStatus(t *testing.T, c net.Conn) int {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: http.MethodConnect})
	if err != nil {
		t.Fatalf("no answer from the proxy: %v", err)
	}
	return resp.StatusCode
}

// A hostile client of the proxy is bounded: an endless request head is cut at maxProxyHead bytes,
// a silent one at the handshake's deadline, connections beyond maxProxyConns are refused at once
// and served again when some end, and a request for anything but an allowed target is refused.
func TestNetProxyBoundsAHostileClient(t *testing.T) {
	defer func(d time.Duration) { proxyHandshake = d }(proxyHandshake)
	proxyHandshake = 2 * time.Second
	logs := &lockedBuffer{}
	model := answering(t, "model")
	modelAddr := strings.TrimPrefix(model.URL, "http://")
	p, link := startTestProxy(t, []string{modelAddr}, slog.New(slog.NewTextHandler(logs, nil)), nil)
	// Once the proxy has said it serves the forwarder, no one else can connect: the socket is
	// gone.
	if c, err := net.Dial("unix", filepath.Join(p.dir, netSocketName)); err == nil {
		c.Close()
		t.Error("a second client connected to the proxy's socket")
	}

	// An endless head.
	c := openProxy(t, link)
	go func() {
		_, _ = io.WriteString(c, "CONNECT "+modelAddr+" HTTP/1.1\r\n")
		line := "X-Pad: " + strings.Repeat("a", 1000) + "\r\n"
		for {
			if _, err := io.WriteString(c, line); err != nil {
				return
			}
		}
	}()
	if got := readStatus(t, c); got != http.StatusBadRequest {
		t.Errorf("endless head: status %d", got)
	}
	c.Close()

	// Silent connections hold every slot; one more is refused at once.
	var silent []net.Conn
	for range maxProxyConns {
		silent = append(silent, openProxy(t, link))
	}
	// The proxy accepts in order and takes a slot per connection before the next: this one finds
	// none left.
	extra := openProxy(t, link)
	if got := readStatus(t, extra); got != http.StatusServiceUnavailable {
		t.Errorf("a connection beyond the limit: status %d", got)
	}
	extra.Close()
	// The handshake deadline ends each silent one.
	for _, s := range silent {
		if got := readStatus(t, s); got != http.StatusBadRequest {
			t.Errorf("a silent connection: status %d", got)
		}
		s.Close()
	}

	// Then a request is served again, and only for its target.
	for target, want := range map[string]int{
		modelAddr:     http.StatusOK,
		"127.0.0.1:1": http.StatusForbidden,
		"[::1]:" + model.URL[strings.LastIndex(model.URL, ":")+1:]: http.StatusForbidden,
		"http://" + modelAddr:  http.StatusForbidden,
		"unix:/tmp/owner.sock": http.StatusForbidden,
	} {
		c := openProxy(t, link)
		fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: x\r\n\r\n", target)
		if got := readStatus(t, c); got != want {
			t.Errorf("CONNECT %s: status %d, want %d", target, got, want)
		}
		c.Close()
	}

	// A plain request for an absolute http:// URL goes to an allowed endpoint only.
	for target, want := range map[string]int{modelAddr: http.StatusOK, "127.0.0.1:1": http.StatusForbidden} {
		c := openProxy(t, link)
		fmt.Fprintf(c, "GET http://%s/v1 HTTP/1.1\r\nHost: %s\r\nProxy-Authorization: Basic c2VjcmV0\r\nConnection: close\r\n\r\n", target, target)
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("GET via %s: %v", target, err)
		}
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != want || (want == http.StatusOK && string(b) != "model") {
			t.Errorf("GET http://%s: %d %q, want %d", target, resp.StatusCode, b, want)
		}
		c.Close()
	}
	if log := logs.String(); strings.Contains(log, "c2VjcmV0") || !strings.Contains(log, "larger than") {
		t.Errorf("the log keeps a header or misses the reason:\n%s", log)
	}
}

// The proxy ends with its forwarder's connection, and with it the relayed ones and its folder; a
// proxy whose sandbox never starts ends by itself.
func TestNetProxyEndsWithItsForwarder(t *testing.T) {
	model := answering(t, "model")
	modelAddr := strings.TrimPrefix(model.URL, "http://")
	p, link := startTestProxy(t, []string{modelAddr}, nil, nil)
	tun := openProxy(t, link)
	fmt.Fprintf(tun, "CONNECT %s HTTP/1.1\r\n\r\n", modelAddr)
	if got := readStatus(t, tun); got != http.StatusOK {
		t.Fatalf("status %d", got)
	}
	link.ctl.Close()
	_ = tun.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadAll(tun); err != nil {
		t.Errorf("the tunnel did not end with the proxy: %v", err)
	}
	waitProxyEnded(t, p)

	defer func(d time.Duration) { proxyStartWait = d }(proxyStartWait)
	proxyStartWait = 100 * time.Millisecond
	eps, _ := parseEndpoints([]string{modelAddr})
	q, err := startNetProxy(eps, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	waitProxyEnded(t, q)
}

func waitProxyEnded(t *testing.T, p *netProxy) {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the proxy did not end")
	}
	if _, err := os.Stat(p.dir); !os.IsNotExist(err) {
		t.Errorf("%s is still there: %v", p.dir, err)
	}
}
