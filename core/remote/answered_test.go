package remote

import (
	"testing"
	"time"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
)

// Who answers an interaction, and how, is kept out of core's JSON like the Authority, yet
// reaches the owner's engine: Codex's respond through an attached --mcp server is recorded as
// Codex's, and a declined form as declined.
func TestWhoAnsweredCrosses(t *testing.T) {
	o := newOwner(t, turn(acptest.Step{Shell: &acptest.Shell{Command: "make lint", Output: "fine"}, Permission: "ask"}, writeResult()))
	c := o.dial(t, RoleCLI)
	ctx := ctxT(t, 60*time.Second)
	req := o.request("asked")
	req.PermissionMode = core.PermissionSupervised
	res, err := c.Delegate(ctx, req)
	if err != nil || res.ActiveInteraction == nil {
		t.Fatalf("delegate %v %+v", err, res)
	}
	if _, err := c.Control(ctx, core.Respond{TaskID: "asked", InteractionID: res.ActiveInteraction.ID,
		Decision: core.DecisionDeny, AnsweredBy: core.ByAskedUser, Outcome: core.OutcomeDeclined}); err != nil {
		t.Fatal(err)
	}
	d, err := o.e.Get(ctx, "asked")
	if err != nil {
		t.Fatal(err)
	}
	if r := d.Interactions[0].Response; r == nil || r.By != core.ByAskedUser || r.Outcome != core.OutcomeDeclined || r.Decision != core.DecisionDeny {
		t.Fatalf("response %+v", r)
	}
}
