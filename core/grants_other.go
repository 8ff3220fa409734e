//go:build !unix

package core

import "sync"

var grantsMu sync.Mutex

// withGrantsLock runs f holding this process's grants lock.
func withGrantsLock(dir string, f func() error) error {
	grantsMu.Lock()
	defer grantsMu.Unlock()
	return f()
}
