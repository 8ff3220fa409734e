package gitx_test

import (
	"path/filepath"
	"slices"
	"testing"

	"reasonixctl/core/gitx"
)

// objectCount is how many loose and packed objects the repository holds.
func objectCount(t *testing.T, dir string) string {
	t.Helper()
	return sh(t, dir, "count-objects", "-v")
}

func TestPreviewApplyOnAMovedHead(t *testing.T) {
	dir := t.TempDir()
	sh(t, dir, "init", "-q", "-b", "main")
	write(t, filepath.Join(dir, "a.txt"), "one\ntwo\nthree\n", 0o644)
	write(t, filepath.Join(dir, "b.txt"), "bee\n", 0o644)
	sh(t, dir, "add", ".")
	sh(t, dir, "commit", "-q", "-m", "base")
	base := sh(t, dir, "rev-parse", "HEAD")
	// The task's change, as a tree (what a review holds) and as a commit (after finalize).
	sh(t, dir, "checkout", "-q", "-b", "task")
	write(t, filepath.Join(dir, "a.txt"), "one\nTWO\nthree\n", 0o644)
	sh(t, dir, "commit", "-q", "-am", "task")
	commit := sh(t, dir, "rev-parse", "HEAD")
	tree := sh(t, dir, "rev-parse", "HEAD^{tree}")
	sh(t, dir, "checkout", "-q", "main")

	p, err := gitx.PreviewApply(ctx, dir, base, tree)
	if err != nil || !p.Clean || p.Moved || len(p.Conflicts) != 0 {
		t.Fatalf("unmoved HEAD: %+v %v", p, err)
	}

	// HEAD moves with a change elsewhere: still clean.
	write(t, filepath.Join(dir, "b.txt"), "bee\nbuzz\n", 0o644)
	sh(t, dir, "commit", "-q", "-am", "elsewhere")
	status := sh(t, dir, "status", "--porcelain")
	for _, change := range []string{tree, commit} {
		p, err = gitx.PreviewApply(ctx, dir, base, change)
		if err != nil || !p.Clean || !p.Moved || p.Head != sh(t, dir, "rev-parse", "HEAD") {
			t.Fatalf("moved HEAD without conflict (%s): %+v %v", change, p, err)
		}
	}

	// HEAD moves with a conflicting change to the same line.
	write(t, filepath.Join(dir, "a.txt"), "one\nzwei\nthree\n", 0o644)
	sh(t, dir, "commit", "-q", "-am", "conflicting")
	before := objectCount(t, dir)
	for _, change := range []string{tree, commit} {
		p, err = gitx.PreviewApply(ctx, dir, base, change)
		if err != nil || p.Clean || !slices.Equal(p.Conflicts, []string{"a.txt"}) {
			t.Fatalf("conflicting HEAD (%s): %+v %v", change, p, err)
		}
	}
	// Nothing of the source was written: no object, no file, no ref.
	if after := objectCount(t, dir); after != before {
		t.Fatalf("objects written:\nbefore %s\nafter  %s", before, after)
	}
	if s := sh(t, dir, "status", "--porcelain"); s != status {
		t.Fatalf("checkout changed: %q", s)
	}
	if refs := sh(t, dir, "for-each-ref", "--format=%(refname)"); refs != "refs/heads/main\nrefs/heads/task" {
		t.Fatalf("refs: %q", refs)
	}
}
