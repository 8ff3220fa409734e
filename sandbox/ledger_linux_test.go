package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// A group whose processes are all dead already (an owner killed with SIGKILL takes its workers
// with it) is forgotten without being reported as ended: there was nothing left to end, and the
// next start has nothing to warn about. A zombie leader still holds the group's id.
func TestReapDoesNotReportAGroupWithNothingAlive(t *testing.T) {
	dir := t.TempDir()
	dead, err := OpenLedger(dir)
	if err != nil {
		t.Fatal(err)
	}
	zombie := startGroup(t)
	dead.Track(zombie.Process.Pid)
	if err := syscall.Kill(zombie.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Wait for the zombie without reaping it: the group id stays in use, as when init has not
	// reaped a killed worker yet.
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, zombie.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != nil {
		t.Fatal(err)
	}
	if !isZombie(zombie.Process.Pid) {
		t.Fatal("the killed process is not a zombie")
	}
	next, err := OpenLedger(dir)
	if err != nil {
		t.Fatal(err)
	}
	if killed, err := next.Reap(); err != nil || len(killed) != 0 {
		t.Fatalf("Reap = %v, %v; want nothing reported", killed, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("the ledger still holds %d entries", len(entries))
	}
}

func isZombie(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}
