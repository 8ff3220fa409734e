package engine

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
)

// askTurn is a turn whose one command the policy does not know.
func askTurn() *acptest.Scenario {
	return writeTurn(acptest.Step{Shell: &acptest.Shell{Command: "make lint", Output: "fine"}, Permission: "ask"}, writeResult())
}

// decisions returns the by/decision pairs of the task's permission_decided events, but for
// the allowed write of the result file that ends each scenario.
func decisions(t *testing.T, h *harness, id string) []string {
	var out []string
	for _, ev := range journal(t, h, id) {
		if ev.Type == core.EventPermissionDecided {
			var d core.PermissionData
			if err := json.Unmarshal(ev.Data, &d); err != nil {
				t.Fatal(err)
			}
			out = append(out, d.By+":"+d.Decision)
		}
	}
	if n := len(out); n > 0 && out[n-1] == "policy:allow" {
		out = out[:n-1]
	}
	return out
}

// With no supervisor and no asker, an automatic-mode task denies at once (the earlier
// behaviour).
func TestAutomaticDeniesWithNobodyToAsk(t *testing.T) {
	h := newHarness(t, askTurn())
	res, err := h.delegate("auto")
	if err != nil {
		t.Fatal(err)
	}
	if res.State != core.StateReviewRequired {
		t.Fatalf("view %+v", res.TaskView)
	}
	if got := strings.Join(decisions(t, h, "auto"), ","); got != "policy:deny" {
		t.Fatalf("decisions %s", got)
	}
}

// An attached supervisor is asked; the answer reaches the worker.
func TestAttachedSupervisorIsAskedAboutAutomaticTasks(t *testing.T) {
	h := newHarness(t, askTurn())
	detach := h.e.AttachSupervisor()
	defer detach()
	res, err := h.delegate("asked")
	if err != nil {
		t.Fatal(err)
	}
	if res.State != core.StateWaitingPermission || res.ActiveInteraction == nil {
		t.Fatalf("view %+v", res.TaskView)
	}
	if _, err := h.e.Control(context.Background(), core.Respond{TaskID: "asked", InteractionID: res.ActiveInteraction.ID, Decision: core.DecisionAllow}); err != nil {
		t.Fatal(err)
	}
	if _, timedOut, err := h.e.waitFor(context.Background(), "asked", 30*time.Second, func(r *taskRecord) bool { return r.State == core.StateReviewRequired }); err != nil || timedOut {
		t.Fatalf("no review: %v", err)
	}
	if got := strings.Join(decisions(t, h, "asked"), ","); got != "policy:interaction,supervisor:allow" {
		t.Fatalf("decisions %s", got)
	}
	detach()
	detach() // idempotent
	if n := h.e.Supervisors(); n != 0 {
		t.Fatalf("supervisors %d", n)
	}
}

// With no answer within the ask timeout the automatic denial applies, with its steer.
func TestUnansweredAskFallsBackToTheAutomaticDenial(t *testing.T) {
	h := newHarness(t, askTurn(), func(c *Config) { c.AskTimeout = 50 * time.Millisecond })
	defer h.e.AttachSupervisor()()
	res, err := h.delegate("timeout")
	if err != nil {
		t.Fatal(err)
	}
	if res.State == core.StateWaitingPermission {
		// The delegate returned while the interaction waited: wait for the fallback.
		if _, timedOut, err := h.e.waitFor(context.Background(), "timeout", 30*time.Second, func(r *taskRecord) bool { return r.State == core.StateReviewRequired }); err != nil || timedOut {
			t.Fatalf("no review: %v", err)
		}
	}
	got := decisions(t, h, "timeout")
	if strings.Join(got, ",") != "policy:interaction,policy:deny" {
		t.Fatalf("decisions %v", got)
	}
	d, err := h.e.Get(context.Background(), "timeout")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Interactions) != 1 || d.Interactions[0].Status != core.InteractionCancelled || d.Interactions[0].Response == nil ||
		*d.Interactions[0].Response != (core.InteractionResponse{Decision: core.DecisionDeny, By: core.ByPolicy, Outcome: core.OutcomeTimedOut}) {
		t.Fatalf("interactions %s", toJSON(d.Interactions))
	}
	if !strings.Contains(toJSON(journal(t, h, "timeout")), `"outcome":"timed_out"`) {
		t.Fatalf("the denial is not recorded as a timeout: %s", toJSON(journal(t, h, "timeout")))
	}
	steered := false
	for _, ev := range journal(t, h, "timeout") {
		if ev.Type == core.EventSteered && strings.Contains(string(ev.Data), "no one allowed it within 50ms") {
			steered = true
		}
	}
	if !steered {
		t.Fatalf("no recovery steer naming the timeout: %s", toJSON(journal(t, h, "timeout")))
	}
}

// When the last supervisor leaves (quits, or suspends its dashboard), a question waiting for
// one falls back to the automatic denial at once, not at the ask timeout.
func TestSupervisorLeavingEndsTheWaitAtOnce(t *testing.T) {
	h := newHarness(t, askTurn(), func(c *Config) { c.AskTimeout = time.Hour })
	detach := h.e.AttachSupervisor()
	res, err := h.delegate("left")
	if err != nil {
		t.Fatal(err)
	}
	if res.State != core.StateWaitingPermission {
		t.Fatalf("view %+v", res.TaskView)
	}
	detach()
	if _, timedOut, err := h.e.waitFor(context.Background(), "left", 30*time.Second, func(r *taskRecord) bool { return r.State == core.StateReviewRequired }); err != nil || timedOut {
		t.Fatalf("still waiting for a supervisor who left: %v", err)
	}
	if got := strings.Join(decisions(t, h, "left"), ","); got != "policy:interaction,policy:deny" {
		t.Fatalf("decisions %s", got)
	}
	if j := toJSON(journal(t, h, "left")); !strings.Contains(j, "the supervisor left without answering") || !strings.Contains(j, `"outcome":"abandoned"`) {
		t.Fatal("the denial does not say the supervisor left")
	}
	// The next supervisor is asked again, and its leaving is watched afresh.
	defer h.e.AttachSupervisor()()
	ok, asker, _, left := h.e.askFor("t")
	if !ok || asker != nil || left == nil {
		t.Fatal("a new supervisor is not asked")
	}
	select {
	case <-left:
		t.Fatal("the new supervisor's channel is already closed")
	default:
	}
}

// The asker is consulted when no supervisor is attached: its answer is recorded as the asked
// person's, as given (allow, deny, decline, cancel), and the interaction resolved with it; an
// error denies at once without waiting for the timeout, as nobody could be asked.
func TestAskerAnswersOrFallsBack(t *testing.T) {
	answer := func(r core.InteractionResponse) func(ctx context.Context, q core.Question) (core.InteractionResponse, error) {
		return func(ctx context.Context, q core.Question) (core.InteractionResponse, error) { return r, nil }
	}
	cases := []struct {
		name   string
		answer func(ctx context.Context, q core.Question) (core.InteractionResponse, error)
		want   string
		// the interaction's status, response by, decision and outcome; and words of the steer
		interaction, steer string
	}{
		{"allow", answer(core.InteractionResponse{Decision: core.DecisionAllow, Outcome: core.OutcomeAnswered}),
			"policy:interaction,asked_user:allow", "resolved asked_user allow answered", ""},
		{"deny", answer(core.InteractionResponse{Decision: core.DecisionDeny, Outcome: core.OutcomeAnswered}),
			"policy:interaction,asked_user:deny", "resolved asked_user deny answered", "was not allowed: denied by the form shown through an MCP client that did not name itself"},
		{"deny without an outcome", answer(core.InteractionResponse{Decision: core.DecisionDeny}),
			"policy:interaction,asked_user:deny", "resolved asked_user deny answered", "denied by the form shown through"},
		{"decline", answer(core.InteractionResponse{Decision: core.DecisionDeny, Outcome: core.OutcomeDeclined, Client: "codex-mcp-client 0.169.0"}),
			"policy:interaction,asked_user:deny", "resolved asked_user deny declined", "declined through codex-mcp-client 0.169.0 (a client may decline a form without showing it), which denies it"},
		{"cancel", answer(core.InteractionResponse{Decision: core.DecisionDeny, Outcome: core.OutcomeCancelled}),
			"policy:interaction,asked_user:deny", "resolved asked_user deny cancelled", "dismissed through an MCP client that did not name itself without an answer"},
		{"recorded by the asker", func(ctx context.Context, q core.Question) (core.InteractionResponse, error) {
			r := core.InteractionResponse{Decision: core.DecisionDeny, Outcome: core.OutcomeDeclined}
			if err := q.Record(r); err != nil {
				return r, err
			}
			return r, nil // not recorded twice
		}, "policy:interaction,asked_user:deny", "resolved asked_user deny declined", "declined through"},
		{"error", func(ctx context.Context, q core.Question) (core.InteractionResponse, error) {
			return core.InteractionResponse{}, errors.New("client went away")
		}, "policy:interaction,policy:deny", "cancelled policy deny unavailable", "nobody could be asked"},
		{"a decision that is neither", answer(core.InteractionResponse{Decision: "maybe"}),
			"policy:interaction,policy:deny", "cancelled policy deny unavailable", "nobody could be asked"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// An hour: a fallback that waited for the timeout would fail the test's deadline.
			h := newHarness(t, askTurn(), func(cfg *Config) { cfg.AskTimeout = time.Hour })
			asked := make(chan core.Question, 1)
			h.e.SetAsker(func(ctx context.Context, q core.Question) (core.InteractionResponse, error) {
				asked <- q
				return c.answer(ctx, q)
			})
			bg := 0
			if _, err := h.delegate("elicited", func(r *core.DelegateRequest) { r.WaitTimeoutSeconds = &bg }); err != nil {
				t.Fatal(err)
			}
			select {
			case q := <-asked:
				if q.TaskID != "elicited" || q.Timeout != time.Hour || strings.Join(q.Interaction.Request.Argv, " ") != "make lint" {
					t.Fatalf("question %+v", q)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("the asker was not asked")
			}
			if _, timedOut, err := h.e.waitFor(context.Background(), "elicited", 30*time.Second, func(r *taskRecord) bool { return r.State == core.StateReviewRequired }); err != nil || timedOut {
				t.Fatalf("no review: %v", err)
			}
			if got := strings.Join(decisions(t, h, "elicited"), ","); got != c.want {
				t.Fatalf("decisions %s, want %s", got, c.want)
			}
			d, err := h.e.Get(context.Background(), "elicited")
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Interactions) != 1 || d.Interactions[0].Response == nil {
				t.Fatalf("interactions %s", toJSON(d.Interactions))
			}
			ia := d.Interactions[0]
			if got := strings.Join([]string{ia.Status, ia.Response.By, ia.Response.Decision, ia.Response.Outcome}, " "); got != c.interaction {
				t.Fatalf("interaction %s, want %s", got, c.interaction)
			}
			var steers []string
			for _, ev := range journal(t, h, "elicited") {
				if ev.Type == core.EventSteered {
					steers = append(steers, string(ev.Data))
				}
			}
			switch {
			case c.steer == "" && len(steers) > 0:
				t.Fatalf("steered after an allow: %v", steers)
			case c.steer != "" && (len(steers) != 1 || !strings.Contains(steers[0], c.steer) || !strings.Contains(steers[0], `"make`) && !strings.Contains(steers[0], "(make lint)")):
				t.Fatalf("steers %v, want one naming make lint and saying %q", steers, c.steer)
			}
		})
	}
}

// An answer given elsewhere ends the asker's wait.
func TestAnswerElsewhereCancelsTheAsker(t *testing.T) {
	h := newHarness(t, askTurn(), func(cfg *Config) { cfg.AskTimeout = time.Hour })
	ended := make(chan error, 1)
	h.e.SetAsker(func(ctx context.Context, q core.Question) (core.InteractionResponse, error) {
		<-ctx.Done()
		ended <- ctx.Err()
		return core.InteractionResponse{}, ctx.Err()
	})
	res, err := h.delegate("elsewhere")
	if err != nil || res.ActiveInteraction == nil {
		t.Fatalf("%v %+v", err, res.TaskView)
	}
	if _, err := h.e.Control(context.Background(), core.Respond{TaskID: "elsewhere", InteractionID: res.ActiveInteraction.ID, Decision: core.DecisionAllow}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ended:
	case <-time.After(30 * time.Second):
		t.Fatal("the asker still waits after the interaction was answered")
	}
	if got := strings.Join(decisions(t, h, "elsewhere"), ","); got != "policy:interaction,supervisor:allow" {
		t.Fatalf("decisions %s", got)
	}
}

// Who answered is recorded as given (Codex through respond, a dashboard by default), and an
// answerer or outcome the engine does not know is refused with the typed invalid_request.
func TestRespondRecordsWhoAnswered(t *testing.T) {
	for _, c := range []struct{ by, want string }{{core.ByCodex, core.ByCodex}, {"", core.BySupervisor}} {
		h := newHarness(t, askTurn())
		detach := h.e.AttachSupervisor()
		res, err := h.delegate("who")
		if err != nil || res.ActiveInteraction == nil {
			t.Fatalf("%v %+v", err, res.TaskView)
		}
		bad := []core.Respond{
			{TaskID: "who", InteractionID: res.ActiveInteraction.ID, Decision: core.DecisionDeny, AnsweredBy: "someone"},
			{TaskID: "who", InteractionID: res.ActiveInteraction.ID, Decision: core.DecisionAllow, Outcome: core.OutcomeDeclined},
			{TaskID: "who", InteractionID: res.ActiveInteraction.ID, Decision: core.DecisionDeny, Outcome: core.OutcomeTimedOut},
		}
		for _, req := range bad {
			if _, err := h.e.Control(context.Background(), req); core.AsError(err).Code != core.CodeInvalidRequest {
				t.Fatalf("%+v: %v", req, err)
			}
		}
		if _, err := h.e.Control(context.Background(), core.Respond{TaskID: "who",
			InteractionID: res.ActiveInteraction.ID, Decision: core.DecisionDeny, AnsweredBy: c.by}); err != nil {
			t.Fatal(err)
		}
		if _, timedOut, err := h.e.waitFor(context.Background(), "who", 30*time.Second, func(r *taskRecord) bool { return r.State == core.StateReviewRequired }); err != nil || timedOut {
			t.Fatalf("no review: %v", err)
		}
		if got := strings.Join(decisions(t, h, "who"), ","); got != "policy:interaction,"+c.want+":deny" {
			t.Fatalf("decisions %s", got)
		}
		d, _ := h.e.Get(context.Background(), "who")
		if r := d.Interactions[0].Response; r == nil || r.By != c.want || r.Outcome != core.OutcomeAnswered {
			t.Fatalf("response %+v", r)
		}
		detach()
	}
}
