package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
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
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &OwnedError{Dir: dir, Owner: readOwner(dir)}
		}
		return nil, fmt.Errorf("store: lock %s: %w", filepath.Join(dir, ownerLockName), err)
	}
	l := &ownerLock{f: f, info: filepath.Join(dir, ownerInfoName)}
	data, _ := json.Marshal(OwnerInfo{PID: os.Getpid(), Mode: mode, StartedAt: time.Now().UTC()})
	// Write-then-rename so that a reader never sees half a file.
	tmp := l.info + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		l.release()
		return nil, fmt.Errorf("store: write owner info: %w", err)
	}
	if err := os.Rename(tmp, l.info); err != nil {
		l.release()
		return nil, fmt.Errorf("store: write owner info: %w", err)
	}
	return l, nil
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
