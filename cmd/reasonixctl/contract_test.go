package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const seedHash = "76d4e6c36bea9b707ce2089691844e95a31612ec09b016c1e8a979064dea70a4"

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func runCmd(run func([]string, *bytes.Buffer, *bytes.Buffer) int, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func contractCmd(args []string, out, errb *bytes.Buffer) int {
	return run(append([]string{"contract"}, args...), out, errb)
}

func TestContractLint(t *testing.T) {
	seed := "../../core/contract/testdata/seed-fixture.json"
	code, out, _ := runCmd(contractCmd, "lint", seed)
	if code != 0 || out != "sha256 "+seedHash+"\n" {
		t.Errorf("valid: %d %q", code, out)
	}

	code, out, _ = runCmd(contractCmd, "lint", "--json", seed)
	var res struct {
		Valid        bool    `json:"valid"`
		ContractHash *string `json:"contract_hash"`
		Issues       []struct{ Path, Message string }
	}
	if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil || !res.Valid || res.ContractHash == nil || *res.ContractHash != seedHash || res.Issues == nil {
		t.Errorf("valid --json: %d %q %v", code, out, err)
	}

	bad := writeFile(t, "bad.json", `{"schema_version":1,"objective":"o","write_scope":["/abs"],"acceptance_criteria":[{"id":"a","requirement":"r","evidence":"automated"}],"verification":[]}`)
	code, out, _ = runCmd(contractCmd, "lint", bad)
	want := "- user_outcome: required\n- write_scope.0: must not be absolute\n- acceptance_criteria.0: automated criterion \"a\" is proved by no verification command or file assertion\n"
	if code != 1 || out != want {
		t.Errorf("invalid: %d\n%s", code, out)
	}
	code, out, _ = runCmd(contractCmd, "lint", bad, "--json")
	res.Issues = nil
	if err := json.Unmarshal([]byte(out), &res); code != 1 || err != nil || res.Valid || res.ContractHash != nil || len(res.Issues) != 3 || res.Issues[1].Path != "write_scope.0" {
		t.Errorf("invalid --json: %d %q", code, out)
	}

	// The policy gate: a verification command the worker could never run.
	gated := writeFile(t, "gated.json", `{"schema_version":1,"objective":"o","user_outcome":"u","write_scope":["a"],
		"acceptance_criteria":[{"id":"a","requirement":"r","evidence":"automated"}],"verification":[{"id":"v","argv":["git","commit"],"proves":["a"]}]}`)
	code, out, _ = runCmd(contractCmd, "lint", gated)
	if code != 1 || !strings.HasPrefix(out, "- verification.v: git_mutation: ") {
		t.Errorf("gated: %d %q", code, out)
	}
}

func TestContractLintStdin(t *testing.T) {
	data, err := os.ReadFile("../../core/contract/testdata/seed-fixture.json")
	if err != nil {
		t.Fatal(err)
	}
	stdin := writeFile(t, "stdin.json", string(data))
	f, err := os.Open(stdin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	saved := os.Stdin
	os.Stdin = f
	defer func() { os.Stdin = saved }()
	if code, out, _ := runCmd(contractCmd, "lint", "-"); code != 0 || out != "sha256 "+seedHash+"\n" {
		t.Errorf("stdin: %d %q", code, out)
	}
}

func TestContractUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"check", "f"}, {"lint"}, {"lint", "--yaml", "f"}, {"lint", "a", "b"}, {"lint", "/does/not/exist"}} {
		if code, out, errOut := runCmd(contractCmd, args...); code != 2 || out != "" || !strings.Contains(errOut, "usage:") {
			t.Errorf("%v: %d %q %q", args, code, out, errOut)
		}
	}
}

// A draft that still holds its placeholders fails lint, each one listed with its path.
func TestContractLintRefusesPlaceholders(t *testing.T) {
	repo := t.TempDir()
	code, out, errOut := runCmd(contractCmd, "init", "--dir", repo, "-o", "-")
	if code != 0 {
		t.Fatalf("init: %d %s", code, errOut)
	}
	draft := writeFile(t, "draft.json", out)
	code, out, _ = runCmd(contractCmd, "lint", draft)
	if code != 1 {
		t.Fatalf("lint of a draft: exit %d\n%s", code, out)
	}
	for _, path := range []string{"- objective: still holds", "- user_outcome: still holds", "- write_scope.0: still holds"} {
		if !strings.Contains(out, path) {
			t.Errorf("lint output lacks %q:\n%s", path, out)
		}
	}
	code, out, errOut = runCmd(contractCmd, "init", "--dir", repo, "-o", "-", "--objective", "Fix it", "--outcome", "It works", "--write", "a.go")
	if code != 0 {
		t.Fatalf("init: %d %s", code, errOut)
	}
	if code, lint, _ := runCmd(contractCmd, "lint", writeFile(t, "filled.json", out)); code != 0 {
		t.Fatalf("a filled draft: exit %d\n%s", code, lint)
	}
}

// Without -o a draft goes to a folder of the repository's own under the state directory, the
// checkout stays clean, and -o inside the checkout is refused unless git ignores the file.
func TestContractInitKeepsTheCheckoutClean(t *testing.T) {
	state := privateDir(t)
	t.Setenv("CODEX_REASONIX_STATE_DIR", state)
	repo := t.TempDir()
	gitIn := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=T", "-c", "user.email=t@example.com"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	gitIn("init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module example.com/m\n"), 0o644)
	gitIn("add", "go.mod")
	gitIn("commit", "-q", "-m", "init")

	code, stdout, stderr := runCmd(contractCmd, "init", "--dir", repo, "--objective", "Add a flag")
	path := strings.TrimSpace(stdout)
	if code != 0 || !strings.HasPrefix(path, filepath.Join(state, "drafts")+string(filepath.Separator)) || !strings.Contains(stderr, "Wrote "+path) {
		t.Fatalf("init: %d %q %q", code, stdout, stderr)
	}
	data, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(data), `"objective": "Add a flag"`) {
		t.Fatalf("draft at %s: %v\n%s", path, err, data)
	}
	// A second draft of the same repository lands next to it, under a new name.
	_, again, _ := runCmd(contractCmd, "init", "--dir", repo)
	if p := strings.TrimSpace(again); filepath.Dir(p) != filepath.Dir(path) || p == path {
		t.Errorf("second draft at %q, first at %q", p, path)
	}
	if st := gitIn("status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Fatalf("the checkout is dirty: %q", st)
	}

	inside := filepath.Join(repo, "contract.json")
	code, _, stderr = runCmd(contractCmd, "init", "--dir", repo, "-o", inside)
	if code != 1 || !strings.Contains(stderr, "git does not ignore it") || !strings.Contains(stderr, "info/exclude") {
		t.Fatalf("-o inside the checkout: %d %q", code, stderr)
	}
	if _, err := os.Stat(inside); !os.IsNotExist(err) {
		t.Fatalf("the file was written: %v", err)
	}
	// Ignored, as the message says, it is accepted and the checkout stays clean.
	f, _ := os.OpenFile(filepath.Join(repo, ".git", "info", "exclude"), os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	f.WriteString("/contract.json\n")
	f.Close()
	if code, _, stderr := runCmd(contractCmd, "init", "--dir", repo, "-o", inside); code != 0 {
		t.Fatalf("-o of an ignored path: %d %q", code, stderr)
	}
	if st := gitIn("status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Fatalf("the checkout is dirty: %q", st)
	}
	// A subfolder's path through a symlink to the checkout is inside too.
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(repo, link)
	if code, _, stderr := runCmd(contractCmd, "init", "--dir", repo, "-o", filepath.Join(link, "c2.json")); code != 1 || !strings.Contains(stderr, "git does not ignore it") {
		t.Fatalf("-o through a symlink: %d %q", code, stderr)
	}
}
