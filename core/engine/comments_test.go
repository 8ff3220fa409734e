package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
)

const commentContract = `{
  "schema_version": 1,
  "objective": "Write result.txt and notes.md",
  "user_outcome": "both files exist",
  "write_scope": ["result.txt", "notes.md"],
  "acceptance_criteria": [
    {"id": "result", "requirement": "result.txt exists", "evidence": "automated"},
    {"id": "looks-right", "requirement": "the change looks right", "evidence": "review"}
  ],
  "verification": [{"id": "check", "argv": ["test", "-f", "result.txt"], "proves": ["result"]}]
}`

func numbered(prefix string, n int, change map[int]string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if s, ok := change[i]; ok {
			b.WriteString(s + "\n")
			continue
		}
		fmt.Fprintf(&b, "%s%d\n", prefix, i)
	}
	return b.String()
}

// window is the quoted lines of a new file's comment: the hunk header and lines from..to.
func window(prefix string, total, from, to int) []string {
	out := []string{fmt.Sprintf("@@ -0,0 +1,%d @@", total)}
	for i := from; i <= to; i++ {
		out = append(out, fmt.Sprintf("+%s%d", prefix, i))
	}
	return out
}

// TestCommentsGoBackAsOneRepairAndOutdateWhatChanged comments three lines of two files, sends
// them as one repair, and lets the repair change one commented line: that comment is outdated
// in the next revision, the others stay open, and all of it survives a restart.
func TestCommentsGoBackAsOneRepairAndOutdateWhatChanged(t *testing.T) {
	scn := &acptest.Scenario{
		Turns: []acptest.Turn{{Steps: []acptest.Step{
			{Write: &acptest.WriteFile{Path: "result.txt", Content: numbered("line ", 20, nil)}},
			{Write: &acptest.WriteFile{Path: "notes.md", Content: "# Notes\n\nfirst\n"}},
		}}},
		After: &acptest.Turn{Steps: []acptest.Step{
			{Write: &acptest.WriteFile{Path: "result.txt", Content: numbered("line ", 20, map[int]string{3: "line three"})}},
		}},
	}
	h := newHarness(t, scn, func(c *Config) { c.PermissionMode = core.PermissionAutomatic; c.AllowUnsandboxed = true })
	res, err := h.delegate("cmt", func(r *core.DelegateRequest) { r.Contract = json.RawMessage(commentContract) })
	if err != nil || res.State != core.StateReviewRequired {
		t.Fatalf("delegate: %v %+v", err, res.TaskView)
	}
	ctx := context.Background()
	add := func(req core.CommentRequest) core.ReviewComment {
		t.Helper()
		req.TaskID = "cmt"
		c, err := h.e.Comment(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	late := add(core.CommentRequest{Path: "result.txt", Line: 18, Side: core.SideNew, Body: "keep this one", Hunk: window("line ", 20, 15, 20)})
	notes := add(core.CommentRequest{Path: "notes.md", Line: 3, Side: core.SideNew, Body: "typo", Hunk: []string{"@@ -0,0 +1,3 @@", "+# Notes", "+", "+first"}})
	early := add(core.CommentRequest{Path: "result.txt", Line: 3, Side: core.SideNew, Body: "spell the number out", Hunk: window("line ", 20, 1, 6)})
	gone := add(core.CommentRequest{Path: "notes.md", Line: 1, Side: core.SideNew, Body: "never mind"})
	if _, err := h.e.Comment(ctx, core.CommentRequest{TaskID: "cmt", ID: notes.ID, Body: "say \"First\", capitalised"}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.e.Comment(ctx, core.CommentRequest{TaskID: "cmt", ID: gone.ID, Delete: true}); err != nil {
		t.Fatal(err)
	}
	_, err = h.e.Comment(ctx, core.CommentRequest{TaskID: "cmt", Path: "elsewhere.txt", Line: 1, Side: core.SideNew, Body: "x"})
	mustCode(t, err, core.CodeInvalidRequest)
	_, err = h.e.Comment(ctx, core.CommentRequest{TaskID: "cmt", Path: "notes.md", Line: 0, Side: "left", Body: ""})
	if ce := mustCode(t, err, core.CodeInvalidRequest); len(ce.Details["issues"].([]core.Issue)) != 3 {
		t.Fatalf("issues: %+v", ce.Details)
	}

	v, err := h.e.SendComments(ctx, "cmt")
	if err != nil || v.RepairRounds != 1 || v.State != core.StateRunning {
		t.Fatalf("send: %v %+v", err, v)
	}
	want := `The reviewer left 3 comment(s) on the diff. Address each one; change nothing else.

1. notes.md:3
   > @@ -0,0 +1,3 @@
   > +# Notes
   > +
   > +first
   say "First", capitalised

2. result.txt:3
   > @@ -0,0 +1,20 @@
   > +line 1
   > +line 2
   > +line 3
   > +line 4
   > +line 5
   > +line 6
   spell the number out

3. result.txt:18
   > @@ -0,0 +1,20 @@
   > +line 15
   > +line 16
   > +line 17
   > +line 18
   > +line 19
   > +line 20
   keep this one`
	if r, _, err := h.e.waitFor(ctx, "cmt", 30*time.Second, func(r *taskRecord) bool { return r.State == core.StateReviewRequired }); err != nil || r.ReviewRevision != 2 {
		t.Fatalf("repair did not come back for review: %v", err)
	}
	var steered []string
	var sent []core.CommentsSentData
	var outdatedEvents int
	for _, ev := range h.journal("cmt") {
		switch ev.Type {
		case core.EventSteered:
			var d core.TextData
			_ = json.Unmarshal(ev.Data, &d)
			steered = append(steered, d.Text)
		case core.EventReviewCommentsSent:
			var d core.CommentsSentData
			_ = json.Unmarshal(ev.Data, &d)
			sent = append(sent, d)
		case core.EventReviewComment:
			var c core.ReviewComment
			_ = json.Unmarshal(ev.Data, &c)
			if c.Status == core.CommentOutdated {
				outdatedEvents++
			}
		}
	}
	if len(steered) != 1 || steered[0] != want {
		t.Fatalf("steer message:\n%s\nwant:\n%s", strings.Join(steered, "\n---\n"), want)
	}
	if len(sent) != 1 || sent[0].RepairRound != 1 || strings.Join(sent[0].CommentIDs, ",") != notes.ID+","+early.ID+","+late.ID {
		t.Fatalf("sent: %+v", sent)
	}
	if outdatedEvents != 1 {
		t.Fatalf("%d outdated events, want 1", outdatedEvents)
	}

	check := func(e *Engine) {
		t.Helper()
		d, err := e.Get(ctx, "cmt")
		if err != nil {
			t.Fatal(err)
		}
		status := map[string]string{}
		for _, c := range d.Comments {
			status[c.ID] = c.Status + fmt.Sprintf("@%d/%d", c.Line, c.SentRound)
		}
		wantStatus := map[string]string{late.ID: "open@18/1", notes.ID: "open@3/1", early.ID: "outdated@3/1"}
		if fmt.Sprint(status) != fmt.Sprint(wantStatus) {
			t.Fatalf("comments after the repair: %v, want %v", status, wantStatus)
		}
	}
	check(h.e)
	// The journal keeps them across a restart.
	h.e.Close()
	e2, err := Open(Config{StateDir: h.state, Mode: "test", Worker: inProcessWorker(scn), AllowUnsandboxed: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e2.Close() })
	check(e2)
	// Only open comments are sent again.
	if msg := CommentsMessage(mustGet(t, e2, "cmt").Comments); strings.Contains(msg, "spell the number out") || !strings.Contains(msg, "2 comment(s)") {
		t.Fatalf("second message:\n%s", msg)
	}
	// What the worker has seen is not sent again: with both open comments sent in round 1,
	// nothing goes until one is edited, which makes it new.
	_, err = e2.SendComments(ctx, "cmt")
	if ce := mustCode(t, err, core.CodeInvalidRequest); !strings.Contains(ce.Message, "were all sent before") {
		t.Fatalf("second send: %v", err)
	}
	edited, err := e2.Comment(ctx, core.CommentRequest{TaskID: "cmt", ID: late.ID, Body: "keep this one, and say why"})
	if err != nil || edited.SentRound != 0 {
		t.Fatalf("edited comment: %+v %v", edited, err)
	}
}

func mustGet(t *testing.T, e *Engine, id string) core.TaskDetail {
	t.Helper()
	d, err := e.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// journal reads a task's whole journal.
func (h *harness) journal(id string) []core.Event {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	last, _ := h.e.store.LastSeq(id)
	sub, err := h.e.Subscribe(ctx, core.SubscribeOptions{TaskID: id, FromSeq: 1})
	if err != nil {
		h.t.Fatal(err)
	}
	var out []core.Event
	for ev := range sub.C {
		out = append(out, ev)
		if ev.Seq >= last {
			break
		}
	}
	return out
}

// The preview follows the task from review to commit, and names the conflicting path once the
// source checkout commits its own version of the task's file.
func TestCherryPickPreviewFromReviewToCommit(t *testing.T) {
	h := newHarness(t, nil)
	res, err := h.delegate("preview")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p, err := h.e.CherryPickPreview(ctx, "preview")
	if err != nil || !p.Clean || p.Moved || p.Of != "review_tree" || p.Change != res.ReviewTreeHash {
		t.Fatalf("in review: %+v %v", p, err)
	}
	v, err := h.finalize(res.TaskView, "looks-right")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.repo, "result.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, h.repo, "add", "result.txt")
	git(t, h.repo, "commit", "-q", "-m", "the source's own result")
	fp := sourceFingerprint(t, h.repo)
	p, err = h.e.CherryPickPreview(ctx, "preview")
	if err != nil || p.Clean || !p.Moved || p.Of != "commit" || p.Change != v.CommitHash || strings.Join(p.Conflicts, ",") != "result.txt" {
		t.Fatalf("after commit, against a conflicting HEAD: %+v %v", p, err)
	}
	if got := sourceFingerprint(t, h.repo); got != fp {
		t.Fatalf("the preview changed the source checkout:\n%s\n%s", fp, got)
	}
}
