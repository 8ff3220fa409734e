package remote

import (
	"strings"
	"testing"
	"time"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
)

// A dashboard's standing grant crosses the socket with its allow (it is kept out of core's
// JSON like who answered), and the owner's Clients counts the processes attached (that it
// drops to zero when they leave is what TestServeExitsWhenIdle in cmd/reasonixctl relies on).
func TestGrantCrossesAndClientsAreCounted(t *testing.T) {
	o := newOwner(t, turn(acptest.Step{Shell: &acptest.Shell{Command: "make lint", Output: "fine"}, Permission: "ask"}, writeResult()))
	if n := o.srv.Clients(); n != 0 {
		t.Fatalf("clients before any dial: %d", n)
	}
	c := o.dial(t, RoleCLI)
	if n := o.srv.Clients(); n != 1 {
		t.Fatalf("clients with one attached: %d", n)
	}
	ctx := ctxT(t, 60*time.Second)
	req := o.request("granting")
	req.PermissionMode = core.PermissionSupervised
	res, err := c.Delegate(ctx, req)
	if err != nil || res.ActiveInteraction == nil {
		t.Fatalf("delegate %v %+v", err, res)
	}
	if _, err := c.Control(ctx, core.Respond{TaskID: "granting", InteractionID: res.ActiveInteraction.ID,
		Decision: core.DecisionAllow, Grant: true}); err != nil {
		t.Fatal(err)
	}
	grants, err := core.LoadGrants(o.dir)
	if err != nil || len(grants) != 1 || strings.Join(grants[0].Argv, " ") != "make lint" {
		t.Fatalf("grants %+v %v", grants, err)
	}
}

// An attached front end lists and revokes the owner's grants over the socket: what it sees is
// the owner's file, a revoke changes it, and a refusal arrives as the owner's core.Error.
func TestGrantsListedAndRevokedThroughTheOwner(t *testing.T) {
	o := newOwner(t, turn(writeResult()))
	keep, err := core.AddGrant(o.dir, core.Grant{RepositoryID: "r1", Repository: "/src/app", Argv: []string{"make", "lint"}, TaskID: "t-1"})
	if err != nil {
		t.Fatal(err)
	}
	gone, err := core.AddGrant(o.dir, core.Grant{RepositoryID: "r1", Repository: "/src/app", Argv: []string{"make", "\x1b]52;c;eA==\x07"}, Cwd: "sub"})
	if err != nil {
		t.Fatal(err)
	}
	c := o.dial(t, RoleDashboard)
	ctx := ctxT(t, 10*time.Second)
	grants, err := c.Grants(ctx)
	if err != nil || len(grants) != 2 || grants[0].ID != keep.ID || grants[1].ID != gone.ID || grants[1].Argv[1] != gone.Argv[1] || grants[1].Cwd != "sub" {
		t.Fatalf("grants over the socket: %+v %v", grants, err)
	}
	g, err := c.RevokeGrant(ctx, gone.ID)
	if err != nil || g.ID != gone.ID || g.Describe() != gone.Describe() {
		t.Fatalf("revoke: %+v %v", g, err)
	}
	if left, err := core.LoadGrants(o.dir); err != nil || len(left) != 1 || left[0].ID != keep.ID {
		t.Fatalf("the owner's file after the revoke: %+v %v", left, err)
	}
	ce := mustCode(t, func() error { _, err := c.RevokeGrant(ctx, gone.ID); return err }(), core.CodeInvalidRequest)
	if !strings.Contains(ce.Message, "no grant "+gone.ID) {
		t.Fatalf("an unknown grant's refusal: %q", ce.Message)
	}
	if grants, err := c.Grants(ctx); err != nil || len(grants) != 1 || grants[0].ID != keep.ID {
		t.Fatalf("grants after the revoke: %+v %v", grants, err)
	}
}
