package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"reasonixctl/core/doctor"
)

// committedRepo is a git repository with files committed.
func committedRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	repo := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=T", "-c", "user.email=t@example.com"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q", "-b", "main")
	for name, body := range files {
		p := filepath.Join(repo, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("add", "-A")
	run("commit", "-q", "-m", "project")
	return repo
}

func needSandboxAnd(t *testing.T, tools ...string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds real projects")
	}
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed here: %v", tool, err)
		}
	}
	if !doctor.SandboxAvailable() {
		t.Fatal("bubblewrap is required for these tests")
	}
}

// A Go module whose `go vet` already fails (unreachable code, which `go test` does not check)
// and whose `make check` fails with output no reporter of ours reads: `contract init --check`
// keeps go test, keeps go vet with its failure named (finalize can excuse exactly that one and
// stops at any other), and drops make check, quoting its first lines.
func TestContractInitCheckDropsWhatFailsOnTheBase(t *testing.T) {
	needSandboxAnd(t, "go", "make")
	state := privateDir(t)
	t.Setenv("CODEX_REASONIX_STATE_DIR", state)
	repo := committedRepo(t, map[string]string{
		"go.mod":    "module example.com/m\n\ngo 1.22\n",
		"m.go":      "package m\n\nfunc One() int {\n\treturn 1\n\tpanic(\"never\")\n}\n",
		"m_test.go": "package m\n\nimport \"testing\"\n\nfunc TestOne(t *testing.T) {\n\tif One() != 1 {\n\t\tt.Fatal(One())\n\t}\n}\n",
		"Makefile":  "check:\n\t@echo 'the linter crashed'; exit 3\n",
	})
	code, stdout, stderr := runCmd(contractCmd, "init", "--dir", repo, "--check", "-o", "-")
	if code != 0 {
		t.Fatalf("init --check: %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "Kept go-vet (go vet ./...)") || !strings.Contains(stderr, "with 1 known failure(s)") ||
		!strings.Contains(stderr, "    - m.go: unreachable code") ||
		!strings.Contains(stderr, "Dropped make-check (make check)") || !strings.Contains(stderr, "the linter crashed") ||
		!strings.Contains(stderr, "Passes on ") || !strings.Contains(stderr, "go-test (go test ./...)") {
		t.Fatalf("report:\n%s", stderr)
	}
	if !strings.Contains(stdout, `"go-vet"`) || !strings.Contains(stdout, `"go-test"`) || strings.Contains(stdout, `"make-check"`) {
		t.Fatalf("draft:\n%s", stdout)
	}
	// The checkout was not touched: no build output, nothing untracked.
	if out, _ := exec.Command("git", "-C", repo, "status", "--porcelain", "--ignored", "--untracked-files=all").Output(); len(out) != 0 {
		t.Fatalf("the checkout changed: %s", out)
	}
	// lint --check says the same of any contract that holds them: go vet's failure named, make
	// check's a reason to stop.
	filled := strings.NewReplacer(`"TODO: say in one sentence what the worker should change"`, `"Fix it"`,
		`"TODO: say what a person can see or do once the change is made"`, `"It works"`,
		`"TODO-choose-the-write-scope/**"`, `"m.go"`).Replace(mustInit(t, repo))
	code, _, stderr = runCmd(contractCmd, "lint", "--check", "--dir", repo, writeFile(t, "c.json", filled))
	if code != 1 || !strings.Contains(stderr, "Fails before the change, with known failures: go-vet") ||
		!strings.Contains(stderr, "Fails before the change: make-check") || !strings.Contains(stderr, "Drop or fix these before delegating: make-check.") {
		t.Fatalf("lint --check: %d\n%s", code, stderr)
	}
}

func mustInit(t *testing.T, repo string) string {
	t.Helper()
	code, stdout, stderr := runCmd(contractCmd, "init", "--dir", repo, "-o", "-")
	if code != 0 {
		t.Fatalf("init: %d %s", code, stderr)
	}
	return stdout
}

// A Python project whose tests pass on the base: lint --check passes.
func TestContractLintCheckPassesWhatPassesOnTheBase(t *testing.T) {
	needSandboxAnd(t, "python3")
	t.Setenv("CODEX_REASONIX_STATE_DIR", privateDir(t))
	repo := committedRepo(t, map[string]string{
		"pyproject.toml": "[project]\nname = \"calc\"\nversion = \"0.1.0\"\n",
		"test_calc.py":   "import unittest\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(1 + 2, 3)\n",
	})
	c := strings.NewReplacer(`"TODO: say in one sentence what the worker should change"`, `"Fix it"`,
		`"TODO: say what a person can see or do once the change is made"`, `"It works"`,
		`"TODO-choose-the-write-scope/**"`, `"calc.py"`).Replace(mustInit(t, repo))
	code, stdout, stderr := runCmd(contractCmd, "lint", "--check", "--dir", repo, writeFile(t, "c.json", c))
	if code != 0 || !strings.HasPrefix(stdout, "sha256 ") || !strings.Contains(stderr, "Passes on ") {
		t.Fatalf("lint --check: %d %q\n%s", code, stdout, stderr)
	}
}
