package engine

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"reasonixctl/core"
	"reasonixctl/core/baseline"
	"reasonixctl/core/contract"
	"reasonixctl/core/gitx"
	"reasonixctl/core/redact"
)

// ExcusedTrailer is the commit message trailer naming an excused check.
const ExcusedTrailer = "Excused-check"

// validateExcuses checks excused_checks against the contract before anything runs: known
// verification ids, each once, with a one-line reason that holds no secret.
func validateExcuses(c *contract.Contract, excuses []core.ExcusedCheck, msg string) error {
	if len(excuses) == 0 {
		return nil
	}
	var issues []core.Issue
	add := func(i int, field, msg string) {
		issues = append(issues, core.Issue{Path: fmt.Sprintf("excused_checks.%d.%s", i, field), Message: msg})
	}
	if len(excuses) > core.MaxExcusedChecks {
		issues = append(issues, core.Issue{Path: "excused_checks", Message: fmt.Sprintf("at most %d entries", core.MaxExcusedChecks)})
	}
	known := map[string]bool{}
	for _, v := range c.Verification {
		known[v.ID] = true
	}
	seen := map[string]bool{}
	for i, ex := range excuses {
		switch {
		case !known[ex.ID]:
			add(i, "id", fmt.Sprintf("%q is not a verification id of the task's contract", ex.ID))
		case seen[ex.ID]:
			add(i, "id", fmt.Sprintf("%q is excused twice", ex.ID))
		}
		seen[ex.ID] = true
		reason := strings.TrimSpace(ex.Reason)
		switch {
		case reason == "":
			add(i, "reason", "must say why the failure may stand")
		case !utf8.ValidString(reason) || utf8.RuneCountInString(reason) > core.MaxExcuseReasonLen:
			add(i, "reason", fmt.Sprintf("must be valid UTF-8 of at most %d characters", core.MaxExcuseReasonLen))
		case strings.ContainsFunc(reason, unicode.IsControl):
			add(i, "reason", "must be one line without control characters")
		case redact.ContainsSecret(reason):
			add(i, "reason", "contains a secret")
		}
	}
	if len(issues) > 0 {
		return core.Errorf(core.CodeInvalidRequest, map[string]any{"issues": issues}, "excused_checks: %s", issues[0].Path+": "+issues[0].Message)
	}
	// The commit message must still be valid with every trailer the excuses could add.
	all := make([]core.VerificationResult, len(excuses))
	for i, ex := range excuses {
		all[i] = core.VerificationResult{ID: ex.ID, Excused: true, ExcuseReason: strings.TrimSpace(ex.Reason)}
	}
	if err := gitx.ValidateMessage(withExcuseTrailers(msg, all)); err != nil {
		return core.Errorf(core.CodeInvalidRequest, map[string]any{"issues": []core.Issue{{Path: "commit_message", Message: "too long with the excused checks' trailers"}}},
			"commit_message with the excused checks' trailers: %v", err)
	}
	return nil
}

// judgeFailures runs each failed command on the base commit (cached per command and base;
// nothing runs when every command passed), records the result with it, and applies the
// supervisor's excuses. The error is the first failure that stands: a command not excused,
// saying whether it fails before the change too, or an excuse for a command that does not
// fail before the change (verification_failed, reason not_excusable).
func (e *Engine) judgeFailures(ctx context.Context, r *taskRecord, c *contract.Contract, results []core.VerificationResult, excuses []core.ExcusedCheck) ([]core.VerificationResult, error) {
	var base *baseline.Commit
	defer func() {
		if base != nil {
			base.Close()
		}
	}()
	reasons := map[string]string{}
	for _, ex := range excuses {
		reasons[ex.ID] = strings.TrimSpace(ex.Reason)
	}
	var failure error
	for i := range results {
		v := &results[i]
		if v.Passed {
			continue
		}
		cv, ok := verificationOf(c, v.ID)
		if ok {
			if base == nil {
				base = e.taskBaseRun(r)
			}
			v.Baseline = base.Run(ctx, c, cv)
		} else {
			v.Baseline = &core.BaselineResult{Status: core.BaselineUnknown, Base: r.BaseCommit, Reason: "not a command of the contract"}
		}
		reason, excused := reasons[v.ID]
		switch {
		case excused && v.Baseline.PreExisting():
			v.Excused, v.ExcuseReason = true, reason
		case excused:
			if failure == nil {
				failure = notExcusable(*v)
			}
		case failure == nil:
			failure = failureWithBaseline(*v)
		}
	}
	return results, failure
}

func verificationOf(c *contract.Contract, id string) (contract.Verification, bool) {
	for _, v := range c.Verification {
		if v.ID == id {
			return v, true
		}
	}
	return contract.Verification{}, false
}

// baselineDetails is what an error says of a failed command's run on the base commit.
func baselineDetails(b *core.BaselineResult) map[string]any {
	if b == nil {
		return nil
	}
	d := map[string]any{"status": b.Status, "base": b.Base}
	if b.ExitCode != nil {
		d["exit_code"] = *b.ExitCode
	}
	if b.LogTail != "" {
		d["log_tail"] = b.LogTail
	}
	if b.LogPath != "" {
		d["log_path"] = b.LogPath
	}
	if b.Reason != "" {
		d["reason"] = b.Reason
	}
	return d
}

// BaselineSentence says in words what a command's run on the base commit showed.
func BaselineSentence(b *core.BaselineResult) string {
	switch {
	case b == nil:
		return ""
	case b.Status == core.BaselineFailed:
		return fmt.Sprintf("It fails on the base commit %s too: a pre-existing failure (excusable with a reason).", short(b.Base))
	case b.Status == core.BaselinePassed:
		return fmt.Sprintf("It passes on the base commit %s: the change makes it fail.", short(b.Base))
	}
	return fmt.Sprintf("Unknown whether it fails before the change: %s.", b.Reason)
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

// failureWithBaseline is verificationFailure with what the base commit showed:
// details.pre_existing_failure (true only when the command fails there too) and
// details.baseline with its output.
func failureWithBaseline(v core.VerificationResult) error {
	ce := core.AsError(verificationFailure(v))
	if v.Baseline == nil {
		return ce
	}
	ce.Details["pre_existing_failure"] = v.Baseline.PreExisting()
	ce.Details["baseline"] = baselineDetails(v.Baseline)
	// The base's output is in details.baseline.log_tail: the message stays short.
	ce.Message += "\n" + BaselineSentence(v.Baseline)
	return ce
}

// notExcusable refuses an excuse for a command that does not fail before the change.
func notExcusable(v core.VerificationResult) error {
	why := "it passes on the base commit, so the change made it fail"
	if v.Baseline != nil && v.Baseline.Status == core.BaselineUnknown {
		why = "whether it fails before the change is unknown (" + v.Baseline.Reason + ")"
	}
	return core.Errorf(core.CodeVerificationFailed, map[string]any{
		"reason": "not_excusable", "verification": v.ID, "pre_existing_failure": false,
		"baseline": baselineDetails(v.Baseline), "log_path": v.LogPath,
	}, "verification %s cannot be excused: %s; only a failure that predates the change can be excused", v.ID, why)
}

// withExcuseTrailers appends a trailer to the commit message for each excused command.
func withExcuseTrailers(msg string, results []core.VerificationResult) string {
	var trailers []string
	for _, v := range results {
		if v.Excused {
			trailers = append(trailers, fmt.Sprintf("%s: %s fails before this change too; %s", ExcusedTrailer, v.ID, v.ExcuseReason))
		}
	}
	if len(trailers) == 0 {
		return msg
	}
	return strings.TrimRight(msg, "\n") + "\n\n" + strings.Join(trailers, "\n") + "\n"
}
