package permission

import (
	"testing"

	"reasonixctl/core"
	"reasonixctl/core/policy"
)

// A foreign command the policy cannot read is put to a person like an unknown executable, but
// no standing grant is looked up for it (a grant names an exact argv, which it lacks), and its
// denials are told apart by the command as sent.
func TestDecideForeignCommandNotPlainArgv(t *testing.T) {
	notPlain := policy.Decision{Code: policy.CodeNotPlainArgv, Reason: "The command is not plain argv (pipe: …)", Hint: "Send one simple command."}
	in := Input{Kind: KindExecute, ToolCallID: "call_1", Command: "go test ./... | grep FAIL", Cwd: "/wt", Known: FactPolicy, Policy: notPlain, Mode: core.PermissionSupervised}

	v := Decide(in)
	if v.Decision != core.DecisionInteraction || v.Ask != core.InteractionPermission || v.Bounded || v.Code != policy.CodeNotPlainArgv || v.Reason != notPlain.Reason {
		t.Fatalf("supervised: %+v", v)
	}
	in.Mode = core.PermissionAutomatic
	if v := Decide(in); v.Need != FactAskers {
		t.Fatalf("automatic asks who can be asked, never for a grant: %+v", v)
	}
	in.Known |= FactAskers
	in.CanAsk = true
	if v := Decide(in); v.Decision != core.DecisionInteraction || !v.Bounded {
		t.Fatalf("automatic with someone to ask: %+v", v)
	}
	in.CanAsk = false
	denied := Decide(in)
	if denied.Decision != core.DecisionDeny || denied.Steer == "" || denied.Fingerprint == "" {
		t.Fatalf("automatic with nobody to ask: %+v", denied)
	}
	other := Decide(with(in, func(in *Input) { in.Command = "go vet ./... | grep x" }))
	if other.Fingerprint == denied.Fingerprint {
		t.Fatal("two different commands share a fingerprint")
	}
	if again := Decide(in); again.Fingerprint != denied.Fingerprint {
		t.Fatal("the same command has two fingerprints")
	}
	// Reasonix's fingerprints do not change: Command is not set for them.
	reasonix := command(unknown, "make", "lint")
	if got, want := Decide(reasonix).Fingerprint, policy.Fingerprint(KindExecute, unknown.Code, []string{"make", "lint"}, "/wt"); got != want {
		t.Fatalf("fingerprint %s, want %s", got, want)
	}
}

// A foreign edit that names no path is asked, and an allowed one is a mutation.
func TestDecideForeignEdit(t *testing.T) {
	unscoped := policy.Decision{Code: policy.CodeUnscopedForeign, Reason: "The edit names no path", Hint: "Name the files."}
	in := Input{Kind: "edit", ToolCallID: "write_file_1", Known: AllFacts, Policy: unscoped, Mode: core.PermissionSupervised}
	if v := Decide(in); v.Decision != core.DecisionInteraction || v.Code != policy.CodeUnscopedForeign {
		t.Fatalf("unscoped: %+v", v)
	}
	in.Policy = policy.Decision{Allow: true, Reason: "Structured edit inside the write scope."}
	if v := Decide(in); v.Decision != core.DecisionAllow || !v.Mutation {
		t.Fatalf("scoped: %+v", v)
	}
}
