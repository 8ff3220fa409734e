package dialog

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"reasonixctl/core"
	"reasonixctl/tui/intent"
)

// grantsOwner is an owner's grants behind the service, recording each call.
type grantsOwner struct {
	grants []core.Grant
	calls  []string
}

func (o *grantsOwner) Grants(context.Context) ([]core.Grant, error) {
	o.calls = append(o.calls, "list")
	return append([]core.Grant(nil), o.grants...), nil
}

func (o *grantsOwner) RevokeGrant(_ context.Context, id string) (core.Grant, error) {
	o.calls = append(o.calls, "revoke "+id)
	for i, g := range o.grants {
		if g.ID == id {
			o.grants = slices.Delete(o.grants, i, i+1)
			return g, nil
		}
	}
	return core.Grant{}, core.Errorf(core.CodeInvalidRequest, nil, "no grant %s", id)
}

// run carries out what the dialog asks through the owner, as the root does, and hands the
// answer back through the stack.
func run(t *testing.T, d *Grants, o *grantsOwner, res intent.Result) {
	t.Helper()
	a, ok := res.Do.(intent.Grants)
	if !ok {
		t.Fatalf("the dialog asked %+v, not for the grants", res)
	}
	before := len(o.calls)
	cmd := GrantsCmd(context.Background(), o, a)
	if len(o.calls) != before {
		t.Fatal("GrantsCmd called the service before its command ran")
	}
	var s Stack
	s.Push(d, epoch)
	s.Push(NewNotice("over it"), epoch)
	s.GrantsAnswered(cmd().(GrantsMsg))
}

// The grants dialog lists the owner's grants, sanitized, and revokes one after a confirmation,
// all through the service in commands.
func TestGrantsListsAndRevokes(t *testing.T) {
	o := &grantsOwner{grants: []core.Grant{
		{ID: "g-1", RepositoryID: "r1", Repository: "/src/app", Argv: []string{"make", "lint"}, Cwd: ".", TaskID: "docs-typo"},
		{ID: "g-2", RepositoryID: "r1", Repository: "/src/app", Argv: []string{"make", "\x1b[31mred"}, Cwd: "sub", TaskID: "t2"},
	}}
	d := NewGrants()
	requireView(t, d, 100, "Loading…")
	requireNotInView(t, d, 100, "d revoke")
	run(t, d, o, intent.Result{Do: intent.Grants{}})
	requireView(t, d, 100, "Standing grants 2", "› g-1 make lint", "g-2", "(in sub)", "↓/j next · ↑/k previous · d revoke · esc close")
	if strings.Contains(view(d, 100), "\x1b[31m") {
		t.Fatal("a grant's argv reached the view with its escape sequence")
	}
	press(d, "j", "d", "n") // n keeps it
	if res := press(d, "d"); res.Do != nil {
		t.Fatalf("d asked for more than a confirmation: %+v", res)
	}
	requireView(t, d, 100, "Revoke g-2? y revokes, any other key keeps it.")
	run(t, d, o, press(d, "y"))
	requireView(t, d, 100, "revoked g-2")
	requireNotInView(t, d, 100, "g-2 make")
	if !slices.Equal(o.calls, []string{"list", "revoke g-2", "list"}) {
		t.Fatalf("calls %v", o.calls)
	}

	// A revoke the owner refuses is shown, and the list stays as it was.
	o.grants = nil
	run(t, d, o, press(d, "d", "y"))
	requireView(t, d, 100, "no grant g-1", "g-1 make lint")

	run(t, d, o, press(d, "ctrl+r"))
	requireView(t, d, 100, "None. In a permission prompt, R allows a command")
	press(d, "d")
	requireView(t, d, 100, "no grant to revoke")
	for _, k := range []string{"esc", "P"} {
		if res := press(d, k); !res.Close {
			t.Fatalf("%s does not close the grants", k)
		}
	}
}

// The dialogs touch no file: no grants file through core, and no file I/O at all (a grant is
// read and revoked by the service, in a command).
func TestDialogsDoNoFileIO(t *testing.T) {
	grantFile := map[string]bool{"LoadGrants": true, "AddGrant": true, "RevokeGrant": true, "WriteGrants": true,
		"MatchGrant": true, "GrantsName": true, "GrantsFile": true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p := strings.Trim(imp.Path.Value, `"`); p == "os" || p == "io/ioutil" || p == "io/fs" || p == "os/exec" {
				t.Errorf("%s imports %s: a dialog does no I/O", name, p)
			}
		}
		f, err = parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "core" && grantFile[sel.Sel.Name] {
					t.Errorf("%s: core.%s: the dialogs reach grants through the service only", fset.Position(sel.Pos()), sel.Sel.Name)
				}
			}
			return true
		})
	}
	if checked < 5 {
		t.Fatalf("checked only %d files: is the test running in the package's directory?", checked)
	}
}
