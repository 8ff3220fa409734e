package gitx_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"reasonixctl/core/gitx"
)

func symlink(t testing.TB, target, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(path)
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

func change(t testing.TB, r gitx.Review, path string) gitx.FileChange {
	t.Helper()
	for _, f := range r.Files {
		if f.Path == path {
			return f
		}
	}
	t.Fatalf("%s is not among the changes %v", path, r.Paths())
	return gitx.FileChange{}
}

func TestReviewRefusesAWorktreeWhoseHeadMoved(t *testing.T) {
	f := newFixture(t)
	wt := f.task(t, "worker-commit")
	write(t, filepath.Join(wt.Path, "a.txt"), "committed by the worker\n", 0o644)
	sh(t, wt.Path, "commit", "-q", "-am", "worker committed")
	_, err := gitx.BuildReview(ctx, wt)
	wantCode(t, err, gitx.CodeOwnershipAmbiguous, gitx.ReasonHeadMoved)

	wt2 := f.task(t, "detached")
	sh(t, wt2.Path, "switch", "-q", "--detach")
	_, err = gitx.BuildReview(ctx, wt2)
	ge := wantCode(t, err, gitx.CodeOwnershipAmbiguous, gitx.ReasonWrongBranch)
	if !strings.Contains(ge.Message, "HEAD") {
		t.Fatalf("message %q does not say where HEAD is", ge.Message)
	}

}

func TestReviewShowsSymlinksAndGitlinksByMode(t *testing.T) {
	f := newFixture(t)
	wt := f.task(t, "modes")
	symlink(t, "a.txt", filepath.Join(wt.Path, "link"))
	nested := filepath.Join(wt.Path, "vendor", "evil")
	sh(t, wt.Path, "init", "-q", nested)
	write(t, filepath.Join(nested, "x.go"), "package x\n", 0o644)
	sh(t, nested, "add", "x.go")
	sh(t, nested, "commit", "-q", "-m", "nested")
	nestedHead := sh(t, nested, "rev-parse", "HEAD")

	r, err := gitx.BuildReview(ctx, wt)
	if err != nil {
		t.Fatal(err)
	}
	if l := change(t, r, "link"); l.NewMode != gitx.ModeSymlink || l.Status != 'A' {
		t.Fatalf("link: %+v", l)
	}
	if g := change(t, r, "vendor/evil"); g.NewMode != gitx.ModeGitlink || g.NewHash != nestedHead {
		t.Fatalf("gitlink: %+v, nested HEAD %s", g, nestedHead)
	}
	// TreeChanges reads the same from the objects alone.
	tc, err := gitx.TreeChanges(ctx, wt.CommonDir, wt.Base, r.Tree)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range tc {
		if rc := change(t, r, c.Path); rc.NewMode != c.NewMode || rc.NewHash != c.NewHash || rc.OldMode != c.OldMode {
			t.Fatalf("TreeChanges %+v, review %+v", c, rc)
		}
	}
	if len(tc) != len(r.Files) {
		t.Fatalf("TreeChanges %d paths, review %d", len(tc), len(r.Files))
	}
}

func TestReviewListsNestedRepositoriesWithoutACommit(t *testing.T) {
	f := newFixture(t)
	wt := f.task(t, "nested")
	sh(t, wt.Path, "init", "-q", filepath.Join(wt.Path, "vendor", "empty"))
	write(t, filepath.Join(wt.Path, "vendor", "empty", "secret.txt"), "not snapshotted\n", 0o644)
	write(t, filepath.Join(wt.Path, "a.txt"), "edited\n", 0o644)
	r, err := gitx.BuildReview(ctx, wt)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.NestedRepositories, []string{"vendor/empty"}) || !slices.Equal(r.Paths(), []string{"a.txt"}) {
		t.Fatalf("nested %v, files %v", r.NestedRepositories, r.Paths())
	}
	if ls := sh(t, wt.Path, "ls-tree", "-r", "--name-only", r.Tree); strings.Contains(ls, "vendor") {
		t.Fatalf("the nested repository entered the tree:\n%s", ls)
	}
}

func TestReadObjectsSkipsLargeObjectsAndReportsMissingOnes(t *testing.T) {
	f := newFixture(t)
	wt := f.task(t, "objects")
	big := bytes.Repeat([]byte("x"), 4096)
	write(t, filepath.Join(wt.Path, "big.bin"), string(big), 0o644)
	write(t, filepath.Join(wt.Path, "small.txt"), "small\n", 0o644)
	r, err := gitx.BuildReview(ctx, wt)
	if err != nil {
		t.Fatal(err)
	}
	bigHash, smallHash := change(t, r, "big.bin").NewHash, change(t, r, "small.txt").NewHash
	missing := strings.Repeat("ab", 20)
	var got []gitx.Object
	err = gitx.ReadObjects(ctx, wt.CommonDir, []string{bigHash, missing, smallHash}, 1024, func(o gitx.Object) error {
		got = append(got, o)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d objects", len(got))
	}
	if got[0].Type != "blob" || got[0].Size != 4096 || got[0].Content != nil {
		t.Errorf("big: %+v", got[0].Type)
	}
	if got[1].Type != "missing" || got[1].Content != nil {
		t.Errorf("missing: %+v", got[1])
	}
	if got[2].Type != "blob" || string(got[2].Content) != "small\n" {
		t.Errorf("small: %q %q", got[2].Type, got[2].Content)
	}
	if err := gitx.ReadObjects(ctx, wt.CommonDir, []string{"HEAD"}, 10, func(gitx.Object) error { return nil }); err == nil {
		t.Fatal("a revision expression was accepted as an object name")
	}
}

func TestResolveLinkInsideTheTree(t *testing.T) {
	f := newFixture(t)
	wt := f.task(t, "links")
	outside := t.TempDir()
	links := map[string]string{
		"to-file":       "a.txt",
		"lib/up":        "../a.txt",
		"to-dir":        "lib",
		"dangling":      "missing.txt",
		"absolute":      filepath.Join(outside, "x"),
		"climb":         "../../outside",
		"lib/climb":     "../..",
		"chain":         "to-file",
		"via-link":      "to-dir/b.txt",
		"loop-a":        "loop-b",
		"loop-b":        "loop-a",
		"through-file":  "a.txt/x",
		"root":          ".",
		"to-git":        ".git/config",
		"to-credential": "lib/.env",
	}
	for p, target := range links {
		symlink(t, target, filepath.Join(wt.Path, p))
	}
	write(t, filepath.Join(wt.Path, "lib", ".env"), "TOKEN=x\n", 0o644)
	r, err := gitx.BuildReview(ctx, wt)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]gitx.LinkTarget{
		"to-file":       {Resolved: "a.txt"},
		"lib/up":        {Resolved: "a.txt"},
		"to-dir":        {Resolved: "lib", Dir: true},
		"dangling":      {Resolved: "missing.txt", Dangling: true},
		"absolute":      {Escapes: true},
		"climb":         {Escapes: true},
		"lib/climb":     {Escapes: true},
		"chain":         {Resolved: "a.txt"},
		"via-link":      {Resolved: "lib/b.txt"},
		"loop-a":        {Resolved: "loop-b", Dangling: true},
		"through-file":  {Resolved: "a.txt", Dangling: true},
		"root":          {Resolved: ".", Dir: true},
		"to-git":        {Resolved: ".git", Dangling: true},
		"to-credential": {Resolved: "lib/.env"},
	}
	for p, w := range want {
		w.Text = links[p]
		if p == "loop-a" {
			// The loop is cut after 40 hops, at whichever of the two links it has reached.
			got, err := gitx.ResolveLink(ctx, wt.CommonDir, r.Tree, p, links[p])
			if err != nil || !got.Dangling || got.Escapes {
				t.Errorf("%s: %+v %v", p, got, err)
			}
			continue
		}
		got, err := gitx.ResolveLink(ctx, wt.CommonDir, r.Tree, p, links[p])
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if got != w {
			t.Errorf("%s -> %s: got %+v, want %+v", p, links[p], got, w)
		}
	}
}

func TestLinkResolverLooksEachPathUpOnce(t *testing.T) {
	f := newFixture(t)
	wt := f.task(t, "resolver")
	symlink(t, "lib/b.txt", filepath.Join(wt.Path, "one"))
	symlink(t, "lib/b.txt", filepath.Join(wt.Path, "two"))
	r, err := gitx.BuildReview(ctx, wt)
	if err != nil {
		t.Fatal(err)
	}
	lr := gitx.NewLinkResolver(wt.CommonDir, r.Tree)
	if got, err := lr.Resolve(ctx, "one", "lib/b.txt"); err != nil || got.Resolved != "lib/b.txt" {
		t.Fatalf("%+v %v", got, err)
	}
	before := gitx.Execs()
	if got, err := lr.Resolve(ctx, "two", "lib/b.txt"); err != nil || got.Resolved != "lib/b.txt" {
		t.Fatalf("%+v %v", got, err)
	}
	if n := gitx.Execs() - before; n != 0 {
		t.Fatalf("the second link to the same target took %d git processes", n)
	}
}
