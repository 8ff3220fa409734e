package review

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"

	"reasonixctl/core"
	"reasonixctl/tui/bind"
	"reasonixctl/tui/intent"
)

// The panes below are those the dashboard gives the tab: 120×27 on a 120×40 terminal, 80×16
// on 80×24.

func TestSideBySideNeedsAWideTerminal(t *testing.T) {
	h := newHarness(t, loginFix(reviewDiff), 120, 27)
	h.press("w")
	h.requireStatus("side by side needs a terminal at least 160 columns wide; this one is 120")
	if h.r.sideBySide {
		t.Fatal("w chose side by side on a terminal too narrow for it")
	}
	h.resize(200, 43)
	h.press("w")
	h.requireView("-        return nil", "│", "+        return ErrEmptyUser")
	// Each side numbers its own file.
	h.requireView(`15      return check(user, "login") │ 16      return check(user, "login")`)
	h.resize(150, 43)
	h.requireView("side by side needs ≥160 columns")

	// A page starting at an added line still draws the removed line it pairs with.
	h = newHarness(t, loginFix(bigDiff(400)), 200, 43)
	h.press("w")
	h.rv().diffCur = diffCursor{0, 6}
	h.requireView(`4 -        return fmt.Errorf("find %s: %w", user, err) // 0`, `4 +        return fmt.Errorf("lookup %q: %w", user, err) // 0`)
}

// w turns side by side off on a terminal too narrow for it: it stayed chosen after a resize,
// and w only repeated that it needs 160 columns.
func TestSideBySideTurnsOffBelowItsWidth(t *testing.T) {
	h := newHarness(t, loginFix(reviewDiff), 200, 43)
	h.press("w")
	if !h.r.SideBySide(200) {
		t.Fatal("w at 200 columns did not show side by side")
	}
	h.resize(120, 27)
	if !h.r.sideBySide || h.r.SideBySide(120) {
		t.Fatal("at 120 columns side by side should be chosen but not shown")
	}
	h.status = nil
	h.press("w")
	if h.r.sideBySide || h.status != nil {
		t.Fatalf("side by side is still chosen after w (%+v):\n%s", h.status, h.view())
	}
	if strings.Contains(h.view(), "side by side needs") {
		t.Fatalf("the view still says side by side needs a wider terminal:\n%s", h.view())
	}
	h.resize(200, 43)
	if h.r.SideBySide(200) {
		t.Fatal("side by side came back at 200 columns after being turned off")
	}
	// Turning it on below its width is still refused, with the reason.
	h.resize(120, 27)
	h.press("w")
	h.requireStatus("side by side needs a terminal at least 160 columns wide; this one is 120")
}

func TestLongLinesWrapOrScrollAndTheChoiceStays(t *testing.T) {
	h := newHarness(t, wideDetail(), 100, 23)
	h.requireView(`return fmt.Errorf("login of %q refused`, "…")
	h.press("W")
	// Wrapped: the rest of the line follows on rows marked ↪ in the gutter.
	h.requireView("↪", "ErrEmptyUser)")
	// The choice is the session's: another task's diff wraps too.
	other := loginFix(wideDiff)
	other.View.TaskID = "other"
	h.send(Loaded{TaskID: "other", Detail: other})
	login := h.place.Task
	h.place.Task = other.View
	h.requireView("↪", "ErrEmptyUser)")
	h.place.Task = login
	// W goes back; ←/→ scroll the code sideways.
	h.press("W", "l", "l")
	h.requireView("column 17")
	h.press("h", "h")
	if h.rv().xoff != 0 {
		t.Fatalf("xoff %d after h h", h.rv().xoff)
	}
	// With wrap on, ←/→ say why they do nothing.
	h.press("W", "l")
	h.requireStatus("long lines wrap: W scrolls them sideways instead")
	if h.rv().xoff != 0 {
		t.Fatalf("l scrolled wrapped lines to %d", h.rv().xoff)
	}
}

// The selected line is held by file, side and line number, so shrinking the pane and growing it
// back leaves it where it was and c comments that line.
func TestSelectionSurvivesAResize(t *testing.T) {
	h := newHarness(t, loginFix(sampleDiff), 120, 27)
	h.press("]", "J", "J", "J") // + audit(user), new line 13
	if l := h.selected(); l.kind != '+' || l.newNo != 13 {
		t.Fatalf("selected %+v, want the added line 13", l)
	}
	h.resize(60, 8) // a 60×16 terminal
	h.view()
	if l := h.selected(); l.kind != '+' || l.newNo != 13 {
		t.Fatalf("at 60×8 the selection moved to %+v", l)
	}
	h.requireView("›")
	h.resize(120, 27)
	h.view()
	h.press("c")
	if v := h.dialogView(); !strings.Contains(v, "Comment on internal/auth/login.go:13") {
		t.Fatalf("comment dialog:\n%s", v)
	}
	h.dialogType("Audit after the check.")
	h.dialogKey("enter")
	if c := h.svc.comments; len(c) != 1 || c[0].Line != 13 || c[0].Side != core.SideNew {
		t.Fatalf("comment request %+v, want new line 13", c)
	}
}

// A new diff keeps the selection on the same file, side and line number, and on the nearest
// line of that side when the number is gone.
func TestSelectionFollowsItsLineAcrossARevision(t *testing.T) {
	h := newHarness(t, wideDetail(), 120, 27)
	h.press("{", "J", "J", "J") // + audit(…), new line 15
	if l := h.selected(); l.newNo != 15 || l.kind != '+' {
		t.Fatalf("selected %+v", l)
	}
	// README.md comes first now; the selection stays in login.go, at new line 15.
	nd := *h.rv().detail
	at := strings.Index(wideDiff, "diff --git a/README.md")
	nd.Diff = wideDiff[at:] + wideDiff[:at]
	h.send(Loaded{TaskID: "login-fix", Detail: nd})
	rv := h.rv()
	if name := rv.diff.files[rv.diffCur.file].name; name != "internal/auth/login.go" {
		t.Fatalf("the selection left its file for %s", name)
	}
	if l := h.selected(); l.newNo != 15 || l.kind != '+' {
		t.Fatalf("after the reload the selection is on %+v", l)
	}
	// A revision where the file's diff stops at line 3: the nearest new line is 3.
	nd.Diff = "diff --git a/internal/auth/login.go b/internal/auth/login.go\n--- a/internal/auth/login.go\n+++ b/internal/auth/login.go\n@@ -1,2 +1,3 @@\n package auth\n+// Login logs in.\n import \"errors\"\n"
	h.send(Loaded{TaskID: "login-fix", Detail: nd})
	if l := h.selected(); l.newNo != 3 {
		t.Fatalf("the nearest line to 15 is %+v", l)
	}
	h.view()
	if l := h.selected(); l.newNo != 3 {
		t.Fatalf("drawing moved the selection to %+v", l)
	}
}

// With lines wrapped, the last page and the selection's page show the file's last line, unified
// and side by side (in the panes a 200×24 terminal gives each).
func TestWrappedPagesReachTheEnd(t *testing.T) {
	for _, sc := range []struct {
		keys []string
		w, h int
	}{{[]string{"W"}, 135, 20}, {[]string{"w", "W"}, 200, 16}} {
		h := newHarness(t, loginFix(longDiff(300)), 200, sc.h)
		h.place.Width = sc.w
		h.press(sc.keys...)
		h.press("G")
		rv := h.rv()
		file := &rv.diff.files[rv.diffCur.file]
		last := file.lines[len(file.lines)-1]
		if v := h.view(); !strings.Contains(v, fmt.Sprintf("%d", last.newNo)) || !strings.Contains(v, "↪") {
			t.Fatalf("%v: the last page lacks line %d or a wrapped row:\n%s", sc.keys, last.newNo, v)
		}
		for range len(file.lines) {
			h.press("J")
		}
		if rv.sel != len(file.lines)-1 {
			t.Fatalf("%v: J stopped at line %d of %d", sc.keys, rv.sel, len(file.lines))
		}
		r := h.r.In(h.place)
		top := r.shownTop(rv)
		if end := r.pageEnd(rv.diff, rv.diffCur.file, top, r.diffBodyHeight(rv)); rv.sel < top || rv.sel >= end {
			t.Fatalf("%v: the selected last line %d is off the page [%d, %d)", sc.keys, rv.sel, top, end)
		}
	}
}

// While the search line is open every key is text, even those that are commands elsewhere; the
// selection goes to the first match, esc while typing goes back to where the search began.
func TestDiffSearchTakesTypedTextAndGoesBack(t *testing.T) {
	h := newHarness(t, loginFix(sampleDiff), 120, 27)
	h.press("/")
	if !h.r.In(h.place).Capturing() {
		t.Fatal("the diff's search line does not capture keys")
	}
	h.typeText("lookup")
	h.requireView("/lookup█", "1/1")
	if l := h.selected(); !strings.Contains(l.text, "lookup(user)") {
		t.Fatalf("search selected %+v", l)
	}
	h.press("enter")
	if h.r.In(h.place).Capturing() {
		t.Fatal("still capturing after enter")
	}
	h.requireView("/lookup  1/1 · n/N next/previous · esc clears")
	h.press("esc")
	if h.rv().search.shown() {
		t.Fatal("esc left the search")
	}
	// Across files: n goes round the matches.
	h.press("/")
	h.typeText("test")
	h.press("enter")
	if h.rv().search.cur < 0 || h.rv().diffCur.file != 1 {
		t.Fatalf("search for test: %+v at %+v", h.rv().search, h.rv().diffCur)
	}
	cur := h.rv().search.cur
	h.press("n")
	if s := h.rv().search; s.cur != (cur+1)%len(s.matches) {
		t.Fatalf("n went from match %d to %d of %d", cur, s.cur, len(s.matches))
	}
	// esc while typing goes back to where the search began.
	h.press("/")
	before, at := h.rv().sel, h.rv().diffCur
	h.typeText("qzWcn")
	h.requireView("/qzWcn█", "no match")
	h.press("esc")
	if rv := h.rv(); rv.sel != before || rv.diffCur != at || rv.search.shown() {
		t.Fatalf("esc did not go back: sel %d at %+v (was %d at %+v)", rv.sel, rv.diffCur, before, at)
	}
	if len(h.passed) != 0 || len(h.opened) != 0 {
		t.Fatalf("keys typed into the search were handed on (%v) or opened %d dialogs", h.passed, len(h.opened))
	}
	// ctrl+c is not text: it goes on to the dashboard, which asks to quit.
	h.press("/", "ctrl+c")
	if len(h.passed) != 1 {
		t.Fatalf("ctrl+c in the search line: handed on %v", h.passed)
	}
}

// A match past the pane's right edge scrolls the code sideways into view, and n back to one
// at the start of a line scrolls back.
func TestDiffSearchScrollsTheMatchIntoView(t *testing.T) {
	h := newHarness(t, wideDetail(), 80, 16)
	h.press("/")
	h.typeText("directory")
	h.press("enter")
	h.requireView("reaches the directory")
	if h.rv().xoff == 0 {
		t.Fatal("the code did not scroll")
	}
	h.press("esc", "/")
	h.typeText("func login")
	h.press("enter")
	h.requireView("func Login(user string) error {")
	if x := h.rv().xoff; x != 0 {
		t.Fatalf("scrolled from column %d for a match at the start of its line", x+1)
	}
}

func TestDiffPagingByHunkAndFile(t *testing.T) {
	h := newHarness(t, loginFix(sampleDiff), 120, 27)
	// The first changed line is selected, so the position names its hunk.
	h.requireView("file 1/2 · hunk 1/2 · 0/2 reviewed", "internal/auth/login.go +3 -2")
	at := func(file, top int) {
		t.Helper()
		if f, tp := h.r.Position("login-fix"); f != file || tp != top {
			t.Fatalf("at file %d line %d, want %d %d", f, tp, file, top)
		}
	}
	h.press("]")
	at(0, 1)
	h.press("]")
	at(0, 10)
	h.requireView("hunk 2/2")
	h.press("]") // past the last hunk: the next file's first hunk
	at(1, 1)
	h.requireView("file 2/2", "+package auth")
	h.press("[") // back across the file boundary to the previous file's last hunk
	at(0, 10)
	h.press("v", "}", "v")
	h.requireView("2/2 reviewed", "› ✓ internal/auth/login_test.go")
	h.requireStatus("internal/auth/login_test.go marked reviewed · 2/2 files reviewed")
	if u := h.r.Unreviewed("login-fix"); len(u) != 0 {
		t.Fatalf("unreviewed %v", u)
	}
	h.press("{")
	if f, _ := h.r.Position("login-fix"); f != 0 {
		t.Fatalf("previous file: %d", f)
	}
	h.press("pgdown") // a short file cannot scroll past its end
	at(0, 0)
	h.press("v")
	if u := h.r.Unreviewed("login-fix"); !reflect.DeepEqual(u, []string{"internal/auth/login.go"}) {
		t.Fatalf("unreviewed %v", u)
	}
	// A new revision starts with no file marked reviewed.
	d := *h.rv().detail
	d.View.ReviewRevision++
	h.send(Loaded{TaskID: "login-fix", Detail: d})
	if u := h.r.Unreviewed("login-fix"); len(u) != 2 {
		t.Fatalf("unreviewed in a new revision %v", u)
	}
}

func TestDiffPageDownInALongFile(t *testing.T) {
	var b strings.Builder
	b.WriteString("diff --git a/big.txt b/big.txt\n--- a/big.txt\n+++ b/big.txt\n@@ -1,100 +1,100 @@\n")
	for i := 0; i < 100; i++ {
		b.WriteString("+line\n")
	}
	h := newHarness(t, loginFix(b.String()), 80, 16)
	h.press("pgdown")
	page := h.place.Height - 2
	if _, top := h.r.Position("login-fix"); top != page {
		t.Fatalf("page down: top %d, want %d", top, page)
	}
	h.press("pgup", "pgup")
	if _, top := h.r.Position("login-fix"); top != 0 {
		t.Fatalf("page up: top %d", top)
	}
	h.press("G")
	body := h.r.In(h.place).diffBodyHeight(h.rv())
	if _, top := h.r.Position("login-fix"); top != 102-body {
		t.Fatalf("end: top %d with body %d", top, body)
	}
}

// The full help's Diff group and the footer's words are the tab's table.
func TestHelpAndFooterComeFromTheTable(t *testing.T) {
	h := newHarness(t, loginFix(sampleDiff), 120, 27)
	k := bind.DefaultKeyMap()
	want := []key.Binding{k.NextHunk, k.PrevHunk, k.NextFile, k.PrevFile, k.Reviewed, k.LineDown, k.LineUp,
		k.OpenFile, k.SideBySide, k.Wrap, k.ScrollLeft, k.ScrollRight, k.HideFiles, k.Comment, k.SendComments, k.Copy, k.Editor}
	got := h.r.Help()
	if got.Title != "Diff" || len(got.Bindings) != len(want) {
		t.Fatalf("help group %q has %d keys, the key map's %d", got.Title, len(got.Bindings), len(want))
	}
	for i := range want {
		if got.Bindings[i].Help() != want[i].Help() || !reflect.DeepEqual(got.Bindings[i].Keys(), want[i].Keys()) {
			t.Errorf("help %d: %+v, want %+v", i, got.Bindings[i].Help(), want[i].Help())
		}
	}
	var words []string
	for _, b := range h.r.Footer() {
		words = append(words, b.Help().Key+" "+b.Help().Desc)
	}
	if w := []string{"] hunk", "}/. file", "v reviewed", "/ search", "W wrap", "z files"}; !reflect.DeepEqual(words, w) {
		t.Fatalf("footer %q, want %q", words, w)
	}
}

// Without a diff the tab's keys are the dashboard's (n starts a task, y copies the cherry-pick
// line), but the layout choices still switch; with one, y copies the file's path.
func TestKeysWithoutADiffAreHandedOn(t *testing.T) {
	h := newHarness(t, loginFix(""), 120, 27)
	h.requireView("no review diff yet (the task is review_required)")
	h.press("]", "n", "y", "/", "c", "e", "J", "enter")
	if want := []string{"]", "n", "y", "/", "c", "e", "J", "enter"}; !reflect.DeepEqual(h.passed, want) {
		t.Fatalf("handed on %v, want %v", h.passed, want)
	}
	h.press("W", "z")
	if len(h.passed) != 8 || !h.r.wrap || !h.r.hideFiles {
		t.Fatalf("W and z: handed on %v, wrap %v, files hidden %v", h.passed, h.r.wrap, h.r.hideFiles)
	}

	h = newHarness(t, loginFix(sampleDiff), 120, 27)
	h.press("n", "N", "esc") // no search kept: n is the dashboard's new task
	if want := []string{"n", "N", "esc"}; !reflect.DeepEqual(h.passed, want) {
		t.Fatalf("handed on %v, want %v", h.passed, want)
	}
	h.press("}", "y")
	if want := []intent.Action{intent.Copy{Text: "internal/auth/login_test.go", What: "the path"}}; !reflect.DeepEqual(h.done, want) {
		t.Fatalf("y asked %+v", h.done)
	}
}

// A task the dashboard no longer knows leaves nothing behind.
func TestForgetDropsATasksReview(t *testing.T) {
	h := newHarness(t, loginFix(sampleDiff), 120, 27)
	h.press("v")
	h.send(Forget{TaskID: "login-fix"})
	if h.r.tasks["login-fix"] != nil || h.r.Unreviewed("login-fix") != nil {
		t.Fatal("the review of a forgotten task is kept")
	}
}
