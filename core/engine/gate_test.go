package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"reasonixctl/core"
	"reasonixctl/store"
)

// Control takes each action in exactly the states core.ActionsFor offers it. Driven against a
// task in every state, and in each case the table tells apart (repair rounds left or not; paused
// by a source collision after a review, before one, or for another cause), an action the table
// leaves out is refused in core.WhyNot's words with its code and changes nothing, and one it
// offers gets past every rule about the state: it fails later, if at all, for a reason of its
// own (the task has no contract, worktree or worker). A check of the state added beside the
// table that disagrees with it fails here.
func TestControlTakesExactlyWhatActionsForOffers(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	const tree = "0123456789abcdef0123456789abcdef01234567"
	type variant struct{ phase, hash string }
	n := 0
	for _, s := range core.States {
		variants := []variant{{"", tree}}
		if s == core.StatePaused {
			variants = []variant{{core.PhaseSourceCollision, tree}, {core.PhaseSourceCollision, ""}, {core.PhaseRebaseConflicts, tree}}
		}
		for _, vr := range variants {
			for _, rounds := range []int{0, core.MaxRepairRounds} {
				for _, c := range core.Commands() {
					action := c.Action()
					n++
					id := fmt.Sprintf("gate-%d", n)
					r := &taskRecord{Version: recordVersion, TaskID: id, State: s, Phase: vr.phase, RepairRounds: rounds,
						ReviewRevision: 1, ReviewTreeHash: vr.hash}
					if s == core.StateWaitingPermission || s == core.StateWaitingInput {
						r.Interactions = []core.Interaction{{ID: "permission-1", Kind: core.InteractionPermission, Status: core.InteractionPending}}
					}
					if err := h.e.create(r, nil); err != nil {
						t.Fatal(err)
					}
					v := r.view()
					what := fmt.Sprintf("%s (phase %q, hash %t, %d rounds), %s", s, vr.phase, vr.hash != "", rounds, action)
					got, err := h.e.Control(ctx, gateRequest(id, action))
					after, lerr := h.e.load(id)
					if lerr != nil {
						t.Fatalf("%s: %v", what, lerr)
					}
					ce := core.AsError(err)
					switch allowed := core.Allows(v, action); {
					case !allowed && s.Terminal() && (action == core.ActionCancel || action == core.ActionClose):
						// A retried ending finds its own effect: answered, nothing changed.
						if err != nil || got.State != s || after.State != s {
							t.Errorf("%s: %v, now %s", what, err, after.State)
						}
					case !allowed:
						code := core.CodeInvalidState
						switch {
						case action == core.ActionRespond:
							code = core.CodeInteractionNotFound
						case core.OutOfRounds(v, action):
							code = core.CodeRepairLimitReached
						}
						if err == nil || ce.Code != code || !strings.Contains(ce.Message, core.WhyNot(v, action)) {
							t.Errorf("%s: the table leaves it out, but Control answered %v (want %s: %s)", what, err, code, core.WhyNot(v, action))
						} else if code == core.CodeInvalidState && (fmt.Sprint(ce.Details["state"]) != string(s) || fmt.Sprint(ce.Details["phase"]) != vr.phase) {
							t.Errorf("%s: details %v", what, ce.Details)
						} else if code == core.CodeRepairLimitReached && fmt.Sprint(ce.Details["repair_rounds"]) != fmt.Sprint(rounds) {
							t.Errorf("%s: details %v", what, ce.Details)
						}
						if after.State != s || after.Phase != vr.phase || after.RepairRounds != rounds {
							t.Errorf("%s: refused, yet the task is now %s (%s, %d rounds)", what, after.State, after.Phase, after.RepairRounds)
						}
					case err != nil && refusedForItsState(ce, id):
						t.Errorf("%s: the table offers it, but Control refused it for the task's state: %v", what, err)
					}
				}
			}
		}
	}
}

// gateRequest is a command for action on task id that passes reasonix_control's validation.
func gateRequest(id, action string) core.Command {
	rev, wait := 1, 0
	switch action {
	case core.ActionSteer:
		return core.Steer{TaskID: id, Message: "go on"}
	case core.ActionRespond:
		return core.Respond{TaskID: id, InteractionID: "permission-1", Decision: core.DecisionAllow}
	case core.ActionAmendChecks:
		return core.AmendChecks{TaskID: id, DropChecks: []string{"check"}}
	case core.ActionFinalize:
		return core.Finalize{TaskID: id, ReviewSummary: "looks right", ApprovedReviewCriteria: []string{},
			ExpectedReviewRevision: &rev, ExpectedReviewTreeHash: "0123456789abcdef0123456789abcdef01234567", WaitTimeoutSeconds: &wait}
	case core.ActionCancel:
		return core.Cancel{TaskID: id}
	case core.ActionClose:
		return core.Close{TaskID: id}
	case core.ActionRebase:
		return core.Rebase{TaskID: id}
	}
	panic("gateRequest: no command for action " + action)
}

// refusedForItsState reports whether e is a refusal about the task's state rather than about
// what the task lacks: a state named in its details, the repair limit, or a respond refused
// for more than the interaction it names.
func refusedForItsState(e *core.Error, id string) bool {
	switch e.Code {
	case core.CodeRepairLimitReached:
		return true
	case core.CodeInvalidState:
		_, ok := e.Details["state"]
		return ok
	case core.CodeInteractionNotFound:
		return e.Message != "no pending interaction permission-1 on task "+id
	}
	return false
}

// What a task id may be is core's rule, which the engine applies before the store, whose own
// check is only what its keys need: an id no task can have is invalid_request wherever a front
// end names a task, and the longest id a task can have fits the store's keys.
func TestTaskIDRuleIsCoresNotTheStores(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	for _, id := range []string{"a b", "é", "tab\t", "-x", "x..y", strings.Repeat("x", core.MaxTaskIDLen+1)} {
		if _, err := h.e.Get(ctx, id); core.AsError(err).Code != core.CodeInvalidRequest {
			t.Errorf("Get(%q): %v", id, err)
		}
		if _, err := h.e.Journal(ctx, id); core.AsError(err).Code != core.CodeInvalidRequest {
			t.Errorf("Journal(%q): %v", id, err)
		}
		if _, err := h.e.Subscribe(ctx, core.SubscribeOptions{TaskID: id}); core.AsError(err).Code != core.CodeInvalidRequest {
			t.Errorf("Subscribe(%q): %v", id, err)
		}
	}
	if core.MaxTaskIDLen > store.MaxIDLen {
		t.Fatalf("a task id may be %d bytes, a store key's id %d", core.MaxTaskIDLen, store.MaxIDLen)
	}
	longest := strings.Repeat("x", core.MaxTaskIDLen)
	if _, err := h.e.Get(ctx, longest); core.AsError(err).Code != core.CodeTaskNotFound {
		t.Fatalf("Get of a %d-byte id: %v", len(longest), err)
	}
}
