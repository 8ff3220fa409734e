package core

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Commands returns every type that implements Command, once, each under its own action: a
// command type left out of it would be one that the socket and the tests that enumerate
// commands never see.
func TestCommandsListsEveryCommandType(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	declared := map[string]bool{} // types with the marker method
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Name.Name != "command" {
				continue
			}
			if id, ok := fn.Recv.List[0].Type.(*ast.Ident); ok {
				declared[id.Name] = true
			} else {
				t.Errorf("command() has a receiver that is not a plain type: commands are values")
			}
		}
	}
	if len(declared) < 7 {
		t.Fatalf("found only %d command types: the scan is broken", len(declared))
	}
	listed, actions := map[string]bool{}, map[string]string{}
	for _, c := range Commands() {
		name := reflect.TypeOf(c).Name()
		if listed[name] {
			t.Errorf("Commands lists %s twice", name)
		}
		listed[name] = true
		if other, ok := actions[c.Action()]; ok {
			t.Errorf("%s and %s are both action %s", name, other, c.Action())
		}
		actions[c.Action()] = name
		if !declared[name] {
			t.Errorf("Commands lists %s, which has no command marker", name)
		}
	}
	for name := range declared {
		if !listed[name] {
			t.Errorf("%s implements Command but Commands leaves it out", name)
		}
	}
}
