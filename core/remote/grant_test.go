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
	if _, err := c.Control(ctx, core.ControlRequest{TaskID: "granting", Action: core.ActionRespond, InteractionID: res.ActiveInteraction.ID,
		Decision: core.DecisionAllow, Grant: true}); err != nil {
		t.Fatal(err)
	}
	grants, err := core.LoadGrants(o.dir)
	if err != nil || len(grants) != 1 || strings.Join(grants[0].Argv, " ") != "make lint" {
		t.Fatalf("grants %+v %v", grants, err)
	}
}
