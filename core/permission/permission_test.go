package permission

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"reasonixctl/core"
	"reasonixctl/core/policy"
)

var (
	readOnly = policy.Decision{Allow: true, Reason: "read-only git command", TimeoutSeconds: policy.ReadTimeoutSeconds}
	unknown  = policy.Decision{Code: policy.CodeUnknownExecutable, Reason: "make is not in the contract", Hint: "Run only the contract's commands."}
	network  = policy.Decision{Code: policy.CodeNetworkAccess, Reason: "curl reaches the network", Hint: "There is no network access."}
	outside  = policy.Decision{Code: policy.CodeOutsideWriteScope, Reason: "b.txt is outside the write scope", Hint: "Edit only paths in the write scope."}
	lint     = &core.Grant{ID: "g-1", RepositoryID: "r1", Argv: []string{"make", "lint"}, Cwd: "."}
)

// command is an execute request of argv with every fact known: policy d, no grant, no
// collision, automatic mode with nobody to ask.
func command(d policy.Decision, argv ...string) Input {
	return Input{Kind: KindExecute, ToolCallID: "gate-1", MetaTool: "bash", Argv: argv, Cwd: "/wt", Known: AllFacts, Policy: d, Mode: core.PermissionAutomatic}
}

func with(in Input, f func(*Input)) Input {
	f(&in)
	return in
}

func TestDecidePrecedence(t *testing.T) {
	fp := func(kind, code string, argv []string, cwd string) string {
		return policy.Fingerprint(kind, code, argv, cwd)
	}
	lintFP := fp(KindExecute, policy.CodeUnknownExecutable, []string{"make", "lint"}, "/wt")
	firstSteer := "The previous tool request was rejected by immutable supervisor policy: make is not in the contract Run only the contract's commands."
	cases := []struct {
		name string
		in   Input
		want Verdict
	}{
		// The worker's question goes to a person before anything is classified.
		{"question by id", Input{Kind: "other", ToolCallID: "ask-1"},
			Verdict{Decision: core.DecisionInteraction, Ask: core.InteractionInput, Reason: "the worker asks a question", By: core.ByPolicy}},
		{"question by metadata", Input{Kind: "other", ToolCallID: "x", MetaTool: "ask", Known: AllFacts, Policy: network},
			Verdict{Decision: core.DecisionInteraction, Ask: core.InteractionInput, Reason: "the worker asks a question", By: core.ByPolicy}},
		{"an ask- id of another kind is no question", Input{Kind: KindExecute, ToolCallID: "ask-1"}, Verdict{Need: FactPolicy}},
		{"other without the ask tool is no question", Input{Kind: "other", ToolCallID: "x", MetaTool: "bash"}, Verdict{Need: FactPolicy}},

		// The policy's allow, with the watchdog; a read needs no collision check.
		{"read allowed", Input{Kind: policy.KindRead, Known: FactPolicy, Policy: readOnly},
			Verdict{Decision: core.DecisionAllow, Reason: readOnly.Reason, By: core.ByPolicy, TimeoutSeconds: 120}},
		{"command allowed", command(readOnly, "git", "status"),
			Verdict{Decision: core.DecisionAllow, Reason: readOnly.Reason, By: core.ByPolicy, TimeoutSeconds: 120, Mutation: true}},
		{"an allowed command needs the collision check", with(command(readOnly, "git", "status"), func(in *Input) { in.Known = FactPolicy }),
			Verdict{Need: FactCollision}},

		// A standing grant answers for the person, only for what the policy would ask about.
		{"an unknown command needs the grant lookup", with(command(unknown, "make", "lint"), func(in *Input) { in.Known = FactPolicy }),
			Verdict{Need: FactGrant}},
		{"granted", with(command(unknown, "make", "lint"), func(in *Input) { in.Grant = lint }),
			Verdict{Decision: core.DecisionAllow, Reason: "allowed by grant g-1", By: core.ByGrant, Grant: "g-1", Mutation: true}},
		{"a granted command still needs the collision check", with(command(unknown, "make", "lint"), func(in *Input) { in.Grant, in.Known = lint, FactPolicy|FactGrant }),
			Verdict{Need: FactCollision}},
		{"a grant never covers a hard denial", with(command(network, "curl", "x"), func(in *Input) { in.Grant, in.Known = lint, FactPolicy }),
			Verdict{Decision: core.DecisionDeny, Code: network.Code, Reason: network.Reason, Hint: network.Hint, By: core.ByPolicy,
				Fingerprint: fp(KindExecute, network.Code, []string{"curl", "x"}, "/wt"), Count: 1,
				Steer: "The previous tool request was rejected by immutable supervisor policy: curl reaches the network There is no network access."}},
		{"a grant never covers an edit", Input{Kind: "edit", Paths: []string{"b.txt"}, Known: AllFacts, Policy: unknown, Grant: lint, Mode: core.PermissionSupervised},
			Verdict{Decision: core.DecisionInteraction, Ask: core.InteractionPermission, Code: unknown.Code, Reason: unknown.Reason, Hint: unknown.Hint, By: core.ByPolicy}},
		{"an edit the policy refuses", Input{Kind: "edit", Paths: []string{"b.txt"}, Known: FactPolicy, Policy: outside, Mode: core.PermissionSupervised},
			Verdict{Decision: core.DecisionDeny, Code: outside.Code, Reason: outside.Reason, Hint: outside.Hint, By: core.ByPolicy,
				Fingerprint: fp("edit", outside.Code, []string{"b.txt"}, ""), Count: 1,
				Steer: "The previous tool request was rejected by immutable supervisor policy: b.txt is outside the write scope Edit only paths in the write scope."}},

		// A collision denies an allow that may change the worktree, uncounted.
		{"collision", with(command(readOnly, "git", "status"), func(in *Input) {
			in.Collided, in.CollisionReason = true, "the source checkout changed paths in the write scope: a.txt"
		}),
			Verdict{Decision: core.DecisionDeny, Code: "source_collision", Reason: "the source checkout changed paths in the write scope: a.txt", By: core.ByPolicy}},
		{"collision after a grant keeps who allowed it", with(command(unknown, "make", "lint"), func(in *Input) { in.Grant, in.Collided, in.CollisionReason = lint, true, "scan failed" }),
			Verdict{Decision: core.DecisionDeny, Code: "source_collision", Reason: "scan failed", By: core.ByGrant, Grant: "g-1"}},
		{"a collision does not touch a read", Input{Kind: policy.KindSearch, Known: AllFacts, Policy: readOnly, Collided: true, CollisionReason: "x"},
			Verdict{Decision: core.DecisionAllow, Reason: readOnly.Reason, By: core.ByPolicy, TimeoutSeconds: 120}},
		{"a collision does not touch a denial", with(command(network, "curl", "x"), func(in *Input) { in.Collided, in.Denials = true, 1 }),
			Verdict{Decision: core.DecisionDeny, Code: network.Code, Reason: network.Reason, Hint: network.Hint, By: core.ByPolicy,
				Fingerprint: fp(KindExecute, network.Code, []string{"curl", "x"}, "/wt"), Count: 2}},

		// Asking: supervised asks its person with no limit, automatic whoever can be asked.
		{"supervised asks", with(command(unknown, "make", "lint"), func(in *Input) { in.Mode, in.Known = core.PermissionSupervised, FactPolicy|FactGrant }),
			Verdict{Decision: core.DecisionInteraction, Ask: core.InteractionPermission, Code: unknown.Code, Reason: unknown.Reason, Hint: unknown.Hint, By: core.ByPolicy}},
		{"automatic needs to know who can be asked", with(command(unknown, "make", "lint"), func(in *Input) { in.Known = FactPolicy | FactGrant }),
			Verdict{Need: FactAskers}},
		{"automatic asks within the timeout", with(command(unknown, "make", "lint"), func(in *Input) { in.CanAsk = true }),
			Verdict{Decision: core.DecisionInteraction, Ask: core.InteractionPermission, Bounded: true, Code: unknown.Code, Reason: unknown.Reason, Hint: unknown.Hint, By: core.ByPolicy}},
		{"a hard denial is never asked", with(command(network, "curl", "x"), func(in *Input) { in.Mode, in.CanAsk = core.PermissionSupervised, true }),
			Verdict{Decision: core.DecisionDeny, Code: network.Code, Reason: network.Reason, Hint: network.Hint, By: core.ByPolicy,
				Fingerprint: fp(KindExecute, network.Code, []string{"curl", "x"}, "/wt"), Count: 1,
				Steer: "The previous tool request was rejected by immutable supervisor policy: curl reaches the network There is no network access."}},
		{"a grant wins over asking", with(command(unknown, "make", "lint"), func(in *Input) { in.Grant, in.Mode, in.CanAsk = lint, core.PermissionSupervised, true }),
			Verdict{Decision: core.DecisionAllow, Reason: "allowed by grant g-1", By: core.ByGrant, Grant: "g-1", Mutation: true}},

		// Denied: nobody to ask, or nobody answered.
		{"nobody to ask", command(unknown, "make", "lint"),
			Verdict{Decision: core.DecisionDeny, Code: unknown.Code, Reason: unknown.Reason, Hint: unknown.Hint, By: core.ByPolicy, Fingerprint: lintFP, Count: 1, Steer: firstSteer}},
		{"nobody answered in time", with(command(unknown, "make", "lint"), func(in *Input) {
			in.CanAsk, in.Unanswered, in.AskTimeout = true, core.OutcomeTimedOut, 2*time.Minute
		}), Verdict{Decision: core.DecisionDeny, Code: unknown.Code, Reason: unknown.Reason + " (no one allowed it within 2m0s)", Hint: unknown.Hint,
			By: core.ByPolicy, Outcome: core.OutcomeTimedOut, Fingerprint: lintFP, Count: 1,
			Steer: "The previous tool request was rejected by immutable supervisor policy: make is not in the contract (no one allowed it within 2m0s) Run only the contract's commands."}},
		{"the supervisor left", with(command(unknown, "make", "lint"), func(in *Input) { in.CanAsk, in.Unanswered, in.Denials = true, core.OutcomeAbandoned, 1 }),
			Verdict{Decision: core.DecisionDeny, Code: unknown.Code, Reason: unknown.Reason + " (the supervisor left without answering)", Hint: unknown.Hint,
				By: core.ByPolicy, Outcome: core.OutcomeAbandoned, Fingerprint: lintFP, Count: 2}},
		{"nobody could be asked", with(command(unknown, "make", "lint"), func(in *Input) { in.CanAsk, in.Unanswered, in.Denials = true, core.OutcomeUnavailable, 1 }),
			Verdict{Decision: core.DecisionDeny, Code: unknown.Code, Reason: unknown.Reason + " (nobody could be asked: no client showed the question)", Hint: unknown.Hint,
				By: core.ByPolicy, Outcome: core.OutcomeUnavailable, Fingerprint: lintFP, Count: 2}},

		// The loop count: steer on the first, nothing on the second, pause from the limit on.
		{"second denial", with(command(unknown, "make", "lint"), func(in *Input) { in.Denials = 1 }),
			Verdict{Decision: core.DecisionDeny, Code: unknown.Code, Reason: unknown.Reason, Hint: unknown.Hint, By: core.ByPolicy, Fingerprint: lintFP, Count: 2}},
		{"the limit pauses", with(command(unknown, "make", "lint"), func(in *Input) { in.Denials = core.DenialLoopLimit - 1 }),
			Verdict{Decision: core.DecisionDeny, Code: unknown.Code, Reason: unknown.Reason, Hint: unknown.Hint, By: core.ByPolicy, Fingerprint: lintFP,
				Count: core.DenialLoopLimit, Pause: "the worker repeated a denied request 3 times (unknown_executable)"}},
		{"past the limit still pauses", with(command(unknown, "make", "lint"), func(in *Input) { in.Denials = 7 }),
			Verdict{Decision: core.DecisionDeny, Code: unknown.Code, Reason: unknown.Reason, Hint: unknown.Hint, By: core.ByPolicy, Fingerprint: lintFP,
				Count: 8, Pause: "the worker repeated a denied request 8 times (unknown_executable)"}},
		{"a nonsense count counts from zero", with(command(unknown, "make", "lint"), func(in *Input) { in.Denials = -4 }),
			Verdict{Decision: core.DecisionDeny, Code: unknown.Code, Reason: unknown.Reason, Hint: unknown.Hint, By: core.ByPolicy, Fingerprint: lintFP, Count: 1, Steer: firstSteer}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Decide(c.in); !reflect.DeepEqual(got, c.want) {
				t.Errorf("Decide\n got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

// Facts are asked for one at a time, in the order the precedence reaches them, and only those
// the request needs: a caller that supplies each as asked ends with the verdict of one that
// knew everything.
func TestDecideAsksForFactsInOrder(t *testing.T) {
	cases := []struct {
		name  string
		full  Input
		needs []Fact
	}{
		{"question", Input{Kind: "other", ToolCallID: "ask-2"}, nil},
		{"read", Input{Kind: policy.KindRead, Policy: readOnly}, []Fact{FactPolicy}},
		{"allowed command", command(readOnly, "ls"), []Fact{FactPolicy, FactCollision}},
		{"hard denial", command(network, "curl", "x"), []Fact{FactPolicy}},
		{"unknown, supervised", with(command(unknown, "make"), func(in *Input) { in.Mode = core.PermissionSupervised }), []Fact{FactPolicy, FactGrant}},
		{"unknown, automatic", command(unknown, "make"), []Fact{FactPolicy, FactGrant, FactAskers}},
		{"granted", with(command(unknown, "make"), func(in *Input) { in.Grant = lint }), []Fact{FactPolicy, FactGrant, FactCollision}},
		{"unknown edit", Input{Kind: "edit", Policy: unknown}, []Fact{FactPolicy, FactAskers}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := c.full
			in.Known = 0
			var needs []Fact
			v := Decide(in)
			for v.Need != 0 {
				if in.Known&v.Need != 0 {
					t.Fatalf("asked again for a known fact %d", v.Need)
				}
				if !reflect.DeepEqual(v, Verdict{Need: v.Need}) {
					t.Fatalf("a verdict that needs a fact says more: %+v", v)
				}
				needs = append(needs, v.Need)
				in.Known |= v.Need
				v = Decide(in)
			}
			if !reflect.DeepEqual(needs, c.needs) {
				t.Errorf("asked for %v, want %v", needs, c.needs)
			}
			full := c.full
			full.Known = AllFacts
			if want := Decide(full); !reflect.DeepEqual(v, want) {
				t.Errorf("step by step %+v\nall at once %+v", v, want)
			}
		})
	}
}

// The fingerprint tells identical requests from others by kind, code, argv, paths and cwd, and
// Decide leaves its input as it found it.
func TestDecideFingerprintAndPurity(t *testing.T) {
	base := command(unknown, "make", "lint")
	argv := make([]string, 2, 8) // spare capacity: an append in place would show
	copy(argv, base.Argv)
	base.Argv = argv
	base.Paths = []string{"p"}
	first := Decide(base)
	if again := Decide(base); !reflect.DeepEqual(first, again) {
		t.Fatalf("the same input decided twice differs: %+v %+v", first, again)
	}
	if got := argv[:cap(argv)][2]; got != "" {
		t.Fatalf("Decide wrote into the caller's argv: %q", got)
	}
	for name, change := range map[string]func(*Input){
		"argv":  func(in *Input) { in.Argv = []string{"make", "lint", "-j2"} },
		"cwd":   func(in *Input) { in.Cwd = "/wt/sub" },
		"paths": func(in *Input) { in.Paths = []string{"q"} },
		"kind":  func(in *Input) { in.Kind = "edit" },
	} {
		if v := Decide(with(base, change)); v.Fingerprint == first.Fingerprint {
			t.Errorf("another %s has the same fingerprint %s", name, v.Fingerprint)
		}
	}
	if !strings.HasPrefix(first.Fingerprint, policy.CodeUnknownExecutable+":") {
		t.Errorf("fingerprint %q does not start with its code", first.Fingerprint)
	}
}

// The dashboard's words for why a request was asked come from the verdict the request carries.
func TestAskedRuleAndBrief(t *testing.T) {
	r := core.InteractionRequest{Tool: KindExecute, Argv: []string{"make"}, Code: unknown.Code, Reason: unknown.Reason, Hint: unknown.Hint}
	v := Asked(r)
	if v.Decision != core.DecisionInteraction || v.Ask != core.InteractionPermission || v.Hint != unknown.Hint {
		t.Fatalf("Asked %+v", v)
	}
	if got := v.Rule(); got != "unknown_executable: make is not in the contract" {
		t.Errorf("Rule %q", got)
	}
	if got := v.Brief(); got != "unknown_executable make is not in the contract" {
		t.Errorf("Brief %q", got)
	}
	if got := Asked(core.InteractionRequest{Reason: "only a reason"}).Rule(); got != "only a reason" {
		t.Errorf("Rule of a reason alone %q", got)
	}
	if got := Asked(core.InteractionRequest{}).Rule(); got != "the contract's policy does not cover this request, so it asks you" {
		t.Errorf("Rule of nothing %q", got)
	}
	if got := Asked(core.InteractionRequest{Question: "which?"}).Brief(); got != "" {
		t.Errorf("Brief of a question %q", got)
	}
}

// Decide stays a function of its input: the package imports nothing that reads files, the
// network or the environment, starts no goroutine and reads no clock (time is there for
// Duration alone).
func TestPackageIsPure(t *testing.T) {
	allowed := map[string]bool{"fmt": true, "slices": true, "strings": true, "time": true,
		"reasonixctl/core": true, "reasonixctl/core/policy": true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); !allowed[p] {
				t.Errorf("%s imports %s", name, p)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				t.Errorf("%s: starts a goroutine", fset.Position(n.Pos()))
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && x.Name == "time" && n.Sel.Name != "Duration" {
					t.Errorf("%s: time.%s", fset.Position(n.Pos()), n.Sel.Name)
				}
			}
			return true
		})
	}
	if checked == 0 {
		t.Fatal("no source file checked")
	}
}
