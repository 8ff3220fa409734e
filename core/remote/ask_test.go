package remote

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
)

// askScenario is a turn whose one command the policy does not know, then the result file.
func askScenario() *acptest.Scenario {
	return turn(acptest.Step{Shell: &acptest.Shell{Command: "make lint", Output: "fine"}, Permission: "ask"}, writeResult())
}

// recordingAsker answers every question with resp (recording it first, as the MCP server's
// form does) and counts what it was asked.
type recordingAsker struct {
	mu    sync.Mutex
	asked []string
	resp  core.InteractionResponse
	err   error
}

func (a *recordingAsker) ask(ctx context.Context, q core.Question) (core.InteractionResponse, error) {
	a.mu.Lock()
	a.asked = append(a.asked, q.TaskID+"/"+q.Interaction.ID)
	a.mu.Unlock()
	if a.err != nil {
		return core.InteractionResponse{}, a.err
	}
	if err := q.Record(a.resp); err != nil {
		return core.InteractionResponse{}, err
	}
	return a.resp, nil
}

func (a *recordingAsker) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.asked)
}

// permissionDecisions lists the by:decision:outcome of the task's permission decisions.
func permissionDecisions(t *testing.T, c *Client, id string) string {
	t.Helper()
	evs, err := c.Journal(ctxT(t, 10*time.Second), id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ev := range evs {
		if ev.Type != core.EventPermissionDecided {
			continue
		}
		var d core.PermissionData
		if err := json.Unmarshal(ev.Data, &d); err != nil {
			t.Fatal(err)
		}
		if d.Kind == "execute" || d.By != "policy" || d.Decision != "allow" {
			out = append(out, d.By+":"+d.Decision+":"+d.Outcome)
		}
	}
	return strings.Join(out, ",")
}

// A serve owner has no form to show: the MCP server attached to it asks its person, and the
// answer is recorded as theirs.
func TestAttachedClientAsksItsPersonForTheOwner(t *testing.T) {
	o := newOwner(t, askScenario())
	c := o.dial(t, RoleMCP)
	a := &recordingAsker{resp: core.InteractionResponse{Decision: core.DecisionAllow, Outcome: core.OutcomeAnswered}}
	c.SetAsker(a.ask)
	waitForAskers(t, o, 1)

	if _, err := c.Delegate(ctxT(t, 60*time.Second), o.request("asked")); err != nil {
		t.Fatal(err)
	}
	waitForState(t, c, "asked", core.StateReviewRequired)
	if a.count() != 1 {
		t.Fatalf("asked %d times", a.count())
	}
	if got := permissionDecisions(t, c, "asked"); !strings.Contains(got, "asked_user:allow:answered") {
		t.Fatalf("decisions %s", got)
	}
}

// The question goes to the client that delegated the task, not to a newer one; once that
// client is gone (Codex restarted), the newest client that asks gets the next question.
func TestQuestionsGoToTheDelegatingClient(t *testing.T) {
	scn := &acptest.Scenario{Turns: []acptest.Turn{{Steps: []acptest.Step{
		{Shell: &acptest.Shell{Command: "make lint", Output: "fine"}, Permission: "ask"}, writeResult()}}},
		After: &acptest.Turn{Steps: []acptest.Step{{Shell: &acptest.Shell{Command: "make fmt", Output: "done"}, Permission: "ask"}, writeResult()}}}
	o := newOwner(t, scn)
	first := o.dial(t, RoleMCP)
	allow := core.InteractionResponse{Decision: core.DecisionAllow, Outcome: core.OutcomeAnswered}
	fa := &recordingAsker{resp: allow}
	first.SetAsker(fa.ask)
	waitForAskers(t, o, 1)
	second := o.dial(t, RoleMCP)
	sa := &recordingAsker{resp: core.InteractionResponse{Decision: core.DecisionDeny, Outcome: core.OutcomeAnswered}}
	second.SetAsker(sa.ask)
	waitForAskers(t, o, 2)

	if _, err := first.Delegate(ctxT(t, 60*time.Second), o.request("routed")); err != nil {
		t.Fatal(err)
	}
	waitForState(t, first, "routed", core.StateReviewRequired)
	if fa.count() != 1 || sa.count() != 0 {
		t.Fatalf("first asked %d, second %d", fa.count(), sa.count())
	}

	// The delegating client leaves; a repair round asks again, and the remaining one answers.
	first.Close()
	waitForAskers(t, o, 1)
	msg := "also format"
	if _, err := second.Control(ctxT(t, 30*time.Second), core.Steer{TaskID: "routed", Message: msg}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 60*time.Second, "the second client to be asked", func() bool { return sa.count() == 1 })
	eventually(t, 60*time.Second, "the denial to be recorded", func() bool {
		return strings.Contains(permissionDecisions(t, second, "routed"), "asked_user:deny:answered")
	})
}

// A client whose person cannot be asked says so: the policy denies at once, as unavailable,
// without waiting for the timeout.
func TestAttachedClientThatCannotAskDeniesAtOnce(t *testing.T) {
	o := newOwner(t, askScenario())
	c := o.dial(t, RoleMCP)
	a := &recordingAsker{err: errors.New("the client declined to show a form")}
	c.SetAsker(a.ask)
	waitForAskers(t, o, 1)
	if _, err := c.Delegate(ctxT(t, 60*time.Second), o.request("unasked")); err != nil {
		t.Fatal(err)
	}
	waitForState(t, c, "unasked", core.StateReviewRequired)
	if got := permissionDecisions(t, c, "unasked"); !strings.Contains(got, "policy:deny:unavailable") {
		t.Fatalf("decisions %s", got)
	}
}

// A peer cannot answer a question it was not asked.
func TestAnswerForAnUnknownQuestionIsRefused(t *testing.T) {
	o := newOwner(t, askScenario())
	c := o.dial(t, RoleMCP)
	_, err := unaryCall(c, ctxT(t, 5*time.Second), c.answerCl, &answerRequest{Session: c.session, ID: "permission-1",
		Response: &core.InteractionResponse{Decision: core.DecisionAllow}})
	mustCode(t, err, core.CodeInteractionNotFound)
}

func waitForAskers(t *testing.T, o *owner, n int) {
	t.Helper()
	eventually(t, 10*time.Second, "the askers to attach", func() bool {
		o.srv.ask.mu.Lock()
		defer o.srv.ask.mu.Unlock()
		return len(o.srv.ask.clients) == n
	})
}

// waitForState waits for the task to reach state.
func waitForState(t *testing.T, c *Client, id string, state core.State) {
	t.Helper()
	eventually(t, 60*time.Second, "task "+id+" in "+string(state), func() bool {
		d, err := c.Get(context.Background(), id)
		return err == nil && d.View.State == state
	})
}
