package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// The test binary doubles as the sandboxed program: with SANDBOX_HELPER set it runs one helper
// mode instead of the tests.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == ForwardCommand {
		os.Exit(ForwardMain(os.Args[2:]))
	}
	if mode := os.Getenv("SANDBOX_HELPER"); mode != "" {
		os.Exit(helper(mode, os.Args[1:]))
	}
	os.Exit(m.Run())
}

func helper(mode string, args []string) int {
	switch mode {
	case "read":
		b, err := os.ReadFile(args[0])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		os.Stdout.Write(b)
	case "write":
		if err := os.WriteFile(args[0], []byte("escaped"), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	case "mkdir":
		if err := os.MkdirAll(args[0], 0o700); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	case "connect":
		c, err := net.DialTimeout("tcp", args[0], 2*time.Second)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		c.Close()
	case "env":
		fmt.Print(strings.Join(os.Environ(), "\n"))
	case "exit":
		n, _ := strconv.Atoi(args[0])
		return n
	case "sleep":
		select {}
	case "ignore-term":
		signal.Ignore(syscall.SIGTERM)
		select {}
	case "flood":
		chunk := bytes.Repeat([]byte("x"), 4096)
		for {
			if _, err := os.Stdout.Write(chunk); err != nil {
				return 1
			}
		}
	case "spawn": // spawn TOKEN setsid|group: start a lingering child, wait until it runs, exit 0
		child := exec.Command(os.Args[0], args[0])
		child.Env = append(os.Environ(), "SANDBOX_HELPER=linger")
		child.SysProcAttr = &syscall.SysProcAttr{Setsid: args[1] == "setsid"}
		out, _ := child.StdoutPipe()
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		line, _ := bufio.NewReader(out).ReadString('\n')
		fmt.Print(line)
	case "dial-unix": // dial-unix PATH: connect to a unix socket
		c, err := net.DialTimeout("unix", args[0], 2*time.Second)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		c.Close()
	case "tty": // open the controlling terminal and push a byte into its input
		f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer f.Close()
		b := byte('x')
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TIOCSTI, uintptr(unsafe.Pointer(&b))); errno != 0 {
			fmt.Fprintln(os.Stderr, errno)
			return 1
		}
	case "linger":
		fmt.Println("lingering")
		select {}
	default:
		return netHelper(mode, args)
	}
	return 0
}

func helperSpec(t *testing.T, wt string, mode string, args ...string) Spec {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Spec{
		Argv:     append([]string{exe}, args...),
		Worktree: wt,
		Env:      map[string]string{"SANDBOX_HELPER": mode},
		Timeout:  30 * time.Second,
	}
}

func requireSandbox(t *testing.T) *Runner {
	t.Helper()
	r := &Runner{}
	if p := r.Probe(); !p.Available {
		t.Fatalf("bubblewrap is required for these tests: %s", p.Detail)
	}
	return r
}

func dirs(t *testing.T) (root, repo, wt string) {
	root = t.TempDir()
	repo, wt = filepath.Join(root, "repo"), filepath.Join(root, "state", "wt")
	for _, d := range []string{repo, wt} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return root, repo, wt
}

func run(t *testing.T, r *Runner, s Spec) Result {
	t.Helper()
	res, err := r.Run(context.Background(), s)
	if err != nil {
		t.Fatalf("Run(%v): %v", s.Argv, err)
	}
	return res
}

func TestBenignCommandPassesAndWritesWorktree(t *testing.T) {
	r := requireSandbox(t)
	_, repo, wt := dirs(t)
	os.WriteFile(filepath.Join(repo, "input.txt"), []byte("from repo"), 0o644)
	// Without RepoRoot the repository, which lives under the private /tmp, stays invisible.
	if res := run(t, r, helperSpec(t, wt, "read", filepath.Join(repo, "input.txt"))); res.Passed() {
		t.Fatalf("repository readable without RepoRoot: %q", res.Stdout)
	}
	s := helperSpec(t, wt, "read", filepath.Join(repo, "input.txt"))
	s.RepoRoot = repo
	if res := run(t, r, s); !res.Passed() || string(res.Stdout) != "from repo" || !res.Sandboxed {
		t.Fatalf("read of repo root: %+v stderr=%s", res, res.Stderr)
	}
	s = helperSpec(t, wt, "write", filepath.Join(wt, "out.txt"))
	if res := run(t, r, s); !res.Passed() {
		t.Fatalf("write in worktree failed: %s", res.Stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(wt, "out.txt")); string(b) != "escaped" {
		t.Fatalf("worktree write not visible outside: %q", b)
	}
}

func TestWritesOutsideWorktreeFail(t *testing.T) {
	r := requireSandbox(t)
	root, repo, wt := dirs(t)
	cases := map[string]bool{ // target → the write itself must fail
		filepath.Join(repo, "x"):  true, // read-only bind
		"/etc/reasonixctl-escape": true, // read-only root
		"/x":                      true,
		// A sibling of the worktree under /tmp lands in the private /tmp, which vanishes.
		filepath.Join(root, "state", "x"): false,
		filepath.Join(root, "x"):          false,
	}
	for target, mustFail := range cases {
		s := helperSpec(t, wt, "write", target)
		s.RepoRoot = repo
		if res := run(t, r, s); mustFail && res.Passed() {
			t.Errorf("write to %s succeeded", target)
		}
		if _, err := os.Lstat(target); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s exists after the run", target)
		}
	}
}

func TestCredentialsHidden(t *testing.T) {
	root, _, wt := dirs(t)
	home := filepath.Join(root, "home")
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte("PRIVATE"), 0o600)
	os.WriteFile(filepath.Join(home, ".netrc"), []byte("machine x password PRIVATE"), 0o600)
	os.WriteFile(filepath.Join(home, "notes.txt"), []byte("public"), 0o644)
	r := requireSandbox(t)
	r.HideDirs = []string{filepath.Join(home, ".ssh")}
	r.HideFiles = []string{filepath.Join(home, ".netrc")}

	read := func(p string) Result {
		s := helperSpec(t, wt, "read", p)
		s.ExtraReadOnly = []string{home} // re-exposes home; the hidden places inside stay hidden
		return run(t, r, s)
	}
	if res := read(filepath.Join(home, "notes.txt")); !res.Passed() || string(res.Stdout) != "public" {
		t.Fatalf("readable file not readable: %+v %s", res, res.Stderr)
	}
	for _, p := range []string{filepath.Join(home, ".ssh", "id_ed25519"), filepath.Join(home, ".netrc")} {
		res := read(p)
		if bytes.Contains(res.Stdout, []byte("PRIVATE")) {
			t.Errorf("%s readable: %q", p, res.Stdout)
		}
	}
}

func TestDefaultHiddenCoversRootAndHome(t *testing.T) {
	hideDirs, hideFiles := DefaultHidden()
	for _, want := range []string{"/root", "/root/.ssh", "/root/.config", "/root/Library/Keychains"} {
		if !contains(hideDirs, want) {
			t.Errorf("DefaultHidden dirs lack %s", want)
		}
	}
	for _, want := range []string{"/root/.netrc", "/root/.git-credentials", "/root/.gitconfig"} {
		if !contains(hideFiles, want) {
			t.Errorf("DefaultHidden files lack %s", want)
		}
	}
	// With the real defaults, nothing of /root is visible inside.
	entries, err := os.ReadDir("/root")
	if err != nil {
		t.Skip("/root not readable here")
	}
	var probe string
	for _, e := range entries {
		if e.Type().IsRegular() {
			probe = filepath.Join("/root", e.Name())
			break
		}
	}
	if probe == "" {
		t.Skip("no regular file in /root")
	}
	r := requireSandbox(t)
	_, _, wt := dirs(t)
	if res := run(t, r, helperSpec(t, wt, "read", probe)); res.Passed() && len(res.Stdout) > 0 {
		t.Fatalf("%s readable inside the sandbox", probe)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestNetworkUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, _, wt := dirs(t)
	r := requireSandbox(t)
	if res := run(t, r, helperSpec(t, wt, "connect", ln.Addr().String())); res.Passed() {
		t.Fatal("sandboxed command reached a 127.0.0.1 listener")
	}
	// The same helper does connect without a sandbox, so the refusal above is the sandbox's.
	open := &Runner{Bwrap: "/nonexistent/bwrap", AllowUnsandboxed: true}
	if res := run(t, open, helperSpec(t, wt, "connect", ln.Addr().String())); !res.Passed() || res.Sandboxed {
		t.Fatalf("unsandboxed connect failed: %+v %s", res, res.Stderr)
	}
}

func TestEnvironmentAllowlist(t *testing.T) {
	t.Setenv("REASONIXCTL_TEST_API_TOKEN", "s3cr3t-ambient")
	t.Setenv("HOME", "/root")
	t.Setenv("LC_TEST_SAMPLE", "kept")
	_, _, wt := dirs(t)
	r := requireSandbox(t)
	s := helperSpec(t, wt, "env")
	s.Env["FOO_MODE"] = "x"
	res := run(t, r, s)
	env := "\n" + string(res.Stdout) + "\n"
	for _, bad := range []string{"s3cr3t-ambient", "\nHOME="} {
		if strings.Contains(env, bad) {
			t.Errorf("environment leaks %q:\n%s", bad, env)
		}
	}
	for _, want := range []string{"\nCI=1\n", "\nNO_COLOR=1\n", "\nTMPDIR=/tmp\n", "\nLC_TEST_SAMPLE=kept\n", "\nFOO_MODE=x\n", "\nPATH="} {
		if !strings.Contains(env, want) {
			t.Errorf("environment lacks %q:\n%s", want, env)
		}
	}
	for _, key := range []string{"HOME", "GITHUB_TOKEN", "AWS_ACCESS_KEY_ID", "DB_PASSWORD", "BAD-NAME", "1X"} {
		s := helperSpec(t, wt, "env")
		s.Env[key] = "v"
		_, err := r.Run(context.Background(), s)
		var se *Error
		if !errors.As(err, &se) || se.Code != CodeInvalidRequest {
			t.Errorf("Env key %s: want invalid_request, got %v", key, err)
		}
	}
}

// lingering reports whether any process on the host still carries token in its command line.
func lingering(token string) bool {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(b, []byte(token)) {
			return true
		}
	}
	return false
}

func waitGone(t *testing.T, token string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for lingering(token) {
		if time.Now().After(deadline) {
			t.Fatalf("a background child (%s) survived the command", token)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestBackgroundChildrenDie(t *testing.T) {
	_, _, wt := dirs(t)
	cases := []struct {
		name   string
		runner *Runner
		mode   string
	}{
		{"sandboxed-setsid", requireSandbox(t), "setsid"},
		{"unsandboxed-group", &Runner{Bwrap: "/nonexistent/bwrap", AllowUnsandboxed: true, forceAfter: 200 * time.Millisecond}, "group"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			token := fmt.Sprintf("linger-token-%d-%s", os.Getpid(), c.name)
			res := run(t, c.runner, helperSpec(t, wt, "spawn", token, c.mode))
			if !res.Passed() || !strings.Contains(string(res.Stdout), "lingering") {
				t.Fatalf("spawn helper did not start its child: %+v %s", res, res.Stderr)
			}
			waitGone(t, token)
		})
	}
}

func TestTimeoutKillsGroup(t *testing.T) {
	_, _, wt := dirs(t)
	r := requireSandbox(t)
	r.killGrace = 100 * time.Millisecond
	for _, mode := range []string{"sleep", "ignore-term"} {
		s := helperSpec(t, wt, mode)
		s.Timeout = 200 * time.Millisecond
		res := run(t, r, s)
		if !res.TimedOut || res.Passed() {
			t.Errorf("%s: want timed out, got %+v", mode, res)
		}
	}
}

func TestOutputCapIsFailure(t *testing.T) {
	_, _, wt := dirs(t)
	r := requireSandbox(t)
	s := helperSpec(t, wt, "flood")
	s.MaxOutput = 1024
	res := run(t, r, s)
	if !res.Truncated || res.Passed() || len(res.Stdout) != 1024 {
		t.Fatalf("want truncated failure with 1024 bytes, got truncated=%v passed=%v len=%d", res.Truncated, res.Passed(), len(res.Stdout))
	}
}

func TestExitCodeAndCancel(t *testing.T) {
	_, _, wt := dirs(t)
	r := requireSandbox(t)
	if res := run(t, r, helperSpec(t, wt, "exit", "3")); res.ExitCode != 3 || res.Passed() {
		t.Fatalf("exit code: %+v", res)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Run(ctx, helperSpec(t, wt, "sleep")); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled ctx: %v", err)
	}
}

func TestRefusedSpecs(t *testing.T) {
	_, repo, wt := dirs(t)
	os.Symlink(repo, filepath.Join(wt, "escape"))
	r := requireSandbox(t)
	base := helperSpec(t, wt, "exit", "0")
	cases := map[string]func(*Spec){
		"empty argv":        func(s *Spec) { s.Argv = nil },
		"relative worktree": func(s *Spec) { s.Worktree = "wt" },
		"missing worktree":  func(s *Spec) { s.Worktree = filepath.Join(wt, "nope") },
		"cwd outside":       func(s *Spec) { s.Dir = repo },
		"cwd via symlink":   func(s *Spec) { s.Dir = filepath.Join(wt, "escape") },
		"cwd dotdot":        func(s *Spec) { s.Dir = "../../repo" },
		"negative timeout":  func(s *Spec) { s.Timeout = -1 },
		"missing read-only": func(s *Spec) { s.ExtraReadOnly = []string{"/nonexistent/x"} },
	}
	for name, mutate := range cases {
		s := base
		s.Env = map[string]string{"SANDBOX_HELPER": "exit"}
		mutate(&s)
		_, err := r.Run(context.Background(), s)
		var se *Error
		if !errors.As(err, &se) || se.Code != CodeInvalidRequest {
			t.Errorf("%s: want invalid_request, got %v", name, err)
		}
	}
}

func TestUnavailableFailsClosed(t *testing.T) {
	_, _, wt := dirs(t)
	r := &Runner{Bwrap: "/nonexistent/bwrap"}
	if p := r.Probe(); p.Available || p.Detail == "" {
		t.Fatalf("probe of a missing engine: %+v", p)
	}
	_, err := r.Run(context.Background(), helperSpec(t, wt, "exit", "0"))
	var se *Error
	if !errors.As(err, &se) || se.Code != CodeUnavailable {
		t.Fatalf("want sandbox_unavailable, got %v", err)
	}
}

func TestToolchainUnderTmpRuns(t *testing.T) {
	root, _, wt := dirs(t)
	exe, _ := os.Executable()
	tool := filepath.Join(root, "toolchain", "bin", "helper")
	os.MkdirAll(filepath.Dir(tool), 0o755)
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tool, b, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(root, "bin")
	os.MkdirAll(bin, 0o755)
	os.Symlink(tool, filepath.Join(bin, "helper"))
	r := requireSandbox(t)
	s := Spec{Argv: []string{"helper", "7"}, Worktree: wt, Timeout: 30 * time.Second,
		Env: map[string]string{"SANDBOX_HELPER": "exit", "PATH": bin + ":" + defaultPath}}
	if res := run(t, r, s); res.ExitCode != 7 {
		t.Fatalf("toolchain under /tmp did not run: %+v %s", res, res.Stderr)
	}
}
