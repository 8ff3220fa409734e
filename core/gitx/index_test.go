package gitx_test

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// Finalize's TreeChanges of a tree this process reviewed needs no git, and lists exactly what
// git's diff-tree lists.
func TestTreeChangesOfAReviewedTreeReuseTheReviewDiff(t *testing.T) {
	f := newFixture(t)
	wt := f.task(t, "cached")
	write(t, filepath.Join(wt.Path, "a.txt"), "changed\n", 0o644)
	write(t, filepath.Join(wt.Path, "lib", "new.txt"), "new\n", 0o755)
	os.Remove(filepath.Join(wt.Path, "gone.txt"))
	rev, err := gitx.BuildReview(ctx, wt)
	if err != nil {
		t.Fatal(err)
	}
	before := gitx.Execs()
	got, err := gitx.TreeChanges(ctx, wt.CommonDir, wt.Base, rev.Tree)
	if err != nil || gitx.Execs() != before {
		t.Fatalf("TreeChanges ran %d git processes: %v", gitx.Execs()-before, err)
	}
	raw := sh(t, wt.Path, "diff-tree", "-r", "--no-renames", "--raw", "--abbrev=40", wt.Base, rev.Tree)
	var want []string
	for _, l := range strings.Split(raw, "\n") {
		h, p, _ := strings.Cut(l, "\t")
		fs := strings.Fields(h)
		want = append(want, strings.TrimPrefix(fs[0], ":")+" "+fs[1]+" "+fs[3]+" "+fs[4]+" "+p)
	}
	var have []string
	for _, c := range got {
		have = append(have, c.OldMode+" "+c.NewMode+" "+c.NewHash+" "+string(c.Status)+" "+c.Path)
	}
	if !slices.Equal(have, want) {
		t.Fatalf("cached %v\ngit    %v", have, want)
	}
}

// A cache-tree in the worktree's index that names another tree does not reach the review:
// the seed keeps only the entries, so write-tree computes every tree from them.
func TestReviewIgnoresALyingCacheTree(t *testing.T) {
	f := newFixture(t)
	wt := f.task(t, "lying")
	write(t, filepath.Join(wt.Path, "a.txt"), "changed\n", 0o644)
	honest, err := gitx.BuildReview(ctx, wt)
	if err != nil {
		t.Fatal(err)
	}
	// Prime the worktree index's cache-tree, then make its root name the base tree's
	// neighbour: a tree that also holds smuggled.txt.
	gitDir := sh(t, wt.Path, "rev-parse", "--absolute-git-dir")
	sh(t, wt.Path, "write-tree")
	write(t, filepath.Join(wt.Path, "smuggled.txt"), "x\n", 0o644)
	sh(t, wt.Path, "add", "smuggled.txt")
	other := sh(t, wt.Path, "write-tree")
	sh(t, wt.Path, "rm", "-q", "--cached", "smuggled.txt")
	os.Remove(filepath.Join(wt.Path, "smuggled.txt"))
	sh(t, wt.Path, "write-tree")
	b := worktreeIndex(t, wt)
	i := bytes.Index(b, []byte("TREE"))
	if i < 0 {
		t.Fatal("no cache-tree extension to tamper with")
	}
	// The root entry: "" NUL "<count> <subtrees>\n" <oid>.
	nl := bytes.IndexByte(b[i+8:], '\n')
	oid, _ := hex.DecodeString(other)
	copy(b[i+8+nl+1:], oid)
	sum := sha1.Sum(b[:len(b)-20])
	copy(b[len(b)-20:], sum[:])
	if err := os.WriteFile(filepath.Join(gitDir, "index"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if lied := sh(t, wt.Path, "write-tree"); lied != other {
		t.Fatalf("git did not trust the tampered cache-tree (%s), so the test proves nothing", lied)
	}
	rev, err := gitx.BuildReview(ctx, wt)
	if err != nil {
		t.Fatal(err)
	}
	if rev.Tree != honest.Tree || !slices.Equal(rev.Paths(), []string{"a.txt"}) {
		t.Fatalf("review tree %s (honest %s), paths %v", rev.Tree, honest.Tree, rev.Paths())
	}
}

// The index kept by the review becomes the worktree's index at the commit without a read-tree;
// a kept index of another tree is ignored, and a change after the review is still refused.
func TestCommitInstallsTheKeptReviewIndex(t *testing.T) {
	for _, tc := range []struct {
		name     string
		stale    bool
		moved    bool
		readTree bool
	}{{"kept", false, false, false}, {"stale", true, false, true}, {"moved", false, true, false}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			wt := f.task(t, "keep")
			kept := filepath.Join(t.TempDir(), "reviews", "keep.index")
			write(t, filepath.Join(wt.Path, "a.txt"), "first\n", 0o644)
			r, err := gitx.BuildReviewKeepingIndex(ctx, wt, kept)
			if err != nil {
				t.Fatal(err)
			}
			if tc.stale {
				write(t, filepath.Join(wt.Path, "a.txt"), "second\n", 0o644)
				if r, err = gitx.BuildReview(ctx, wt); err != nil {
					t.Fatal(err)
				}
			}
			if tc.moved {
				write(t, filepath.Join(wt.Path, "a.txt"), "later\n", 0o644)
			}
			req := request(wt, r)
			req.ReviewIndex = kept
			before := gitx.Execs()
			res, err := gitx.Commit(ctx, req)
			if tc.moved {
				wantCode(t, err, gitx.CodeOwnershipAmbiguous, gitx.ReasonTreeMoved)
				assertUncommitted(t, wt)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// status, commit-tree, update-ref, status; a read-tree only for the stale index.
			want := int64(4)
			if tc.readTree {
				want = 5
			}
			if n := gitx.Execs() - before; n != want {
				t.Fatalf("%d git processes, want %d", n, want)
			}
			if tree := sh(t, wt.Path, "rev-parse", res.Commit+"^{tree}"); tree != r.Tree {
				t.Fatalf("committed %s, reviewed %s", tree, r.Tree)
			}
			if st := sh(t, wt.Path, "status", "--porcelain"); st != "" {
				t.Fatalf("worktree after commit:\n%s", st)
			}
		})
	}
}

// Right after the checkout the worktree's index is the base, so the snapshot needs no read-tree;
// once the worker has rewritten the index the base is read again, and the review is the same
// either way.
func TestReviewSkipsReadTreeOnlyWhileTheIndexIsTheCheckoutsOwn(t *testing.T) {
	f := newFixture(t)
	wt := f.task(t, "fresh")
	write(t, filepath.Join(wt.Path, "a.txt"), "changed\n", 0o644)
	write(t, filepath.Join(wt.Path, "new.txt"), "new\n", 0o644)
	before := gitx.Execs()
	first, err := gitx.BuildReview(ctx, wt)
	if err != nil {
		t.Fatal(err)
	}
	// add -A, write-tree, diff-tree (HEAD is read from its files).
	if n := gitx.Execs() - before; n != 3 {
		t.Fatalf("%d git processes for a fresh worktree's review, want 3", n)
	}
	sh(t, wt.Path, "add", "new.txt") // the worker stages something: the index is not the checkout's
	before = gitx.Execs()
	second, err := gitx.BuildReview(ctx, wt)
	if err != nil {
		t.Fatal(err)
	}
	if n := gitx.Execs() - before; n != 4 {
		t.Fatalf("%d git processes after the index changed, want 4", n)
	}
	if first.Tree != second.Tree || !slices.Equal(second.Paths(), []string{"a.txt", "new.txt"}) {
		t.Fatalf("trees %s and %s, paths %v", first.Tree, second.Tree, second.Paths())
	}
}
