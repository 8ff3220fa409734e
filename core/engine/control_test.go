package engine

import (
	"fmt"
	"testing"

	"reasonixctl/core"
)

// A command's type says which fields it has; validateCommand still refuses what a Go caller can
// leave empty or get wrong, in reasonix_control's words, and a pointer to a command, which no
// switch on the command types would match.
func TestValidateCommand(t *testing.T) {
	issues := func(cmd core.Command) string {
		err := validateCommand(cmd)
		if err == nil {
			return ""
		}
		ce := core.AsError(err)
		if ce.Code != core.CodeInvalidRequest || ce.Message != "reasonix_control input validation failed" {
			t.Fatalf("%#v: %v", cmd, err)
		}
		var out string
		for _, is := range ce.Details["issues"].([]core.Issue) {
			out += fmt.Sprintf("%s: %s; ", is.Path, is.Message)
		}
		return out
	}
	long := make([]byte, core.MaxAnswerLen+1)
	for _, c := range []struct {
		cmd  core.Command
		want string
	}{
		{core.Steer{TaskID: "t", Message: "go on"}, ""},
		{core.Steer{TaskID: "t"}, fmt.Sprintf("message: must be 1..%d characters; ", core.MaxSteerMessageLen)},
		{core.Steer{TaskID: "../t", Message: "go on"}, "task_id: must match " + core.TaskIDPattern + "; "},
		{core.Respond{TaskID: "t"}, "decision: Required; interaction_id: Required; "},
		{core.Respond{TaskID: "t", Answer: string(long), Decision: "maybe"},
			fmt.Sprintf("decision: must be allow or deny; interaction_id: Required; interaction_id: interaction_id ≤%d, option_id ≤%d, answer ≤%d characters; ",
				core.MaxInteractionIDLen, core.MaxOptionIDLen, core.MaxAnswerLen)},
		{core.Respond{TaskID: "t", InteractionID: "i", Decision: core.DecisionAllow, Outcome: core.OutcomeDeclined},
			"outcome: a declined or cancelled answer denies; "},
		{core.Finalize{TaskID: "t"}, "approved_review_criteria: Required; expected_review_revision: Required; expected_review_tree_hash: Required; review_summary: Required; "},
		{core.Finalize{TaskID: "t", ReviewSummary: " ", ApprovedReviewCriteria: []string{}, ExpectedReviewRevision: new(int), ExpectedReviewTreeHash: "0123456789abcdef0123456789abcdef01234567"},
			"review_summary: Must not be blank; "},
		{core.AmendChecks{TaskID: "t"}, "drop_checks: drop_checks or add_checks must name at least one check; "},
		{core.Cancel{TaskID: "t"}, ""},
		{core.Close{TaskID: "t"}, ""},
		{core.Rebase{TaskID: "t"}, ""},
		{&core.Cancel{TaskID: "t"}, "action: *core.Cancel is not a command; pass the command's value; "},
		{nil, "action: must be steer, respond, cancel, finalize, close, amend_checks or rebase; "},
	} {
		if got := issues(c.cmd); got != c.want {
			t.Errorf("%#v:\n got %s\nwant %s", c.cmd, got, c.want)
		}
	}
}
