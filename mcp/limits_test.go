package mcp

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"reasonixctl/core"
	"reasonixctl/core/contract"
)

// schemaLimits walks a schema and returns every limit it sets, keyed by where: the property
// path ("[]" for array items, "|n" for the n-th anyOf branch) and the keyword. Lower bounds of 0
// and 1 are the schema's own (present or not), not limits of core's.
func schemaLimits(prefix string, s map[string]any, out map[string]any) {
	for _, kw := range []string{"maxLength", "maxItems", "maximum", "pattern", "const", "default", "minimum", "minLength", "minItems"} {
		v, ok := s[kw]
		if !ok {
			continue
		}
		if n, isNum := v.(float64); isNum && strings.HasPrefix(kw, "min") && n <= 1 {
			continue
		}
		if _, isList := v.([]any); isList {
			continue // an empty default list
		}
		out[prefix+"/"+kw] = v
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for name, p := range props {
			schemaLimits(prefix+"."+name, p.(map[string]any), out)
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		schemaLimits(prefix+"[]", items, out)
	}
	if alts, ok := s["anyOf"].([]any); ok {
		for i, a := range alts {
			schemaLimits(fmt.Sprintf("%s|%d", prefix, i), a.(map[string]any), out)
		}
	}
}

// inputLimits ties every limit of the input schemas to the core or core/contract constant it
// stands for: changing a rule in core changes the schema, and a limit written here alone fails.
var inputLimits = map[string]any{
	"reasonix_delegate.task_id/maxLength":                                    core.MaxTaskIDLen,
	"reasonix_delegate.task_id/pattern":                                      core.TaskIDPattern,
	"reasonix_delegate.base_ref/maxLength":                                   core.MaxBaseRefLen,
	"reasonix_delegate.execution_timeout_seconds/minimum":                    core.MinExecutionTimeoutSeconds,
	"reasonix_delegate.execution_timeout_seconds/maximum":                    core.MaxExecutionTimeoutSeconds,
	"reasonix_delegate.wait_mode/default":                                    "review",
	"reasonix_delegate.wait_timeout_seconds/maximum":                         core.MaxWaitSeconds,
	"reasonix_delegate.wait_timeout_seconds/default":                         core.DefaultWaitSeconds,
	"reasonix_delegate.pause_reason_hash/pattern":                            core.PauseReasonPattern,
	"reasonix_delegate.resume/default":                                       true,
	"reasonix_delegate.contract.schema_version/const":                        contract.SchemaVersion,
	"reasonix_delegate.contract.objective/maxLength":                         contract.MaxTextLen,
	"reasonix_delegate.contract.user_outcome/maxLength":                      contract.MaxTextLen,
	"reasonix_delegate.contract.verified_context/maxItems":                   contract.MaxListLen,
	"reasonix_delegate.contract.verified_context[].path/maxLength":           contract.MaxPathLen,
	"reasonix_delegate.contract.verified_context[].reason/maxLength":         contract.MaxTextLen,
	"reasonix_delegate.contract.write_scope/maxItems":                        contract.MaxListLen,
	"reasonix_delegate.contract.write_scope[]/maxLength":                     contract.MaxPathLen,
	"reasonix_delegate.contract.forbidden_scope/maxItems":                    contract.MaxListLen,
	"reasonix_delegate.contract.forbidden_scope[]/maxLength":                 contract.MaxPathLen,
	"reasonix_delegate.contract.invariants/maxItems":                         contract.MaxListLen,
	"reasonix_delegate.contract.invariants[]/maxLength":                      contract.MaxTextLen,
	"reasonix_delegate.contract.non_goals/maxItems":                          contract.MaxListLen,
	"reasonix_delegate.contract.non_goals[]/maxLength":                       contract.MaxTextLen,
	"reasonix_delegate.contract.pause_conditions/maxItems":                   contract.MaxListLen,
	"reasonix_delegate.contract.pause_conditions[]/maxLength":                contract.MaxTextLen,
	"reasonix_delegate.contract.acceptance_criteria/maxItems":                contract.MaxListLen,
	"reasonix_delegate.contract.acceptance_criteria[].id/pattern":            contract.CriterionIDPattern,
	"reasonix_delegate.contract.acceptance_criteria[].requirement/maxLength": contract.MaxTextLen,
	"reasonix_delegate.contract.verification/maxItems":                       contract.MaxCommands,
	"reasonix_delegate.contract.verification[].id/pattern":                   contract.CriterionIDPattern,
	"reasonix_delegate.contract.verification[].argv/maxItems":                contract.MaxArgv,
	"reasonix_delegate.contract.verification[].argv[]/maxLength":             contract.MaxArgLen,
	"reasonix_delegate.contract.verification[].cwd/maxLength":                contract.MaxPathLen,
	"reasonix_delegate.contract.verification[].timeout_seconds/maximum":      contract.MaxTimeoutSeconds,
	"reasonix_delegate.contract.verification[].proves/maxItems":              contract.MaxProves,
	"reasonix_delegate.contract.verification[].proves[]/pattern":             contract.CriterionIDPattern,
	"reasonix_delegate.contract.allowed_commands/maxItems":                   contract.MaxCommands,
	"reasonix_delegate.contract.allowed_commands[].id/pattern":               contract.CriterionIDPattern,
	"reasonix_delegate.contract.allowed_commands[].argv/maxItems":            contract.MaxArgv,
	"reasonix_delegate.contract.allowed_commands[].argv[]/maxLength":         contract.MaxArgLen,
	"reasonix_delegate.contract.allowed_commands[].cwd/maxLength":            contract.MaxPathLen,
	"reasonix_delegate.contract.allowed_commands[].timeout_seconds/maximum":  contract.MaxTimeoutSeconds,
	"reasonix_delegate.contract.file_assertions/maxItems":                    contract.MaxCommands,
	"reasonix_delegate.contract.file_assertions[].id/pattern":                contract.CriterionIDPattern,
	"reasonix_delegate.contract.file_assertions[].path/maxLength":            contract.MaxPathLen,
	"reasonix_delegate.contract.file_assertions[].expected_utf8/maxLength":   contract.MaxExpectedBytes,
	"reasonix_delegate.contract.file_assertions[].proves/maxItems":           contract.MaxProves,
	"reasonix_delegate.contract.file_assertions[].proves[]/pattern":          contract.CriterionIDPattern,
	"reasonix_control.task_id/maxLength":                                     core.MaxTaskIDLen,
	"reasonix_control.task_id/pattern":                                       core.TaskIDPattern,
	"reasonix_control.message/maxLength":                                     core.MaxSteerMessageLen,
	"reasonix_control.interaction_id/maxLength":                              core.MaxInteractionIDLen,
	"reasonix_control.option_id/maxLength":                                   core.MaxOptionIDLen,
	"reasonix_control.answer/maxLength":                                      core.MaxAnswerLen,
	"reasonix_control.review_summary/maxLength":                              core.MaxReviewSummaryLen,
	"reasonix_control.approved_review_criteria/maxItems":                     core.MaxApprovedCriteria,
	"reasonix_control.approved_review_criteria[]/maxLength":                  contract.MaxCriterionIDLen,
	"reasonix_control.expected_review_tree_hash/pattern":                     core.ReviewTreeHashPattern,
	"reasonix_control.commit_message/maxLength":                              core.MaxCommitMessageLen,
	"reasonix_control.wait_timeout_seconds/maximum":                          core.MaxWaitSeconds,
	"reasonix_control.acknowledged_risks/maxItems":                           core.MaxAcknowledgedRisks,
	"reasonix_control.acknowledged_risks[]/maxLength":                        core.MaxRiskLen,
	"reasonix_control.excused_checks/maxItems":                               core.MaxExcusedChecks,
	"reasonix_control.excused_checks[].id/maxLength":                         contract.MaxCriterionIDLen,
	"reasonix_control.excused_checks[].reason/maxLength":                     core.MaxExcuseReasonLen,
	"reasonix_control.add_checks[].id/pattern":                               contract.CriterionIDPattern,
	"reasonix_inspect.task_id/maxLength":                                     core.MaxTaskIDLen,
	"reasonix_inspect.task_id/pattern":                                       core.TaskIDPattern,
	"reasonix_inspect.include/maxItems":                                      len(core.InspectSections),
	"reasonix_inspect.wait_ms/maximum":                                       core.MaxInspectWaitMS,
	"reasonix_inspect.cursor/maxLength":                                      core.MaxInspectCursorLen,
	"reasonix_inspect.max_bytes/minimum":                                     core.MinInspectMaxBytes,
	"reasonix_inspect.max_bytes/maximum":                                     core.MaxInspectMaxBytes,
	"reasonix_inspect.wait_until/default":                                    "change",
}

func TestInputSchemaLimitsAreCoreConstants(t *testing.T) {
	var list struct {
		Tools []struct {
			Name        string         `json:"name"`
			InputSchema map[string]any `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(toolsListResult(), &list); err != nil {
		t.Fatal(err)
	}
	got := map[string]any{}
	for _, tool := range list.Tools {
		schemaLimits(tool.Name, tool.InputSchema, got)
	}
	t.Logf("%d limits in the input schemas", len(got))
	for _, key := range slices.Sorted(maps.Keys(got)) {
		want, ok := inputLimits[key]
		if !ok {
			t.Errorf("%s = %v is tied to no constant of core or core/contract", key, got[key])
			continue
		}
		if fmt.Sprint(got[key]) != fmt.Sprint(want) {
			t.Errorf("%s: schema %v, constant %v", key, got[key], want)
		}
	}
	for _, key := range slices.Sorted(maps.Keys(inputLimits)) {
		if _, ok := got[key]; !ok {
			t.Errorf("%s: no such limit in the schemas", key)
		}
	}
}

// The id patterns and their length limits are written apart; they must agree.
func TestIDPatternsAllowTheirLengths(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		max     int
	}{{core.TaskIDPattern, core.MaxTaskIDLen}, {contract.CriterionIDPattern, contract.MaxCriterionIDLen}} {
		re := regexp.MustCompile(tc.pattern)
		if !re.MatchString(strings.Repeat("a", tc.max)) || re.MatchString(strings.Repeat("a", tc.max+1)) {
			t.Errorf("%s does not allow exactly %d characters", tc.pattern, tc.max)
		}
	}
}

// The output schema is the one Codex knows, with the earlier bridge's bounds; what core puts in
// a review bundle must stay within them.
func TestReviewBundleFitsTheOutputSchema(t *testing.T) {
	var list struct {
		Tools []struct {
			Name         string         `json:"name"`
			OutputSchema map[string]any `json:"outputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(toolsListResult(), &list); err != nil {
		t.Fatal(err)
	}
	got := map[string]any{}
	for _, tool := range list.Tools {
		schemaLimits(tool.Name, tool.OutputSchema, got)
	}
	for key, coreMax := range map[string]int{
		"reasonix_delegate.summary/maxLength":      core.MaxBundleSummaryLen,
		"reasonix_delegate.diff_stat/maxLength":    core.MaxBundleDiffStatLen,
		"reasonix_delegate.changed_files/maxItems": core.MaxBundleFiles,
		"reasonix_delegate.diff/maxLength":         core.MaxBundleBytes,
	} {
		limit, ok := got[key].(float64)
		if !ok {
			t.Errorf("%s: no such limit in the output schema", key)
			continue
		}
		if int(limit) < coreMax {
			t.Errorf("%s is %v, but core puts up to %d there", key, limit, coreMax)
		}
	}
}
