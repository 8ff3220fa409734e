package gitx_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"reasonixctl/core/gitx"
)

func worktreeIndex(t *testing.T, wt gitx.Worktree) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sh(t, wt.Path, "rev-parse", "--absolute-git-dir"), "index"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// An index lends its stat data only when no entry carries a mark that changes what git sees,
// and only in the formats read here.
func TestPlainIndexRefusesMarkedAndUnknownIndexes(t *testing.T) {
	for name, mark := range map[string][]string{
		"":                 nil,
		"assume-unchanged": {"update-index", "--assume-unchanged", "a.txt"},
		"skip-worktree":    {"update-index", "--skip-worktree", "a.txt"},
		"intent-to-add":    {"add", "-N", "new.txt"},
		"split index":      {"update-index", "--split-index"},
		"version 4":        {"update-index", "--index-version", "4"},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			wt := f.task(t, "idx")
			if mark != nil {
				write(t, filepath.Join(wt.Path, "new.txt"), "n\n", 0o644)
				sh(t, wt.Path, mark...)
			}
			if got := gitx.PlainIndex(worktreeIndex(t, wt)); got != (mark == nil) {
				t.Fatalf("plain: %v", got)
			}
		})
	}
	if gitx.PlainIndex([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x05")) {
		t.Fatal("a truncated index is plain")
	}
}

// A change hidden by an assume-unchanged mark in the worktree's index is still in the review:
// such an index is never the seed of the review's index.
func TestReviewSeesAChangeTheWorktreeIndexHides(t *testing.T) {
	f := newFixture(t)
	wt := f.task(t, "hidden")
	sh(t, wt.Path, "update-index", "--assume-unchanged", "a.txt")
	write(t, filepath.Join(wt.Path, "a.txt"), "changed behind the mark\n", 0o644)
	rev, err := gitx.BuildReview(ctx, wt)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rev.Paths(), []string{"a.txt"}) {
		t.Fatalf("review paths %v", rev.Paths())
	}
}

// A file rewritten with the same size right after the worktree was made (the same timestamp
// second as its index entry) is still seen by a review seeded from that index.
func TestSeededReviewSeesASameSizeEditAtOnce(t *testing.T) {
	f := newFixture(t)
	wt := f.task(t, "racy")
	write(t, filepath.Join(wt.Path, "lib", "b.txt"), "BRAVO\n", 0o644)
	rev, err := gitx.BuildReview(ctx, wt)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rev.Paths(), []string{"lib/b.txt"}) {
		t.Fatalf("review paths %v", rev.Paths())
	}
}
