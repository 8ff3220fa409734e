//go:build unix

package core

import (
	"os"
	"path/filepath"
	"syscall"
)

// withGrantsLock runs f holding the state directory's grants lock, so that a command line
// revoking a grant and an owner adding one do not lose each other's change.
func withGrantsLock(dir string, f func() error) error {
	lf, err := os.OpenFile(filepath.Join(dir, "grants.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return Errorf(CodeInternalError, nil, "grants lock: %w", err)
	}
	defer lf.Close()
	if err := syscall.Flock(int(lf.Fd()), syscall.LOCK_EX); err != nil {
		return Errorf(CodeInternalError, nil, "grants lock: %w", err)
	}
	defer syscall.Flock(int(lf.Fd()), syscall.LOCK_UN)
	return f()
}
