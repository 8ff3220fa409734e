package remote

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"reasonixctl/core"
)

// refusals receives the reason of every connection the owner refuses, from its log.
type refusals chan string

func (r refusals) Enabled(context.Context, slog.Level) bool { return true }
func (r refusals) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r refusals) WithGroup(string) slog.Handler            { return r }
func (r refusals) Handle(_ context.Context, rec slog.Record) error {
	if rec.Message != "refused a connection to the owner socket" {
		return nil
	}
	rec.Attrs(func(a slog.Attr) bool {
		if a.Key == "err" {
			select {
			case r <- a.Value.String():
			default:
			}
		}
		return true
	})
	return nil
}

// next waits for the next refusal, which must give a reason containing want.
func (r refusals) next(t *testing.T, want string, child []byte) {
	t.Helper()
	select {
	case why := <-r:
		if !strings.Contains(why, want) {
			t.Fatalf("refused for %q, want %q", why, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("no refusal was logged; the child said:\n%s", child)
	}
}

// none fails the test if a refusal was logged.
func (r refusals) none(t *testing.T) {
	t.Helper()
	select {
	case why := <-r:
		t.Fatalf("refused a front end: %s", why)
	default:
	}
}

const dialChildEnv = "REASONIXCTL_REMOTE_DIAL_CHILD"

// The child half of TestSandboxedPeerIsRefused: attach to the owner of a state directory as the
// task commands do, list its tasks, and say how it went.
func TestDialChild(t *testing.T) {
	dir := os.Getenv(dialChildEnv)
	if dir == "" {
		t.Skip("only run as TestSandboxedPeerIsRefused's child")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := Dial(ctx, dir, RoleCLI)
	if err != nil {
		fmt.Println("DIAL", err)
		return
	}
	defer c.Close()
	tasks, err := c.List(ctx, core.ListFilter{})
	fmt.Println("LIST", len(tasks), err)
}

// child runs this test binary's TestDialChild (or, with raw, TestPeerChild) against the owner o,
// under the command line wrap (none: beside the owner), and returns what it printed.
func child(t *testing.T, o *owner, raw bool, wrap ...string) []byte {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	run, env := "^TestDialChild$", dialChildEnv+"="+o.dir
	if raw {
		run, env = "^TestPeerChild$", peerChildEnv+"="+SocketPath(o.dir)
	}
	argv := append(wrap, exe, "-test.run="+run, "-test.v")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %v\n%s", argv, err, out)
	}
	return out
}

// A process in a sandbox runs as the same user and reaches the socket through the bound state
// directory, but it is no front end: the owner closes its connection before reading anything,
// says why in its log, and the client's calls fail. A client beside the owner, in process or
// in a process of its own, is served as before.
func TestSandboxedPeerIsRefused(t *testing.T) {
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		t.Skip("bubblewrap (bwrap) is not installed, so no sandboxed client can be started")
	}
	seen := make(refusals, 16)
	o := newOwner(t, turn(), func(s *Server) { s.log = slog.New(seen) })

	c := o.dial(t, RoleCLI)
	if _, err := c.List(ctxT(t, 10*time.Second), core.ListFilter{}); err != nil {
		t.Fatalf("in process: %v", err)
	}
	if out := child(t, o, false); !strings.Contains(string(out), "LIST 0 <nil>") {
		t.Fatalf("a client beside the owner was not served:\n%s", out)
	}
	if out := child(t, o, true); !strings.Contains(string(out), "READ ") || strings.Contains(string(out), "READ 0") {
		t.Fatalf("a raw request beside the owner got no answer:\n%s", out)
	}
	seen.none(t)

	for _, unshare := range []string{"--unshare-pid", "--unshare-all"} {
		t.Run(unshare, func(t *testing.T) {
			wrap := []string{bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--bind", o.dir, o.dir, unshare, "--"}
			out := child(t, o, false, wrap...)
			if !strings.Contains(string(out), "DIAL ") || strings.Contains(string(out), "LIST") {
				t.Fatalf("the sandboxed client attached:\n%s", out)
			}
			seen.next(t, "mount namespace", out)
			// Nothing is read from it: a request sent at once gets no byte back.
			out = child(t, o, true, wrap...)
			if !strings.Contains(string(out), "READ 0 EOF") && !strings.Contains(string(out), "READ 0 read unix") {
				t.Fatalf("the sandboxed peer got an answer:\n%s", out)
			}
			seen.next(t, "mount namespace", out)
		})
	}
	// A pid namespace of its own alone is enough to be refused.
	t.Run("pid namespace only", func(t *testing.T) {
		unshare, err := exec.LookPath("unshare")
		if err != nil || exec.Command(unshare, "--pid", "--fork", "true").Run() != nil {
			t.Skip("unshare(1) cannot make a pid namespace here")
		}
		out := child(t, o, true, unshare, "--pid", "--fork", "--")
		if !strings.Contains(string(out), "READ 0 EOF") && !strings.Contains(string(out), "READ 0 read unix") {
			t.Fatalf("a peer in another pid namespace got an answer:\n%s", out)
		}
		seen.next(t, "pid namespace", out)
	})
	if got := o.srv.refused.Load(); got < 4 {
		t.Errorf("refused %d connections, want at least 4", got)
	}
	// The owner still serves its front ends.
	if _, err := c.List(ctxT(t, 10*time.Second), core.ListFilter{}); err != nil {
		t.Fatalf("in process, after the refusals: %v", err)
	}
}

// goneProcess starts and reaps a process, returning its old number and a pidfd that still
// holds it.
func goneProcess(t *testing.T) (pid, pidfd int) {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pidfd, err := unix.PidfdOpen(cmd.Process.Pid, 0)
	if err != nil {
		cmd.Wait()
		t.Skipf("no pidfd_open here: %v", err)
	}
	t.Cleanup(func() { unix.Close(pidfd) })
	cmd.Wait()
	return cmd.Process.Pid, pidfd
}

// The namespaces read through a number count only if the number still names the process that
// connected. A peer that exited is refused even when its number names a live process of ours
// now — here this test's own, as if the number had been reused by a front end.
func TestPeerNumberReusedIsRefused(t *testing.T) {
	gone, pidfd := goneProcess(t)
	ours, err := ownNamespaces()
	if err != nil {
		t.Fatal(err)
	}
	me := os.Getpid()
	if err := checkNamespaces(peer{pid: me, pidfd: pidfd}, ours); !errors.Is(err, ErrUnsafeSocket) || !strings.Contains(err.Error(), "exited") {
		t.Fatalf("a reused number (pidfd): %v", err)
	}
	if err := checkNamespaces(peer{pid: gone, pidfd: -1}, ours); !errors.Is(err, ErrUnsafeSocket) {
		t.Fatalf("a gone peer (start time): %v", err)
	}
	if err := checkNamespaces(peer{pid: 0, pidfd: -1}, ours); !errors.Is(err, ErrUnsafeSocket) || !strings.Contains(err.Error(), "pid 0") {
		t.Fatalf("pid 0: %v", err)
	}
	self, err := unix.PidfdOpen(me, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(self)
	for _, p := range []peer{{pid: me, pidfd: self}, {pid: me, pidfd: -1}} {
		if err := checkNamespaces(p, ours); err != nil {
			t.Fatalf("ourselves (pidfd %d): %v", p.pidfd, err)
		}
	}
}

func TestOtherNamespacesAreRefused(t *testing.T) {
	ours, err := ownNamespaces()
	if err != nil {
		t.Fatal(err)
	}
	me := peer{pid: os.Getpid(), pidfd: -1}
	for _, c := range []struct {
		ns   namespaces
		want string
	}{
		{namespaces{mnt: "mnt:[1]", pid: ours.pid}, "another mount namespace"},
		{namespaces{mnt: ours.mnt, pid: "pid:[1]"}, "another pid namespace"},
		{namespaces{}, "namespaces are unknown"},
	} {
		if err := checkNamespaces(me, c.ns); !errors.Is(err, ErrUnsafeSocket) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v", c.ns, err)
		}
	}
}

func TestStartTimeReadsPastTheCommandName(t *testing.T) {
	proc := t.TempDir()
	stat := "4242 (a) (b c) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 200 18446744073709551615\n"
	os.WriteFile(filepath.Join(proc, "stat"), []byte(stat), 0o600)
	if got, err := startTime(proc); err != nil || got != "987654" {
		t.Fatalf("%q %v", got, err)
	}
}
