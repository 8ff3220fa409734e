// Package atomicfile replaces files so that a reader sees the old content or the new one whole,
// never part of it, and a crash after a replacement keeps the new content: the data is written
// to a temporary file beside the target, synced, renamed over the target, and the directory is
// synced so that the rename itself is on disk. Every file reasonixctl replaces goes through it.
package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// Options tune one replacement. The zero value writes mode 0600 through a temporary file named
// ".<base>.*.tmp".
type Options struct {
	// Perm is the new file's mode; 0 means 0600.
	Perm os.FileMode
	// Pattern names the temporary file as os.CreateTemp does, in the target's directory.
	Pattern string
	// Lock, when set, is the exact name of the temporary file in the target's directory,
	// created exclusively: git's lock protocol ("index.lock" for "index"). A lock that exists
	// fails the write and is left alone.
	Lock string
	// ModTime, when set, is the new file's modification time.
	ModTime time.Time
	// MkdirAll creates the target's directory (mode 0700) when missing.
	MkdirAll bool
}

// WriteFile replaces path with data. On failure path is unchanged and no temporary file is left.
func WriteFile(path string, data []byte, o Options) (err error) {
	dir := filepath.Dir(path)
	if o.MkdirAll {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
	}
	perm := o.Perm
	if perm == 0 {
		perm = 0o600
	}
	var f *os.File
	if o.Lock != "" {
		f, err = os.OpenFile(filepath.Join(dir, o.Lock), os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	} else {
		pattern := o.Pattern
		if pattern == "" {
			pattern = "." + filepath.Base(path) + ".*.tmp"
		}
		f, err = os.CreateTemp(dir, pattern)
	}
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	_, err = f.Write(data)
	if err == nil && o.Lock == "" {
		err = f.Chmod(perm) // CreateTemp makes 0600 whatever the umask allows
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && !o.ModTime.IsZero() {
		err = os.Chtimes(tmp, o.ModTime, o.ModTime)
	}
	if err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	return syncDir(dir)
}

// syncDir makes a rename in dir durable. File systems that cannot sync a directory say so
// with EINVAL; the rename has happened either way.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, syscall.EINVAL) {
		return nil
	}
	return err
}
