package tui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
)

// R in a permission prompt for a command the policy asks about allows it and asks for a
// standing grant; for any other request it answers nothing and says why.
func TestPromptAllowForTheRepository(t *testing.T) {
	h := newHarness(t, scenario(), 100, 30)
	h.send(ev("docs-typo", 7, core.EventInteractionWaiting, permissionIA("ia-1")))
	h.press("i")
	h.clk.advance(time.Second)
	h.requireView("R allow for repo")
	h.press("R")
	h.requireControls(core.ControlRequest{TaskID: "docs-typo", Action: core.ActionRespond, InteractionID: "ia-1", Decision: core.DecisionAllow, Grant: true})

	edit := permissionIA("ia-2")
	edit.Request.Tool, edit.Request.Argv, edit.Request.Code = "edit", nil, "outside_write_scope"
	h2 := newHarness(t, scenario(), 100, 30)
	h2.send(ev("docs-typo", 7, core.EventInteractionWaiting, edit))
	h2.press("i")
	h2.clk.advance(time.Second)
	if strings.Contains(h2.view(), "allow for repo") {
		t.Fatal("an edit offers a grant")
	}
	h2.press("R")
	h2.requireControls()
	h2.requireView("only a command the policy asks about can be allowed for the repository")
}

// The grants view lists the state directory's grants and revokes one after a confirmation.
func TestGrantsViewListsAndRevokes(t *testing.T) {
	dir := t.TempDir()
	keep, err := core.AddGrant(dir, core.Grant{RepositoryID: "r1", Repository: "/src/app", Argv: []string{"make", "lint"}, TaskID: "docs-typo"})
	if err != nil {
		t.Fatal(err)
	}
	gone, err := core.AddGrant(dir, core.Grant{RepositoryID: "r1", Repository: "/src/app", Argv: []string{"make", "\x1b[31mred"}, Cwd: "sub", TaskID: "t2"})
	if err != nil {
		t.Fatal(err)
	}
	k := DefaultKeyMap()
	d := newGrantsDialog(dir)
	body, _ := d.view(DefaultTheme(), k, 100)
	if !strings.Contains(body, keep.ID) || !strings.Contains(body, "make lint") || !strings.Contains(body, "(in sub)") {
		t.Fatalf("view:\n%s", body)
	}
	if strings.Contains(body, "\x1b[31m") {
		t.Fatal("a grant's argv reached the terminal with its escape sequence")
	}
	if got := safetext.Line("a\u202eb\u200bc\u009bd\ne"); strings.ContainsAny(got, "\u202e\u200b\u009b\n") || !strings.Contains(got, "⟨U+202E⟩") {
		t.Fatalf("sanitizeLine: %q", got)
	}
	key := func(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }
	d.update(key("j"), k)
	d.update(key("d"), k)
	d.update(key("n"), k) // kept
	if g, _ := core.LoadGrants(dir); len(g) != 2 {
		t.Fatalf("n revoked: %+v", g)
	}
	d.update(key("d"), k)
	body, _ = d.view(DefaultTheme(), k, 100)
	if !strings.Contains(body, "Revoke "+gone.ID+"?") {
		t.Fatalf("no confirmation:\n%s", body)
	}
	d.update(key("y"), k)
	g, _ := core.LoadGrants(dir)
	if len(g) != 1 || g[0].ID != keep.ID {
		t.Fatalf("after the revoke: %+v", g)
	}
	body, _ = d.view(DefaultTheme(), k, 100)
	if !strings.Contains(body, "revoked "+gone.ID) || strings.Contains(body, "  "+gone.ID+"  ") || strings.Contains(body, "\x1b[31m") {
		t.Fatalf("view after the revoke:\n%s", body)
	}
	if res := d.update(tea.KeyMsg{Type: tea.KeyEsc}, k); !res.close {
		t.Fatal("esc does not close the view")
	}
}
