//go:build unix

package engine

import (
	"os"
	"syscall"
)

// linkCount is how many names a regular file has (1 for anything else or on error).
func linkCount(p string) uint64 {
	st, err := os.Lstat(p)
	if err != nil || !st.Mode().IsRegular() {
		return 1
	}
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Nlink)
	}
	return 1
}
