package scaffold

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"reasonixctl/core/contract"
	"reasonixctl/core/policy"
)

func repo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// lintClean parses a draft as `contract lint` does and returns the contract.
func lintClean(t *testing.T, d Draft) *contract.Contract {
	t.Helper()
	c, err := contract.Parse(d.JSON)
	if err != nil {
		t.Fatalf("draft does not lint: %v\n%s", err, d.JSON)
	}
	if issues := policy.GateContract(c); len(issues) > 0 {
		t.Fatalf("policy gate: %v", issues)
	}
	return c
}

func argvs(c *contract.Contract) []string {
	var out []string
	for _, v := range c.Verification {
		out = append(out, strings.Join(v.Argv, " "))
	}
	return out
}

func TestDraftPerToolchain(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"go", map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "m.go": "package m\n"}, []string{"go vet ./...", "go test ./..."}},
		{"node", map[string]string{"package.json": `{"name":"p","scripts":{"test":"node --test"}}`}, []string{"npm test"}},
		{"node without tests", map[string]string{"package.json": `{"name":"p","scripts":{"test":"echo \"Error: no test specified\" && exit 1"}}`}, nil},
		{"node without scripts", map[string]string{"package.json": `{"name":"p"}`}, nil},
		{"pyproject unittest", map[string]string{"pyproject.toml": "[project]\nname = \"p\"\n"}, []string{"python3 -m unittest"}},
		{"pyproject pytest config", map[string]string{"pyproject.toml": "[project]\nname = \"p\"\n[tool.pytest.ini_options]\naddopts = \"-q\"\n"}, []string{"python3 -m pytest"}},
		{"pyproject pytest dependency", map[string]string{"pyproject.toml": "[project]\nname = \"p\"\n[project.optional-dependencies]\ntest = [\"pytest>=8\"]\n"}, []string{"python3 -m pytest"}},
		{"setup.cfg pytest", map[string]string{"setup.cfg": "[metadata]\nname = p\n[tool:pytest]\ntestpaths = tests\n"}, []string{"python3 -m pytest"}},
		{"setup.cfg unittest", map[string]string{"setup.cfg": "[metadata]\nname = p\n"}, []string{"python3 -m unittest"}},
		{"rust", map[string]string{"Cargo.toml": "[package]\nname = \"c\"\nversion = \"0.1.0\"\n"}, []string{"cargo test --offline"}},
		{"make check", map[string]string{"Makefile": "all:\n\ttrue\ntest: all\n\ttrue\ncheck: test\n\ttrue\n"}, []string{"make check"}},
		{"make test", map[string]string{"Makefile": "CC := cc\ntest:\n\ttrue\n"}, []string{"make test"}},
		{"make assignment is no target", map[string]string{"Makefile": "test := 1\ncheck ?= 2\n"}, nil},
		{"go and make", map[string]string{"go.mod": "module m\n", "Makefile": "check:\n\tgo vet ./...\n"}, []string{"go vet ./...", "go test ./...", "make check"}},
		{"nothing", map[string]string{"README.md": "hi\n"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, err := New(Options{Dir: repo(t, tc.files)})
			if err != nil {
				t.Fatal(err)
			}
			c := lintClean(t, d)
			if got := argvs(c); !slices.Equal(got, tc.want) {
				t.Errorf("verification %q, want %q", got, tc.want)
			}
			// Every command proves its own automated criterion; the review criterion stays.
			for _, v := range c.Verification {
				if cr, ok := c.Criterion(v.Proves[0]); !ok || cr.Evidence != contract.EvidenceAutomated || len(v.Proves) != 1 {
					t.Errorf("%s proves %v", v.ID, v.Proves)
				}
			}
			if got := c.CriteriaIDs(contract.EvidenceReview); !slices.Equal(got, []string{"objective-met"}) {
				t.Errorf("review criteria %v", got)
			}
			if !slices.Equal(d.Placeholders, []string{"objective", "user_outcome", "write_scope"}) {
				t.Errorf("placeholders %v", d.Placeholders)
			}
			if c.Objective != ObjectivePlaceholder || !slices.Equal(c.WriteScope, []string{WriteScopePlaceholder}) {
				t.Errorf("placeholders not written: %q %q", c.Objective, c.WriteScope)
			}
		})
	}
}

func TestDraftWithObjectiveAndWriteScope(t *testing.T) {
	d, err := New(Options{Dir: repo(t, map[string]string{"go.mod": "module m\n"}), Objective: " Fix the parser ", WriteScope: []string{"parser/**", "README.md"}})
	if err != nil {
		t.Fatal(err)
	}
	c := lintClean(t, d)
	if c.Objective != "Fix the parser" || !slices.Equal(c.WriteScope, []string{"parser/**", "README.md"}) {
		t.Errorf("%q %q", c.Objective, c.WriteScope)
	}
	if !slices.Equal(d.Placeholders, []string{"user_outcome"}) {
		t.Errorf("placeholders %v", d.Placeholders)
	}
	// The file reads top-down: objective before the lists, verification after the criteria.
	s := string(d.JSON)
	if !(strings.Index(s, `"objective"`) < strings.Index(s, `"write_scope"`) && strings.Index(s, `"acceptance_criteria"`) < strings.Index(s, `"verification"`)) {
		t.Errorf("field order:\n%s", s)
	}
}

func TestDraftRejectsBadInput(t *testing.T) {
	dir := repo(t, map[string]string{"go.mod": "module m\n"})
	_, err := New(Options{Dir: dir, WriteScope: []string{"/etc/passwd"}})
	var invalid *contract.InvalidError
	if !asInvalid(err, &invalid) || invalid.Issues[0].Path != "write_scope.0" {
		t.Errorf("absolute write scope: %v", err)
	}
	if _, err := New(Options{Dir: filepath.Join(dir, "missing")}); err == nil {
		t.Error("missing directory accepted")
	}
	if _, err := New(Options{Dir: filepath.Join(dir, "go.mod")}); err == nil {
		t.Error("a file accepted as the repository")
	}
}

func asInvalid(err error, target **contract.InvalidError) bool {
	e, ok := err.(*contract.InvalidError)
	if ok {
		*target = e
	}
	return ok
}

func TestDetectToolsAndSources(t *testing.T) {
	checks, skipped, err := Detect(repo(t, map[string]string{"package.json": `{"scripts":{"test":"node --test"}}`, "Cargo.toml": ""}))
	if err != nil || len(skipped) != 0 {
		t.Fatal(err, skipped)
	}
	if len(checks) != 2 || !slices.Equal(checks[0].Tools, []string{"npm", "node"}) || checks[1].Source != "Cargo.toml" {
		t.Errorf("%+v", checks)
	}
}

func TestDraftFromASubdirectoryUsesTheRepositoryRoot(t *testing.T) {
	dir := repo(t, map[string]string{"go.mod": "module m\n", "pkg/x.go": "package pkg\n"})
	if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
		t.Skipf("git init: %v %s", err, out)
	}
	d, err := New(Options{Dir: filepath.Join(dir, "pkg")})
	if err != nil {
		t.Fatal(err)
	}
	if got := argvs(lintClean(t, d)); !slices.Equal(got, []string{"go vet ./...", "go test ./..."}) {
		t.Errorf("from pkg/: %q (root %s)", got, d.Root)
	}
}
