package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func rootCmd(args []string, out, errb *bytes.Buffer) int { return run(args, out, errb) }

// Every command answers --help on stdout with exit 0, whatever else is on the line.
func TestHelpOnEveryCommand(t *testing.T) {
	for _, args := range [][]string{
		{"--help"}, {"-h"}, {"help"}, {"help", "task", "prune"},
		{"demo", "--help"}, {"doctor", "--help"}, {"version", "--help"},
		{"contract", "--help"}, {"contract", "lint", "--help"}, {"contract", "init", "-h"},
		{"policy", "--help"}, {"policy", "explain", "--help"},
		{"task", "--help"}, {"task", "list", "--help"}, {"task", "archive", "--help"}, {"task", "prune", "--older-than", "1d", "--help"},
		{"completion", "--help"},
	} {
		code, out, errOut := runCmd(rootCmd, args...)
		if code != 0 || !strings.Contains(out, "Usage:") || errOut != "" {
			t.Errorf("%v: exit %d\nstdout: %s\nstderr: %s", args, code, out, errOut)
		}
	}
	_, out, _ := runCmd(rootCmd, "contract", "init", "--help")
	for _, want := range []string{"--objective", "--write", "-o, --output", "go.mod", "Cargo.toml"} {
		if !strings.Contains(out, want) {
			t.Errorf("contract init --help lacks %q", want)
		}
	}
}

func TestCompletionScripts(t *testing.T) {
	for shell, want := range map[string]string{"bash": "__start_reasonixctl", "zsh": "#compdef reasonixctl", "fish": "complete -c reasonixctl"} {
		code, out, errOut := runCmd(rootCmd, "completion", shell)
		if code != 0 || !strings.Contains(out, want) || errOut != "" {
			t.Errorf("completion %s: exit %d, %d bytes, stderr %q", shell, code, len(out), errOut)
		}
	}
	// Subcommands and flags complete from the tree itself.
	code, out, _ := runCmd(rootCmd, "__complete", "task", "")
	if code != 0 || !strings.Contains(out, "archive") || !strings.Contains(out, "prune") {
		t.Errorf("task completions: %d %q", code, out)
	}
	if _, out, _ = runCmd(rootCmd, "__complete", "contract", "init", "--"); !strings.Contains(out, "--objective") {
		t.Errorf("flag completions: %q", out)
	}
}

func TestVersionAndUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"-version"}, {"version"}, {"-v"}} {
		if code, out, _ := runCmd(rootCmd, args...); code != 0 || out != "reasonixctl "+version+"\n" {
			t.Errorf("%v: %d %q", args, code, out)
		}
	}
	for _, args := range [][]string{{"bogus"}, {"--bogus"}, {"demo", "extra"}, {"doctor", "extra"}, {"doctor", "--yaml"}, {"version", "x"},
		{"--log-stderr"}, {"contract", "init", "extra"}, {"contract", "init", "--dir"}, {"policy"}, {"policy", "judge"}} {
		code, out, errOut := runCmd(rootCmd, args...)
		if code != 2 || out != "" || !strings.Contains(errOut, "usage:\n  reasonixctl") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}

func TestContractInit(t *testing.T) {
	repo := t.TempDir()
	files := map[string]string{"go.mod": "module example.com/m\n", "Makefile": "check:\n\tgo vet ./...\n"}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(repo, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "contract.json")
	// Flags before and after each other, repeated --write.
	code, stdout, stderr := runCmd(rootCmd, "contract", "init", "--write", "cmd/**", "-o", out, "--dir", repo, "--objective", "Add a flag", "--write", "README.md")
	if code != 0 || stdout != "" {
		t.Fatalf("init: %d %q %q", code, stdout, stderr)
	}
	for _, want := range []string{"Verifies with go vet ./... (from go.mod)", "Verifies with make check (from Makefile)", "Fill in before delegating (marked TODO): user_outcome."} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if code, lint, _ := runCmd(contractCmd, "lint", out); code != 0 || !strings.HasPrefix(lint, "sha256 ") {
		t.Errorf("lint of the draft: %d %q", code, lint)
	}
	data, _ := os.ReadFile(out)
	if !strings.Contains(string(data), `"write_scope": [
    "cmd/**",
    "README.md"
  ]`) || !strings.Contains(string(data), `"objective": "Add a flag"`) {
		t.Errorf("draft:\n%s", data)
	}

	// An existing file is kept unless --force is given.
	if code, _, stderr := runCmd(rootCmd, "contract", "init", "--dir", repo, "-o", out); code != 1 || !strings.Contains(stderr, "--force") {
		t.Errorf("overwrite: %d %q", code, stderr)
	}
	if again, _ := os.ReadFile(out); !bytes.Equal(again, data) {
		t.Error("the existing contract was changed")
	}
	if code, _, _ := runCmd(rootCmd, "contract", "init", "--dir", repo, "-o", out, "--force"); code != 0 {
		t.Errorf("--force: %d", code)
	}

	// Without -o the draft goes to stdout, placeholders and all, and still lints clean.
	code, stdout, stderr = runCmd(rootCmd, "contract", "init", "--dir", repo)
	if code != 0 || !strings.Contains(stdout, `"objective": "TODO: `) || !strings.Contains(stderr, "objective, user_outcome, write_scope") {
		t.Fatalf("stdout: %d %q %q", code, stdout, stderr)
	}
	if code, lint, _ := runCmd(contractCmd, "lint", writeFile(t, "c.json", stdout)); code != 0 {
		t.Errorf("placeholder draft does not lint: %q", lint)
	}

	if code, _, stderr := runCmd(rootCmd, "contract", "init", "--dir", repo, "--write", "../outside"); code != 2 || !strings.Contains(stderr, "write_scope.0") {
		t.Errorf("bad --write: %d %q", code, stderr)
	}
	if code, _, stderr := runCmd(rootCmd, "contract", "init", "--dir", filepath.Join(repo, "missing")); code != 2 || !strings.Contains(stderr, "missing") {
		t.Errorf("missing --dir: %d %q", code, stderr)
	}
}

// The README's complete contract example stays valid as the contract and the policy change.
func TestREADMEContractExampleLints(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(readme)
	i := strings.Index(s, "A complete contract:")
	if i < 0 {
		t.Fatal("README has no complete contract example")
	}
	start := strings.Index(s[i:], "```json\n")
	if start < 0 {
		t.Fatal("no JSON block after the example's heading")
	}
	body := s[i+start+len("```json\n"):]
	body = body[:strings.Index(body, "```")]
	if code, out, _ := runCmd(contractCmd, "lint", writeFile(t, "readme.json", body)); code != 0 {
		t.Errorf("README contract: %s", out)
	}
	for _, field := range []string{"schema_version", "objective", "user_outcome", "verified_context", "write_scope", "forbidden_scope", "invariants",
		"non_goals", "acceptance_criteria", "verification", "allowed_commands", "file_assertions", "pause_conditions"} {
		if !strings.Contains(s, "| `"+field+"` |") || !strings.Contains(body, `"`+field+`"`) {
			t.Errorf("README: field %s is missing from the example or the table", field)
		}
	}
}
