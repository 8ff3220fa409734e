package gitx

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// SourceStamp is what a collision scan of part of a checkout depends on, read from the file
// system without git: the lstat data (device, inode, mode, size, mtime and ctime) of HEAD, the
// branch it names, packed-refs, the index, the configuration, the ignore and attribute files
// that can apply to the scanned paths, and every file and directory under those paths.
//
// Two equal stamps mean the scan would see the same thing, provided the first was taken before a
// scan that found no collision and none of its entries was changed too recently for the change
// to be told apart from a later one (see Settled). RELIABILITY.md gives the argument.
type SourceStamp struct {
	sig     string
	settled bool
}

// Equal reports whether two stamps describe the same state.
func (s SourceStamp) Equal(o SourceStamp) bool { return s.sig != "" && s.sig == o.sig }

// Settled reports whether every entry's mtime and ctime were older than the stamp by more than
// the file system's timestamp granularity: a later change then gives the entry another ctime.
func (s SourceStamp) Settled() bool { return s.settled }

const (
	// stampMaxEntries bounds the files and directories a stamp reads; a larger scope is scanned
	// with git every time.
	stampMaxEntries = 4096
)

// racyMargin is how much older than the stamp an entry must be: file timestamps come from the
// kernel's coarse clock, which lags the real time by at most one tick (≤ 10 ms). A file system
// with whole-second timestamps (nanoseconds all zero) gets racyMarginCoarse. Tests lower them.
var (
	racyMargin       = 100 * time.Millisecond
	racyMarginCoarse = 2 * time.Second
)

var errNoStamp = errors.New("not stampable")

// ReadStamp stamps the checkout at root for a scan limited to the given path prefixes (as
// ScopePathspec takes them). ok is false when the state cannot be captured this way: the scan
// covers the whole checkout, the scope holds a nested repository or more than stampMaxEntries
// entries, the references live in a reftable, or the configuration names an excludes or
// attributes file or includes other files.
func ReadStamp(root, commonDir string, prefixes []string) (stamp SourceStamp, ok bool) {
	now := time.Now()
	st := stamper{now: now, settled: true}
	if err := st.read(root, commonDir, prefixes); err != nil {
		return SourceStamp{}, false
	}
	return SourceStamp{sig: st.b.String(), settled: st.settled}, true
}

type stamper struct {
	now     time.Time
	b       strings.Builder
	n       int
	settled bool
}

func (st *stamper) read(root, commonDir string, prefixes []string) error {
	if len(prefixes) == 0 || !filepath.IsAbs(root) || !filepath.IsAbs(commonDir) {
		return errNoStamp
	}
	gitDir := filepath.Join(root, ".git")
	if fi, err := os.Lstat(gitDir); err != nil {
		return errNoStamp
	} else if !fi.IsDir() {
		if gitDir, err = checkoutGitDir(root); err != nil {
			return errNoStamp
		}
	}
	if _, err := os.Lstat(filepath.Join(commonDir, "reftable")); !errors.Is(err, os.ErrNotExist) {
		return errNoStamp
	}
	for _, cfg := range []string{filepath.Join(commonDir, "config"), filepath.Join(gitDir, "config.worktree")} {
		b, err := os.ReadFile(cfg)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return errNoStamp
		}
		low := bytes.ToLower(b)
		for _, word := range []string{"excludesfile", "attributesfile", "include"} {
			if bytes.Contains(low, []byte(word)) {
				return errNoStamp
			}
		}
		if err := st.entry(cfg); err != nil {
			return err
		}
	}
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return errNoStamp
	}
	if ref, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: "); ok {
		if !strings.HasPrefix(ref, "refs/") || strings.Contains(ref, "..") {
			return errNoStamp
		}
		if err := st.entry(filepath.Join(commonDir, filepath.FromSlash(ref))); err != nil {
			return err
		}
	}
	for _, p := range []string{
		filepath.Join(gitDir, "HEAD"), filepath.Join(gitDir, "index"), filepath.Join(commonDir, "packed-refs"),
		filepath.Join(commonDir, "info", "exclude"), filepath.Join(commonDir, "info", "attributes"),
	} {
		if err := st.entry(p); err != nil {
			return err
		}
	}
	for _, prefix := range prefixes {
		if prefix == "" || strings.HasPrefix(prefix, "/") || strings.Contains("/"+prefix+"/", "/../") {
			return errNoStamp
		}
		// Ignore and attribute files of the directories above the scope decide what git
		// reports inside it.
		dirs := []string{root}
		if parent := filepath.Dir(prefix); parent != "." {
			for _, seg := range strings.Split(parent, "/") {
				dirs = append(dirs, filepath.Join(dirs[len(dirs)-1], seg))
			}
		}
		for _, dir := range dirs {
			for _, name := range []string{".gitignore", ".gitattributes"} {
				if err := st.entry(filepath.Join(dir, name)); err != nil {
					return err
				}
			}
		}
		if err := st.walk(filepath.Join(root, filepath.FromSlash(prefix))); err != nil {
			return err
		}
	}
	return nil
}

// walk stamps p and, for a directory, everything under it; a nested .git ends the stamp.
func (st *stamper) walk(p string) error {
	fi, err := st.stat(p)
	if err != nil || fi == nil || !fi.IsDir() {
		return err
	}
	ents, err := os.ReadDir(p)
	if err != nil {
		return errNoStamp
	}
	for _, e := range ents {
		if e.Name() == ".git" {
			return errNoStamp
		}
		if err := st.walk(filepath.Join(p, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

func (st *stamper) entry(p string) error {
	_, err := st.stat(p)
	return err
}

// stat records one entry; a missing one is recorded as missing.
func (st *stamper) stat(p string) (os.FileInfo, error) {
	if st.n++; st.n > stampMaxEntries {
		return nil, errNoStamp
	}
	fi, err := os.Lstat(p)
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscallENOTDIR) {
		st.b.WriteString(p + "\x00-\x00")
		return nil, nil
	}
	if err != nil {
		return nil, errNoStamp
	}
	key, mtime, ctime, ok := statKey(fi)
	if !ok {
		return nil, errNoStamp
	}
	margin := racyMargin
	if mtime.Nanosecond() == 0 && ctime.Nanosecond() == 0 {
		margin = racyMarginCoarse
	}
	if limit := st.now.Add(-margin); !mtime.Before(limit) || !ctime.Before(limit) {
		st.settled = false
	}
	st.b.WriteString(p + "\x00" + key + " " + strconv.FormatInt(mtime.UnixNano(), 10) + " " + strconv.FormatInt(ctime.UnixNano(), 10) + "\x00")
	return fi, nil
}

// checkoutGitDir reads the private git directory of a person's checkout that is itself a
// linked worktree, from its .git file. Never used on a task's worktree (see adminDir).
func checkoutGitDir(root string) (string, error) {
	b := readBounded(filepath.Join(root, ".git"), 4096)
	dir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
	if !ok {
		return "", errors.New(root + "/.git is not a worktree link")
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(root, dir)
	}
	return dir, nil
}
