package remote

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"reasonixctl/core"
	"reasonixctl/core/engine"
)

func openEngine(t *testing.T, dir string) *engine.Engine {
	t.Helper()
	e, err := engine.Open(engine.Config{StateDir: dir, Mode: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func mustUnsafe(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, ErrUnsafeSocket) {
		t.Fatalf("want ErrUnsafeSocket, got %v", err)
	}
	var ce *core.Error
	if !errors.As(err, &ce) {
		t.Fatalf("not a *core.Error: %T", err)
	}
}

// Whatever sits at the socket path that is not a socket of ours is refused and left alone.
func TestServeRefusesWhatItDidNotMake(t *testing.T) {
	ctx := context.Background()
	t.Run("symlink", func(t *testing.T) {
		dir := shortDir(t)
		e := openEngine(t, dir)
		target := filepath.Join(shortDir(t), "elsewhere")
		os.WriteFile(target, []byte("keep"), 0o600)
		if err := os.Symlink(target, SocketPath(dir)); err != nil {
			t.Fatal(err)
		}
		_, err := Serve(ctx, e, dir, Info{}, nil)
		mustUnsafe(t, err)
		if fi, err := os.Lstat(SocketPath(dir)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("the symlink was touched: %v", err)
		}
		if b, _ := os.ReadFile(target); string(b) != "keep" {
			t.Fatal("the symlink's target was touched")
		}
		_, err = Dial(ctx, dir, RoleCLI)
		mustUnsafe(t, err)
	})
	t.Run("regular file", func(t *testing.T) {
		dir := shortDir(t)
		e := openEngine(t, dir)
		os.WriteFile(SocketPath(dir), []byte("mine"), 0o600)
		_, err := Serve(ctx, e, dir, Info{}, nil)
		mustUnsafe(t, err)
		if b, _ := os.ReadFile(SocketPath(dir)); string(b) != "mine" {
			t.Fatal("the file was touched")
		}
		_, err = Dial(ctx, dir, RoleCLI)
		mustUnsafe(t, err)
	})
	t.Run("open directory", func(t *testing.T) {
		dir := shortDir(t)
		e := openEngine(t, dir)
		os.Chmod(dir, 0o755)
		_, err := Serve(ctx, e, dir, Info{}, nil)
		mustUnsafe(t, err)
		// Whoever tries to attach learns why there is no socket, and the fix.
		_, err = Dial(ctx, dir, RoleCLI)
		if ce := core.AsError(err); ce == nil || ce.Code != core.CodeReasonixUnavailable || !strings.Contains(ce.Message, "chmod 700 "+dir) {
			t.Fatalf("dial: %v", err)
		}
	})
	t.Run("foreign socket", func(t *testing.T) {
		if os.Getuid() != 0 {
			t.Skip("needs root to make a socket owned by another uid")
		}
		dir := shortDir(t)
		e := openEngine(t, dir)
		ln, err := net.Listen("unix", SocketPath(dir))
		if err != nil {
			t.Fatal(err)
		}
		ln.(*net.UnixListener).SetUnlinkOnClose(false)
		ln.Close()
		if err := os.Lchown(SocketPath(dir), 65534, 65534); err != nil {
			t.Fatal(err)
		}
		_, err = Serve(ctx, e, dir, Info{}, nil)
		mustUnsafe(t, err)
		if _, err := os.Lstat(SocketPath(dir)); err != nil {
			t.Fatalf("the foreign socket was removed: %v", err)
		}
		_, err = Dial(ctx, dir, RoleCLI)
		mustUnsafe(t, err)
	})
}

// A socket of ours found while we hold the owner lock is a dead owner's: it is replaced, and
// clients reach the new owner.
func TestStaleSocketIsReplaced(t *testing.T) {
	dir := shortDir(t)
	e := openEngine(t, dir)
	ln, err := net.Listen("unix", SocketPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	// Nobody answers on it: a client says so instead of hanging.
	_, err = Dial(ctxT(t, 10*time.Second), dir, RoleCLI)
	mustCode(t, err, core.CodeReasonixUnavailable)

	srv, err := Serve(context.Background(), e, dir, Info{Mode: "tui"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	fi, err := os.Lstat(SocketPath(dir))
	if err != nil || fi.Mode().Perm() != 0o600 || fi.Mode()&os.ModeSocket == 0 {
		t.Fatalf("socket mode %v: %v", fi.Mode(), err)
	}
	c, err := Dial(ctxT(t, 10*time.Second), dir, RoleCLI)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Owner().Mode != "tui" || c.Owner().PID != os.Getpid() {
		t.Fatalf("owner %+v", c.Owner())
	}
}

// Serve ends with its context and removes the socket.
func TestServeEndsWithItsContext(t *testing.T) {
	dir := shortDir(t)
	e := openEngine(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := Serve(ctx, e, dir, Info{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Dial(ctxT(t, 10*time.Second), dir, RoleDashboard)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cancel()
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("Done did not close when the server's context ended")
	}
	<-srv.done
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(SocketPath(dir)); !os.IsNotExist(err) {
		t.Fatalf("socket left: %v", err)
	}
}

func TestCheckPeer(t *testing.T) {
	if err := checkPeer(1000, 1000); err != nil {
		t.Fatal(err)
	}
	if err := checkPeer(1001, 1000); !errors.Is(err, ErrUnsafeSocket) {
		t.Fatalf("another uid passed: %v", err)
	}
	if err := checkPeer(0, 1000); !errors.Is(err, ErrUnsafeSocket) {
		t.Fatalf("root passed as another user: %v", err)
	}
}

const peerChildEnv = "REASONIXCTL_REMOTE_PEER_CHILD"

// The child half of TestForeignPeerIsClosed: connect, send a request and report what came
// back.
func TestPeerChild(t *testing.T) {
	path := os.Getenv(peerChildEnv)
	if path == "" {
		t.Skip("only run as TestForeignPeerIsClosed's child")
	}
	c, err := net.Dial("unix", path)
	if err != nil {
		fmt.Println("DIAL", err)
		return
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	c.Write([]byte("POST " + procList + " HTTP/1.1\r\nHost: owner\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"))
	n, err := c.Read(make([]byte, 512))
	fmt.Printf("READ %d %v\n", n, err)
}

// A process of another uid that reaches the socket is closed before anything is read from it.
// The socket sits in a directory everyone may enter, as if someone had loosened the state
// directory, so that only the peer check stands in the way.
func TestForeignPeerIsClosed(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to start a process with another uid")
	}
	dir := shortDir(t)
	os.Chmod(dir, 0o777)
	path := filepath.Join(dir, "s")
	inner, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o777)
	refused := make(chan error, 1)
	ln := &peerListener{Listener: inner, uid: os.Getuid(), refuse: func(err error) { refused <- err }}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			accepted <- c
		}
	}()
	// The test binary sits in go's private build directory; the child needs a copy it can run.
	exe, _ := os.Executable()
	bin, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	binDir := shortDir(t)
	os.Chmod(binDir, 0o755)
	exe = filepath.Join(binDir, "remote.test")
	if err := os.WriteFile(exe, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestPeerChild$", "-test.v")
	cmd.Env = append(os.Environ(), peerChildEnv+"="+path)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	select {
	case err := <-refused:
		if !errors.Is(err, ErrUnsafeSocket) || !containsAll(err.Error(), "65534") {
			t.Fatalf("refusal %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the foreign peer was not refused; child said:\n%s", out)
	}
	// Closed unread: the child reads nothing, and sees an end of file or, since its request
	// was never read, a reset.
	if !strings.Contains(string(out), "READ 0 EOF") && !strings.Contains(string(out), "READ 0 read unix") {
		t.Fatalf("the foreign peer got an answer:\n%s", out)
	}
	select {
	case c := <-accepted:
		c.Close()
		t.Fatal("the foreign peer's connection was handed to the server")
	default:
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
