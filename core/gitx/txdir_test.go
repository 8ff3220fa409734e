package gitx

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestMain removes the transaction folders the tests leave kept: no engine closes here.
func TestMain(m *testing.M) {
	code := m.Run()
	ReleaseTxDirs()
	os.Exit(code)
}

func txTestWorktree(t *testing.T) Worktree {
	repo := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	return Worktree{Path: repo, CommonDir: filepath.Join(repo, ".git"), Base: "0123456789abcdef0123456789abcdef01234567"}
}

// A kept folder is handed to the next transaction with nothing of the last one's: no index, no
// commit message, the exclusions and HEAD written afresh; one holding anything else is removed.
func TestTxDirReuse(t *testing.T) {
	ReleaseTxDirs()
	t.Cleanup(ReleaseTxDirs)
	wt := txTestWorktree(t)
	tx, err := newReviewTx(wt)
	if err != nil {
		t.Fatal(err)
	}
	first := tx.dir
	os.WriteFile(tx.index, []byte("index"), 0o600)
	os.WriteFile(filepath.Join(tx.dir, "COMMIT_EDITMSG"), []byte("msg"), 0o600)
	os.WriteFile(tx.exclude, []byte("/.reasonix/\n/nested/\n"), 0o600)
	os.WriteFile(filepath.Join(tx.view.gitDir, "info", "exclude"), []byte("secret\n"), 0o600)
	tx.view.setHead("fedcba9876543210fedcba9876543210fedcba98")
	tx.close()

	wt.Base = "1111111111111111111111111111111111111111"
	tx, err = newReviewTx(wt)
	if err != nil {
		t.Fatal(err)
	}
	if tx.dir != first {
		t.Fatalf("the folder was not kept: %s, then %s", first, tx.dir)
	}
	for _, name := range []string{"index", "COMMIT_EDITMSG", "git/info/exclude"} {
		if _, err := os.Lstat(filepath.Join(tx.dir, filepath.FromSlash(name))); !os.IsNotExist(err) {
			t.Errorf("%s of the earlier transaction is still there: %v", name, err)
		}
	}
	for name, want := range map[string]string{"exclude": "/.reasonix/\n", "git/HEAD": wt.Base + "\n", "git/config": viewConfig, "git/info/attributes": neutralAttributes} {
		if b, _ := os.ReadFile(filepath.Join(tx.dir, filepath.FromSlash(name))); string(b) != want {
			t.Errorf("%s holds %q, want %q", name, b, want)
		}
	}
	os.WriteFile(filepath.Join(tx.view.gitDir, "ORIG_HEAD"), []byte("x"), 0o600)
	tx.close()
	if _, err := os.Stat(first); !os.IsNotExist(err) {
		t.Fatalf("a folder with a file outside its layout was kept: %v", err)
	}

	tx, _ = newReviewTx(wt)
	kept := tx.dir
	tx.close()
	ReleaseTxDirs()
	if _, err := os.Stat(kept); !os.IsNotExist(err) {
		t.Fatalf("ReleaseTxDirs left %s: %v", kept, err)
	}
}

// A kept folder someone removed meanwhile is replaced by a new one.
func TestTxDirRemovedWhileKept(t *testing.T) {
	ReleaseTxDirs()
	t.Cleanup(ReleaseTxDirs)
	wt := txTestWorktree(t)
	tx, err := newReviewTx(wt)
	if err != nil {
		t.Fatal(err)
	}
	tx.close()
	os.RemoveAll(tx.dir)
	tx2, err := newReviewTx(wt)
	if err != nil {
		t.Fatal(err)
	}
	defer tx2.close()
	if _, err := os.Stat(filepath.Join(tx2.view.gitDir, "HEAD")); err != nil {
		t.Fatal(err)
	}
}

func TestHasPattern(t *testing.T) {
	for in, want := range map[string]bool{
		"": false, "# comment\n#\n\n": false, "# c\n*.o\n": true, "\\#x\n": true, " #x\n": true, "\r\n": false, "x": true,
	} {
		if got := hasPattern([]byte(in)); got != want {
			t.Errorf("hasPattern(%q) = %v, want %v", in, got, want)
		}
	}
}

// A folder kept for txDirIdle is removed; a younger one stays.
func TestTxDirExpires(t *testing.T) {
	ReleaseTxDirs()
	t.Cleanup(ReleaseTxDirs)
	wt := txTestWorktree(t)
	a, _ := newReviewTx(wt)
	b, _ := newReviewTx(wt)
	a.close()
	b.close()
	txDirs.mu.Lock()
	txDirs.free[0].at = time.Now().Add(-txDirIdle)
	txDirs.mu.Unlock()
	expireTxDirs()
	if _, err := os.Stat(a.dir); !os.IsNotExist(err) {
		t.Fatalf("a folder kept for the idle time is still there: %v", err)
	}
	if _, err := os.Stat(b.dir); err != nil {
		t.Fatalf("a folder kept just now was removed: %v", err)
	}
	txDirs.mu.Lock()
	pending := txDirs.expiry != nil
	txDirs.mu.Unlock()
	if !pending {
		t.Fatal("no expiry is pending for the folder still kept")
	}
}
