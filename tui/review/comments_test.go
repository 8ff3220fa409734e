package review

import (
	"reflect"
	"strings"
	"testing"

	"reasonixctl/core"
)

// A comment is anchored at its side and line with the lines it quotes, saved through the
// engine, marked in the gutter and the file list, read in the position line, edited, deleted,
// and sent with the other open ones as one repair round.
func TestCommentsAreMadeEditedDeletedAndSent(t *testing.T) {
	h := newHarness(t, loginFix(sampleDiff), 120, 27)
	h.press("]", "J", "c") // + return ErrEmptyUser, new line 11
	if v := h.dialogView(); !strings.Contains(v, "Comment on internal/auth/login.go:11") || !strings.Contains(v, "│ +        return ErrEmptyUser") {
		t.Fatalf("comment dialog:\n%s", v)
	}
	h.dialogType("Wrap the error with the user name.")
	h.dialogKey("enter")
	want := core.CommentRequest{TaskID: "login-fix", Path: "internal/auth/login.go", Line: 11, Side: core.SideNew,
		Body: "Wrap the error with the user name.",
		Hunk: []string{"@@ -10,7 +10,8 @@ func Login(user string) error {", "     if user == \"\" {", "-        return nil", "+        return ErrEmptyUser", "     }", "+    audit(user)", "     return check(user)"}}
	if len(h.svc.comments) != 1 || !reflect.DeepEqual(h.svc.comments[0], want) {
		t.Fatalf("comment request:\n got %+v\nwant %+v", h.svc.comments, want)
	}
	h.requireStatus("saved comment c1 on internal/auth/login.go:11 (C sends the open comments as one repair)")
	h.requireView("internal/auth/login.go +3 -2 ●1", "11●+", "● line 11: Wrap the error with the user… · revision 2")

	// A removed line is commented on the old side.
	h.press("K", "c")
	if v := h.dialogView(); !strings.Contains(v, "Comment on internal/auth/login.go:11 (removed line)") {
		t.Fatalf("comment dialog:\n%s", v)
	}
	h.dialogType("why?")
	h.dialogKey("enter")
	if got := h.svc.comments[1]; got.Side != core.SideOld || got.Line != 11 {
		t.Fatalf("old-side comment: %+v", got)
	}
	// c on a commented line edits it; ctrl+d in the dialog deletes it.
	h.press("c")
	if v := h.dialogView(); !strings.Contains(v, "Edit the comment on internal/auth/login.go:11") || !strings.Contains(v, "why?") {
		t.Fatalf("edit dialog:\n%s", v)
	}
	h.dialogKey("ctrl+d")
	if got := h.svc.comments[2]; got.ID != "c2" || !got.Delete {
		t.Fatalf("delete: %+v", got)
	}
	h.requireStatus("deleted comment c2")

	h.press("C")
	if v := h.dialogView(); !strings.Contains(v, "Send 1 comment(s) as repair round 1/2?") || !strings.Contains(v, "internal/auth/login.go:11  Wrap the error with the user name.") {
		t.Fatalf("send dialog:\n%s", v)
	}
	h.dialogKey("y")
	if !reflect.DeepEqual(h.svc.sent, []string{"login-fix"}) {
		t.Fatalf("sent: %v", h.svc.sent)
	}
	h.requireStatus("sent the comments as repair round 1/2: login-fix is running")
	if h.place.Task.State != core.StateRunning {
		t.Fatalf("the task list was not given the task as the engine has it: %+v", h.place.Task)
	}
	// A task no longer in review takes no new comment.
	h.press("J", "J", "c")
	h.requireStatus("comments go on a task in review; login-fix is running")
	if !h.status.Err {
		t.Fatal("a comment on a running task is not an error")
	}
}

// The gutter marks open, sent and outdated comments; C offers only the comments the worker has
// not seen, an edited sent one among them.
func TestCommentMarksAndCOffersOnlyUnsentComments(t *testing.T) {
	h := newHarness(t, wideDetail(), 120, 27)
	v := h.view()
	for _, want := range []string{" 9○", "11◉", "15●"} {
		if !strings.Contains(v, want) {
			t.Fatalf("the view lacks the gutter mark %q:\n%s", want, v)
		}
	}
	h.press("K", "K") // line 11: the sent comment
	h.requireView("◉ line 11 (sent in round 1): Wrap")
	h.press("C")
	if v := h.dialogView(); !strings.Contains(v, "Send 1 comment(s) as repair round 1/2?") || strings.Contains(v, "Wrap the error") {
		t.Fatalf("send dialog:\n%s", v)
	}
	// A sent comment edited since is new to the worker: C offers it again.
	h.press("c")
	h.dialogType(" With %q.")
	h.dialogKey("enter")
	h.requireView("● line 11 (sent in round 1, edited")
	h.press("C")
	if v := h.dialogView(); !strings.Contains(v, "Send 2 comment(s) as repair round 1/2?") ||
		!strings.Contains(v, "internal/auth/login.go:11  Wrap the error with the user name. With %q.") {
		t.Fatalf("send dialog:\n%s", v)
	}

	// With every open comment sent, C sends nothing again and says when they went.
	d := wideDetail()
	d.Comments[2].SentRound = 1
	h = newHarness(t, d, 120, 27)
	h.press("C")
	h.requireStatus("no new comments to send: the 2 open comment(s) were sent in round 1")
	if len(h.opened) != 0 {
		t.Fatal("C opened a dialog with nothing new to send")
	}
	// A task that used its repair rounds cannot send them: an error, with core's reason.
	d.View.RepairRounds = core.MaxRepairRounds
	h = newHarness(t, d, 120, 27)
	h.press("C")
	h.requireStatus("login-fix used its 2 repair rounds: finalize it or close it")
	if !h.status.Err || len(h.opened) != 0 {
		t.Fatalf("C after the last round: %+v, %d dialogs", h.status, len(h.opened))
	}
}
