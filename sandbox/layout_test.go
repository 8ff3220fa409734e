package sandbox

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A sandboxed command sees the system, its toolchains, its worktree and cache, and nothing else:
// not a private place such as the state directory, nor a socket in it, nor /run, nor the
// user's home.
func TestTheViewIsAnAllowList(t *testing.T) {
	r := requireSandbox(t)
	root, _, wt := dirs(t)
	state := filepath.Join(root, "state")
	sock := filepath.Join(state, "owner.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := os.WriteFile(filepath.Join(state, "grants.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	r.Private = []string{state}

	if res := run(t, r, helperSpec(t, wt, "dial-unix", sock)); res.Passed() {
		t.Fatalf("the owner socket was reachable from the sandbox")
	}
	script := `for p in "$STATE/grants.json" "$STATE/owner.sock" /run /var/run /srv /mnt /media /var/lib /boot; do
  test -e "$p" && echo "SEEN $p"
done
for h in /root /home "$HOMEDIR"; do ls -A "$h" 2>/dev/null | sed "s|^|IN $h/|"; done
ls -A "$STATE" 2>/dev/null | grep -v '^wt$' | sed 's/^/LISTED /'
test -r /etc/shadow && test -s /etc/shadow && echo "SEEN /etc/shadow"
test -x /usr/bin/env || echo "NO /usr"
echo ok`
	home, _ := os.UserHomeDir()
	s := Spec{Argv: []string{"/bin/sh", "-c", script}, Worktree: wt, Timeout: 30 * time.Second, Env: map[string]string{"STATE": state, "HOMEDIR": home}}
	res := run(t, r, s)
	out := string(res.Stdout)
	if !res.Passed() || strings.Contains(out, "SEEN") || strings.Contains(out, "LISTED") || strings.Contains(out, "NO /usr") {
		t.Fatalf("exit %d\n%s\n%s", res.ExitCode, out, res.Stderr)
	}
	// A home shows only the toolchains on PATH that live there, never its other files.
	shown := toolchainBinds("", os.Getenv("PATH"), wt, r.privatePlaces())
	for _, line := range strings.Split(out, "\n") {
		p, ok := strings.CutPrefix(line, "IN ")
		if !ok {
			continue
		}
		explained := false
		for _, b := range shown {
			if within(b, p) {
				explained = true
			}
		}
		if !explained {
			t.Errorf("%s is visible in the sandbox and is no toolchain of PATH (%q)", p, shown)
		}
	}
}

// The command is in its own session with no controlling terminal, so it cannot push keys into
// the terminal of the person who runs the dashboard (TIOCSTI), and in its own pid namespace.
func TestNoTerminalAndNoHostProcesses(t *testing.T) {
	r := requireSandbox(t)
	_, _, wt := dirs(t)
	ptm, pts := openPTY(t)
	defer ptm.Close()
	defer pts.Close()

	// The test binary runs the sandbox from a child that owns the terminal, as the dashboard does.
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "-test.run=^TestSandboxFromATerminal$", "-test.v")
	cmd.Env = append(os.Environ(), "SANDBOX_TTY_CHILD="+wt)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = pts, pts, pts
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	out, err := runReadingPTY(cmd, ptm, pts)
	if err != nil || !strings.Contains(out, "CHILD-OK") {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if strings.Contains(out, "INJECTED") {
		t.Fatalf("a sandboxed command pushed input into the terminal:\n%s", out)
	}
	_ = r
}

// TestSandboxFromATerminal is the child of TestNoTerminalAndNoHostProcesses: it holds a
// controlling terminal and runs the sandbox from there.
func TestSandboxFromATerminal(t *testing.T) {
	wt := os.Getenv("SANDBOX_TTY_CHILD")
	if wt == "" {
		t.Skip("run by TestNoTerminalAndNoHostProcesses")
	}
	r := requireSandbox(t)
	if f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err != nil {
		t.Fatalf("the child has no terminal: %v", err)
	} else {
		f.Close()
	}
	if res := run(t, r, helperSpec(t, wt, "tty")); res.Passed() {
		// Whatever was pushed is now pending input of this terminal.
		_ = unix.SetNonblock(0, true)
		buf := make([]byte, 64)
		n, _ := os.Stdin.Read(buf)
		t.Fatalf("INJECTED: TIOCSTI from the sandbox worked (%q pending)", buf[:max(n, 0)])
	}
	res := run(t, r, Spec{Argv: []string{"/bin/sh", "-c", "ls /proc | grep -c '^[0-9]'"}, Worktree: wt, Timeout: 30 * time.Second})
	if n := strings.TrimSpace(string(res.Stdout)); n == "" || len(n) > 1 {
		t.Fatalf("the sandbox sees %s processes: not its own pid namespace", n)
	}
	os.Stdout.WriteString("CHILD-OK\n")
}

// A toolchain under the home folder is shown by its own folder, never by the home.
func TestToolchainBindsNeverShowAPrivatePlace(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	state := filepath.Join(home, ".local", "state", "reasonixctl")
	for _, d := range []string{filepath.Join(home, ".local", "bin"), filepath.Join(home, "bin"), filepath.Join(home, "sdk", "go", "bin"), state} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	path := strings.Join([]string{filepath.Join(home, ".local", "bin"), filepath.Join(home, "bin"), filepath.Join(home, "sdk", "go", "bin"), "/usr/bin"}, ":")
	got := toolchainBinds("", path, filepath.Join(state, "worktrees", "t"), []string{home + "/.ssh", state, home})
	want := []string{filepath.Join(home, ".local", "bin"), filepath.Join(home, "bin"), filepath.Join(home, "sdk", "go")}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("toolchainBinds = %q, want %q", got, want)
	}
	// A program in the folder that holds the state directory is shown alone.
	beside := filepath.Join(home, ".local", "fake-worker")
	if err := os.WriteFile(beside, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	got = toolchainBinds(beside, "/usr/bin", filepath.Join(state, "worktrees", "t"), []string{state, home})
	if strings.Join(got, "\n") != beside {
		t.Fatalf("toolchainBinds of a program beside the state directory = %q, want only %s", got, beside)
	}
}

func openPTY(t *testing.T) (ptm, pts *os.File) {
	t.Helper()
	ptm, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(ptm.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(ptm.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	pts, err = os.OpenFile("/dev/pts/"+itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return ptm, pts
}

func itoa(n int) string { return strconv.Itoa(n) }

// runReadingPTY runs cmd and returns what it wrote to the terminal.
func runReadingPTY(cmd *exec.Cmd, ptm, pts *os.File) (string, error) {
	if err := cmd.Start(); err != nil {
		return "", err
	}
	pts.Close() // the child holds it now; the master reads EIO when the child is done
	done := make(chan []byte)
	go func() {
		var all []byte
		buf := make([]byte, 4096)
		for {
			n, err := ptm.Read(buf)
			all = append(all, buf[:n]...)
			if err != nil {
				break
			}
		}
		done <- all
	}()
	err := cmd.Wait()
	// The reader ends when the last holder of the terminal's other side is gone.
	_ = ptm.SetReadDeadline(time.Now().Add(5 * time.Second))
	return string(<-done), err
}
