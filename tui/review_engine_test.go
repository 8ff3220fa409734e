package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
	"reasonixctl/core/doctor"
	"reasonixctl/core/engine"
)

func lines20(change map[int]string) string {
	var b strings.Builder
	for i := 1; i <= 20; i++ {
		if s, ok := change[i]; ok {
			b.WriteString(s + "\n")
			continue
		}
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// Two comments made with keys go back as one repair; the worker's repair changes the line of
// one of them, which the next revision marks outdated while the other stays open.
func TestCommentsSentByKeysAndOutdatedByTheRepair(t *testing.T) {
	repo := gitRepo(t)
	scn := &acptest.Scenario{Name: "tui-comments",
		Turns: []acptest.Turn{{Steps: []acptest.Step{
			{Text: "Writing the result.", Chunks: 1},
			{Write: &acptest.WriteFile{Path: "result.txt", Content: lines20(nil)}},
		}}},
		After: &acptest.Turn{Steps: []acptest.Step{
			{Write: &acptest.WriteFile{Path: "result.txt", Content: lines20(map[int]string{3: "line three"})}},
			{Text: "Spelled it out.", Chunks: 1},
		}},
	}
	e, err := engine.Open(engine.Config{
		StateDir: filepath.Join(t.TempDir(), "state"), Mode: "tui", PermissionMode: core.PermissionSupervised,
		AllowUnsandboxed: !doctor.SandboxAvailable(),
		Worker: engine.PipeWorker(func(ctx context.Context, r io.Reader, w io.Writer) error {
			return acptest.Serve(ctx, r, w, acptest.Options{Scenario: scn})
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	if _, err := e.Delegate(context.Background(), core.DelegateRequest{
		TaskID: "commented", Contract: json.RawMessage(engineContract), WaitMode: "background",
		Authority: core.Authority{Cwd: repo, Writable: true},
	}); err != nil {
		t.Fatal(err)
	}
	h := newLiveHarness(t, e, repo)
	h.waitView("review_required")
	h.press("2")
	h.waitView("result.txt")
	h.press("]", "J", "J", "c") // line 3
	h.requireView("Comment on result.txt:3")
	h.typeText("Spell the number out.")
	h.press("enter")
	for range 15 {
		h.press("J")
	}
	h.press("c") // line 18
	h.requireView("Comment on result.txt:18")
	h.typeText("Keep this line.")
	h.press("enter")
	h.requireView("result.txt +20 -0 ●2")
	h.press("C")
	h.requireView("Send 2 comment(s) as repair round 1/2?")
	h.press("y", "1")
	h.waitView("review ready: revision 2")
	h.waitView("review sent 2 comment(s) as repair round 1: c1, c2", "review outdated c1 on result.txt:3: Spell the number out.")
	h.press("2")
	h.send(tea.KeyMsg{Type: tea.KeyCtrlR})
	h.waitView("result.txt +20 -0 ●1")

	d, err := e.Get(context.Background(), "commented")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range d.Comments {
		got[c.ID] = c.Status
	}
	if got["c1"] != core.CommentOutdated || got["c2"] != core.CommentOpen || d.View.RepairRounds != 1 {
		t.Fatalf("comments %v, repair rounds %d", got, d.View.RepairRounds)
	}
}
