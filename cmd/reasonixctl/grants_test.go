package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"reasonixctl/core"
	"reasonixctl/core/gitx"
)

func grantsCmd(args []string, out, errb *bytes.Buffer) int {
	return run(append([]string{"grants"}, args...), out, errb)
}

// grants list shows a grant, policy explain says it allows the command (and only for its
// repository), revoke removes it, and an unknown id is a usage error that changes nothing.
func TestGrantsListRevokeAndPolicyExplain(t *testing.T) {
	state := privateDir(t)
	t.Setenv("CODEX_REASONIX_STATE_DIR", state)
	repo, other := testRepo(t), testRepo(t)
	src, err := gitx.OpenSource(t.Context(), repo, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if code, out, _ := runCmd(grantsCmd, "list"); code != 0 || !strings.Contains(out, "No grants") {
		t.Fatalf("empty list: %d %q", code, out)
	}
	g, err := core.AddGrant(state, core.Grant{RepositoryID: src.ID, Repository: src.Root, Argv: []string{"make", "lint"}, TaskID: "t-1", CreatedBy: core.BySupervisor})
	if err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCmd(grantsCmd, "list", "--json")
	var listed []core.Grant
	if err := json.Unmarshal([]byte(out), &listed); code != 0 || err != nil || len(listed) != 1 || listed[0].ID != g.ID {
		t.Fatalf("list --json: %d %q %v", code, out, err)
	}
	if code, out, _ := runCmd(grantsCmd, "list"); code != 0 || !strings.Contains(out, g.ID) || !strings.Contains(out, "make lint") {
		t.Fatalf("list: %d %q", code, out)
	}

	var e struct {
		Decision string `json:"decision"`
		Grant    string `json:"grant"`
		Reason   string `json:"reason"`
	}
	explainJSON := func(args ...string) {
		t.Helper()
		e.Decision, e.Grant, e.Reason = "", "", ""
		code, out, errOut := runCmd(policyCmd, append([]string{"explain", "--json"}, args...)...)
		if err := json.Unmarshal([]byte(out), &e); code != 0 || err != nil {
			t.Fatalf("%v: %d %q %q", args, code, out, errOut)
		}
	}
	explainJSON("--repo", repo, "--worktree", repo, "--cwd", repo, "--", "make", "lint")
	if e.Decision != "allow" || e.Grant != g.ID || e.Reason != "allowed by grant "+g.ID {
		t.Fatalf("explain with the grant: %+v", e)
	}
	explainJSON("--repo", other, "--worktree", other, "--cwd", other, "--", "make", "lint")
	if e.Decision != "deny" || e.Grant != "" {
		t.Fatalf("another repository: %+v", e)
	}
	explainJSON("--repo", repo, "--worktree", repo, "--cwd", repo, "--", "make", "lint", "-j2")
	if e.Decision != "deny" || e.Grant != "" {
		t.Fatalf("another argv: %+v", e)
	}

	if code, _, errOut := runCmd(grantsCmd, "revoke", "g-nope"); code != 2 || !strings.Contains(errOut, "no grant g-nope") {
		t.Fatalf("unknown id: %d %q", code, errOut)
	}
	if code, out, _ := runCmd(grantsCmd, "revoke", g.ID); code != 0 || !strings.Contains(out, "revoked "+g.ID) {
		t.Fatalf("revoke: %d %q", code, out)
	}
	if left, _ := core.LoadGrants(state); len(left) != 0 {
		t.Fatalf("left after revoke: %+v", left)
	}
	explainJSON("--repo", repo, "--worktree", repo, "--cwd", repo, "--", "make", "lint")
	if e.Decision != "deny" || e.Grant != "" {
		t.Fatalf("explain after the revoke: %+v", e)
	}
	if code, _, _ := runCmd(grantsCmd); code != 2 {
		t.Fatalf("grants without a subcommand: %d", code)
	}
}
