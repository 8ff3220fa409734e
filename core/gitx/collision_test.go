package gitx_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"reasonixctl/core/gitx"
)

func scope(prefixes ...string) func(string) bool {
	return func(p string) bool {
		for _, pre := range prefixes {
			if p == pre || strings.HasPrefix(p, pre+"/") {
				return true
			}
		}
		return false
	}
}

// moving returns a throwaway clone standing for a caller who keeps working in their checkout.
func moving(t *testing.T, f fixture) (clone, base string) {
	t.Helper()
	clone = filepath.Join(t.TempDir(), "clone")
	sh(t, f.src, "clone", "-q", f.src, clone)
	return clone, sh(t, clone, "rev-parse", "HEAD")
}

func TestScanCleanSource(t *testing.T) {
	f := newFixture(t)
	base := sh(t, f.src, "rev-parse", "HEAD")
	c := gitx.ScanSource(ctx, f.src, base, scope("lib", "a.txt"))
	if c.Collides() || c.Head != base || len(c.DirtyPaths)+len(c.CommittedPaths) != 0 {
		t.Fatalf("clean scan: %+v", c)
	}
}

func TestScanDirtyAndCommittedPaths(t *testing.T) {
	f := newFixture(t)
	clone, base := moving(t, f)
	sh(t, clone, "mv", "a.txt", "renamed.txt")
	sh(t, clone, "commit", "-q", "-m", "rename")
	write(t, filepath.Join(clone, "lib", "b.txt"), "edited by the caller\n", 0o644)
	write(t, filepath.Join(clone, "notes.txt"), "untracked\n", 0o644)

	c := gitx.ScanSource(ctx, clone, base, scope("a.txt", "lib"))
	if !slices.Equal(c.CommittedPaths, []string{"a.txt", "renamed.txt"}) {
		t.Errorf("committed paths (both sides of the rename): %v", c.CommittedPaths)
	}
	if !slices.Equal(c.DirtyPaths, []string{"lib/b.txt", "notes.txt"}) {
		t.Errorf("dirty paths: %v", c.DirtyPaths)
	}
	if !c.Collides() || !slices.Equal(c.Overlap, []string{"a.txt", "lib/b.txt"}) {
		t.Errorf("overlap: %+v", c)
	}
	if c := gitx.ScanSource(ctx, clone, base, scope("docs")); c.Collides() {
		t.Errorf("out-of-scope changes collided: %+v", c)
	}
}

func TestScanStagedRenameListsBothSides(t *testing.T) {
	f := newFixture(t)
	clone, base := moving(t, f)
	sh(t, clone, "mv", "lib/b.txt", "moved.txt")
	c := gitx.ScanSource(ctx, clone, base, scope("lib"))
	if !slices.Equal(c.DirtyPaths, []string{"lib/b.txt", "moved.txt"}) || !slices.Equal(c.Overlap, []string{"lib/b.txt"}) {
		t.Fatalf("staged rename: %+v", c)
	}
}

func TestScanUnavailable(t *testing.T) {
	f := newFixture(t)
	base := sh(t, f.src, "rev-parse", "HEAD")
	all := func(string) bool { return true }
	for name, c := range map[string]gitx.Collision{
		"not a repository": gitx.ScanSource(ctx, t.TempDir(), base, all),
		"unknown base":     gitx.ScanSource(ctx, f.src, strings.Repeat("1", 40), all),
		"short base":       gitx.ScanSource(ctx, f.src, "abc", all),
		"no predicate":     gitx.ScanSource(ctx, f.src, base, nil),
	} {
		if !c.Unavailable || !c.Collides() || c.Reason == "" {
			t.Errorf("%s: want unavailable, got %+v", name, c)
		}
	}
}
