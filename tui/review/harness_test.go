package review

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"reasonixctl/core"
	"reasonixctl/tui/bind"
	"reasonixctl/tui/intent"
	"reasonixctl/tui/term"
)

var epoch = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

func TestMain(m *testing.M) {
	// Goldens and assertions compare plain text: no colour codes, whatever the terminal.
	lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
	os.Exit(m.Run())
}

// sampleDiff is the login-fix task's change: two hunks of a Go file and a new test file.
const sampleDiff = `diff --git a/internal/auth/login.go b/internal/auth/login.go
index 1111111..2222222 100644
--- a/internal/auth/login.go
+++ b/internal/auth/login.go
@@ -10,7 +10,8 @@ func Login(user string) error {
 	if user == "" {
-		return nil
+		return ErrEmptyUser
 	}
+	audit(user)
 	return check(user)
 }
 
@@ -40,6 +41,6 @@ func check(user string) error {
 	// look the user up
-	u := find(user)
+	u := lookup(user)
 	return u.err
 }
diff --git a/internal/auth/login_test.go b/internal/auth/login_test.go
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/internal/auth/login_test.go
@@ -0,0 +1,5 @@
+package auth
+
+func TestEmptyUser(t *testing.T) {
+	if Login("") != ErrEmptyUser { t.Fatal("want ErrEmptyUser") }
+}
`

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

// wideComments are a comment of each kind on wideDiff: open (line 15), sent in round 1 and still
// open (line 11), outdated (line 9).
var wideComments = []core.ReviewComment{
	{ID: "c1", Path: "internal/auth/login.go", Line: 9, Side: core.SideNew, Body: "Name the error.", Status: core.CommentOutdated, Revision: 1},
	{ID: "c2", Path: "internal/auth/login.go", Line: 11, Side: core.SideNew, Body: "Wrap the error with the user name.", Status: core.CommentOpen, Revision: 2, SentRound: 1},
	{ID: "c3", Path: "internal/auth/login.go", Line: 15, Side: core.SideNew, Body: "Audit after the check.", Status: core.CommentOpen, Revision: 2},
}

// loginFix is the login-fix task in review with diff as its change.
func loginFix(diff string) core.TaskDetail {
	return core.TaskDetail{
		View: core.TaskView{TaskID: "login-fix", State: core.StateReviewRequired, Phase: "codex_review",
			ReviewRevision: 2, ReviewTreeHash: "4a7748752d0e678809fc033f586028da8e82c3c6"},
		Repository: "/src/app", Objective: "Return ErrEmptyUser from Login when the user name is empty, with a test.",
		Diff: diff, ChangedFiles: []string{"internal/auth/login.go", "internal/auth/login_test.go"},
	}
}

// fakeService answers the review's calls from a detail it keeps, and records them.
type fakeService struct {
	mu       sync.Mutex
	detail   core.TaskDetail
	comments []core.CommentRequest
	sent     []string
	files    map[string][]byte
	preview  core.CherryPickPreview
	previews int
}

func (f *fakeService) Comment(_ context.Context, req core.CommentRequest) (core.ReviewComment, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.comments = append(f.comments, req)
	d := &f.detail
	c := core.ReviewComment{ID: fmt.Sprintf("c%d", len(d.Comments)+1), Path: req.Path, Line: req.Line, Side: req.Side, Body: req.Body, Hunk: req.Hunk, Status: core.CommentOpen}
	if req.ID == "" {
		d.Comments = append(d.Comments, c)
		return c, nil
	}
	for i := range d.Comments {
		if d.Comments[i].ID == req.ID {
			if req.Delete {
				c = d.Comments[i]
				d.Comments = append(d.Comments[:i:i], d.Comments[i+1:]...)
			} else {
				d.Comments[i].Body = req.Body
				c = d.Comments[i]
			}
			break
		}
	}
	return c, nil
}

func (f *fakeService) SendComments(_ context.Context, id string) (core.TaskView, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent = append(f.sent, id)
	f.detail.View.State, f.detail.View.RepairRounds = core.StateRunning, 1
	return f.detail.View, nil
}

func (f *fakeService) ReviewFile(_ context.Context, _, path string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if b, ok := f.files[path]; ok {
		return b, nil
	}
	return nil, core.Errorf(core.CodeInvalidRequest, nil, "no file %s in the review tree", path)
}

func (f *fakeService) CherryPickPreview(context.Context, string) (core.CherryPickPreview, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.previews++
	return f.preview, nil
}

// harness drives a Review as the root does: it places it, hands it keys and the results of its
// commands, reloads the detail when asked, and keeps what the review asked for.
type harness struct {
	t      testing.TB
	r      Review
	svc    *fakeService
	place  Place
	clk    time.Time
	status *Status
	opened []Dialog
	failed []Failure
	done   []intent.Action
	passed []string // keys handed on to the dashboard
}

func newHarness(t testing.TB, d core.TaskDetail, w, h int) *harness {
	t.Helper()
	svc := &fakeService{detail: d, preview: core.CherryPickPreview{Source: "/src/app", Head: "89abcdef0123", Of: "review_tree", Clean: true}}
	hs := &harness{t: t, svc: svc, clk: epoch}
	hs.r = New(Config{Service: svc, Context: context.Background(), Theme: term.DefaultTheme(), Keys: bind.DefaultKeyMap(),
		Now: func() time.Time { return hs.clk }})
	hs.place = Place{Task: d.View, Screen: w, Width: w, Height: h}
	hs.load()
	return hs
}

// load gives the review the task's detail as the engine has it now, or as d when given.
func (h *harness) load(d ...core.TaskDetail) {
	h.svc.mu.Lock()
	if len(d) > 0 {
		h.svc.detail = d[0]
	}
	detail := h.svc.detail
	h.svc.mu.Unlock()
	h.send(Loaded{TaskID: detail.View.TaskID, Detail: detail})
}

// resize places the tab on a terminal w columns wide, in a pane w by hgt.
func (h *harness) resize(w, hgt int) { h.place.Screen, h.place.Width, h.place.Height = w, w, hgt }

func (h *harness) send(msgs ...tea.Msg) {
	h.t.Helper()
	queue := append([]tea.Msg(nil), msgs...)
	for n := 0; len(queue) > 0; n++ {
		if n > 1000 {
			h.t.Fatal("message loop does not settle")
		}
		msg := queue[0]
		queue = queue[1:]
		r, cmd, res := h.r.In(h.place).Update(msg)
		h.r = r
		if k, ok := msg.(tea.KeyMsg); ok && res.Pass {
			h.passed = append(h.passed, k.String())
		}
		if res.View != nil {
			h.place.Task = *res.View
		}
		if res.Status != nil {
			h.status = res.Status
		}
		if res.Open != nil {
			h.opened = append(h.opened, res.Open)
		}
		if res.Failed != nil {
			h.failed = append(h.failed, *res.Failed)
		}
		if res.Do != nil {
			h.done = append(h.done, res.Do)
		}
		queue = append(queue, runCmd(cmd)...)
		if res.Reload != "" {
			h.svc.mu.Lock()
			d := h.svc.detail
			h.svc.mu.Unlock()
			queue = append(queue, Loaded{TaskID: d.View.TaskID, Detail: d})
		}
	}
}

// runCmd runs cmd as a program would and returns the review's messages it gave; a process to
// run (the editor) is not run.
func runCmd(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			out = append(out, runCmd(c)...)
		}
		return out
	case Message:
		return []tea.Msg{msg}
	}
	return nil
}

func keyMsg(k string) tea.KeyMsg {
	named := map[string]tea.KeyType{
		"enter": tea.KeyEnter, "esc": tea.KeyEsc, "ctrl+d": tea.KeyCtrlD, "ctrl+u": tea.KeyCtrlU, "pgdown": tea.KeyPgDown,
		"pgup": tea.KeyPgUp, "home": tea.KeyHome, "end": tea.KeyEnd, "backspace": tea.KeyBackspace,
		"left": tea.KeyLeft, "right": tea.KeyRight, "ctrl+c": tea.KeyCtrlC,
	}
	if t, ok := named[k]; ok {
		return tea.KeyMsg{Type: t}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

func (h *harness) press(keys ...string) {
	h.t.Helper()
	for _, k := range keys {
		h.send(keyMsg(k))
	}
}

func (h *harness) typeText(s string) {
	h.t.Helper()
	for _, r := range s {
		h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

// dialogKey gives keys to the last dialog the review opened, and carries out what it asks.
func (h *harness) dialogKey(keys ...string) {
	h.t.Helper()
	d := h.opened[len(h.opened)-1]
	for _, k := range keys {
		res := d.Update(keyMsg(k), bind.DefaultKeyMap())
		if res.Do != nil {
			h.send(res.Do)
		}
	}
}

func (h *harness) view() string {
	return h.r.In(h.place).View(h.place.Width, h.place.Height)
}

// rv is the task's review as the tab keeps it.
func (h *harness) rv() *taskReview { return h.r.tasks[h.place.Task.TaskID] }

// selected is the selected line of the file on screen.
func (h *harness) selected() diffLine {
	rv := h.rv()
	return rv.diff.files[rv.diffCur.file].lines[rv.sel]
}

// requireView checks that the tab shows each text, however it was wrapped or spaced.
func (h *harness) requireView(want ...string) {
	h.t.Helper()
	v := h.view()
	flat := flatten(v)
	for _, w := range want {
		if !strings.Contains(flat, flatten(w)) {
			h.t.Fatalf("view lacks %q:\n%s", w, v)
		}
	}
}

// flatten drops the side-by-side divider and collapses whitespace.
func flatten(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "│", " ")), " ")
}

func (h *harness) requireStatus(want string) {
	h.t.Helper()
	if h.status == nil || !strings.Contains(h.status.Text, want) {
		h.t.Fatalf("status %+v, want %q", h.status, want)
	}
}

// dialogType types s into the last dialog the review opened.
func (h *harness) dialogType(s string) {
	h.t.Helper()
	for _, r := range s {
		h.dialogKey(string(r))
	}
}

// dialogView is the last opened dialog's body and keys.
func (h *harness) dialogView() string {
	body, keys := h.opened[len(h.opened)-1].View(term.DefaultTheme(), bind.DefaultKeyMap(), 90)
	return body + "\n" + keys
}

// wideDetail is the login-fix task with wideDiff and a comment of each kind.
func wideDetail() core.TaskDetail {
	d := loginFix(wideDiff)
	d.Comments = append([]core.ReviewComment(nil), wideComments...)
	return d
}
