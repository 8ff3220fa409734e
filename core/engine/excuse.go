package engine

import (
	"context"
	"fmt"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"reasonixctl/core"
	"reasonixctl/core/baseline"
	"reasonixctl/core/contract"
	"reasonixctl/core/failures"
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
		return core.Errorf(core.CodeInvalidRequest, &core.IssueList{Issues: issues}, "excused_checks: %s", issues[0].Path+": "+issues[0].Message)
	}
	// The commit message must still be valid with every trailer the excuses could add.
	all := make([]core.VerificationResult, len(excuses))
	for i, ex := range excuses {
		all[i] = core.VerificationResult{ID: ex.ID, Excused: true, ExcuseReason: strings.TrimSpace(ex.Reason)}
	}
	if err := gitx.ValidateMessage(withExcuseTrailers(msg, all)); err != nil {
		return core.Errorf(core.CodeInvalidRequest, &core.IssueList{Issues: []core.Issue{{Path: "commit_message", Message: "too long with the excused checks' trailers"}}},
			"commit_message with the excused checks' trailers: %v", err)
	}
	return nil
}

// judgeFailures runs each failed command on the base commit (cached per command and base;
// nothing runs when every command passed), records the result with it, names each failure the
// command's output shows — a test, a build error, a failing line — marked pre-existing when the
// base shows the same (judgeCheck), and applies the supervisor's excuses. The error is the first
// failure that stands: a command not excused, saying which of its failures the change causes,
// or an excuse for a command whose failures are not all on the base (verification_failed,
// reason not_excusable).
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
		e.judgeCheck(r, v)
		reason, excused := reasons[v.ID]
		switch {
		case excused && v.Excusable():
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

// judgeCheck names the failures of a failed command from its log, as its toolchain reports
// them (package failures), and marks those the base commit's run shows too. A failure is
// pre-existing only when the base fails with that same failure; the run as a whole must also
// end as the base's did (same exit status, in time, its output whole), or that difference is a
// failure of its own that no excuse covers.
func (e *Engine) judgeCheck(r *taskRecord, v *core.VerificationResult) {
	raw, err := os.ReadFile(v.LogPath)
	if err != nil {
		v.FailureFormat = ""
		v.Failures = []core.CheckFailure{{ID: "log", Message: "its log could not be read: " + err.Error()}}
		return
	}
	rep := failures.Read(v.Argv, baseline.LogOutput(raw), failures.Roots{Tree: r.Worktree, Cache: e.taskCacheDir(r.TaskID)})
	v.FailureFormat = rep.Format
	b := v.Baseline
	if !b.PreExisting() {
		v.Failures, _ = failures.Judge(failures.Report{}, rep)
		return
	}
	v.Failures, _ = failures.Judge(failures.Report{Format: b.FailureFormat, Failures: b.Failures, Digest: b.OutputDigest}, rep)
	var also []core.CheckFailure
	if b.FailureFormat == "" {
		also = append(also, core.CheckFailure{ID: "base output cut", Message: "the base commit's output exceeded the log's limit, so its failures are not known"})
	}
	if len(raw) >= core.VerificationLogMax {
		also = append(also, core.CheckFailure{ID: "output cut", Message: "its output exceeded the log's limit: what was cut could hold any failure"})
	}
	switch {
	case v.TimedOut:
		also = append(also, core.CheckFailure{ID: "timed out", Message: "it did not finish in time; on the base commit it did"})
	case v.ExitCode != nil && b.ExitCode != nil && *v.ExitCode != *b.ExitCode:
		also = append(also, core.CheckFailure{ID: "exit status", Message: fmt.Sprintf("it exits %d; on the base commit %d", *v.ExitCode, *b.ExitCode)})
	}
	v.Failures = append(v.Failures, also...)
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
func baselineDetails(b *core.BaselineResult) *core.BaselineSummary {
	if b == nil {
		return nil
	}
	return &core.BaselineSummary{Status: b.Status, Base: b.Base, ExitCode: b.ExitCode, LogTail: b.LogTail, LogPath: b.LogPath, Reason: b.Reason}
}

// maxListedFailures is how many failures an error's message lists, one per line (details list
// up to maxDetailFailures).
const (
	maxListedFailures = 20
	maxDetailFailures = 100
)

// failureDetails are a command's failures as an error's details list them.
func failureDetails(v core.VerificationResult) []core.CheckFailure {
	out := []core.CheckFailure{}
	for _, f := range newFirst(v.Failures) {
		if len(out) == maxDetailFailures {
			break
		}
		out = append(out, f)
	}
	return out
}

// baselineComparison is what details say of a failed command beside its run on the base.
func baselineComparison(v core.VerificationResult, preExisting bool) core.BaselineComparison {
	return core.BaselineComparison{
		PreExistingFailure: preExisting, Baseline: baselineDetails(v.Baseline),
		Failures: failureDetails(v), FailureFormat: v.FailureFormat,
	}
}

// newFirst orders failures the change causes before those on the base too.
func newFirst(fs []core.CheckFailure) []core.CheckFailure {
	out := make([]core.CheckFailure, 0, len(fs))
	for _, f := range fs {
		if !f.PreExisting {
			out = append(out, f)
		}
	}
	for _, f := range fs {
		if f.PreExisting {
			out = append(out, f)
		}
	}
	return out
}

// failureLines lists a command's failures one per line, those the change causes first:
// "- example.com/m TestResult (pre_existing: false): m_test.go:23: result is wrong".
func failureLines(v core.VerificationResult, n int) string {
	var b strings.Builder
	fs := newFirst(v.Failures)
	for i, f := range fs {
		if i == n {
			fmt.Fprintf(&b, "… and %d more (details.failures)\n", len(fs)-n)
			break
		}
		fmt.Fprintf(&b, "- %s (pre_existing: %v)", f.ID, f.PreExisting)
		if f.Message != "" && f.Message != f.ID {
			b.WriteString(": " + f.Message)
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// JudgementSentence says in words what the base commit showed of a failed command.
func JudgementSentence(v core.VerificationResult) string {
	b := v.Baseline
	switch {
	case b == nil:
		return ""
	case b.Status == core.BaselineFailed && v.Excusable():
		return fmt.Sprintf("It fails on the base commit %s too, with the same failures: a pre-existing failure (excusable with a reason).", short(b.Base))
	case b.Status == core.BaselineFailed:
		return fmt.Sprintf("It fails on the base commit %s too, but %d of its failures are not there: the change causes them, and they cannot be excused.", short(b.Base), v.NewFailures())
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
// details.pre_existing_failure (true only when every failure the command shows is on the base
// too), details.failures (one per failure, with pre_existing) and details.baseline with the
// base's output.
func failureWithBaseline(v core.VerificationResult) error {
	if v.Baseline == nil {
		return verificationFailure(v, nil)
	}
	cmp := baselineComparison(v, v.Excusable())
	ce := core.AsError(verificationFailure(v, &cmp))
	// The base's output is in details.baseline.log_tail: the message stays short.
	ce.Message += "\n" + JudgementSentence(v)
	if lines := failureLines(v, maxListedFailures); lines != "" {
		ce.Message += "\nFailures:\n" + lines
	}
	return ce
}

// notExcusable refuses an excuse for a command whose failures are not all on the base commit.
func notExcusable(v core.VerificationResult) error {
	var why string
	switch {
	case v.Baseline != nil && v.Baseline.Status == core.BaselineUnknown:
		why = "whether it fails before the change is unknown (" + v.Baseline.Reason + ")"
	case v.Baseline.PreExisting():
		var fresh []string
		for _, f := range newFirst(v.Failures) {
			if !f.PreExisting && len(fresh) < 5 {
				fresh = append(fresh, f.ID)
			}
		}
		why = fmt.Sprintf("it fails on the base commit too, but %d of its failures are not there (%s), so the change caused them", v.NewFailures(), strings.Join(fresh, "; "))
	default:
		why = "it passes on the base commit, so the change made it fail"
	}
	return core.Errorf(core.CodeVerificationFailed, &core.NotExcusable{
		Reason: "not_excusable", Verification: v.ID, LogPath: v.LogPath,
		BaselineComparison: baselineComparison(v, false),
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
