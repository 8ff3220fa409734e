package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"reasonixctl/core"
	"reasonixctl/core/contract"
	"reasonixctl/core/policy"
)

// AmendChecks changes the verification commands of a task in review, as its supervisor decides:
// a check that cannot prove anything about this change (it fails before it) can go, and a
// missing one can come, without cancelling the task. The contract gets a new revision and hash,
// journaled; an automated criterion left without a prover becomes a review criterion; the
// worker is told in its next prompt. The new contract is linted and gated like a delegated one;
// a refused amendment changes nothing. Front ends reach it through Control with an
// AmendChecks; a dashboard that owns the engine may call it directly.
func (e *Engine) AmendChecks(ctx context.Context, req core.AmendChecks) (core.TaskView, error) {
	if !core.ValidTaskID(req.TaskID) {
		return core.TaskView{}, core.InvalidRequest("amend checks", []core.Issue{{Path: "task_id", Message: "must match " + core.TaskIDPattern}})
	}
	if issues := core.AmendCheckIssues(req.DropChecks, req.AddChecks); len(issues) > 0 {
		return core.TaskView{}, core.InvalidRequest("amend checks", issues)
	}
	unlock := e.lockTask(req.TaskID)
	defer unlock()
	r, err := e.load(req.TaskID)
	if err != nil {
		return core.TaskView{}, err
	}
	if err := refusal(r, core.ActionAmendChecks); err != nil {
		return core.TaskView{}, err
	}
	old, err := parseStoredContract(r.Contract)
	if err != nil {
		return core.TaskView{}, core.Errorf(core.CodeInvalidState, nil, "stored contract: %w", err)
	}
	c, data, err := amendedContract(old, req)
	if err != nil {
		return core.TaskView{}, err
	}
	data.PreviousHash = old.Hash()
	r, err = e.update(req.TaskID, func(r *taskRecord) ([]newEvent, error) {
		if r.ContractHash != data.PreviousHash || refusal(r, core.ActionAmendChecks) != nil {
			return nil, core.Errorf(core.CodeInvalidState, nil, "task %s changed while its checks were amended; try again", r.TaskID)
		}
		r.ContractRevision++
		data.Revision = r.ContractRevision
		r.Contract, r.ContractHash = c.CanonicalJSON(), c.Hash()
		data.ContractHash = r.ContractHash
		r.ContractNote = amendNote(data, c)
		return []newEvent{event(core.EventContractAmended, data)}, nil
	})
	if err != nil {
		return core.TaskView{}, err
	}
	// A worker between turns holds the old contract for its permissions: the next repair round
	// starts one with the new contract.
	e.detach(req.TaskID)
	return r.view(), nil
}

// amendedContract applies req to c and checks the result as delegate would.
func amendedContract(c *contract.Contract, req core.AmendChecks) (*contract.Contract, core.ContractAmendedData, error) {
	var data core.ContractAmendedData
	var doc map[string]any
	if err := json.Unmarshal(c.CanonicalJSON(), &doc); err != nil {
		return nil, data, core.Errorf(core.CodeInternalError, nil, "contract: %w", err)
	}
	verification, _ := doc["verification"].([]any)
	criteria, _ := doc["acceptance_criteria"].([]any)
	var issues []core.Issue
	for i, id := range req.DropChecks {
		n := len(verification)
		verification = slices.DeleteFunc(verification, func(v any) bool { return v.(map[string]any)["id"] == id })
		if len(verification) == n {
			issues = append(issues, core.Issue{Path: fmt.Sprintf("drop_checks.%d", i), Message: fmt.Sprintf("%q is not a verification id of the contract", id)})
		}
		data.Dropped = append(data.Dropped, id)
	}
	for _, a := range req.AddChecks {
		cwd := a.Cwd
		if cwd == "" {
			cwd = "."
		}
		v := map[string]any{"id": a.ID, "argv": a.Argv, "cwd": cwd, "proves": []any{a.ID + core.AddedCheckSuffix}}
		if a.TimeoutSeconds > 0 {
			v["timeout_seconds"] = a.TimeoutSeconds
		}
		verification = append(verification, v)
		criteria = append(criteria, map[string]any{"id": a.ID + core.AddedCheckSuffix, "requirement": "`" + core.ShellWords(a.Argv) + "` passes", "evidence": contract.EvidenceAutomated})
		data.Added = append(data.Added, a.ID)
	}
	// An automated criterion nothing proves any more is left to the supervisor's review.
	proved := map[string]bool{}
	for _, list := range [][]any{verification, asList(doc["file_assertions"])} {
		for _, v := range list {
			for _, p := range asList(v.(map[string]any)["proves"]) {
				if s, ok := p.(string); ok {
					proved[s] = true
				}
			}
		}
	}
	for _, cr := range criteria {
		m := cr.(map[string]any)
		if m["evidence"] == contract.EvidenceAutomated && !proved[m["id"].(string)] {
			m["evidence"] = contract.EvidenceReview
			data.ToReview = append(data.ToReview, m["id"].(string))
		}
	}
	if len(issues) > 0 {
		return nil, data, core.Errorf(core.CodeInvalidRequest, &core.IssueList{Issues: issues}, "amend checks: %s: %s", issues[0].Path, issues[0].Message)
	}
	doc["verification"], doc["acceptance_criteria"] = verification, criteria
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, data, core.Errorf(core.CodeInternalError, nil, "contract: %w", err)
	}
	nc, err := contract.Parse(raw)
	if err != nil {
		return nil, data, contractError(err)
	}
	if gate := policy.GateContract(nc); len(gate) > 0 {
		return nil, data, core.Errorf(core.CodeInvalidContract, &core.IssueList{Issues: toIssues(gate)}, "the amended contract is refused: %s", gate[0])
	}
	return nc, data, nil
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// amendNote is what the worker is told of an amendment at its next prompt.
func amendNote(d core.ContractAmendedData, c *contract.Contract) string {
	var parts []string
	if len(d.Dropped) > 0 {
		parts = append(parts, "dropped "+strings.Join(d.Dropped, ", "))
	}
	for _, id := range d.Added {
		for _, v := range c.Verification {
			if v.ID == id {
				parts = append(parts, fmt.Sprintf("added %s (%s, from %s)", id, core.ShellWords(v.Argv), v.Cwd))
			}
		}
	}
	return fmt.Sprintf("The supervisor amended the contract's verification commands (revision %d): %s. Finalize runs exactly these now: %s. ",
		d.Revision, strings.Join(parts, "; "), verificationList(c))
}

func verificationList(c *contract.Contract) string {
	if len(c.Verification) == 0 {
		return "none"
	}
	out := make([]string, len(c.Verification))
	for i, v := range c.Verification {
		out[i] = core.ShellWords(v.Argv)
	}
	return strings.Join(out, "; ")
}
