package gitx

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// BenchmarkReviewTxSetup lays out and removes the private folder and view of one review
// transaction (four per task: review, its drift check, finalize's drift check and the commit),
// reporting the process's CPU (user+sys) per transaction: on a loaded virtual disk the
// directory operations cost more than they take in wall time.
func BenchmarkReviewTxSetup(b *testing.B) {
	repo := b.TempDir()
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		b.Fatalf("git init: %v\n%s", err, out)
	}
	wt := Worktree{Path: repo, CommonDir: filepath.Join(repo, ".git"), Base: "0123456789abcdef0123456789abcdef01234567"}
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	c0 := cpu()
	for b.Loop() {
		tx, err := newReviewTx(wt)
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(tx.index, []byte("index"), 0o600); err != nil {
			b.Fatal(err)
		}
		tx.close()
	}
	b.ReportMetric(float64((cpu()-c0).Microseconds())/float64(b.N), "cpu-µs/op")
}
