package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
)

// grantDecisions returns the permission_decided events of a task but the last (the result
// file's write).
func grantDecisions(t *testing.T, h *harness, id string) []core.PermissionData {
	t.Helper()
	var out []core.PermissionData
	for _, ev := range journal(t, h, id) {
		if ev.Type == core.EventPermissionDecided {
			var d core.PermissionData
			if err := json.Unmarshal(ev.Data, &d); err != nil {
				t.Fatal(err)
			}
			out = append(out, d)
		}
	}
	if len(out) > 0 {
		out = out[:len(out)-1]
	}
	return out
}

func (h *harness) waitReview(id string) {
	h.t.Helper()
	if r, timedOut, err := h.e.waitFor(context.Background(), id, 30*time.Second, func(r *taskRecord) bool { return r.State == core.StateReviewRequired }); err != nil || timedOut {
		h.t.Fatalf("%s did not reach review: %v %+v", id, err, r.view())
	}
}

// A person allows a command for the repository: the grant is stored in the state directory,
// the next task of the same repository runs the command without asking (journaled as allowed
// by the grant), and once revoked the command is asked about again.
func TestStandingGrantAddedUsedListedRevoked(t *testing.T) {
	h := newHarness(t, askTurn())
	supervised := func(r *core.DelegateRequest) { r.PermissionMode = core.PermissionSupervised }
	res, err := h.delegate("first", supervised)
	if err != nil || res.ActiveInteraction == nil {
		t.Fatalf("delegate: %v %+v", err, res.TaskView)
	}
	// A grant goes only with an allow.
	_, err = h.e.Control(context.Background(), core.Respond{TaskID: "first", InteractionID: res.ActiveInteraction.ID, Decision: core.DecisionDeny, Grant: true})
	mustCode(t, err, core.CodeInvalidRequest)
	// Codex cannot grant.
	_, err = h.e.Control(context.Background(), core.Respond{TaskID: "first", InteractionID: res.ActiveInteraction.ID, Decision: core.DecisionAllow, Grant: true, AnsweredBy: core.ByCodex})
	mustCode(t, err, core.CodeInvalidRequest)
	if g, _ := core.LoadGrants(h.state); len(g) != 0 {
		t.Fatalf("a refused grant was stored: %+v", g)
	}
	if _, err := h.e.Control(context.Background(), core.Respond{TaskID: "first", InteractionID: res.ActiveInteraction.ID, Decision: core.DecisionAllow, Grant: true}); err != nil {
		t.Fatal(err)
	}
	h.waitReview("first")
	grants, err := core.LoadGrants(h.state)
	if err != nil || len(grants) != 1 {
		t.Fatalf("grants: %+v %v", grants, err)
	}
	g := grants[0]
	if strings.Join(g.Argv, " ") != "make lint" || g.Cwd != "." || g.RepositoryID == "" || g.TaskID != "first" || g.CreatedBy != core.BySupervisor {
		t.Fatalf("grant %+v", g)
	}
	if _, err := os.Stat(filepath.Join(h.repo, core.GrantsName)); !os.IsNotExist(err) {
		t.Fatal("a grant was written into the repository")
	}
	if d := grantDecisions(t, h, "first"); len(d) != 2 || d[1].By != core.BySupervisor || d[1].Grant != g.ID {
		t.Fatalf("first task's decisions: %s", toJSON(d))
	}
	// The answer's own record names the grant, for whoever reads it later (a replay).
	if detail, err := h.e.Get(context.Background(), "first"); err != nil || len(detail.Interactions) == 0 ||
		detail.Interactions[0].Response == nil || detail.Interactions[0].Response.Grant != g.ID {
		t.Fatalf("the answer's record does not name grant %s: %v %s", g.ID, err, toJSON(detail.Interactions))
	}

	// The same command in another task of the repository: allowed by the grant, no prompt.
	res, err = h.delegate("second", supervised)
	if err != nil || res.State != core.StateReviewRequired {
		t.Fatalf("second task: %v %+v", err, res.TaskView)
	}
	d := grantDecisions(t, h, "second")
	if len(d) != 1 || d[0].By != core.ByGrant || d[0].Decision != core.DecisionAllow || d[0].Grant != g.ID || d[0].Reason != "allowed by grant "+g.ID {
		t.Fatalf("second task's decisions: %s", toJSON(d))
	}

	// Revoked: the next task asks again.
	if _, err := core.RevokeGrant(h.state, "g-nope"); core.AsError(err).Code != core.CodeInvalidRequest {
		t.Fatalf("revoking an unknown grant: %v", err)
	}
	if _, err := core.RevokeGrant(h.state, g.ID); err != nil {
		t.Fatal(err)
	}
	res, err = h.delegate("third", supervised)
	if err != nil || res.State != core.StateWaitingPermission {
		t.Fatalf("third task after the revoke: %v %+v", err, res.TaskView)
	}
}

// What the policy always denies cannot be granted, and a grant planted in the file for it
// allows nothing.
func TestStandingGrantNeverCoversHardDenials(t *testing.T) {
	h := newHarness(t, writeTurn(acptest.Step{Shell: &acptest.Shell{Command: "curl https://example.com", Output: "x"}, Permission: "ask"}, writeResult()))
	repoID := "0123456789abcdef01234567"
	for _, argv := range [][]string{{"curl", "https://example.com"}, {"sudo", "make"}, {"rm", "-rf", "/"}} {
		_, err := core.AddGrant(h.state, core.Grant{RepositoryID: repoID, Argv: argv})
		if ce := mustCode(t, err, core.CodeInvalidRequest); !strings.Contains(ce.Message, "always denies") {
			t.Fatalf("%v: %s", argv, ce.Message)
		}
	}
	if _, err := core.AddGrant(h.state, core.Grant{Argv: []string{"make", "lint"}}); core.AsError(err).Code != core.CodeInvalidRequest {
		t.Fatalf("a grant without a repository: %v", err)
	}
	// The first task shows the repository's id; its curl is denied with no grant in place.
	if _, err := h.delegate("probe", func(r *core.DelegateRequest) { r.PermissionMode = core.PermissionSupervised }); err != nil {
		t.Fatal(err)
	}
	r, _ := h.e.load("probe")
	planted := core.GrantsFile{Version: core.GrantsVersion, Grants: []core.Grant{{ID: "g-planted", RepositoryID: r.RepoID, Argv: []string{"curl", "https://example.com"}, Cwd: "."}}}
	if err := core.WriteGrants(h.state, planted); err != nil {
		t.Fatal(err)
	}
	if _, err := h.delegate("curl", func(r *core.DelegateRequest) { r.PermissionMode = core.PermissionSupervised }); err != nil {
		t.Fatal(err)
	}
	d := grantDecisions(t, h, "curl")
	if len(d) == 0 {
		t.Fatal("no decision on the curl")
	}
	for _, d := range d {
		if d.Decision != core.DecisionDeny || d.By != core.ByPolicy || d.Code != "network_access" {
			t.Fatalf("a hard-denied command was not denied by the policy: %s", toJSON(d))
		}
	}
}

// A grants file that cannot be read is an error, and nothing overwrites it.
func TestUnreadableGrantsFileLosesNothing(t *testing.T) {
	dir := t.TempDir()
	bad := []byte(`{"version": 1, "grants": [`)
	if err := os.WriteFile(filepath.Join(dir, core.GrantsName), bad, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := core.LoadGrants(dir); err == nil {
		t.Fatal("a broken grants file read as empty")
	}
	if _, err := core.AddGrant(dir, core.Grant{RepositoryID: "r", Argv: []string{"make", "lint"}}); err == nil {
		t.Fatal("a grant was added over a broken file")
	}
	if _, err := core.RevokeGrant(dir, "g-1"); err == nil {
		t.Fatal("a revoke succeeded on a broken file")
	}
	if got, _ := os.ReadFile(filepath.Join(dir, core.GrantsName)); string(got) != string(bad) {
		t.Fatalf("the broken file was changed: %s", got)
	}
}
