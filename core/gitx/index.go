package gitx

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"sync"

	"reasonixctl/store/atomicfile"
)

// plainIndex reports whether an index file's content can lend its stat data to another index:
// version 2 or 3, SHA-1, not split, not sparse, no unmerged entry and no entry marked
// assume-unchanged, skip-worktree or intent-to-add. Those marks change what `add -A` and
// `status` see, so an index holding one is never used as a seed (the caller starts from the
// tree alone, as before). Anything unreadable or unknown is not plain.
func plainIndex(b []byte) bool {
	_, ok := indexEntriesEnd(b)
	return ok
}

// indexEntriesEnd checks a plain index (see plainIndex), its SHA-1 checksum included, and
// returns where its entries end and its extensions begin.
func indexEntriesEnd(b []byte) (int, bool) {
	if len(b) < 12+20 || !bytes.Equal(b[:4], []byte("DIRC")) {
		return 0, false
	}
	if sum := sha1.Sum(b[:len(b)-20]); !bytes.Equal(sum[:], b[len(b)-20:]) {
		return 0, false // another hash function, or index.skipHash
	}
	version := binary.BigEndian.Uint32(b[4:8])
	if version != 2 && version != 3 {
		return 0, false
	}
	n := binary.BigEndian.Uint32(b[8:12])
	body := b[:len(b)-20] // the trailing checksum
	off := 12
	const fixed = 62 // stat data (40), SHA-1 (20), flags (2)
	for range n {
		if off+fixed > len(body) {
			return 0, false
		}
		flags := binary.BigEndian.Uint16(body[off+60:])
		if flags&0x8000 != 0 || flags&0x3000 != 0 { // assume-valid, or a merge stage
			return 0, false
		}
		size := fixed
		if flags&0x4000 != 0 { // extended flags follow: skip-worktree, intent-to-add, …
			if version < 3 || off+fixed+2 > len(body) || binary.BigEndian.Uint16(body[off+fixed:]) != 0 {
				return 0, false
			}
			size += 2
		}
		nameLen := int(flags & 0x0fff)
		if nameLen == 0x0fff {
			i := bytes.IndexByte(body[off+size:], 0)
			if i < 0 {
				return 0, false
			}
			nameLen = i
		}
		// The entry is padded with 1–8 NULs to a multiple of eight bytes.
		size = (size + nameLen + 8) &^ 7
		if off+size > len(body) {
			return 0, false
		}
		off += size
	}
	entriesEnd := off
	for off+8 <= len(body) {
		sig := string(body[off : off+4])
		if sig == "link" || sig == "sdir" {
			return 0, false
		}
		off += 8 + int(binary.BigEndian.Uint32(body[off+4:]))
	}
	return entriesEnd, off == len(body)
}

// createdIndexes remembers, per worktree path, the checksum of the index `git worktree add`
// wrote: an index with the same checksum holds the same bytes, so its entries are still the base
// tree and the review needs no read-tree. Kept in memory only: after a restart the review reads
// the base again.
var createdIndexes = struct {
	sync.Mutex
	m map[string]string
}{m: map[string]string{}}

const maxCreatedIndexes = 4096

// rememberCreatedIndex records the checksum of a freshly created worktree's plain index, with
// the base it checked out.
func rememberCreatedIndex(wt Worktree) {
	worktree, base := wt.Path, wt.Base
	gitDir, err := wt.adminDir()
	if err != nil {
		return
	}
	b, err := os.ReadFile(filepath.Join(gitDir, "index"))
	if err != nil || !plainIndex(b) {
		return
	}
	createdIndexes.Lock()
	defer createdIndexes.Unlock()
	if len(createdIndexes.m) >= maxCreatedIndexes {
		clear(createdIndexes.m)
	}
	createdIndexes.m[worktree] = base + " " + hex.EncodeToString(b[len(b)-20:])
}

func forgetCreatedIndex(worktree string) {
	createdIndexes.Lock()
	defer createdIndexes.Unlock()
	delete(createdIndexes.m, worktree)
}

// isCreatedIndex reports whether b is byte for byte the index the worktree was created with
// at this base.
func isCreatedIndex(worktree, base string, b []byte) bool {
	createdIndexes.Lock()
	defer createdIndexes.Unlock()
	sum, ok := createdIndexes.m[worktree]
	return ok && len(b) >= 20 && sum == base+" "+hex.EncodeToString(b[len(b)-20:])
}

// seedIndex copies the worktree's own index to dst with its modification time, when it is a
// plain index: `read-tree -m <tree>` into the copy then keeps the stat data of every entry the
// tree leaves as it is, so that git hashes only files whose stat data changed instead of every
// file of the checkout. The file's time matters: git treats entries as racily clean relative to
// it, and a newer time would let a same-second change pass unseen.
//
// isBase reports that the copied entries are the base tree itself: the index is byte for byte
// the one `git worktree add` of the base wrote (its SHA-1 checksum, verified by plainIndex,
// equals the one remembered at creation).
func seedIndex(wt Worktree, dst string) (seeded, isBase bool) {
	gitDir, err := wt.adminDir()
	if err != nil {
		return false, false
	}
	src := filepath.Join(gitDir, "index")
	fi, err := os.Stat(src)
	if err != nil {
		return false, false
	}
	b, err := os.ReadFile(src)
	if err != nil {
		return false, false
	}
	end, ok := indexEntriesEnd(b)
	if !ok {
		return false, false
	}
	// The time given to the copy must be that of the bytes read: git replaces the index by
	// rename, so an unchanged inode, time and size after the read mean the same file.
	if fi2, err := os.Stat(src); err != nil || !os.SameFile(fi, fi2) || !fi2.ModTime().Equal(fi.ModTime()) || fi2.Size() != int64(len(b)) {
		return false, false
	}
	// Only the entries are kept: the extensions are caches git would trust — a cache-tree
	// entry is reused by write-tree without looking at the entries below it — and the index
	// is the worker's to write.
	seed := append(bytes.Clone(b[:end]), make([]byte, 20)...)
	sum := sha1.Sum(seed[:end])
	copy(seed[end:], sum[:])
	if os.WriteFile(dst, seed, 0o600) != nil || os.Chtimes(dst, fi.ModTime(), fi.ModTime()) != nil {
		os.Remove(dst)
		return false, false
	}
	return true, isCreatedIndex(wt.Path, wt.Base, b)
}

// worktreeIndexPlain reports whether the worktree's own index is plain (see plainIndex).
func worktreeIndexPlain(wt Worktree) bool {
	gitDir, err := wt.adminDir()
	if err != nil {
		return false
	}
	b, err := os.ReadFile(filepath.Join(gitDir, "index"))
	return err == nil && plainIndex(b)
}

// keepFile copies src to dst through a temporary file and a rename, with src's modification
// time (git's racy-entry check is relative to it). A failure leaves no dst.
func keepFile(src, dst string) {
	fi, err := os.Stat(src)
	if err != nil {
		return
	}
	b, err := os.ReadFile(src)
	if err != nil {
		return
	}
	if atomicfile.WriteFile(dst, b, atomicfile.Options{ModTime: fi.ModTime(), MkdirAll: true}) != nil {
		os.Remove(dst)
	}
}

// cacheTreeRoot returns the root tree a plain index's cache-tree extension records, if it is
// valid.
func cacheTreeRoot(b []byte) (string, bool) {
	end, ok := indexEntriesEnd(b)
	if !ok {
		return "", false
	}
	body := b[:len(b)-20]
	for off := end; off+8 <= len(body); {
		size := int(binary.BigEndian.Uint32(body[off+4:]))
		if off+8+size > len(body) {
			return "", false
		}
		data := body[off+8 : off+8+size]
		if string(body[off:off+4]) == "TREE" {
			// The root entry: an empty path, NUL, "<entries> <subtrees>\n", then the object
			// unless <entries> is -1 (invalid).
			nl := bytes.IndexByte(data, '\n')
			if len(data) < 1 || data[0] != 0 || nl < 0 || bytes.HasPrefix(data[1:], []byte("-")) || nl+21 > len(data) {
				return "", false
			}
			return hex.EncodeToString(data[nl+1 : nl+21]), true
		}
		off += 8 + size
	}
	return "", false
}

// readKeptIndex reads a kept review index, with its file's data (whose time git's racy-entry
// check is relative to), when it is plain and its cache-tree, written by our own write-tree,
// records exactly tree.
func readKeptIndex(kept, tree string) ([]byte, os.FileInfo, bool) {
	if kept == "" {
		return nil, nil, false
	}
	fi, err := os.Stat(kept)
	if err != nil {
		return nil, nil, false
	}
	b, err := os.ReadFile(kept)
	if err != nil || !plainIndex(b) {
		return nil, nil, false
	}
	if root, ok := cacheTreeRoot(b); !ok || root != tree {
		return nil, nil, false
	}
	return b, fi, true
}

// installIndex makes the kept review index the worktree's index when it records exactly tree:
// written to index.lock (created exclusively, as git does, so no git process is writing the
// index meanwhile) with the kept file's time, then renamed over the index. It reports whether
// it did; on false the worktree's index is untouched.
func installIndex(wt Worktree, kept, tree string) bool {
	b, fi, ok := readKeptIndex(kept, tree)
	if !ok {
		return false
	}
	gitDir, err := wt.adminDir()
	if err != nil {
		return false
	}
	// Through git's own lock, so that no git process writes the index meanwhile.
	return atomicfile.WriteFile(filepath.Join(gitDir, "index"), b, atomicfile.Options{Perm: 0o644, Lock: "index.lock", ModTime: fi.ModTime()}) == nil
}
