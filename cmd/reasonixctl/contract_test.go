package main

import (
	"bytes"
	"encoding/json"
	"os"
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
