package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"reasonixctl/store/atomicfile"
)

const (
	ownerLockName = "owner.lock"
	ownerInfoName = "owner.json"
)

// OwnerInfo is what the owning process writes to <dir>/owner.json once it holds the lock.
type OwnerInfo struct {
	PID       int       `json:"pid"`
	Mode      string    `json:"mode"`
	StartedAt time.Time `json:"started_at"`
}

// OwnedError reports that another process (or another Store in this one) owns the state
// directory. Owner is nil when owner.json could not be read, e.g. while the owner starts up.
type OwnedError struct {
	Dir   string
	Owner *OwnerInfo
}

func (e *OwnedError) Error() string {
	if e.Owner == nil {
		return fmt.Sprintf("state directory %s is in use by another reasonixctl process (owner unknown)", e.Dir)
	}
	return fmt.Sprintf("state directory %s is in use by reasonixctl pid %d (mode %s) since %s",
		e.Dir, e.Owner.PID, e.Owner.Mode, e.Owner.StartedAt.Format(time.RFC3339))
}

// ownerLock is held for the life of a Store; the kernel drops the flock when the process dies,
// so a crashed owner never leaves the directory locked.
type ownerLock struct {
	f    *os.File
	info string
}

// lockOwner takes the exclusive flock on dir/owner.lock and then publishes owner.json.
func lockOwner(dir, mode string) (*ownerLock, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("store: create state directory: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, ownerLockName), os.O_RDWR|os.O_CREATE|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("store: open owner lock: %w", err)
	}
	deadline := time.Now().Add(deadOwnerGrace)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("store: lock %s: %w", filepath.Join(dir, ownerLockName), err)
		}
		owner := readOwner(dir)
		if (owner != nil && processAlive(owner.PID)) || time.Now().After(deadline) {
			f.Close()
			return nil, &OwnedError{Dir: dir, Owner: owner}
		}
		// Either the owner is dead, but a child it was forking when it died still holds a copy
		// of the lock until it finishes dying; or owner.json is missing because the owner is
		// between taking the lock and publishing it, or between removing it and dropping the
		// lock as it exits. Each settles within moments.
		time.Sleep(deadOwnerPoll)
	}
	l := &ownerLock{f: f, info: filepath.Join(dir, ownerInfoName)}
	data, _ := json.Marshal(OwnerInfo{PID: os.Getpid(), Mode: mode, StartedAt: time.Now().UTC()})
	// Replaced whole, so that a reader never sees half a file.
	if err := atomicfile.WriteFile(l.info, data, atomicfile.Options{}); err != nil {
		l.release()
		return nil, fmt.Errorf("store: write owner info: %w", err)
	}
	return l, nil
}

// A dead owner's lock is waited for this long, polling: a process killed while forking leaves
// a child that shares its descriptors until the child, killed with it, exits a moment later.
const (
	deadOwnerGrace = 3 * time.Second
	deadOwnerPoll  = 10 * time.Millisecond
)

// processAlive reports whether pid is a live (not zombie) process.
func processAlive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return !errors.Is(err, os.ErrNotExist) || runtime.GOOS != "linux"
	}
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}

func readOwner(dir string) *OwnerInfo {
	data, err := os.ReadFile(filepath.Join(dir, ownerInfoName))
	if err != nil {
		return nil
	}
	var info OwnerInfo
	if json.Unmarshal(data, &info) != nil || info.PID <= 0 {
		return nil
	}
	return &info
}

// release removes owner.json before unlocking so that the next owner's file is never deleted.
func (l *ownerLock) release() {
	os.Remove(l.info)
	l.f.Close() // closing the last descriptor drops the flock
}

// CurrentOwner returns what the process owning dir published in owner.json, or nil when no
// live process owns it. It takes no lock, so it never gets in the way of an owner starting.
func CurrentOwner(dir string) *OwnerInfo {
	info := readOwner(dir)
	if info == nil || !processAlive(info.PID) {
		return nil
	}
	return info
}

// Retire removes dir/owner.json early when it names this process, which is about to exit, and
// reports whether it did: a SIGKILL that cuts the rest of the shutdown short (Codex sends one
// about 50 ms after SIGTERM, and a worker's process group can take longer to end) then leaves no
// record of a dead owner behind. The lock stays held until the Store closes; a process opening
// the directory meanwhile waits for it as for any owner between removing the file and exiting.
func Retire(dir string) bool {
	info := readOwner(dir)
	if info == nil || info.PID != os.Getpid() {
		return false
	}
	return os.Remove(filepath.Join(dir, ownerInfoName)) == nil
}
