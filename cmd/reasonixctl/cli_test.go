package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func rootCmd(args []string, out, errb *bytes.Buffer) int { return run(args, out, errb) }

// Every command answers --help on stdout with exit 0, whatever else is on the line.
func TestHelpOnEveryCommand(t *testing.T) {
	for _, args := range [][]string{
		{"--help"}, {"-h"}, {"-help"}, {"help"}, {"help", "task", "prune"},
		{"demo", "--help"}, {"doctor", "--help"}, {"version", "--help"},
		{"contract", "--help"}, {"contract", "lint", "--help"}, {"contract", "init", "-h"},
		{"policy", "--help"}, {"policy", "explain", "--help"},
		{"task", "--help"}, {"task", "list", "--help"}, {"task", "archive", "--help"}, {"task", "amend", "--help"}, {"task", "prune", "--older-than", "1d", "--help"},
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
	t.Setenv("CODEX_REASONIX_STATE_DIR", privateDir(t))
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
	// user_outcome is still a placeholder: the draft does not lint until it is filled in.
	if code, lint, _ := runCmd(contractCmd, "lint", out); code != 1 || !strings.Contains(lint, "- user_outcome: still holds the draft's placeholder") {
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

	// -o - writes the draft to stdout, placeholders and all.
	code, stdout, stderr = runCmd(rootCmd, "contract", "init", "--dir", repo, "-o", "-")
	if code != 0 || !strings.Contains(stdout, `"objective": "TODO: `) || !strings.Contains(stderr, "objective, user_outcome, write_scope") {
		t.Fatalf("stdout: %d %q %q", code, stdout, stderr)
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

// doctor end to end: a program that only exits 0 is no worker; the fake worker is, and the
// provider's key must be set and allowlisted.
func TestDoctorCommand(t *testing.T) {
	bin, err := buildBinaries()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("REASONIX_HOME", filepath.Join(home, ".reasonix"))
	t.Setenv("CODEX_HOME", filepath.Join(home, ".codex"))
	t.Setenv("CODEX_REASONIX_STATE_DIR", filepath.Join(home, "state"))
	t.Setenv("CODEX_REASONIX_ENV_ALLOWLIST", "")
	t.Setenv("RX_DOCTOR_KEY", "secret-value")
	t.Chdir(t.TempDir())
	os.MkdirAll(filepath.Join(home, ".reasonix"), 0o700)
	os.WriteFile(filepath.Join(home, ".reasonix", "config.toml"), []byte("default_model = \"p\"\n[[providers]]\nname = \"p\"\nbase_url = \"https://api.example.com/v1\"\napi_key_env = \"RX_DOCTOR_KEY\"\n"), 0o600)

	status := func(want int) map[string]string {
		t.Helper()
		code, out, errOut := runCmd(rootCmd, "doctor", "--json")
		var res struct {
			OK     bool `json:"ok"`
			Checks []struct{ Name, Status, Detail string }
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil || code != want || res.OK != (want == 0) {
			t.Fatalf("exit %d (want %d) %v\n%s%s", code, want, err, out, errOut)
		}
		m := map[string]string{}
		for _, c := range res.Checks {
			m[c.Name] = c.Status + " " + c.Detail
			if strings.Contains(c.Detail, "secret-value") {
				t.Errorf("%s shows the key's value", c.Name)
			}
		}
		return m
	}

	t.Setenv("REASONIX_BIN", "true")
	if got := status(1)["reasonix_binary"]; !strings.HasPrefix(got, "fail ") || !strings.Contains(got, "not a Reasonix worker") {
		t.Errorf("true(1): %s", got)
	}
	t.Setenv("REASONIX_BIN", filepath.Join(bin, "fake-reasonix"))
	got := status(1)
	if !strings.HasPrefix(got["reasonix_binary"], "ok ") || !strings.HasPrefix(got["worker_provider"], "ok ") ||
		!strings.HasPrefix(got["worker_api_key"], "fail ") || !strings.Contains(got["worker_api_key"], "CODEX_REASONIX_ENV_ALLOWLIST=RX_DOCTOR_KEY") {
		t.Errorf("key not allowlisted: %v", got)
	}
	if !strings.HasPrefix(got["codex_config"], "warn ") || !strings.HasPrefix(got["toolchains"], "ok ") {
		t.Errorf("codex and toolchains: %v", got)
	}
	t.Setenv("CODEX_REASONIX_ENV_ALLOWLIST", "RX_DOCTOR_*")
	got = status(1) // the fake worker lacks the supervisor flags

	if !strings.HasPrefix(got["worker_api_key"], "ok ") || !strings.Contains(got["worker_env"], "set now: RX_DOCTOR_KEY") {
		t.Errorf("key allowlisted: %v", got)
	}
}
