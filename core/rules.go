package core

import (
	"fmt"
	"regexp"
	"strings"

	"reasonixctl/core/contract"
	"reasonixctl/core/gitx"
)

// The request rules both front ends enforce: the engine validates requests with them, and package
// mcp builds the schemas it advertises from them (its tests tie every schema limit to one of
// these). Contract limits live in core/contract.
const (
	// TaskIDPattern keeps a task id usable as a branch name and a directory name; validTaskID
	// adds what a regular expression says badly ('..', a trailing '.' or '.lock'). The rule is
	// gitx's, which creates the branch and the directory.
	TaskIDPattern = gitx.TaskIDPattern
	MaxTaskIDLen  = gitx.MaxTaskIDLen

	MaxBaseRefLen              = 1024
	DefaultFastTimeoutSeconds  = 600  // a fast-lane task's worker deadline when none is asked
	DefaultDeepTimeoutSeconds  = 3600 // a deep-lane task's
	MinExecutionTimeoutSeconds = 60
	MaxExecutionTimeoutSeconds = 14400
	DefaultWaitSeconds         = 600
	MaxWaitSeconds             = 600 // delegate and finalize block at most this long

	MaxSteerMessageLen    = 20000
	MaxInteractionIDLen   = 256
	MaxOptionIDLen        = 1024
	MaxAnswerLen          = 10000
	MaxClientNameLen      = 128 // an MCP client's "name version", as recorded with its answers
	MaxReviewSummaryLen   = 20000
	MaxCommitMessageLen   = 5000
	MaxApprovedCriteria   = 1000
	MaxInspectWaitMS      = 30000
	MinInspectMaxBytes    = 1024
	MaxInspectMaxBytes    = 64 << 10
	MaxInspectCursorLen   = 8192
	ReviewTreeHashPattern = `^[0-9a-f]{40}$`

	// The review bundle of reasonix_delegate stays under MaxBundleBytes of JSON, the diff
	// getting what the other fields leave. The output schema Codex knows allows more; a test
	// of package mcp checks these stay within it.
	MaxBundleBytes        = 12 << 10
	MaxBundleSummaryLen   = 2048
	MaxBundleDiffStatLen  = 2048
	MaxBundleFiles        = 100
	MaxBundleRequestBytes = 2048 // an active interaction's request, else cut to its title
	PauseReasonPattern    = `^[0-9a-f]{64}$`
)

// AmendCheckIssues is the rule for an amend_checks request besides its fields: it drops or adds
// at least one check, and no more than a contract holds. The engine applies it to every
// AmendChecks and mcp on the wire, like ReviewSummaryIssues; the amended contract itself is
// checked as a delegated one.
func AmendCheckIssues(drop []string, add []AddedCheck) []Issue {
	switch {
	case len(drop) == 0 && len(add) == 0:
		return []Issue{{Path: "drop_checks", Message: "drop_checks or add_checks must name at least one check"}}
	case len(drop) > contract.MaxCommands || len(add) > contract.MaxCommands:
		return []Issue{{Path: "drop_checks", Message: fmt.Sprintf("drop_checks and add_checks take at most %d items each", contract.MaxCommands)}}
	}
	var issues []Issue
	for i, a := range add {
		// The check proves the criterion "<id>-passes", which must be a criterion id too.
		if !criterionID.MatchString(a.ID) || len(a.ID)+len(AddedCheckSuffix) > contract.MaxCriterionIDLen {
			issues = append(issues, Issue{Path: fmt.Sprintf("add_checks.%d.id", i),
				Message: fmt.Sprintf("must match %s and leave room for %q within %d characters", contract.CriterionIDPattern, AddedCheckSuffix, contract.MaxCriterionIDLen)})
		}
		if len(a.Argv) == 0 {
			issues = append(issues, Issue{Path: fmt.Sprintf("add_checks.%d.argv", i), Message: "must not be empty"})
		}
	}
	return issues
}

// AddedCheckSuffix makes the id of the criterion a check added in review proves: "<id>-passes".
const AddedCheckSuffix = "-passes"

var criterionID = regexp.MustCompile(contract.CriterionIDPattern)

// ReviewSummaryIssues is the rule for a finalize's review summary once set: it must say
// something, whitespace alone is no review. The engine refuses a finalize by it whatever front
// end sent it; mcp applies it on the wire alongside reasonix_control's per-action fields.
func ReviewSummaryIssues(summary string) []Issue {
	if strings.TrimSpace(summary) == "" {
		return []Issue{{Path: "review_summary", Message: "Must not be blank"}}
	}
	return nil
}

// ReadContractFile reads a TaskContractV1 file for a front end ("-" is standard input), refusing
// a directory or anything over contract.MaxFileBytes rather than reading it whole.
func ReadContractFile(path string) ([]byte, error) { return contract.ReadFile(path) }
