package gitx_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"reasonixctl/core/gitx"
)

func TestOpenSourceIdentity(t *testing.T) {
	f := newFixture(t)
	head := sh(t, f.src, "rev-parse", "HEAD")
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(f.src, link); err != nil {
		t.Fatal(err)
	}
	a, err := gitx.OpenSource(ctx, filepath.Join(f.src, "lib"), "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	b, err := gitx.OpenSource(ctx, link, "main")
	if err != nil {
		t.Fatal(err)
	}
	realSrc, _ := filepath.EvalSymlinks(f.src)
	sum := sha256.Sum256([]byte(realSrc + "\x00" + filepath.Join(realSrc, ".git")))
	if a != b || a.ID != hex.EncodeToString(sum[:])[:24] || a.Base != head || a.Root != realSrc {
		t.Fatalf("identity differs: %+v vs %+v", a, b)
	}

	_, err = gitx.OpenSource(ctx, f.src, "no-such-branch")
	wantCode(t, err, gitx.CodeInvalidRequest, gitx.ReasonBadRef)
	_, err = gitx.OpenSource(ctx, f.src, "--output=/tmp/x")
	wantCode(t, err, gitx.CodeInvalidRequest, gitx.ReasonBadRef)
	_, err = gitx.OpenSource(ctx, t.TempDir(), "HEAD")
	wantCode(t, err, gitx.CodeNotGitRepository, "")
	_, err = gitx.OpenSource(ctx, "relative", "HEAD")
	wantCode(t, err, gitx.CodeInvalidRequest, gitx.ReasonBadInput)

	empty := filepath.Join(t.TempDir(), "empty")
	sh(t, filepath.Dir(empty), "init", "-q", empty)
	_, err = gitx.OpenSource(ctx, empty, "HEAD")
	wantCode(t, err, gitx.CodeInvalidRequest, gitx.ReasonBadRef)
}

func TestCheckClean(t *testing.T) {
	f := newFixture(t)
	src, err := gitx.OpenSource(ctx, f.src, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if err := src.CheckClean(ctx); err != nil {
		t.Fatalf("clean source reported dirty: %v", err)
	}
	// Dirty it in a throwaway clone so the fixture's own checkout stays untouched.
	clone := filepath.Join(t.TempDir(), "clone")
	sh(t, f.src, "clone", "-q", f.src, clone)
	write(t, filepath.Join(clone, "a.txt"), "changed\n", 0o644)
	for i := range 60 {
		write(t, filepath.Join(clone, "new", fmt.Sprintf("f%02d", i)), "x", 0o644)
	}
	c, err := gitx.OpenSource(ctx, clone, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	ge := wantCode(t, c.CheckClean(ctx), gitx.CodeDirtyRepository, "")
	if len(ge.Paths) != 50 || ge.Paths[0] != "a.txt" {
		t.Fatalf("want 50 paths starting with a.txt, got %d: %v", len(ge.Paths), ge.Paths[:3])
	}
}

func TestResolveAuthor(t *testing.T) {
	f := newFixture(t)
	id, err := gitx.ResolveAuthor(ctx, f.src)
	if err != nil || id != (gitx.Identity{Name: "Task Author", Email: "author@example.com"}) {
		t.Fatalf("from environment: %+v %v", id, err)
	}

	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "xdg"))
	t.Setenv("GIT_AUTHOR_NAME", "")
	t.Setenv("GIT_AUTHOR_EMAIL", "")
	_, err = gitx.ResolveAuthor(ctx, f.src)
	if ge := wantCode(t, err, gitx.CodeInvalidRequest, gitx.ReasonMissingIdentity); !slices.Equal(ge.Paths, []string{"name", "email"}) {
		t.Fatalf("missing fields: %v", ge.Paths)
	}

	write(t, filepath.Join(home, ".gitconfig"), "[user]\n\tname = Config Person\n\temail = config@example.com\n", 0o644)
	id, err = gitx.ResolveAuthor(ctx, f.src)
	if err != nil || id != (gitx.Identity{Name: "Config Person", Email: "config@example.com"}) {
		t.Fatalf("from git config: %+v %v", id, err)
	}
	t.Setenv("GIT_AUTHOR_NAME", "Env Name")
	id, err = gitx.ResolveAuthor(ctx, f.src)
	if err != nil || id != (gitx.Identity{Name: "Env Name", Email: "config@example.com"}) {
		t.Fatalf("mixed sources: %+v %v", id, err)
	}
}

func TestCreateAndRemoveWorktree(t *testing.T) {
	f := newFixture(t)
	src, err := gitx.OpenSource(ctx, f.src, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	wt, err := gitx.CreateWorktree(ctx, src, f.state, "t-1")
	if err != nil {
		t.Fatal(err)
	}
	realState, _ := filepath.EvalSymlinks(f.state)
	if wt.Path != filepath.Join(realState, src.ID, "t-1") || wt.Ref() != "refs/heads/reasonix/t-1" {
		t.Fatalf("unexpected worktree %+v", wt)
	}
	if got := sh(t, wt.Path, "symbolic-ref", "HEAD"); got != wt.Ref() {
		t.Fatalf("worktree HEAD is %s", got)
	}
	if got := sh(t, wt.Path, "rev-parse", "HEAD"); got != src.Base {
		t.Fatalf("worktree at %s, want base %s", got, src.Base)
	}

	_, err = gitx.CreateWorktree(ctx, src, f.state, "t-1")
	wantCode(t, err, gitx.CodeOwnershipAmbiguous, gitx.ReasonPathExists)
	sh(t, f.src, "branch", "reasonix/t-2", src.Base)
	_, err = gitx.CreateWorktree(ctx, src, f.state, "t-2")
	wantCode(t, err, gitx.CodeOwnershipAmbiguous, gitx.ReasonBranchExists)
	for _, bad := range []string{"", "../x", "a/b", "-x", "a..b", "x.lock", "x.", strings.Repeat("a", 129)} {
		_, err = gitx.CreateWorktree(ctx, src, f.state, bad)
		wantCode(t, err, gitx.CodeInvalidRequest, gitx.ReasonBadInput)
	}

	if err := gitx.RemoveWorktree(ctx, wt); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(wt.Path); !os.IsNotExist(err) {
		t.Fatalf("worktree folder still there: %v", err)
	}
	if list := sh(t, f.src, "worktree", "list", "--porcelain"); strings.Contains(list, wt.Path) {
		t.Fatalf("worktree still registered:\n%s", list)
	}
	// A second task whose folder vanished is pruned.
	wt3, err := gitx.CreateWorktree(ctx, src, f.state, "t-3")
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(wt3.Path)
	if err := gitx.RemoveWorktree(ctx, wt3); err != nil {
		t.Fatal(err)
	}
	if list := sh(t, f.src, "worktree", "list", "--porcelain"); strings.Contains(list, wt3.Path) {
		t.Fatalf("vanished worktree still registered:\n%s", list)
	}
}

// edit makes one change of every kind in a worktree.
func edit(t testing.TB, wt gitx.Worktree) {
	t.Helper()
	write(t, filepath.Join(wt.Path, "a.txt"), "alpha\ngamma\n", 0o644)               // modified
	write(t, filepath.Join(wt.Path, "new dir", "c d.txt"), "charlie\n", 0o644)       // untracked
	write(t, filepath.Join(wt.Path, "bin.dat"), "\x00\x01\x02binary", 0o644)         // binary
	os.Chmod(filepath.Join(wt.Path, "run.sh"), 0o755)                                // mode change
	os.Remove(filepath.Join(wt.Path, "gone.txt"))                                    // deleted
	write(t, filepath.Join(wt.Path, ".reasonix", "session.log"), "scratch\n", 0o644) // untracked metadata
}

func TestReviewCanonicalTree(t *testing.T) {
	f := newFixture(t)
	wt := f.task(t, "review")
	edit(t, wt)
	r, err := gitx.BuildReview(ctx, wt)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]byte{"a.txt": 'M', "bin.dat": 'A', "gone.txt": 'D', "new dir/c d.txt": 'A', "run.sh": 'M'}
	got := map[string]byte{}
	for _, fc := range r.Files {
		got[fc.Path] = fc.Status
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || len(r.ReasonixChanges) != 0 {
		t.Fatalf("files %v, reasonix %v", got, r.ReasonixChanges)
	}
	for _, fc := range r.Files {
		switch fc.Path {
		case "run.sh":
			if fc.OldMode != "100644" || fc.NewMode != "100755" {
				t.Errorf("mode change: %+v", fc)
			}
		case "bin.dat":
			if !fc.Binary {
				t.Errorf("binary not flagged: %+v", fc)
			}
		case "a.txt":
			if fc.Added != 1 || fc.Deleted != 1 {
				t.Errorf("numstat: %+v", fc)
			}
		}
	}
	if r.Stat() != "5 files changed, 2 insertions(+), 2 deletions(-)" {
		t.Errorf("stat: %s", r.Stat())
	}
	if ls := sh(t, wt.Path, "ls-tree", "-r", "--name-only", r.Tree); strings.Contains(ls, "session.log") || !strings.Contains(ls, "tracked.json") {
		t.Fatalf("tree content:\n%s", ls)
	}
	if !bytes.Contains(r.Diff, []byte("GIT binary patch")) || !bytes.Contains(r.Diff, []byte("new mode 100755")) {
		t.Fatalf("diff lacks binary or mode parts:\n%s", r.Diff)
	}
	// The patch reproduces the tree from the base.
	check := filepath.Join(t.TempDir(), "check")
	sh(t, f.src, "worktree", "add", "-q", "--detach", check, wt.Base)
	t.Cleanup(func() { sh(t, f.src, "worktree", "remove", "--force", check) })
	patch := filepath.Join(t.TempDir(), "p.diff")
	os.WriteFile(patch, r.Diff, 0o644)
	sh(t, check, "apply", "--index", patch)
	if tree := sh(t, check, "write-tree"); tree != r.Tree {
		t.Fatalf("patch gives tree %s, review says %s", tree, r.Tree)
	}
	// The worktree's own index is untouched by the review.
	if staged := sh(t, wt.Path, "diff", "--cached", "--name-only"); staged != "" {
		t.Fatalf("review staged files in the worktree: %s", staged)
	}
	again, err := gitx.BuildReview(ctx, wt)
	if err != nil || again.Tree != r.Tree {
		t.Fatalf("review is not stable: %s vs %s (%v)", again.Tree, r.Tree, err)
	}
}

func TestReviewReportsTrackedReasonixChanges(t *testing.T) {
	f := newFixture(t)
	wt := f.task(t, "meta")
	write(t, filepath.Join(wt.Path, ".reasonix", "tracked.json"), "{\"edited\":true}\n", 0o644)
	write(t, filepath.Join(wt.Path, ".reasonix", "untracked"), "x", 0o644)
	r, err := gitx.BuildReview(ctx, wt)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Files) != 0 || !slices.Equal(r.ReasonixChanges, []string{".reasonix/tracked.json"}) {
		t.Fatalf("files %v, reasonix %v", r.Paths(), r.ReasonixChanges)
	}
}

func TestReviewOfUntouchedWorktreeIsBaseTree(t *testing.T) {
	f := newFixture(t)
	wt := f.task(t, "noop")
	r, err := gitx.BuildReview(ctx, wt)
	if err != nil {
		t.Fatal(err)
	}
	if base := sh(t, wt.Path, "rev-parse", wt.Base+"^{tree}"); r.Tree != base || len(r.Files) != 0 || len(r.Diff) != 0 {
		t.Fatalf("untouched review: %+v, base tree %s", r, base)
	}
}
