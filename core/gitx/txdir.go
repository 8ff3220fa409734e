package gitx

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// A review transaction's private folder (its view, disposable index and exclusions) costs a
// dozen file and directory creations and as many removals, and a task opens four transactions
// (its review, the review's drift check, finalize's drift check, the commit). On this project's
// disk creating an inode costs ≈ 0.5 ms of CPU, so a folder whose layout is intact is kept for
// the next transaction, which rewrites every file of the layout in place (BENCHMARKS.md, "Per
// task through MCP"). A folder is kept for txDirIdle at most, so a process that ends without
// ReleaseTxDirs (killed, or never closing an engine) leaves no more behind than the folders of
// its last two seconds.
const (
	maxKeptTxDirs = 4
	txDirIdle     = 2 * time.Second
)

var txDirs struct {
	mu     sync.Mutex
	free   []keptTxDir // the most recently kept last
	expiry *time.Timer // set while anything is kept
}

type keptTxDir struct {
	dir string
	at  time.Time
}

// txDirLayout is what a folder holds between transactions: the exclusions and the view (see
// newView; an info/exclude is removed, to be written again when the repository has one).
var txDirLayout = map[string]map[string]bool{ // folder -> entry -> is a directory
	".":        {"exclude": false, "git": true},
	"git":      {"HEAD": false, "config": false, "info": true, "refs": true},
	"git/info": {"attributes": false},
	"git/refs": {},
}

// txScratch are the files a transaction leaves that are its own: removed before its folder is
// kept.
var txScratch = map[string]bool{"index": true, "COMMIT_EDITMSG": true, "git/info/exclude": true}

// takeTxDir returns a kept folder, reused, or a new private one.
func takeTxDir() (dir string, reused bool, err error) {
	txDirs.mu.Lock()
	if n := len(txDirs.free); n > 0 {
		dir = txDirs.free[n-1].dir
		txDirs.free = txDirs.free[:n-1]
		txDirs.mu.Unlock()
		return dir, true, nil
	}
	txDirs.mu.Unlock()
	dir, err = os.MkdirTemp("", "reasonixctl-git-")
	return dir, false, err
}

// putTxDir ends a transaction's use of dir: it is kept when, its own files removed, it holds
// exactly the layout (a file git or anyone else left in it removes it instead), and removed
// when enough are kept.
func putTxDir(dir string) {
	for name := range txScratch {
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(name))); err != nil && !os.IsNotExist(err) {
			os.RemoveAll(dir)
			return
		}
	}
	if !onlyLayout(dir) {
		os.RemoveAll(dir)
		return
	}
	txDirs.mu.Lock()
	if len(txDirs.free) < maxKeptTxDirs {
		txDirs.free = append(txDirs.free, keptTxDir{dir: dir, at: time.Now()})
		if txDirs.expiry == nil {
			txDirs.expiry = time.AfterFunc(txDirIdle, expireTxDirs)
		}
		txDirs.mu.Unlock()
		return
	}
	txDirs.mu.Unlock()
	os.RemoveAll(dir)
}

// expireTxDirs removes the folders kept for txDirIdle or longer, and comes back for the rest.
func expireTxDirs() {
	now := time.Now()
	txDirs.mu.Lock()
	var old []string
	fresh := txDirs.free[:0]
	for _, k := range txDirs.free {
		if now.Sub(k.at) >= txDirIdle {
			old = append(old, k.dir)
		} else {
			fresh = append(fresh, k)
		}
	}
	txDirs.free = fresh
	txDirs.expiry = nil
	if len(fresh) > 0 {
		txDirs.expiry = time.AfterFunc(txDirIdle-now.Sub(fresh[0].at), expireTxDirs)
	}
	txDirs.mu.Unlock()
	for _, dir := range old {
		os.RemoveAll(dir)
	}
}

func onlyLayout(dir string) bool {
	for sub, want := range txDirLayout {
		entries, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(sub)))
		if err != nil || len(entries) != len(want) {
			return false
		}
		for _, e := range entries {
			isDir, ok := want[e.Name()]
			if !ok || e.Type().IsDir() != isDir || !isDir && !e.Type().IsRegular() {
				return false
			}
		}
	}
	return true
}

// ReleaseTxDirs removes the folders kept for reuse: the engine calls it when it closes, after
// its last transaction. Transactions that end later keep their folders again.
func ReleaseTxDirs() {
	txDirs.mu.Lock()
	free := txDirs.free
	txDirs.free = nil
	if txDirs.expiry != nil {
		txDirs.expiry.Stop()
		txDirs.expiry = nil
	}
	txDirs.mu.Unlock()
	for _, k := range free {
		os.RemoveAll(k.dir)
	}
}

// writeIfChanged writes a file of a transaction's folder unless it already holds exactly
// content: reading is cheaper than rewriting, which journals the file's new blocks.
func writeIfChanged(path string, content []byte, perm os.FileMode) error {
	if b, err := os.ReadFile(path); err == nil && bytes.Equal(b, content) {
		return nil
	}
	return os.WriteFile(path, content, perm)
}
