package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// startGroup starts `sleep` as the leader of its own process group, like a worker or verifier.
func startGroup(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "600")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	return cmd
}

// waitExit waits for the command to end and reports whether it died of SIGKILL.
func waitExit(t *testing.T, cmd *exec.Cmd) bool {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
		return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
	case <-time.After(10 * time.Second):
		t.Fatal("the process group was not killed")
	}
	return false
}

// A group recorded by an owner that died without stopping it is killed by the next owner.
func TestReapKillsTheGroupsOfADeadOwner(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "processes")
	dead, err := OpenLedger(dir)
	if err != nil {
		t.Fatal(err)
	}
	left := startGroup(t)
	dead.Track(left.Process.Pid) // the owner dies here: it never forgets the group
	stopped := startGroup(t)
	dead.Track(stopped.Process.Pid)()

	next, err := OpenLedger(dir)
	if err != nil {
		t.Fatal(err)
	}
	killed, err := next.Reap()
	if err != nil || len(killed) != 1 || killed[0] != left.Process.Pid {
		t.Fatalf("Reap = %v, %v; want [%d]", killed, err, left.Process.Pid)
	}
	if !waitExit(t, left) {
		t.Fatalf("the left group ended otherwise: %v", left.ProcessState)
	}
	if err := syscall.Kill(stopped.Process.Pid, 0); err != nil {
		t.Fatalf("a forgotten group was signalled: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("the ledger still holds %d entries", len(entries))
	}
}

// A recorded pid now used by another process (its start time differs) is forgotten, not killed.
func TestReapSparesAReusedPid(t *testing.T) {
	dir := t.TempDir()
	l, err := OpenLedger(dir)
	if err != nil {
		t.Fatal(err)
	}
	other := startGroup(t)
	pid := strconv.Itoa(other.Process.Pid)
	if err := os.WriteFile(filepath.Join(dir, pid), []byte("1"), 0o600); err != nil {
		t.Fatal(err)
	}
	if killed, err := l.Reap(); err != nil || len(killed) != 0 {
		t.Fatalf("Reap = %v, %v", killed, err)
	}
	if err := syscall.Kill(other.Process.Pid, 0); err != nil {
		t.Fatalf("the process now using the pid was signalled: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, pid)); !os.IsNotExist(err) {
		t.Fatalf("the entry was kept: %v", err)
	}
}

// Run records the command's group while it runs and forgets it after.
func TestRunTracksItsGroupWhileRunning(t *testing.T) {
	// The ledger lives in the worktree, the one place the sandbox shows; ls of it from inside
	// the command shows the command's own entry.
	wt := t.TempDir()
	l, err := OpenLedger(filepath.Join(wt, "ledger"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(wt, "ledger")
	r := &Runner{AllowUnsandboxed: true, Ledger: l}
	res, err := r.Run(t.Context(), Spec{Argv: []string{"ls", "ledger"}, Worktree: wt})
	if err != nil || !res.Passed() {
		t.Fatalf("%v %+v", err, res)
	}
	if string(res.Stdout) == "" {
		t.Fatal("the command's group was not recorded while it ran")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("the ledger still holds %d entries after the command", len(entries))
	}
}
