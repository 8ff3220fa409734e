package core

import (
	"os"
	"path/filepath"
	"testing"

	"reasonixctl/core/policy"
)

// Only a command with an argv that the policy asks a person about can be granted; the dashboard
// offers R and the engine accepts a grant by this one rule.
func TestGrantable(t *testing.T) {
	cmd := InteractionRequest{Tool: "execute", Argv: []string{"make", "lint"}, Code: policy.CodeUnknownExecutable}
	if !cmd.Grantable() {
		t.Fatal("an unknown command is not grantable")
	}
	for name, r := range map[string]InteractionRequest{
		"an edit":            {Tool: "edit", Paths: []string{"a"}, Code: policy.CodeUnknownExecutable},
		"no argv":            {Tool: "execute", Code: policy.CodeUnknownExecutable},
		"a hard denial":      {Tool: "execute", Argv: []string{"curl", "x"}, Code: policy.CodeNetworkAccess},
		"no rule":            {Tool: "execute", Argv: []string{"make"}},
		"the worker's words": {Tool: "other", Argv: []string{"make"}, Code: policy.CodeUnknownExecutable},
	} {
		if r.Grantable() {
			t.Errorf("%s is grantable", name)
		}
	}
}

// A grant's cwd is the command's real cwd relative to the worktree's real root, and a cwd that
// leaves the worktree, through a link or by name, has none.
func TestGrantCwd(t *testing.T) {
	wt := t.TempDir()
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(wt, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(wt, "a"), filepath.Join(wt, "link-in")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(wt, "link-out")); err != nil {
		t.Fatal(err)
	}
	for cwd, want := range map[string]string{
		"":                                  ".",
		wt:                                  ".",
		filepath.Join(wt, "a", "b"):         "a/b",
		filepath.Join(wt, "link-in", "b"):   "a/b",
		filepath.Join(wt, "a", "..", "a"):   "a",
		filepath.Join(wt, "link-out"):       "",
		filepath.Join(wt, ".."):             "",
		outside:                             "",
		filepath.Join(wt, "does-not-exist"): "",
	} {
		got, ok := GrantCwd(wt, cwd)
		if ok != (want != "") || got != want {
			t.Errorf("GrantCwd(%q) = %q %v, want %q", cwd, got, ok, want)
		}
	}
}

// A grant covers its exact command, cwd and repository only, and never a command the policy
// always denies, whatever the file says.
func TestFindGrant(t *testing.T) {
	grants := []Grant{
		{ID: "g-curl", RepositoryID: "r1", Argv: []string{"curl", "https://example.com"}, Cwd: "."},
		{ID: "g-lint", RepositoryID: "r1", Argv: []string{"make", "lint"}, Cwd: "."},
		{ID: "g-sub", RepositoryID: "r1", Argv: []string{"make", "lint"}, Cwd: "sub"},
	}
	for _, c := range []struct {
		repo, cwd string
		argv      []string
		want      string
	}{
		{"r1", ".", []string{"make", "lint"}, "g-lint"},
		{"r1", "sub", []string{"make", "lint"}, "g-sub"},
		{"r2", ".", []string{"make", "lint"}, ""},
		{"r1", ".", []string{"make", "lint", "-j2"}, ""},
		{"r1", "other", []string{"make", "lint"}, ""},
		{"r1", ".", []string{"curl", "https://example.com"}, ""},
	} {
		g, ok := FindGrant(grants, c.repo, c.argv, c.cwd)
		if ok != (c.want != "") || g.ID != c.want {
			t.Errorf("FindGrant(%s, %v, %s) = %q %v, want %q", c.repo, c.argv, c.cwd, g.ID, ok, c.want)
		}
	}
}
