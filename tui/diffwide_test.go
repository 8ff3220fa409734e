package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"reasonixctl/core"
	"reasonixctl/tui/term"
)

// wideDiff has lines longer than a pane at ordinary widths.
const wideDiff = `diff --git a/internal/auth/login.go b/internal/auth/login.go
index 1111111..2222222 100644
--- a/internal/auth/login.go
+++ b/internal/auth/login.go
@@ -8,9 +8,10 @@ import "errors"
 // ErrEmptyUser is returned for an empty user name.
 var ErrEmptyUser = errors.New("empty user")
 
 func Login(user string) error {
 	if user == "" {
-		return nil
+		return fmt.Errorf("login of %q refused: the user name is empty, and an empty name never reaches the directory: %w", user, ErrEmptyUser)
 	}
+	audit(user) /* before the check, so that every attempt is in the audit log whether or not it passes the check below */
 	return check(user, "login")
 }
diff --git a/README.md b/README.md
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/README.md
@@ -0,0 +1,2 @@
+# Login
+Login rejects an empty user.
`

// wideScenario is the login-fix task in review with wideDiff and a comment of each kind:
// open (line 15), sent in round 1 and still open (line 11), outdated (line 9).
func wideScenario() *reviewFake {
	f := scenario()
	d := f.details["login-fix"]
	d.Diff = wideDiff
	d.Comments = []core.ReviewComment{
		{ID: "c1", Path: "internal/auth/login.go", Line: 9, Side: core.SideNew, Body: "Name the error.", Status: core.CommentOutdated, Revision: 1},
		{ID: "c2", Path: "internal/auth/login.go", Line: 11, Side: core.SideNew, Body: "Wrap the error with the user name.", Status: core.CommentOpen, Revision: 2, SentRound: 1},
		{ID: "c3", Path: "internal/auth/login.go", Line: 15, Side: core.SideNew, Body: "Audit after the check.", Status: core.CommentOpen, Revision: 2},
	}
	f.details["login-fix"] = d
	return &reviewFake{fakeService: f, preview: core.CherryPickPreview{Source: "/src/app", Head: "89abcdef0123", Of: "review_tree", Clean: true}}
}

// TestGoldenDiffAtOrdinaryWidths pins the diff at 80×24 and 100×30: a long line wrapped, one
// scrolled sideways, the file list hidden, and the gutter marks of open, sent and outdated
// comments.
func TestGoldenDiffAtOrdinaryWidths(t *testing.T) {
	scenes := []struct {
		name string
		keys []string
	}{
		{"wrapped", []string{"2", "W", "J"}},
		{"scrolled", []string{"2", "J", "l", "l", "l", "l"}},
		{"files_hidden", []string{"2", "z", "J", "J", "J"}},
		{"comment_marks", []string{"2", "J", "J", "J"}},
	}
	for _, size := range [][2]int{{80, 24}, {100, 30}} {
		for _, sc := range scenes {
			t.Run(fmt.Sprintf("%s_%dx%d", sc.name, size[0], size[1]), func(t *testing.T) {
				h := newReviewHarness(t, wideScenario(), size[0], size[1], nil)
				h.press(sc.keys...)
				golden.RequireEqual(t, []byte(h.view()))
			})
		}
	}
}

func TestLongLinesWrapOrScrollAndTheChoiceStays(t *testing.T) {
	h := newReviewHarness(t, wideScenario(), 100, 30, nil)
	h.press("2")
	h.requireView(`return fmt.Errorf("login of %q refused`, "…")
	h.press("W")
	// Wrapped: the rest of the line follows on rows marked ↪ in the gutter.
	h.requireView("↪", "ErrEmptyUser)")
	// The choice is the session's: another task's diff wraps too, and W goes back.
	if !h.m.review.wrap {
		t.Fatal("wrap is off after W")
	}
	h.press("W", "l", "l")
	h.requireView("column 17")
	h.press("h", "h")
	if h.task("login-fix").rv.xoff != 0 {
		t.Fatalf("xoff %d after h h", h.task("login-fix").rv.xoff)
	}
	// With wrap on, ←/→ say why they do nothing.
	h.press("W", "l")
	h.requireView("long lines wrap: W scrolls them sideways instead")
}

func TestTheFileListHidesToGiveTheCodeTheWidth(t *testing.T) {
	h := newReviewHarness(t, wideScenario(), 120, 40, nil)
	h.press("2")
	h.requireView("README.md +2 -0")
	h.press("z")
	if strings.Contains(h.view(), "README.md +2 -0") {
		t.Fatal("the file list is still shown after z")
	}
	h.press("z")
	h.requireView("README.md +2 -0")
}

func TestCommentMarksAndCOffersOnlyUnsentComments(t *testing.T) {
	h := newReviewHarness(t, wideScenario(), 120, 40, nil)
	h.press("2")
	v := h.view()
	for _, want := range []string{" 9○", "11◉", "15●"} {
		if !strings.Contains(v, want) {
			t.Fatalf("the view lacks the gutter mark %q:\n%s", want, v)
		}
	}
	h.press("K", "K") // line 11: the sent comment
	h.requireView("◉ line 11 (sent in round 1): Wrap")
	h.press("C")
	h.requireView("Send 1 comment(s) as repair round 1/2?", "internal/auth/login.go:15  Audit after the check.")
	if strings.Contains(h.view(), "Wrap the error with the user name") {
		t.Fatalf("the comment sent in round 1 is offered again:\n%s", h.view())
	}
	h.press("n")

	// A sent comment edited since is new to the worker: C offers it again.
	h.press("c")
	h.requireView("Edit the comment on internal/auth/login.go:11")
	h.typeText(" With %q.")
	h.press("enter")
	h.requireView("● line 11 (sent in round 1, edited")
	h.press("C")
	h.requireView("Send 2 comment(s) as repair round 1/2?", "internal/auth/login.go:11  Wrap the error with the user name. With %q.")
	h.press("n")

	// With every open comment sent, C sends nothing again and says when they went.
	r := wideScenario()
	d := r.details["login-fix"]
	d.Comments[2].SentRound = 1
	r.details["login-fix"] = d
	h = newReviewHarness(t, r, 120, 40, nil)
	h.press("2", "C")
	h.requireView("no new comments to send: the 2 open comment(s) were sent in round 1")
	if len(h.stack().all()) != 0 {
		t.Fatal("C opened a dialog with nothing new to send")
	}
}

// TestSelectionSurvivesAResize: the selected line is held by file, side and line number, so
// shrinking the window and growing it back leaves it where it was and c comments that line.
func TestSelectionSurvivesAResize(t *testing.T) {
	r := &reviewFake{fakeService: scenario()}
	h := newReviewHarness(t, r, 120, 40, nil)
	h.press("2", "]", "J", "J", "J") // + audit(user), new line 13
	sel := func() diffLine {
		ti := h.task("login-fix")
		return ti.rv.diff.files[ti.rv.diffCur.file].lines[ti.rv.sel]
	}
	if l := sel(); l.kind != '+' || l.newNo != 13 {
		t.Fatalf("selected %+v, want the added line 13", l)
	}
	h.send(tea.WindowSizeMsg{Width: 60, Height: 16})
	h.view()
	if l := sel(); l.kind != '+' || l.newNo != 13 {
		t.Fatalf("at 60×16 the selection moved to %+v", l)
	}
	h.requireView("›")
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	h.view()
	h.press("c")
	h.requireView("Comment on internal/auth/login.go:13")
	h.typeText("Audit after the check.")
	h.press("enter")
	if len(r.comments) != 1 || r.comments[0].Line != 13 || r.comments[0].Side != core.SideNew {
		t.Fatalf("comment request %+v, want new line 13", r.comments)
	}
}

// TestSelectionFollowsItsLineAcrossARevision: a new diff keeps the selection on the same file,
// side and line number, and on the nearest line of that side when the number is gone.
func TestSelectionFollowsItsLineAcrossARevision(t *testing.T) {
	h := newReviewHarness(t, wideScenario(), 120, 40, nil)
	h.press("}", "2", "{", "J", "J", "J") // + audit(…), new line 15
	ti := h.task("login-fix")
	sel := func() diffLine { return ti.rv.diff.files[ti.rv.diffCur.file].lines[ti.rv.sel] }
	if l := sel(); l.newNo != 15 || l.kind != '+' {
		t.Fatalf("selected %+v", l)
	}
	// README.md comes first now; the selection stays in login.go, at new line 15.
	nd := *ti.detail
	readme := wideDiff[strings.Index(wideDiff, "diff --git a/README.md"):]
	nd.Diff = readme + wideDiff[:strings.Index(wideDiff, "diff --git a/README.md")]
	ti.rv.load(nd)
	if ti.rv.diff.files[ti.rv.diffCur.file].name != "internal/auth/login.go" {
		t.Fatalf("the selection left its file for %s", ti.rv.diff.files[ti.rv.diffCur.file].name)
	}
	if l := sel(); l.newNo != 15 || l.kind != '+' {
		t.Fatalf("after the reload the selection is on %+v", l)
	}
	// A revision where the file's diff stops at line 3: the nearest new line is 3.
	nd.Diff = "diff --git a/internal/auth/login.go b/internal/auth/login.go\n--- a/internal/auth/login.go\n+++ b/internal/auth/login.go\n@@ -1,2 +1,3 @@\n package auth\n+// Login logs in.\n import \"errors\"\n"
	ti.rv.load(nd)
	if l := sel(); l.newNo != 3 {
		t.Fatalf("the nearest line to 15 is %+v", l)
	}
	h.view()
	if l := sel(); l.newNo != 3 {
		t.Fatalf("drawing moved the selection to %+v", l)
	}
}

func TestDiffSearchCapturesTypedText(t *testing.T) {
	h := newReviewHarness(t, reviewScenario2(), 120, 40, nil)
	h.press("2", "/")
	if !h.m.capturing() {
		t.Fatal("the diff's search line does not capture keys")
	}
	// A request that arrives meanwhile waits: no prompt opens over the search line.
	h.send(ev("docs-typo", 7, core.EventInteractionWaiting, permissionIA("ia-1")))
	if len(h.stack().all()) != 0 {
		t.Fatal("a prompt opened over the diff's search line")
	}
	// Letters that are commands elsewhere (q quits, c comments, n starts a task) are text.
	h.press("l", "o", "o", "k", "u", "p")
	h.requireView("/lookup█", "1/1")
	ti := h.task("login-fix")
	if l := ti.rv.diff.files[ti.rv.diffCur.file].lines[ti.rv.sel]; !strings.Contains(l.text, "lookup(user)") {
		t.Fatalf("search selected %+v", l)
	}
	h.press("enter")
	if h.m.capturing() {
		t.Fatal("still capturing after enter")
	}
	h.requireView("/lookup  1/1 · n/N next/previous · esc clears")
	h.press("esc")
	if ti.rv.search.shown() {
		t.Fatal("esc left the search")
	}
	// Across files: "user" is in both; n goes on into the next file and round.
	h.press("/")
	h.typeText("test")
	h.press("enter")
	first := ti.rv.diffCur.file
	h.press("n")
	if ti.rv.search.cur < 0 {
		t.Fatal("n found nothing")
	}
	_ = first
	// esc while typing goes back to where the search began.
	h.press("/")
	before := ti.rv.sel
	h.press("q", "z", "W", "c", "n")
	h.requireView("/qzWcn█", "no match")
	h.press("esc")
	if ti.rv.sel != before || ti.rv.search.shown() {
		t.Fatalf("esc did not go back: sel %d (was %d)", ti.rv.sel, before)
	}
	for _, d := range h.stack().all() {
		if _, ok := d.(*promptDialog); !ok {
			t.Fatalf("a key typed into the search opened %T", d)
		}
	}
}

func reviewScenario2() *reviewFake { return &reviewFake{fakeService: scenario()} }

// TestWrappedPagesReachTheEnd: with lines wrapped, the last page and the selection's page show
// the file's last line, unified and side by side.
func TestWrappedPagesReachTheEnd(t *testing.T) {
	for _, keys := range [][]string{{"2", "W"}, {"2", "w", "W"}} {
		f := scenario()
		d := f.details["login-fix"]
		d.Diff = longDiff(300)
		f.details["login-fix"] = d
		h := newHarness(t, f, 200, 24)
		h.press(keys...)
		h.press("G")
		ti := h.task("login-fix")
		file := &ti.rv.diff.files[ti.rv.diffCur.file]
		last := file.lines[len(file.lines)-1]
		if v := h.view(); !strings.Contains(v, fmt.Sprintf("%d", last.newNo)) || !strings.Contains(v, "↪") {
			t.Fatalf("%v: the last page lacks line %d or a wrapped row:\n%s", keys, last.newNo, v)
		}
		for range len(file.lines) {
			h.press("J")
		}
		if ti.rv.sel != len(file.lines)-1 {
			t.Fatalf("%v: J stopped at line %d of %d", keys, ti.rv.sel, len(file.lines))
		}
		top := h.m.shownTop(ti)
		if end := h.m.pageEnd(ti.rv.diff, ti.rv.diffCur.file, top, h.m.diffBodyHeight()); ti.rv.sel < top || ti.rv.sel >= end {
			t.Fatalf("%v: the selected last line %d is off the page [%d, %d)", keys, ti.rv.sel, top, end)
		}
	}
}

// TestSearchMarksTheQueryInTheLine: the query is drawn on its own background where it occurs,
// across syntax tokens and word emphasis.
func TestSearchMarksTheQueryInTheLine(t *testing.T) {
	lipgloss.SetColorProfile(termenv.ANSI256)
	t.Cleanup(func() { lipgloss.SetColorProfile(termenv.Ascii) })
	st := newDiffStyles(term.DefaultTheme(), false, true)
	segs := []seg{{text: "u := ", tt: chroma.Text}, {text: "lookup", tt: chroma.NameFunction}, {text: "(user)", tt: chroma.Punctuation}}
	rows := st.codeRows(segs, nil, []span{{7, 13}}, bgAdd, 40, 0, false)
	m := st.style(chroma.Text, bgMatch)
	if !strings.Contains(rows[0], m.pre+"okup"+m.post) || !strings.Contains(rows[0], m.pre+"(u"+m.post) {
		t.Fatalf("the match is not marked: %q", rows[0])
	}
	// Wrapped at 6 cells: the mark carries over the row break.
	rows = st.codeRows(segs, nil, []span{{7, 13}}, bgAdd, 6, 0, true)
	if len(rows) != 3 || !strings.Contains(rows[1], m.pre) || !strings.Contains(rows[2], m.pre) {
		t.Fatalf("wrapped rows %q", rows)
	}
}

// C says why the comments cannot go back now: a task that used its repair rounds, or one that
// is not in review (a steer would reach its running turn, not start a round).
func TestSendCommentsOutsideARepairRound(t *testing.T) {
	for _, tc := range []struct {
		state  core.State
		rounds int
		want   string
	}{
		{core.StateReviewRequired, core.MaxRepairRounds, "login-fix used its 2 repair rounds: finalize it or close it"},
		{core.StateRunning, 0, "comments go back as a repair round, which starts from review; login-fix is running"},
	} {
		r := wideScenario()
		r.tasks[0].State, r.tasks[0].RepairRounds = tc.state, tc.rounds
		h := newReviewHarness(t, r, 120, 40, nil)
		h.press("2", "C")
		h.requireView(tc.want)
		if len(h.stack().all()) != 0 || len(r.sent) != 0 {
			t.Fatalf("%s: C opened a dialog or sent comments", tc.state)
		}
	}
}
