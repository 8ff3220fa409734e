// Package permission decides one permission request of the worker from facts gathered
// elsewhere. Decide reads no file, no clock and no shared state, so the engine, `policy
// explain` and the dashboard say the same thing for the same facts, and every step of the
// precedence (question, policy, standing grant, collision, ask, deny, repeated denial) can be
// tested without a worker.
//
// Some facts cost something to learn (classifying a command resolves paths, a collision check
// scans the source checkout and may pause the task), so Decide asks for them one at a time in
// the order the precedence reaches them: a Verdict with Need set names the fact it lacks, and
// the caller gathers it, marks it Known and decides again. A caller that has everything up
// front marks every fact Known at once.
package permission

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"reasonixctl/core"
	"reasonixctl/core/policy"
)

// KindExecute is the ACP tool kind of a shell command.
const KindExecute = "execute"

// Fact names one fact of an Input that Decide may need.
type Fact uint8

const (
	// FactPolicy: Policy, and the request's Paths as the policy resolved them.
	FactPolicy Fact = 1 << iota
	// FactGrant: Grant, the standing grant that covers the command, if any.
	FactGrant
	// FactCollision: Collided and CollisionReason, the before-mutation collision check.
	FactCollision
	// FactAskers: CanAsk, whether anyone can be asked about a task in automatic mode.
	FactAskers

	// AllFacts is every fact at once.
	AllFacts = FactPolicy | FactGrant | FactCollision | FactAskers
)

// Input is everything a permission decision depends on.
type Input struct {
	// The request as the worker sent it. Every byte of it is the worker's: it only selects
	// branches here and is hashed into the fingerprint, never trusted as a verdict.
	Kind       string   // the ACP tool kind: execute, edit, read, other, …
	ToolCallID string   // the worker's id of the request
	MetaTool   string   // the tool its static metadata names ("bash", "ask", …), if any
	Argv       []string // a command's static argv, when it sent one
	Cwd        string   // a command's cwd, when it sent one
	// Command is a foreign agent's command in words when it could not be reduced to Argv
	// (policy.ForeignExec.Command): it tells apart denials that have no argv.
	Command string
	Paths   []string // a structured tool's paths, as the policy resolved them (FactPolicy)

	// Known says which of the facts below were gathered; Decide asks for the first one it
	// needs that is not.
	Known Fact

	// Policy is the policy's classification of the request (policy.ClassifyExec or ClassifyEdit).
	Policy policy.Decision
	// Grant is the standing grant that covers the command in the task's repository, nil when
	// none does (core.MatchGrant).
	Grant *core.Grant
	// Collided: the source checkout collides with the task's write scope, for CollisionReason.
	Collided        bool
	CollisionReason string
	// Mode is the task's permission mode: supervised asks the dashboard's person, with no limit.
	Mode core.PermissionMode
	// CanAsk: in automatic mode, someone can be asked (an attached dashboard, or an Asker).
	CanAsk bool

	// Unanswered is how an ask ended with nobody answering (core.OutcomeTimedOut, Abandoned or
	// Unavailable); empty before asking, and when someone answered. AskTimeout is the limit it
	// waited, for the words of a timeout.
	Unanswered string
	AskTimeout time.Duration
	// Denials is how many times the same request (by Verdict.Fingerprint) was denied before.
	Denials int
}

// Verdict is Decide's answer.
type Verdict struct {
	// Need, when not zero, is the fact Decide lacks; nothing else is set then.
	Need Fact

	// Decision is core.DecisionAllow, core.DecisionDeny, or core.DecisionInteraction: someone
	// is asked, and their answer (or the fall-back denial) decides.
	Decision string
	// Ask, for an interaction: core.InteractionInput for the worker's own question,
	// core.InteractionPermission for a command the policy asks a person about.
	Ask string
	// Bounded: the interaction waits at most the ask timeout and then falls back to the denial,
	// decided again with Input.Unanswered.
	Bounded bool

	Code   string // the rule's stable code; empty for an allow
	Reason string // what was decided and why
	Hint   string // how the worker can proceed after a denial
	By     string // core.ByPolicy or core.ByGrant
	Grant  string // the grant's id when By is grant
	// Outcome says how an unanswered ask ended (Input.Unanswered).
	Outcome string

	// TimeoutSeconds is the watchdog of an allowed command; 0 for none.
	TimeoutSeconds int
	// Mutation: an allowed call that may change the worktree; the after-mutation check runs
	// when it ends.
	Mutation bool

	// Fingerprint is a counted denial's key among identical requests; empty for a denial that
	// is not counted (a collision is the checkout's doing, not the worker's).
	Fingerprint string
	// Count is this denial's number among identical ones (Input.Denials + 1).
	Count int
	// Pause, when set, is why the task pauses: the worker repeated the denied request
	// core.DenialLoopLimit times.
	Pause string
	// Steer, when set, is the recovery steer the worker gets after its first such denial.
	Steer string
}

// Decide answers one permission request. The precedence, first match wins:
//
//  1. the worker's own question is put to a person (an input interaction);
//  2. the policy classifies the request;
//  3. a standing grant allows a command the policy would ask about;
//  4. an allow of a call that may change the worktree is denied while the source checkout
//     collides with the write scope (not counted as a repeated denial);
//  5. an allow is an allow, with the command's watchdog;
//  6. a command the policy would ask about is asked: in supervised mode of the dashboard's
//     person with no limit, in automatic mode of whoever can be asked within the ask timeout;
//  7. anything else, and an ask nobody answered, is denied; the first identical denial steers
//     the worker to recover, the core.DenialLoopLimit-th pauses the task.
func Decide(in Input) Verdict {
	if question(in) {
		return Verdict{Decision: core.DecisionInteraction, Ask: core.InteractionInput, Reason: "the worker asks a question", By: core.ByPolicy}
	}
	if in.Known&FactPolicy == 0 {
		return Verdict{Need: FactPolicy}
	}
	d := in.Policy
	v := Verdict{Code: d.Code, Reason: d.Reason, Hint: d.Hint, By: core.ByPolicy, TimeoutSeconds: d.TimeoutSeconds}
	allowed := d.Allow
	if d.Grantable() && in.Kind == KindExecute {
		if in.Known&FactGrant == 0 {
			return Verdict{Need: FactGrant}
		}
		if g := in.Grant; g != nil {
			// A grant answers for the person, and no watchdog comes with it: the policy gave
			// the command none.
			allowed = true
			v = Verdict{Reason: core.GrantedReason(*g), By: core.ByGrant, Grant: g.ID}
		}
	}
	if allowed && Mutating(in.Kind) {
		if in.Known&FactCollision == 0 {
			return Verdict{Need: FactCollision}
		}
		if in.Collided {
			v.Decision, v.Code, v.Reason, v.TimeoutSeconds = core.DecisionDeny, "source_collision", in.CollisionReason, 0
			if v.Reason == "" {
				v.Reason = "the source checkout changed paths in the write scope"
			}
			return v
		}
		v.Mutation = true
	}
	if allowed {
		v.Decision = core.DecisionAllow
		return v
	}
	v.TimeoutSeconds = 0
	if d.Askable() && in.Unanswered == "" {
		if in.Mode == core.PermissionSupervised {
			v.Decision, v.Ask = core.DecisionInteraction, core.InteractionPermission
			return v
		}
		if in.Known&FactAskers == 0 {
			return Verdict{Need: FactAskers}
		}
		if in.CanAsk {
			v.Decision, v.Ask, v.Bounded = core.DecisionInteraction, core.InteractionPermission, true
			return v
		}
	}
	v.Decision = core.DecisionDeny
	if in.Unanswered != "" {
		v.Outcome = in.Unanswered
		v.Reason += unansweredWords(in.Unanswered, in.AskTimeout)
	}
	subject := append(slices.Clone(in.Argv), in.Paths...)
	if in.Command != "" && len(in.Argv) == 0 {
		subject = append(subject, in.Command)
	}
	v.Fingerprint = policy.Fingerprint(in.Kind, d.Code, subject, in.Cwd)
	v.Count = max(in.Denials, 0) + 1
	switch {
	case v.Count >= core.DenialLoopLimit:
		v.Pause = fmt.Sprintf("the worker repeated a denied request %d times (%s)", v.Count, d.Code)
	case v.Count == 1:
		v.Steer = "The previous tool request was rejected by immutable supervisor policy: " + v.Reason + " " + d.Hint
	}
	return v
}

// unansweredWords is what a denial adds to the policy's reason when nobody answered the ask.
func unansweredWords(outcome string, timeout time.Duration) string {
	switch outcome {
	case core.OutcomeAbandoned:
		return " (the supervisor left without answering)"
	case core.OutcomeUnavailable:
		return " (nobody could be asked: no client showed the question)"
	}
	return " (no one allowed it within " + timeout.String() + ")"
}

// question reports whether the request is the worker's ask tool rather than a gated action.
func question(in Input) bool {
	return in.Kind == "other" && (strings.HasPrefix(in.ToolCallID, "ask-") || in.MetaTool == "ask")
}

// Mutating reports whether an allowed tool call of this kind may change the worktree: anything
// but reading, searching and thinking.
func Mutating(kind string) bool {
	return kind != policy.KindRead && kind != policy.KindSearch && kind != policy.KindThink
}

// Asked is the verdict that put a permission interaction to a person, as its request carries
// it: the dashboard reads why it is asked from here rather than wording its own.
func Asked(r core.InteractionRequest) Verdict {
	return Verdict{Decision: core.DecisionInteraction, Ask: core.InteractionPermission, Code: r.Code, Reason: r.Reason, Hint: r.Hint, By: core.ByPolicy}
}

// Rule is the rule behind a verdict as a person reads it on its own line: "code: reason". A
// verdict that names no rule asked because the contract's policy covers nothing it asked
// about.
func (v Verdict) Rule() string {
	var parts []string
	for _, s := range []string{v.Code, v.Reason} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 {
		return "the contract's policy does not cover this request, so it asks you"
	}
	return strings.Join(parts, ": ")
}

// Brief is the rule behind a verdict inside a sentence ("what (code reason)"); empty when it
// names none.
func (v Verdict) Brief() string {
	return strings.TrimSpace(v.Code + " " + v.Reason)
}
