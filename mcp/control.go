package mcp

import (
	"encoding/json"
	"maps"
	"slices"

	"reasonixctl/core"
)

// controlArgs is reasonix_control's input as Codex sends it: one flat object with an action and
// the fields of every action, which of them apply depending on the action (controlFields). The
// flat form is the wire's alone: parseControl turns it into the core.Command of its action, and
// nothing past this package sees it. It has no field a client must not choose (who answered,
// the authority, a standing grant): the server sets those on the command.
type controlArgs struct {
	TaskID                 string              `json:"task_id"`
	Action                 string              `json:"action"`
	Message                *string             `json:"message,omitempty"`
	InteractionID          string              `json:"interaction_id,omitempty"`
	Decision               string              `json:"decision,omitempty"`
	OptionID               string              `json:"option_id,omitempty"`
	Answer                 string              `json:"answer,omitempty"`
	ReviewSummary          string              `json:"review_summary,omitempty"`
	ApprovedReviewCriteria []string            `json:"approved_review_criteria,omitempty"`
	ExpectedReviewRevision *int                `json:"expected_review_revision,omitempty"`
	ExpectedReviewTreeHash string              `json:"expected_review_tree_hash,omitempty"`
	CommitMessage          string              `json:"commit_message,omitempty"`
	WaitTimeoutSeconds     *int                `json:"wait_timeout_seconds,omitempty"`
	AcknowledgedRisks      []string            `json:"acknowledged_risks,omitempty"`
	ExcusedChecks          []core.ExcusedCheck `json:"excused_checks,omitempty"`
	DropChecks             []string            `json:"drop_checks,omitempty"`
	AddChecks              []core.AddedCheck   `json:"add_checks,omitempty"`
}

// controlFieldRule is what one reasonix_control action takes besides task_id and action.
type controlFieldRule struct {
	required, optional []string
}

// controlFields is the per-action union of reasonix_control: the one place its fields are
// assigned to actions. Each action's fields are those of its core.Command type (a test checks
// the two agree).
var controlFields = map[string]controlFieldRule{
	core.ActionSteer:   {required: []string{"message"}},
	core.ActionRespond: {required: []string{"interaction_id", "decision"}, optional: []string{"option_id", "answer"}},
	core.ActionCancel:  {},
	core.ActionClose:   {},
	// At least one of the two: core.AmendCheckIssues.
	core.ActionAmendChecks: {optional: []string{"drop_checks", "add_checks"}},
	core.ActionRebase:      {},
	core.ActionFinalize: {
		required: []string{"review_summary", "approved_review_criteria", "expected_review_revision", "expected_review_tree_hash"},
		optional: []string{"commit_message", "wait_timeout_seconds", "acknowledged_risks", "excused_checks"},
	},
}

// controlFieldIssues applies controlFields to the fields a request sets: each required one that
// is missing (in rule order), then each one the action does not take (by name). present lists
// every field set, task_id and action included. An unknown action gets no issue here.
func controlFieldIssues(action string, present map[string]bool) []core.Issue {
	rule, ok := controlFields[action]
	if !ok {
		return nil
	}
	var issues []core.Issue
	for _, f := range rule.required {
		if !present[f] {
			issues = append(issues, core.Issue{Path: f, Message: "Required"})
		}
	}
	for _, f := range slices.Sorted(maps.Keys(present)) {
		if present[f] && f != "task_id" && f != "action" && !slices.Contains(rule.required, f) && !slices.Contains(rule.optional, f) {
			issues = append(issues, core.Issue{Path: f, Message: "Not allowed for action " + action})
		}
	}
	return issues
}

// parseControl turns reasonix_control's arguments, already valid against its schema, into the
// command of their action: the per-action union on top of the flat schema, then the command.
// A field counts as set when its key is there, whatever its value. What a value must be beyond
// the schema (a blank summary aside) is the engine's to check on the command, whoever sent it.
func parseControl(args []byte) (core.Command, error) {
	var a controlArgs
	if err := decodeStrict(ToolControl, args, &a); err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(args, &fields); err != nil {
		return nil, invalidRequest(ToolControl, []core.Issue{{Path: "arguments", Message: err.Error()}})
	}
	present := make(map[string]bool, len(fields))
	for f := range fields {
		present[f] = true
	}
	issues := controlFieldIssues(a.Action, present)
	if _, ok := fields["review_summary"]; ok && a.Action == core.ActionFinalize {
		issues = append(issues, core.ReviewSummaryIssues(a.ReviewSummary)...)
	}
	if a.Action == core.ActionAmendChecks {
		issues = append(issues, core.AmendCheckIssues(a.DropChecks, a.AddChecks)...)
	}
	if len(issues) > 0 {
		return nil, invalidRequest(ToolControl, issues)
	}
	cmd := a.command()
	if cmd == nil {
		// The schema's enum refuses an unknown action before this.
		return nil, invalidRequest(ToolControl, []core.Issue{{Path: "action", Message: "must be steer, respond, cancel, finalize, close, amend_checks or rebase"}})
	}
	return cmd, nil
}

// command is the core.Command of a's action, with a's fields for it; nil for an unknown action.
func (a controlArgs) command() core.Command {
	switch a.Action {
	case core.ActionSteer:
		var msg string
		if a.Message != nil {
			msg = *a.Message
		}
		return core.Steer{TaskID: a.TaskID, Message: msg}
	case core.ActionRespond:
		return core.Respond{TaskID: a.TaskID, InteractionID: a.InteractionID, Decision: a.Decision, OptionID: a.OptionID, Answer: a.Answer}
	case core.ActionCancel:
		return core.Cancel{TaskID: a.TaskID}
	case core.ActionClose:
		return core.Close{TaskID: a.TaskID}
	case core.ActionFinalize:
		return core.Finalize{TaskID: a.TaskID, ReviewSummary: a.ReviewSummary, ApprovedReviewCriteria: a.ApprovedReviewCriteria,
			ExpectedReviewRevision: a.ExpectedReviewRevision, ExpectedReviewTreeHash: a.ExpectedReviewTreeHash,
			CommitMessage: a.CommitMessage, WaitTimeoutSeconds: a.WaitTimeoutSeconds,
			AcknowledgedRisks: a.AcknowledgedRisks, ExcusedChecks: a.ExcusedChecks}
	case core.ActionAmendChecks:
		return core.AmendChecks{TaskID: a.TaskID, DropChecks: a.DropChecks, AddChecks: a.AddChecks}
	case core.ActionRebase:
		return core.Rebase{TaskID: a.TaskID}
	}
	return nil
}
