package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func policyCmd(args []string, out, errb *bytes.Buffer) int {
	return run(append([]string{"policy"}, args...), out, errb)
}

type explained struct {
	Decision           string `json:"decision"`
	SupervisedDecision string `json:"supervised_decision"`
	Code               string `json:"code"`
	Reason             string `json:"reason"`
	Hint               string `json:"hint"`
	TimeoutSeconds     int    `json:"timeout_seconds"`
}

func explain(t *testing.T, args ...string) explained {
	t.Helper()
	code, out, errOut := runCmd(policyCmd, append([]string{"explain", "--json"}, args...)...)
	var e explained
	if err := json.Unmarshal([]byte(out), &e); code != 0 || err != nil {
		t.Fatalf("%v: exit %d %q %q %v", args, code, out, errOut, err)
	}
	return e
}

func TestPolicyExplain(t *testing.T) {
	wt := t.TempDir()
	if err := os.Mkdir(filepath.Join(wt, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := writeFile(t, "c.json", `{"schema_version":1,"objective":"o","user_outcome":"u","write_scope":["a"],
		"acceptance_criteria":[{"id":"a","requirement":"r","evidence":"automated"}],
		"verification":[{"id":"v","argv":["make","check"],"cwd":"sub","timeout_seconds":77,"proves":["a"]}]}`)

	if e := explain(t, "--worktree", wt, "--cwd", wt, "--", "git", "status"); e.Decision != "allow" || e.TimeoutSeconds != 120 || e.Code != "" {
		t.Errorf("git status: %+v", e)
	}
	if e := explain(t, "--worktree", wt, "--cwd", wt, "--", "curl", "x"); e.Decision != "deny" || e.Code != "network_access" || e.Hint == "" {
		t.Errorf("curl: %+v", e)
	}
	if e := explain(t, "--worktree", wt, "--cwd", filepath.Join(wt, "sub"), "--", "make", "check"); e.Code != "unknown_executable" {
		t.Errorf("without a contract: %+v", e)
	}
	if e := explain(t, "--contract", c, "--worktree", wt, "--cwd", filepath.Join(wt, "sub"), "--", "make", "check"); e.Decision != "allow" || e.TimeoutSeconds != 77 {
		t.Errorf("contract command: %+v", e)
	}
	if e := explain(t, "--worktree", filepath.Join(wt, "sub"), "--cwd", wt, "--", "ls"); e.Code != "cwd_escape" {
		t.Errorf("cwd outside: %+v", e)
	}

	code, out, _ := runCmd(policyCmd, "explain", "--worktree", wt, "--cwd", wt, "--", "npm", "publish")
	if code != 0 || !strings.HasPrefix(out, "deny publish_release: ") || !strings.Contains(out, "\nhint: ") {
		t.Errorf("text deny: %d %q", code, out)
	}
	code, out, _ = runCmd(policyCmd, "explain", "--worktree", wt, "--cwd", wt, "--", "cat", "release")
	if code != 0 || !strings.HasPrefix(out, "allow (watchdog 120s): ") {
		t.Errorf("text allow: %d %q", code, out)
	}
}

// A command the policy does not know is denied under --mcp and asked about in the dashboard:
// explain says both, and --json keeps decision as the automatic answer.
func TestPolicyExplainModes(t *testing.T) {
	wt := t.TempDir()
	for _, c := range []struct {
		argv                 []string
		decision, supervised string
	}{
		{[]string{"frobnicate", "--all"}, "deny", "ask"},
		{[]string{"git", "status"}, "allow", "allow"},
		{[]string{"sudo", "ls"}, "deny", "deny"},
		{[]string{"git", "push"}, "deny", "deny"},
	} {
		e := explain(t, append([]string{"--worktree", wt, "--cwd", wt, "--"}, c.argv...)...)
		if e.Decision != c.decision || e.SupervisedDecision != c.supervised {
			t.Errorf("%v: %+v", c.argv, e)
		}
	}
	// Flags of ARGV are ARGV's, even without --.
	code, out, _ := runCmd(policyCmd, "explain", "--worktree", wt, "--cwd", wt, "frobnicate", "--all")
	if code != 0 || !strings.HasPrefix(out, "ask unknown_executable: ") || !strings.Contains(out, "--mcp (automatic): denied") ||
		!strings.Contains(out, "dashboard (supervised): the person at the keyboard is asked") || !strings.Contains(out, "\nhint: ") {
		t.Errorf("unknown command: %d %q", code, out)
	}
	code, out, _ = runCmd(policyCmd, "explain", "--worktree", wt, "--cwd", wt, "--", "sudo", "ls")
	if code != 0 || !strings.HasPrefix(out, "deny privilege_escalation: ") || !strings.Contains(out, "under --mcp and under the dashboard alike") {
		t.Errorf("hard denial: %d %q", code, out)
	}
}

func TestPolicyExplainDefaultsToCurrentDirectory(t *testing.T) {
	t.Chdir(t.TempDir())
	if e := explain(t, "--", "ls"); e.Decision != "allow" {
		t.Errorf("ls in the current directory: %+v", e)
	}
}

func TestPolicyUsage(t *testing.T) {
	bad := writeFile(t, "bad.json", `{}`)
	for _, args := range [][]string{nil, {"judge", "--", "ls"}, {"explain"}, {"explain", "--"}, {"explain", "--bogus", "--", "ls"},
		{"explain", "--contract", "/does/not/exist", "--", "ls"}, {"explain", "--contract", bad, "--", "ls"}} {
		if code, out, errOut := runCmd(policyCmd, args...); code != 2 || out != "" || !strings.Contains(errOut, "usage:") {
			t.Errorf("%v: %d %q %q", args, code, out, errOut)
		}
	}
}

// --shell explains a command as a foreign worker sends it: plain argv is decided as that argv;
// anything else is asked with the reason it could not be read, or denied for what is inside.
func TestPolicyExplainShell(t *testing.T) {
	wt := t.TempDir()
	type shellExplained struct {
		explained
		Argv []string `json:"argv"`
	}
	explainShell := func(s string) shellExplained {
		t.Helper()
		code, out, errOut := runCmd(policyCmd, "explain", "--json", "--worktree", wt, "--cwd", wt, "--shell", s)
		var e shellExplained
		if err := json.Unmarshal([]byte(out), &e); code != 0 || err != nil {
			t.Fatalf("%q: exit %d %q %q %v", s, code, out, errOut, err)
		}
		return e
	}
	if e := explainShell("git 'status'"); e.Decision != "allow" || strings.Join(e.Argv, " ") != "git status" {
		t.Errorf("plain: %+v", e)
	}
	if e := explainShell("go test ./... 2>&1 | tail -5"); e.Code != "not_plain_argv" || e.SupervisedDecision != "ask" || e.Decision != "deny" ||
		!strings.Contains(e.Reason, "pipe") || e.Argv != nil {
		t.Errorf("pipe: %+v", e)
	}
	if e := explainShell("curl -s x | sh"); e.Code != "network_access" || e.SupervisedDecision != "deny" {
		t.Errorf("curl pipe: %+v", e)
	}
	code, out, _ := runCmd(policyCmd, "explain", "--worktree", wt, "--cwd", wt, "--shell", "ls *.go")
	if code != 0 || !strings.Contains(out, "read as: not plain argv") || !strings.Contains(out, "ask not_plain_argv") ||
		!strings.Contains(out, "glob") || !strings.Contains(out, "neither the contract nor a grant") {
		t.Errorf("text: %d %s", code, out)
	}
	if code, _, errOut := runCmd(policyCmd, "explain", "--shell", "ls", "--", "ls"); code != 2 || !strings.Contains(errOut, "not both") {
		t.Errorf("both: %d %s", code, errOut)
	}
}
