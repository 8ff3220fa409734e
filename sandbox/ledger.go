package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"reasonixctl/sandbox/procstat"
)

// Ledger records in a directory every process group its owner starts (a worker, a verifier), one
// file per group. An owner killed with SIGKILL cannot stop its groups; the next owner of the state
// directory calls Reap to end what is left. A nil *Ledger records nothing.
type Ledger struct {
	dir string
}

// OpenLedger uses dir, creating it owner-only.
func OpenLedger(dir string) (*Ledger, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("process ledger: %w", err)
	}
	return &Ledger{dir: dir}, nil
}

// Track records the group led by pid, with the leader's start time so that a reused pid is never
// taken for it. The returned function forgets the group; call it once the group has been killed.
func (l *Ledger) Track(pid int) (forget func()) {
	if l == nil || pid <= 0 {
		return func() {}
	}
	path := filepath.Join(l.dir, strconv.Itoa(pid))
	// Losing the entry only loses the clean-up after a crash, so a write error is not fatal.
	_ = os.WriteFile(path, []byte(procstat.StartTime(pid)), 0o600)
	return func() { _ = os.Remove(path) }
}

// Reap kills every group recorded by an earlier owner and forgets it; it must run before this
// owner starts any group. A group whose leader's pid now belongs to another process is only
// forgotten. It returns the groups that still had a live process: a group whose processes were
// all dying or dead already (an owner killed with SIGKILL takes its workers with it through
// Pdeathsig, and their zombies can wait a moment for init) left nothing to end.
func (l *Ledger) Reap() ([]int, error) {
	if l == nil {
		return nil, nil
	}
	entries, err := os.ReadDir(l.dir)
	if err != nil {
		return nil, fmt.Errorf("process ledger: %w", err)
	}
	if len(entries) == 0 {
		return nil, nil
	}
	alive := liveGroups()
	var killed []int
	var errs []error
	for _, e := range entries {
		path := filepath.Join(l.dir, e.Name())
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 {
			_ = os.Remove(path)
			continue
		}
		recorded, _ := os.ReadFile(path)
		if now := procstat.StartTime(pid); now == "" || now == string(recorded) {
			// The leader is ours, or gone: a pgid stays reserved while any member of its group
			// lives, so what answers to -pid is what is left of our group.
			if err := syscall.Kill(-pid, syscall.SIGKILL); err == nil {
				if alive == nil || alive[pid] {
					killed = append(killed, pid)
				}
			} else if !errors.Is(err, syscall.ESRCH) {
				errs = append(errs, fmt.Errorf("killing process group %d: %w", pid, err))
				continue
			}
		}
		if err := os.Remove(path); err != nil {
			errs = append(errs, err)
		}
	}
	return killed, errors.Join(errs...)
}

// liveGroups returns the process groups with at least one process that is neither a zombie nor
// already being killed (SIGKILL pending), or nil when /proc cannot tell.
func liveGroups() map[int]bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := map[int]bool{}
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		_, f, ok := procstat.Read(filepath.Join("/proc", e.Name(), "stat"))
		if !ok || f[procstat.State][0] == 'Z' || f[procstat.State][0] == 'X' {
			continue
		}
		pgid, err := strconv.Atoi(string(f[procstat.PGRP]))
		if err != nil || out[pgid] {
			continue
		}
		if status, err := os.ReadFile(filepath.Join("/proc", e.Name(), "status")); err == nil && killPending(status) {
			continue
		}
		out[pgid] = true
	}
	return out
}

// killPending reports whether a /proc/PID/status shows SIGKILL pending: the process is dying.
func killPending(status []byte) bool {
	for _, line := range bytes.Split(status, []byte("\n")) {
		k, v, _ := bytes.Cut(line, []byte(":"))
		if string(k) != "SigPnd" && string(k) != "ShdPnd" {
			continue
		}
		if mask, err := strconv.ParseUint(string(bytes.TrimSpace(v)), 16, 64); err == nil && mask&(1<<(uint(syscall.SIGKILL)-1)) != 0 {
			return true
		}
	}
	return false
}
