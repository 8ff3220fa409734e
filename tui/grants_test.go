package tui

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
	"reasonixctl/tui/bind"
	"reasonixctl/tui/dialog"
	"reasonixctl/tui/term"
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
	h.requireControls(core.Respond{TaskID: "docs-typo", InteractionID: "ia-1", Decision: core.DecisionAllow, Grant: true})

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

// The grants view lists the owner's grants and revokes one after a confirmation.
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
	// The owner keeps its grants in dir; the dashboard reaches them only through the service.
	svc := scenario()
	svc.grantsDir = dir
	h := newHarness(t, svc, 100, 30)
	h.press("P")
	d, ok := h.stack().top().(*dialog.Grants)
	if !ok {
		t.Fatalf("P opened %T", h.stack().top())
	}
	k := bind.DefaultKeyMap()
	body, _ := d.View(term.DefaultTheme(), k, 100)
	if !strings.Contains(body, keep.ID) || !strings.Contains(body, "make lint") || !strings.Contains(body, "(in sub)") {
		t.Fatalf("view:\n%s", body)
	}
	if strings.Contains(body, "\x1b[31m") {
		t.Fatal("a grant's argv reached the terminal with its escape sequence")
	}
	if got := safetext.Line("a\u202eb\u200bc\u009bd\ne"); strings.ContainsAny(got, "\u202e\u200b\u009b\n") || !strings.Contains(got, "⟨U+202E⟩") {
		t.Fatalf("sanitizeLine: %q", got)
	}
	h.press("j", "d", "n") // n keeps it
	if g, _ := core.LoadGrants(dir); len(g) != 2 {
		t.Fatalf("n revoked: %+v", g)
	}
	h.press("d")
	body, _ = d.View(term.DefaultTheme(), k, 100)
	if !strings.Contains(body, "Revoke "+gone.ID+"?") {
		t.Fatalf("no confirmation:\n%s", body)
	}
	h.press("y")
	g, _ := core.LoadGrants(dir)
	if len(g) != 1 || g[0].ID != keep.ID {
		t.Fatalf("after the revoke: %+v", g)
	}
	body, _ = d.View(term.DefaultTheme(), k, 100)
	if !strings.Contains(body, "revoked "+gone.ID) || strings.Contains(body, "  "+gone.ID+"  ") || strings.Contains(body, "\x1b[31m") {
		t.Fatalf("view after the revoke:\n%s", body)
	}
	if res := d.Update(tea.KeyMsg{Type: tea.KeyEsc}, k); !res.Close {
		t.Fatal("esc does not close the view")
	}
}

// A dashboard attached to another owner lists, revokes and grants through the service alone:
// every grant call reaches the owner, none is made inside Update, and the dashboard writes
// nothing into the state directory it shows.
func TestAttachedGrantsGoThroughTheOwner(t *testing.T) {
	state := t.TempDir()
	svc := scenario()
	svc.grants = []core.Grant{
		{ID: "g-1", RepositoryID: "r1", Repository: "/src/app", Argv: []string{"make", "lint"}, Cwd: ".", TaskID: "docs-typo"},
		{ID: "g-2", RepositoryID: "r1", Repository: "/src/app", Argv: []string{"make", "fmt"}, Cwd: ".", TaskID: "docs-typo"},
	}
	a := &fakeAttachment{owner: Owner{PID: 4242, Mode: "mcp"}, present: true, changed: make(chan struct{})}
	clk := &clock{t: epoch}
	m := newModel(context.Background(), svc, Options{StateDir: state, WorkerVersion: "1.38.11", Now: clk.Now, Dir: "/src/app", Attached: a})
	h := &harness{t: t, m: m, svc: svc, clk: clk}
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	h.run(m.Init())

	// P opens the view and asks the owner from a command, not from Update.
	_, cmd := h.m.Update(keyMsg("P"))
	if calls := svc.grantLog(); len(calls) != 0 {
		t.Fatalf("Update itself called the service: %v", calls)
	}
	h.run(cmd)
	h.requireView("g-1", "make lint", "g-2", "make fmt")

	h.press("j", "d")
	_, cmd = h.m.Update(keyMsg("y"))
	if calls := svc.grantLog(); !slices.Equal(calls, []string{"list"}) {
		t.Fatalf("Update itself revoked: %v", calls)
	}
	h.run(cmd)
	if calls := svc.grantLog(); !slices.Equal(calls, []string{"list", "revoke g-2", "list"}) {
		t.Fatalf("grant calls %v, want the list, the revoke and the list after it", calls)
	}
	h.requireView("revoked g-2: make fmt is asked about again")
	if strings.Contains(flatten(h.view()), "g-2  make fmt") {
		t.Fatalf("the revoked grant is still listed:\n%s", h.view())
	}
	// A revoke the owner refuses is shown, and the list stays as it was.
	svc.mu.Lock()
	svc.grants = nil
	svc.mu.Unlock()
	h.press("d", "y")
	h.requireView("no grant g-1", "g-1")
	h.press("esc")

	// R answers the prompt with the grant: the owner makes it with the allow.
	h.send(ev("docs-typo", 7, core.EventInteractionWaiting, permissionIA("ia-1")))
	h.press("i")
	h.clk.advance(time.Second)
	h.press("R")
	h.requireControls(core.Respond{TaskID: "docs-typo", InteractionID: "ia-1", Decision: core.DecisionAllow, Grant: true})

	if left, err := os.ReadDir(state); err != nil || len(left) != 0 {
		t.Fatalf("the dashboard wrote into the state directory: %v %v", left, err)
	}
}

// The dashboard touches no grants file: it names none of core's functions that read or write
// one, and the only file I/O in it, its parts' packages included, belongs to the $EDITOR and
// clipboard helpers and to the watch on the checkout's HEAD.
func TestDashboardDoesNoGrantsFileIO(t *testing.T) {
	grantFile := map[string]bool{"LoadGrants": true, "AddGrant": true, "RevokeGrant": true, "WriteGrants": true,
		"MatchGrant": true, "GrantsName": true, "GrantsFile": true}
	fileIO := map[string]bool{"ReadFile": true, "WriteFile": true, "Open": true, "OpenFile": true, "Create": true,
		"CreateTemp": true, "MkdirTemp": true, "Mkdir": true, "MkdirAll": true, "Remove": true, "RemoveAll": true,
		"Rename": true, "ReadDir": true, "Stat": true, "Lstat": true, "Chmod": true, "Symlink": true, "Link": true,
		"Truncate": true, "DirFS": true}
	// Files allowed to touch the file system, and why.
	allowed := map[string]bool{
		"review/editor.go":   true, // the review's file for $EDITOR, in a temporary directory of its own
		"clipboard.go":       true, // OSC 52 copies
		"review/checkout.go": true, // reads the checkout's HEAD to notice it moved under the apply line
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	parts, err := filepath.Glob("*/*.go")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, parts...)
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			switch {
			case pkg.Name == "core" && grantFile[sel.Sel.Name]:
				t.Errorf("%s: core.%s: the dashboard reaches grants through core.Service only", fset.Position(sel.Pos()), sel.Sel.Name)
			case (pkg.Name == "os" && fileIO[sel.Sel.Name] || pkg.Name == "ioutil") && !allowed[name]:
				t.Errorf("%s: %s.%s: file I/O outside the editor and clipboard helpers", fset.Position(sel.Pos()), pkg.Name, sel.Sel.Name)
			}
			return true
		})
	}
	if checked < 10 {
		t.Fatalf("checked only %d files: is the test running in the package's directory?", checked)
	}
}
