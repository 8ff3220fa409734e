package tui

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/alecthomas/chroma/v2"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"reasonixctl/core"
)

// reviewDiff has what a reader meets: Go and Markdown changes, a binary file, a mode change,
// a deleted file and a generated one.
const reviewDiff = `diff --git a/internal/auth/login.go b/internal/auth/login.go
index 1111111..2222222 100644
--- a/internal/auth/login.go
+++ b/internal/auth/login.go
@@ -8,9 +8,10 @@ import "errors"
 // ErrEmptyUser is returned for an empty user name.
 var ErrEmptyUser = errors.New("empty user")
 
 func Login(user string) error {
 	if user == "" {
-		return nil
+		return ErrEmptyUser
 	}
+	audit(user) /* before the check */
 	return check(user, "login")
 }
diff --git a/README.md b/README.md
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/README.md
@@ -0,0 +1,6 @@
+# Login
+
+Login **rejects** an empty user with ` + "`ErrEmptyUser`" + `.
+
+- audit every attempt
+- see [the tests](login_test.go)
diff --git a/logo.png b/logo.png
index 88768efdf77ec78c9a995f94881793be6a41752b..f68ed8037341be54a4bad1485a8deb1be7188467 100644
GIT binary patch
literal 6
NcmZQzO3KVL0ssTy0d4>Q

literal 5
McmZQzOv=my00M6TI{*Lx

diff --git a/run.sh b/run.sh
old mode 100644
new mode 100755
diff --git a/old.txt b/old.txt
deleted file mode 100644
index 4444444..0000000
--- a/old.txt
+++ /dev/null
@@ -1,2 +0,0 @@
-gone
-too
diff --git a/go.sum b/go.sum
index 5555555..6666666 100644
--- a/go.sum
+++ b/go.sum
@@ -1,2 +1,3 @@
 example.com/a v1.0.0 h1:abc=
+example.com/b v1.2.0 h1:def=
 example.com/c v1.0.0 h1:ghi=
`

func reviewScenario() *fakeService {
	f := scenario()
	d := f.details["login-fix"]
	d.Diff = reviewDiff
	f.details["login-fix"] = d
	return f
}

// TestGoldenHighlightedDiff pins highlighted diffs in colour: unified and side by side, on a
// dark and a light background, and in the monochrome NO_COLOR palette.
func TestGoldenHighlightedDiff(t *testing.T) {
	scenes := []struct {
		name       string
		w, h       int
		profile    termenv.Profile
		dark, mono bool
		keys       []string
	}{
		{"unified_dark_120x40", 120, 40, termenv.ANSI256, true, false, []string{"2", "]", "J"}},
		{"unified_light_120x40", 120, 40, termenv.ANSI256, false, false, []string{"2", "]", "J"}},
		{"markdown_dark_120x40", 120, 40, termenv.ANSI256, true, false, []string{"2", "}"}},
		{"side_by_side_dark_200x50", 200, 50, termenv.ANSI256, true, false, []string{"2", "w", "]"}},
		{"side_by_side_light_200x50", 200, 50, termenv.ANSI256, false, false, []string{"2", "w", "]"}},
		{"side_by_side_no_color_200x50", 200, 50, termenv.ANSI, true, true, []string{"2", "w", "]"}},
		{"labels_80x24", 80, 24, termenv.Ascii, true, false, []string{"2", "}", "}", "}", "}", "}"}},
	}
	for _, sc := range scenes {
		t.Run(sc.name, func(t *testing.T) {
			lipgloss.SetColorProfile(sc.profile)
			lipgloss.SetHasDarkBackground(sc.dark)
			t.Cleanup(func() {
				lipgloss.SetColorProfile(termenv.Ascii)
				lipgloss.SetHasDarkBackground(true)
			})
			clk := &clock{t: epoch}
			m := newModel(context.Background(), reviewScenario(), Options{StateDir: "/state", WorkerVersion: "1.38.11", Now: clk.Now, Dir: "/src/app", Monochrome: sc.mono})
			h := &harness{t: t, m: m, clk: clk}
			h.send(tea.WindowSizeMsg{Width: sc.w, Height: sc.h})
			h.run(m.Init())
			h.press(sc.keys...)
			golden.RequireEqual(t, []byte(h.view()))
		})
	}
}

func TestSideBySideNeedsAWideTerminal(t *testing.T) {
	h := newHarness(t, reviewScenario(), 120, 40)
	h.press("2", "w")
	h.requireView("side by side needs a terminal at least 160 columns wide; this one is 120")
	h.send(tea.WindowSizeMsg{Width: 200, Height: 50})
	h.press("w")
	h.requireView("-        return nil", "│", "+        return ErrEmptyUser")
	// Each side numbers its own file.
	h.requireView(`15      return check(user, "login") │ 16      return check(user, "login")`)
	h.send(tea.WindowSizeMsg{Width: 150, Height: 50})
	h.requireView("side by side needs ≥160 columns")

	// A page starting at an added line still draws the removed line it pairs with.
	f := scenario()
	d := f.details["login-fix"]
	d.Diff = bigDiff(400)
	f.details["login-fix"] = d
	h = newHarness(t, f, 200, 50)
	h.press("2", "w")
	h.task("login-fix").rv.diffCur = diffCursor{0, 6}
	h.requireView(`4 -        return fmt.Errorf("find %s: %w", user, err) // 0`, `4 +        return fmt.Errorf("lookup %q: %w", user, err) // 0`)
}

func TestWordDiffMarksTheChangedWords(t *testing.T) {
	for _, tc := range []struct {
		a, b         string
		wantA, wantB string
	}{
		{"return nil", "return ErrEmptyUser", "nil", "ErrEmptyUser"},
		{"u := find(user)", "u := lookup(user)", "find", "lookup"},
		{`check(user)`, `check(user, "login")`, "", `, "login"`},
		{"completely different", "nothing alike at all here", "", ""}, // a rewrite marks nothing
	} {
		sa, sb := wordDiff(tc.a, tc.b)
		pick := func(s string, sp []span) string {
			var out []string
			for _, x := range sp {
				out = append(out, s[x.from:x.to])
			}
			return strings.Join(out, "|")
		}
		if got := pick(tc.a, sa); got != tc.wantA {
			t.Errorf("%q → %q: old marks %q, want %q", tc.a, tc.b, got, tc.wantA)
		}
		if got := pick(tc.b, sb); got != tc.wantB {
			t.Errorf("%q → %q: new marks %q, want %q", tc.a, tc.b, got, tc.wantB)
		}
	}
}

func TestDiffLabelsAndCollapsedFiles(t *testing.T) {
	doc := parseReviewDiff(reviewDiff)
	labels := map[string]string{}
	for _, f := range doc.files {
		labels[f.name] = strings.Join(f.labels, ",")
	}
	want := map[string]string{
		"internal/auth/login.go": "", "README.md": "new", "logo.png": "binary",
		"run.sh": "mode 100644 → 100755", "old.txt": "deleted", "go.sum": "generated",
	}
	if !reflect.DeepEqual(labels, want) {
		t.Fatalf("labels %v\nwant   %v", labels, want)
	}
	// Line numbers on both sides.
	f := doc.files[0]
	if l := f.lines[7]; l.kind != '-' || l.oldNo != 13 || l.newNo != 0 || f.lines[l.pair].text != "        return ErrEmptyUser" {
		t.Fatalf("removed line: %+v", l)
	}

	var b strings.Builder
	b.WriteString("diff --git a/gen.go b/gen.go\nnew file mode 100644\n--- /dev/null\n+++ b/gen.go\n@@ -0,0 +1,3 @@\n+// Code generated by stringer; DO NOT EDIT.\n+package x\n+const A = 1\n")
	b.WriteString("diff --git a/big.txt b/big.txt\n--- a/big.txt\n+++ b/big.txt\n@@ -1,2001 +1,2001 @@\n")
	for range 2001 {
		b.WriteString("-old\n")
	}
	for range 2001 {
		b.WriteString("+new\n")
	}
	f2 := scenario()
	d := f2.details["login-fix"]
	d.Diff = b.String()
	f2.details["login-fix"] = d
	h := newHarness(t, f2, 120, 40)
	h.press("2")
	h.requireView("gen.go [new, generated]", "(generated file collapsed: +3 -0 in 1 hunks; enter shows it)")
	h.press("enter")
	h.requireView("1 +// Code generated by stringer; DO NOT EDIT.")
	h.press("}")
	h.requireView("(large file collapsed: +2001 -2001 in 1 hunks; enter shows it)")
	h.press("enter")
	h.requireView("1 -old")
	h.press("enter")
	h.requireView("(large file collapsed")
}

// reviewFake is a fake service whose review features are scripted and recorded.
type reviewFake struct {
	*fakeService
	mu       sync.Mutex
	comments []core.CommentRequest
	sent     []string
	files    map[string][]byte
	preview  core.CherryPickPreview
}

var _ core.Service = (*reviewFake)(nil)

func (r *reviewFake) Comment(ctx context.Context, req core.CommentRequest) (core.ReviewComment, error) {
	r.mu.Lock()
	r.comments = append(r.comments, req)
	r.mu.Unlock()
	r.fakeService.mu.Lock()
	defer r.fakeService.mu.Unlock()
	d := r.details[req.TaskID]
	c := core.ReviewComment{ID: fmt.Sprintf("c%d", len(d.Comments)+1), Path: req.Path, Line: req.Line, Side: req.Side, Body: req.Body, Hunk: req.Hunk, Status: core.CommentOpen}
	if req.ID != "" {
		for i := range d.Comments {
			if d.Comments[i].ID == req.ID {
				if req.Delete {
					d.Comments = append(d.Comments[:i], d.Comments[i+1:]...)
				} else {
					d.Comments[i].Body = req.Body
					c = d.Comments[i]
				}
				break
			}
		}
	} else {
		d.Comments = append(d.Comments, c)
	}
	r.details[req.TaskID] = d
	return c, nil
}

func (r *reviewFake) SendComments(ctx context.Context, id string) (core.TaskView, error) {
	r.mu.Lock()
	r.sent = append(r.sent, id)
	r.mu.Unlock()
	r.fakeService.mu.Lock()
	defer r.fakeService.mu.Unlock()
	r.tasks[0].State, r.tasks[0].RepairRounds = core.StateRunning, 1
	return r.tasks[0], nil
}

func (r *reviewFake) ReviewFile(ctx context.Context, id, path string) ([]byte, error) {
	return r.files[path], nil
}

func (r *reviewFake) CherryPickPreview(ctx context.Context, id string) (core.CherryPickPreview, error) {
	return r.preview, nil
}

func newReviewHarness(t *testing.T, r *reviewFake, w, hgt int, out *bytes.Buffer) *harness {
	t.Helper()
	clk := &clock{t: epoch}
	opts := Options{StateDir: "/state", WorkerVersion: "1.38.11", Now: clk.Now, Dir: "/src/app"}
	if out != nil {
		opts.Output = out
	}
	m := newModel(context.Background(), r, opts)
	h := &harness{t: t, m: m, svc: r.fakeService, clk: clk}
	h.send(tea.WindowSizeMsg{Width: w, Height: hgt})
	h.run(m.Init())
	return h
}

func TestCommentsAreMadeEditedDeletedAndSentAsOneRepair(t *testing.T) {
	r := &reviewFake{fakeService: scenario(), preview: core.CherryPickPreview{Source: "/src/app", Head: "89abcdef0123", Of: "review_tree", Clean: false, Conflicts: []string{"internal/auth/login.go"}}}
	h := newReviewHarness(t, r, 120, 40, nil)
	h.press("2", "]") // the first hunk: the selection is its first changed line
	h.requireView("›11    -        return nil", "apply the change conflicts with /src/app", "revision 2 · conflicts with HEAD")
	h.press("J", "c")
	h.requireView("Comment on internal/auth/login.go:11", "│ +        return ErrEmptyUser")
	h.typeText("Wrap the error with the user name.")
	h.press("enter")
	want := core.CommentRequest{TaskID: "login-fix", Path: "internal/auth/login.go", Line: 11, Side: core.SideNew,
		Body: "Wrap the error with the user name.",
		Hunk: []string{"@@ -10,7 +10,8 @@ func Login(user string) error {", "     if user == \"\" {", "-        return nil", "+        return ErrEmptyUser", "     }", "+    audit(user)", "     return check(user)"}}
	if len(r.comments) != 1 || !reflect.DeepEqual(r.comments[0], want) {
		t.Fatalf("comment request:\n got %+v\nwant %+v", r.comments, want)
	}
	h.requireView("saved comment c1 on internal/auth/login.go:11", "internal/auth/login.go +3 -2 ●1", "11●+")
	// The selected line's comment is read where the position was.
	h.requireView("file 1/2 · hunk 1/2 · ● line 11: Wrap the error with the user… · revision 2")
	// A removed line is commented on the old side.
	h.press("K", "c")
	h.requireView("Comment on internal/auth/login.go:11 (removed line)")
	h.typeText("why?")
	h.press("enter")
	if got := r.comments[1]; got.Side != core.SideOld || got.Line != 11 {
		t.Fatalf("old-side comment: %+v", got)
	}
	// c on a commented line edits it; ctrl+d in the dialog deletes it.
	h.press("c")
	h.requireView("Edit the comment on internal/auth/login.go:11", "why?")
	h.press("ctrl+d")
	if got := r.comments[2]; got.ID != "c2" || !got.Delete {
		t.Fatalf("delete: %+v", got)
	}
	h.press("C")
	h.requireView("Send 1 comment(s) as repair round 1/2?", "internal/auth/login.go:11 Wrap the error with the user name.")
	h.press("y")
	if len(r.sent) != 1 || r.sent[0] != "login-fix" {
		t.Fatalf("sent: %v", r.sent)
	}
	h.requireView("sent the comments as repair round 1/2")
}

func TestCopyWritesOSC52(t *testing.T) {
	if got, want := osc52("git cherry-pick abc"), "\x1b]52;c;Z2l0IGNoZXJyeS1waWNrIGFiYw==\a"; got != want {
		t.Fatalf("osc52 %q, want %q", got, want)
	}
	var out bytes.Buffer
	r := &reviewFake{fakeService: scenario()}
	h := newReviewHarness(t, r, 120, 40, &out)
	h.press("2", "}", "y")
	if want := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte("internal/auth/login_test.go")) + "\a"; out.String() != want {
		t.Fatalf("wrote %q, want %q", out.String(), want)
	}
	h.requireView("copied the path: internal/auth/login_test.go")
	// After a commit, y in its notice (and outside the diff view) copies the cherry-pick line.
	out.Reset()
	line := "git cherry-pick 0123456789abcdef0123456789abcdef01234567"
	h.stack().push(commitNotice("login-fix", "0123456789abcdef0123456789abcdef01234567", "reasonix/login-fix", line), h.clk.t)
	h.press("y")
	if want := osc52(line); out.String() != want {
		t.Fatalf("wrote %q, want %q", out.String(), want)
	}
	h.requireView("copied the cherry-pick line: " + line)
}

func TestEditorCommandTakesTheLineWhereItCan(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	for _, tc := range []struct {
		env  map[string]string
		want []string
	}{
		{map[string]string{"EDITOR": "vim"}, []string{"vim", "+12", "/t/a.go"}},
		{map[string]string{"EDITOR": "code -n"}, []string{"code", "-n", "--wait", "--goto", "/t/a.go:12"}},
		{map[string]string{"EDITOR": "hx"}, []string{"hx", "/t/a.go:12"}},
		{map[string]string{"EDITOR": "ed"}, []string{"ed", "/t/a.go"}},
		{map[string]string{"PAGER": "less -R"}, []string{"less", "-R", "+12", "/t/a.go"}},
		{map[string]string{}, []string{"less", "+12", "/t/a.go"}},
	} {
		if got := editorCommand(env(tc.env), "/t/a.go", 12).Args; !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v: %q, want %q", tc.env, got, tc.want)
		}
	}
}

func TestEditorGetsAReadOnlyCopyThatIsRemoved(t *testing.T) {
	r := &reviewFake{fakeService: scenario(), files: map[string][]byte{"internal/auth/login.go": []byte("package auth\n")}}
	h := newReviewHarness(t, r, 120, 40, nil)
	h.press("2", "]", "J")
	cmd := h.m.handleKey(keyMsg("e"), true)
	msg, ok := cmd().(editorFileMsg)
	if !ok || msg.path != "internal/auth/login.go" || msg.line != 11 || string(msg.data) != "package auth\n" {
		t.Fatalf("editor file: %+v", msg)
	}
	dir, file, err := readOnlyCopy(msg.path, msg.data)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(file)
	if err != nil || st.Mode().Perm() != 0o400 || filepath.Base(file) != "login.go" {
		t.Fatalf("copy %s: %v %v", file, st.Mode(), err)
	}
	h.send(editorDoneMsg{dir: dir, path: msg.path})
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("temporary copy left behind: %v", err)
	}
	h.requireView("closed the read-only copy of internal/auth/login.go")
}

func TestATaskThatChangedNothingOffersClose(t *testing.T) {
	f := scenario()
	d := f.details["login-fix"]
	d.Diff, d.ChangedFiles = "", nil
	f.details["login-fix"] = d
	h := newHarness(t, f, 80, 24)
	h.press("2")
	h.requireView("the worker changed nothing: there is no commit to make.")
	h.press("F")
	h.requireView("Nothing to finalize in login-fix")
	h.press("y")
	h.requireControls(core.Close{TaskID: "login-fix"})
}

func TestFinalizeFormEditsTheCommitMessageAndShowsThePreview(t *testing.T) {
	r := &reviewFake{fakeService: scenario(), preview: core.CherryPickPreview{Source: "/src/app", Head: "89abcdef0123", Of: "review_tree", Clean: true, Moved: true}}
	f := r.fakeService
	d := f.details["login-fix"]
	d.Criteria = nil
	f.details["login-fix"] = d
	h := newReviewHarness(t, r, 120, 40, nil)
	h.press("2", "v", "}", "v", "F")
	h.requireView("commit login-fix: Return ErrEmptyUser from Login", "the change applies cleanly to /src/app HEAD 89abcdef01 (moved since the task started)")
	h.typeText("ok")
	h.press("tab")
	for range len("login-fix: Return ErrEmptyUser from Login when the user name is empty, w") {
		h.press("backspace")
	}
	h.typeText("auth: reject empty users")
	h.press("enter")
	rev := 2
	h.requireControls(core.Finalize{TaskID: "login-fix", ReviewSummary: "ok",
		ApprovedReviewCriteria: []string{}, ExpectedReviewRevision: &rev, ExpectedReviewTreeHash: treeHash,
		CommitMessage: "auth: reject empty users", Authority: core.Authority{Cwd: "/src/app", Writable: true}})
}

func TestContractViewKeepsTheReviewSummaryAndComments(t *testing.T) {
	f := scenario()
	d := f.details["login-fix"]
	d.ReviewSummary = "Checked the empty-user path."
	d.Comments = []core.ReviewComment{{ID: "c1", Status: core.CommentOutdated, Path: "internal/auth/login.go", Line: 11, Revision: 1, Body: "Wrap the error."}}
	f.details["login-fix"] = d
	h := newHarness(t, f, 120, 40)
	h.press("3")
	h.requireView("Review summary", "Checked the empty-user path.", "Review comments", "c1 outdated internal/auth/login.go:11 (revision 1): Wrap the error.")
	// The events view shows the review events, one line each.
	h.press("1")
	h.send(ev("login-fix", 11, core.EventReviewComment, d.Comments[0]))
	h.send(ev("login-fix", 12, core.EventReviewSummary, core.ReviewSummaryData{Summary: "Checked it.", ReviewRevision: 2}))
	h.requireView("review outdated c1 on internal/auth/login.go:11: Wrap the error.", "review summary of revision 2: Checked it.")
}

func TestRemovedLinesPairWithTheMostSimilarAddedLine(t *testing.T) {
	doc := parseReviewDiff("diff --git a/g.go b/g.go\n--- a/g.go\n+++ b/g.go\n@@ -1,3 +1,6 @@\n func Hello(name string) string {\n" +
		"-\treturn fmt.Sprintf(\"Hello %s\", name)\n+\tif name == \"\" {\n+\t\tname = \"world\"\n+\t}\n+\treturn fmt.Sprintf(\"Hello, %s!\", name)\n }\n")
	f := doc.files[0]
	del := f.lines[3]
	if del.kind != '-' || del.pair != 7 || f.lines[7].pair != 3 {
		t.Fatalf("pairs: %+v", f.lines)
	}
	for _, i := range []int{4, 5, 6} {
		if f.lines[i].pair != -1 {
			t.Fatalf("line %d paired: %+v", i, f.lines[i])
		}
	}
	// Side by side, the pair shares a row; the added lines before it stand alone.
	rows, _ := doc.rows(0)
	want := []sbsRow{{0, 0}, {1, 1}, {2, 2}, {-1, 4}, {-1, 5}, {-1, 6}, {3, 7}, {8, 8}}
	if !reflect.DeepEqual(rows, want) {
		t.Fatalf("rows %v, want %v", rows, want)
	}
}

func TestEveryLexerCompilesAndTokenises(t *testing.T) {
	samples := map[string]string{
		"a.go": "func F() error { return fmt.Errorf(\"x %d\", 1) } // c", "README.md": "# T\n\n- **b** `c` [d](e)\n```go\nx\n```\n",
		"a.json": `{"k": [1, true, null]}`, "a.yaml": "k: v # c\n- 1", "a.toml": "[s]\nk = \"v\"", "a.sh": "if [ -n \"$X\" ]; then echo hi; fi",
		"a.py": "def f(x):\n    \"\"\"doc\"\"\"\n    return None", "a.ts": "const x: number = await f(`t`);", "a.rs": "fn main() { let s = String::new(); }",
		"a.c": "#include <x.h>\nint main(void) { return 0; }", "Makefile": "all: build\n\tgo build $(FLAGS)",
	}
	for name, text := range samples {
		lx := lexerByName(name)
		if lx == nil {
			t.Fatalf("%s: no lexer", name)
		}
		lines := tokenLines(lx, text+"\n", strings.Count(text, "\n")+1)
		var got strings.Builder
		kinds := map[string]bool{}
		for _, l := range lines {
			for _, s := range l {
				got.WriteString(s.text)
				kinds[s.tt.Category().String()] = true
			}
		}
		if got.String() != strings.ReplaceAll(text, "\n", "") {
			t.Fatalf("%s: tokens spell %q", name, got.String())
		}
		if len(kinds) < 2 {
			t.Fatalf("%s: only %v", name, kinds)
		}
	}
	if lexerByName("notes.txt") != nil {
		t.Fatal("plain text got a lexer")
	}
	// Go: the keyword, the function and the string are told apart.
	segs := tokenLines(lexerByName("a.go"), "return fmt.Errorf(\"x\")\n", 1)[0]
	types := map[string]chroma.TokenType{}
	for _, s := range segs {
		types[s.text] = s.tt
	}
	if types["return"] != chroma.Keyword || types["Errorf"] != chroma.NameFunction || types[`"x"`] != chroma.LiteralString {
		t.Fatalf("go tokens: %v", segs)
	}
}

func TestAMinifiedLineIsDrawnPlainAndFast(t *testing.T) {
	long := strings.Repeat(`a_b*c_"d`, 50000)
	doc := parseReviewDiff("diff --git a/m.md b/m.md\n--- a/m.md\n+++ b/m.md\n@@ -1 +1 @@\n-x\n+" + long + "\n")
	c := doc.highlight(0, 0, len(doc.files[0].lines), false)
	if segs := c.segs[3]; len(segs) != 1 || segs[0].text != long {
		t.Fatalf("long line: %d segments", len(segs))
	}
}
