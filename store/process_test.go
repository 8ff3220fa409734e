package store

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The test binary doubles as the child process of the multi-process tests: TestMain runs the
// role named by childRoleEnv on the state directory in childDirEnv instead of the tests.
const (
	childRoleEnv = "STORE_TEST_CHILD_ROLE"
	childDirEnv  = "STORE_TEST_CHILD_DIR"
)

func TestMain(m *testing.M) {
	if role := os.Getenv(childRoleEnv); role != "" {
		if err := runChild(role, os.Getenv(childDirEnv)); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func runChild(role, dir string) error {
	switch role {
	case "own": // hold the directory until stdin closes
		s, err := Open(Options{Dir: dir, Mode: "mcp"})
		if err != nil {
			return err
		}
		fmt.Println("ready")
		io.Copy(io.Discard, os.Stdin)
		return s.Close()
	case "crash": // increment forever, reporting progress, until killed
		s, err := Open(Options{Dir: dir, Mode: "crash"})
		if err != nil {
			return err
		}
		for i := 1; ; i++ {
			evs, err := s.Update("t1", increment)
			if err != nil {
				return err
			}
			if i%crashLineEvery == 0 {
				fmt.Println(evs[0].Seq)
			}
		}
	case "rss":
		return rssChild(dir)
	}
	return fmt.Errorf("unknown role %q", role)
}

const crashLineEvery = 5

// startChild runs the test binary in the given role. Its stderr is collected in cmd.Stderr
// (a *bytes.Buffer, readable after Wait).
func startChild(t testing.TB, role, dir string) (*exec.Cmd, *bufio.Scanner, io.WriteCloser) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childRoleEnv+"="+role, childDirEnv+"="+dir)
	cmd.Stderr = &bytes.Buffer{}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("%s child stderr: %s", role, cmd.Stderr)
		}
	})
	return cmd, bufio.NewScanner(stdout), stdin
}

// readLine waits for the child's next stdout line; the child's own failure ends the stream.
func readLine(t testing.TB, lines *bufio.Scanner) string {
	t.Helper()
	got := make(chan bool, 1)
	go func() { got <- lines.Scan() }()
	select {
	case ok := <-got:
		if !ok {
			t.Fatalf("child stdout ended: %v", lines.Err())
		}
		return lines.Text()
	case <-time.After(waitLimit):
		t.Fatal("child printed nothing within the deadline")
	}
	return ""
}

func TestSecondProcessGetsOwnedErrorNamingPIDAndMode(t *testing.T) {
	dir := t.TempDir()
	child, lines, stdin := startChild(t, "own", dir)
	if line := readLine(t, lines); line != "ready" {
		t.Fatalf("child said %q", line)
	}
	_, err := Open(Options{Dir: dir, Mode: "tui"})
	var owned *OwnedError
	if !errors.As(err, &owned) {
		t.Fatalf("Open while another process owns the directory = %v, want *OwnedError", err)
	}
	want := fmt.Sprintf("state directory %s is in use by reasonixctl pid %d (mode mcp) since ", dir, child.Process.Pid)
	if !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("message %q, want prefix %q", err, want)
	}
	stdin.Close()
	if lines.Scan() {
		t.Errorf("the owner wrote %q to stdout; with a nil Logger nothing but its own output may appear", lines.Text())
	}
	if err := child.Wait(); err != nil {
		t.Fatalf("child: %v: %s", err, child.Stderr)
	}
	if stderr := child.Stderr.(*bytes.Buffer).String(); stderr != "" {
		t.Errorf("the owner wrote to stderr: %q", stderr)
	}
	s, err := Open(Options{Dir: dir, Mode: "tui"})
	if err != nil {
		t.Fatalf("Open after the owner exited: %v", err)
	}
	s.Close()
}

// TestCrashKeepsRecordAndJournalConsistent SIGKILLs a writer at random points and checks after
// every restart that the journal is contiguous and the record matches its last event.
func TestCrashKeepsRecordAndJournalConsistent(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 20 processes")
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	dir := t.TempDir()
	var last uint64
	for round := range 20 {
		child, lines, _ := startChild(t, "crash", dir)
		// One round in four kills the child at once, possibly while badger is still
		// recovering the previous crash; the others wait for progress, then a random
		// number of further progress lines.
		var first uint64
		if rng.IntN(4) > 0 {
			var err error
			first, err = strconv.ParseUint(readLine(t, lines), 10, 64)
			if err != nil || first <= last {
				t.Fatalf("round %d: first progress line %d (%v) after %d committed", round, first, err, last)
			}
			for range rng.IntN(20) {
				readLine(t, lines)
			}
		}
		child.Process.Kill()
		child.Wait()

		s, err := Open(Options{Dir: dir, Mode: "check"})
		if err != nil {
			t.Fatalf("round %d: reopen after SIGKILL: %v", round, err)
		}
		n := checkCounterTask(t, s, "t1")
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if n < first {
			t.Fatalf("round %d: %d events survived, but the child reported %d committed", round, n, first)
		}
		last = n
	}
	t.Logf("%d events over 20 crashes", last)
}

// A lock still held after its owner died (by a child the owner was forking when it was killed)
// is waited for, not reported as in use: the child dies a moment later.
func TestOpenWaitsForTheLockOfADeadOwner(t *testing.T) {
	dir := t.TempDir()
	_, lines, stdin := startChild(t, "own", dir)
	if line := readLine(t, lines); line != "ready" {
		t.Fatalf("child said %q", line)
	}
	// owner.json now names a process that is gone, as after a crash.
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	info, _ := json.Marshal(OwnerInfo{PID: gone.Process.Pid, Mode: "mcp", StartedAt: time.Now()})
	if err := os.WriteFile(filepath.Join(dir, ownerInfoName), info, 0o600); err != nil {
		t.Fatal(err)
	}
	opened := make(chan error, 1)
	go func() {
		s, err := Open(Options{Dir: dir, Mode: "tui"})
		if err == nil {
			s.Close()
		}
		opened <- err
	}()
	stdin.Close() // the lock's last holder goes away
	select {
	case err := <-opened:
		if err != nil {
			t.Fatalf("Open after the dead owner's lock was released: %v", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("Open did not return")
	}
}
