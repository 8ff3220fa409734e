package core

import (
	"errors"
	"go/build"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestImportsGoOneWay holds the package cut: core (the API front ends share) imports none of its
// job packages nor what runs commands (the sandbox, drafting, base checks), the jobs never
// import the engine (core/baseline no front end either), and the front ends reach the engine
// only through core.Service: tui and mcp (and what they import) never import core/engine. store
// and sandbox, below core, import nothing of it.
func TestImportsGoOneWay(t *testing.T) {
	const module = "reasonixctl"
	deps := map[string][]string{}
	var load func(path string) []string
	load = func(path string) []string {
		if d, ok := deps[path]; ok {
			return d
		}
		deps[path] = nil
		dir := filepath.Join("..", filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(path, module), "/")))
		p, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		var all []string
		for _, imp := range p.Imports {
			if imp != module && !strings.HasPrefix(imp, module+"/") {
				continue
			}
			all = append(all, imp)
			all = append(all, load(imp)...)
		}
		slices.Sort(all)
		deps[path] = slices.Compact(all)
		return deps[path]
	}
	jobs := []string{"reasonixctl/core/engine", "reasonixctl/core/doctor", "reasonixctl/core/review", "reasonixctl/core/remote", "reasonixctl/core/stats"}
	// core's own packages that run things (the sandbox, drafting, base checks): front ends
	// reach them through core.Service too.
	runners := []string{"reasonixctl/sandbox", "reasonixctl/core/scaffold", "reasonixctl/core/baseline"}
	refuse := map[string][]string{
		"reasonixctl/core":          append(slices.Clone(jobs), runners...),
		"reasonixctl/core/baseline": {"reasonixctl/core/engine", "reasonixctl/tui", "reasonixctl/mcp", "reasonixctl/cmd/reasonixctl"},
		"reasonixctl/core/doctor":   {"reasonixctl/core/engine"},
		"reasonixctl/core/review":   {"reasonixctl/core/engine"},
		"reasonixctl/core/stats":    {"reasonixctl/core/engine"},
		"reasonixctl/tui":           {"reasonixctl/core/engine"},
		"reasonixctl/mcp":           {"reasonixctl/core/engine"},
	}
	for pkg, never := range refuse {
		got := load(pkg)
		for _, n := range never {
			if slices.Contains(got, n) {
				t.Errorf("%s imports %s (directly or through its imports: %v)", pkg, n, got)
			}
		}
	}
	// The journal and the sandbox are the bottom layer: they know nothing of tasks or of core,
	// so nothing under core may reach them back through an import, their tests' included.
	for _, base := range []string{"store", "sandbox"} {
		err := filepath.WalkDir(filepath.Join("..", base), func(dir string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return err
			}
			if d.Name() == "testdata" {
				return filepath.SkipDir
			}
			p, err := build.ImportDir(dir, 0)
			var none *build.NoGoError
			if errors.As(err, &none) {
				return nil
			}
			if err != nil {
				return err
			}
			rel, err := filepath.Rel("..", dir)
			if err != nil {
				return err
			}
			pkg := module + "/" + filepath.ToSlash(rel)
			all := append(load(pkg), p.TestImports...)
			for _, imp := range append(all, p.XTestImports...) {
				if imp == module+"/core" || strings.HasPrefix(imp, module+"/core/") {
					t.Errorf("%s imports %s: store and sandbox sit below core and import nothing of it", pkg, imp)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// The state directory's check is a leaf, so that every layer above store can make it
	// without the rest of core: core/remote, core/doctor and the command line.
	if got := load("reasonixctl/core/statedir"); len(got) > 0 {
		t.Errorf("reasonixctl/core/statedir imports %v", got)
	}
}
