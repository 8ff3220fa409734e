package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"reasonixctl/core"
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
	h.requireView("/lookup█", "1/1", "›   42 +    u := lookup(user)")
	h.press("enter")
	if h.m.capturing() {
		t.Fatal("still capturing after enter")
	}
	h.requireView("/lookup  1/1 · n/N next/previous · esc clears")
	h.press("esc")
	h.requireNotInView("/lookup")
	// Across files: "test" is in the second; n goes on round to it again.
	h.press("/")
	h.typeText("test")
	h.press("enter")
	h.press("n")
	h.requireView("/test  2/2 · n/N next/previous", "file 2/2")
	// esc while typing goes back to where the search began: the screen is as it was.
	h.press("esc")
	before := h.view()
	h.press("/", "q", "z", "W", "c", "n")
	h.requireView("/qzWcn█", "no match")
	h.press("esc")
	if after := h.view(); after != before {
		t.Fatalf("esc did not go back:\n%s\nwas\n%s", after, before)
	}
	for _, d := range h.stack().all() {
		if _, ok := d.(*promptDialog); !ok {
			t.Fatalf("a key typed into the search opened %T", d)
		}
	}
}

func reviewScenario2() *reviewFake { return &reviewFake{fakeService: scenario()} }

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
