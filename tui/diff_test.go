package tui

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"reasonixctl/core"
)

// reviewDiff (tui/review/testdata/review.diff) has what a reader meets: Go and Markdown
// changes, a binary file, a mode change, a deleted file and a generated one.
var reviewDiff = func() string {
	b, err := os.ReadFile(filepath.Join("review", "testdata", "review.diff"))
	if err != nil {
		panic(err)
	}
	return string(b)
}()

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
