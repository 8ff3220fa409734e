package gitx_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"reasonixctl/core/gitx"
)

// stampRepo is a throwaway checkout: lib/b.txt and top.txt tracked, lib/deep/c.txt tracked.
func stampRepo(t *testing.T) (root, common string) {
	t.Helper()
	root = filepath.Join(t.TempDir(), "src")
	sh(t, filepath.Dir(root), "init", "-q", "-b", "main", root)
	write(t, filepath.Join(root, "top.txt"), "top\n", 0o644)
	write(t, filepath.Join(root, "lib", "b.txt"), "bravo\n", 0o644)
	write(t, filepath.Join(root, "lib", "deep", "c.txt"), "charlie\n", 0o644)
	sh(t, root, "add", "-A")
	sh(t, root, "commit", "-q", "-m", "initial")
	root, _ = filepath.EvalSymlinks(root)
	return root, filepath.Join(root, ".git")
}

func mustStamp(t *testing.T, root, common string, prefixes ...string) gitx.SourceStamp {
	t.Helper()
	s, ok := gitx.ReadStamp(root, common, prefixes)
	if !ok {
		t.Fatalf("no stamp for %v", prefixes)
	}
	return s
}

// Every change a scoped collision scan could report, and every change to what decides its
// answer, gives another stamp.
func TestStampChangesWithEverythingTheScanReads(t *testing.T) {
	// Margins above a clock tick, so that a settled stamp really is one; waiting for it is
	// polling the stamp until the clock has moved on.
	defer gitx.SetStampMargins(20*time.Millisecond, 2*time.Second)()
	for name, change := range map[string]func(t *testing.T, root string){
		"tracked file edited, same size": func(t *testing.T, root string) { write(t, filepath.Join(root, "lib", "b.txt"), "BRAVO\n", 0o644) },
		"tracked file deep in scope":     func(t *testing.T, root string) { write(t, filepath.Join(root, "lib", "deep", "c.txt"), "x", 0o644) },
		"untracked file deep in scope":   func(t *testing.T, root string) { write(t, filepath.Join(root, "lib", "deep", "new.txt"), "n", 0o644) },
		"scope file created":             func(t *testing.T, root string) { write(t, filepath.Join(root, "new.txt"), "n", 0o644) },
		"mode changed":                   func(t *testing.T, root string) { os.Chmod(filepath.Join(root, "lib", "b.txt"), 0o755) },
		"mtime set back":                 func(t *testing.T, root string) { os.Chtimes(filepath.Join(root, "lib", "b.txt"), time0, time0) },
		"staged outside the scope": func(t *testing.T, root string) {
			write(t, filepath.Join(root, "top.txt"), "x", 0o644)
			sh(t, root, "add", "top.txt")
		},
		"committed outside the scope": func(t *testing.T, root string) {
			write(t, filepath.Join(root, "top.txt"), "x", 0o644)
			sh(t, root, "commit", "-qam", "more")
		},
		"branch switched":  func(t *testing.T, root string) { sh(t, root, "checkout", "-q", "-b", "other") },
		"refs packed":      func(t *testing.T, root string) { sh(t, root, "pack-refs", "--all") },
		"root .gitignore":  func(t *testing.T, root string) { write(t, filepath.Join(root, ".gitignore"), "x\n", 0o644) },
		"scope .gitignore": func(t *testing.T, root string) { write(t, filepath.Join(root, "lib", ".gitignore"), "x\n", 0o644) },
		"info/exclude": func(t *testing.T, root string) {
			write(t, filepath.Join(root, ".git", "info", "exclude"), "x\n", 0o644)
		},
		"config":                func(t *testing.T, root string) { sh(t, root, "config", "core.autocrlf", "true") },
		"scope directory moved": func(t *testing.T, root string) { os.Rename(filepath.Join(root, "lib"), filepath.Join(root, "lib2")) },
	} {
		t.Run(name, func(t *testing.T) {
			root, common := stampRepo(t)
			before := settledStamp(t, root, common, "lib", "new.txt")
			if again := mustStamp(t, root, common, "lib", "new.txt"); !again.Equal(before) {
				t.Fatal("an unchanged checkout gave another stamp")
			}
			change(t, root)
			if after, ok := gitx.ReadStamp(root, common, []string{"lib", "new.txt"}); ok && after.Equal(before) {
				t.Fatal("the stamp did not change")
			}
		})
	}
}

// settledStamp polls the stamp until its entries are older than the margins (at most 5 s).
func settledStamp(t *testing.T, root, common string, prefixes ...string) gitx.SourceStamp {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		s := mustStamp(t, root, common, prefixes...)
		if s.Settled() {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatal("the stamp never settled")
		}
		runtime.Gosched()
	}
}

func TestStampRefusesWhatItCannotCapture(t *testing.T) {
	root, common := stampRepo(t)
	if _, ok := gitx.ReadStamp(root, common, nil); ok {
		t.Error("a whole-checkout scope was stamped")
	}
	if _, ok := gitx.ReadStamp(root, common, []string{"../x"}); ok {
		t.Error("a prefix leaving the checkout was stamped")
	}
	write(t, filepath.Join(root, "lib", "vendor", ".git", "HEAD"), "ref: refs/heads/main\n", 0o644)
	if _, ok := gitx.ReadStamp(root, common, []string{"lib"}); ok {
		t.Error("a scope holding a nested repository was stamped")
	}
	if _, ok := gitx.ReadStamp(root, common, []string{"top.txt"}); !ok {
		t.Error("a scope beside the nested repository was not stamped")
	}
	sh(t, root, "config", "core.excludesFile", "/tmp/elsewhere")
	if _, ok := gitx.ReadStamp(root, common, []string{"top.txt"}); ok {
		t.Error("a checkout whose configuration names an excludes file was stamped")
	}
}

// With the real margins a file written just now is not settled: a change within the same clock
// tick could leave its timestamps as they are.
func TestFreshEntriesAreNotSettled(t *testing.T) {
	root, common := stampRepo(t)
	write(t, filepath.Join(root, "lib", "b.txt"), "changed\n", 0o644)
	if s := mustStamp(t, root, common, "lib"); s.Settled() {
		t.Fatal("a file written just now counts as settled")
	}
}

// A scan limited to the scope reports the same collision as a whole one, with the same dirty
// and committed paths.
func TestScopedScanReportsLikeAWholeScan(t *testing.T) {
	root, _ := stampRepo(t)
	base := sh(t, root, "rev-parse", "HEAD")
	write(t, filepath.Join(root, "top.txt"), "dirty outside\n", 0o644)
	clean := gitx.ScanSourceIn(ctx, root, base, []string{"lib"}, scope("lib"))
	if clean.Collides() || len(clean.DirtyPaths) != 0 {
		t.Fatalf("scoped scan saw outside the scope: %+v", clean)
	}
	write(t, filepath.Join(root, "lib", "deep", "new.txt"), "n", 0o644)
	scoped := gitx.ScanSourceIn(ctx, root, base, []string{"lib"}, scope("lib"))
	whole := gitx.ScanSource(ctx, root, base, scope("lib"))
	if !scoped.Collides() || fmt.Sprint(scoped) != fmt.Sprint(whole) {
		t.Fatalf("scoped %+v, whole %+v", scoped, whole)
	}
}

var time0 = time.Unix(1_000_000_000, 0)
