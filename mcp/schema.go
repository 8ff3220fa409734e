package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"reasonixctl/core"
	"reasonixctl/core/contract"
)

// The schemas stay inside the JSON Schema subset Codex converts for its model: draft-07 keywords,
// no $ref or $defs (shared parts are inlined by building them in Go), objects closed with
// additionalProperties:false. Names, types, enums, limits and required lists are the interface
// Codex already knows; descriptions are kept short because tools/list is paid for in every turn.

// object is a JSON object that keeps its keys in the order written, so schemas read (and are
// presented to the model) task_id first rather than alphabetically.
type object []field

type field struct {
	key   string
	value any
}

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	if err := o.encode(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// encode writes o into one buffer; nesting json.Marshal calls instead would re-validate and
// re-compact every level, which showed up in the startup benchmark.
func (o object) encode(b *bytes.Buffer) error {
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		writeString(b, f.key)
		b.WriteByte(':')
		if err := encodeValue(b, f.value); err != nil {
			return fmt.Errorf("schema key %s: %w", f.key, err)
		}
	}
	b.WriteByte('}')
	return nil
}

func encodeValue(b *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case object:
		return x.encode(b)
	case []object:
		b.WriteByte('[')
		for i, o := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := o.encode(b); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	case string:
		writeString(b, x)
		return nil
	case []string:
		b.WriteByte('[')
		for i, s := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, s)
		}
		b.WriteByte(']')
		return nil
	case int:
		b.WriteString(strconv.Itoa(x))
		return nil
	case bool:
		b.WriteString(strconv.FormatBool(x))
		return nil
	}
	raw, err := json.Marshal(v)
	b.Write(raw)
	return err
}

// writeString writes s as JSON exactly as encoding/json does, without reflection for the plain
// strings that make up nearly all of the schemas.
func writeString(b *bytes.Buffer, s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			raw, _ := json.Marshal(s) // a string always encodes
			b.Write(raw)
			return
		}
	}
	b.WriteByte('"')
	b.WriteString(s)
	b.WriteByte('"')
}

// with returns o extended by more fields (o itself is not changed).
func (o object) with(more ...field) object {
	return append(slices.Clip(o), more...)
}

func kv(key string, value any) field { return field{key, value} }

func describe(s object, text string) object { return s.with(kv("description", text)) }

func str(min, max int) object {
	s := object{kv("type", "string")}
	if min > 0 {
		s = s.with(kv("minLength", min))
	}
	if max > 0 {
		s = s.with(kv("maxLength", max))
	}
	return s
}

func pattern(p string) object { return object{kv("type", "string"), kv("pattern", p)} }

func enum(values ...string) object { return object{kv("type", "string"), kv("enum", values)} }

func integer(min, max int) object {
	s := object{kv("type", "integer"), kv("minimum", min)}
	if max > 0 {
		s = s.with(kv("maximum", max))
	}
	return s
}

func array(items object, min, max int) object {
	s := object{kv("type", "array"), kv("items", items)}
	if min > 0 {
		s = s.with(kv("minItems", min))
	}
	if max > 0 {
		s = s.with(kv("maxItems", max))
	}
	return s
}

// closed is an object schema that rejects unknown keys.
func closed(required []string, props ...field) object {
	s := object{kv("type", "object"), kv("properties", object(props))}
	if len(required) > 0 {
		s = s.with(kv("required", required))
	}
	return s.with(kv("additionalProperties", false))
}

// root marks a tool's top-level schema with its draft.
func root(s object) object { return s.with(kv("$schema", "http://json-schema.org/draft-07/schema#")) }

func anyOf(alternatives ...object) object { return object{kv("anyOf", alternatives)} }

func nullable(s object) object { return anyOf(s, object{kv("type", "null")}) }

// stringPage is the string form a section takes when it did not fit and was paged.
var stringPage = object{kv("type", "string")}

// Every limit and pattern below is core's or core/contract's; schema_test ties each to its
// constant.
const (
	sha256Pattern   = core.PauseReasonPattern
	treeHashPattern = core.ReviewTreeHashPattern
)

var (
	text       = str(1, contract.MaxTextLen)
	relPath    = str(1, contract.MaxPathLen)
	criterion  = pattern(contract.CriterionIDPattern)
	argv       = array(str(0, contract.MaxArgLen), 1, contract.MaxArgv)
	timeoutSec = integer(1, contract.MaxTimeoutSeconds)
	proves     = array(criterion, 1, contract.MaxProves)
	waitSecs   = integer(0, core.MaxWaitSeconds)
	taskIDIn   = str(1, core.MaxTaskIDLen).with(kv("pattern", core.TaskIDPattern))
	effortEnum = []string{"low", "medium", "high", "max"}
)

func contractSchema() object {
	return closed(
		[]string{"schema_version", "objective", "user_outcome", "write_scope", "acceptance_criteria", "verification"},
		kv("schema_version", object{kv("type", "number"), kv("const", contract.SchemaVersion)}),
		kv("objective", text),
		kv("user_outcome", text),
		kv("verified_context", array(closed([]string{"path", "reason"},
			kv("path", relPath), kv("reason", text)), 0, contract.MaxListLen).with(kv("default", []any{}))),
		kv("write_scope", describe(array(relPath, 1, contract.MaxListLen),
			"Exclusive write allowlist (repository paths or globs); everything else is denied.")),
		kv("forbidden_scope", describe(array(relPath, 0, contract.MaxListLen).with(kv("default", []any{})),
			"Sensitive carve-outs inside broader write_scope globs; never a catch-all.")),
		kv("invariants", array(text, 0, contract.MaxListLen).with(kv("default", []any{}))),
		kv("non_goals", array(text, 0, contract.MaxListLen).with(kv("default", []any{}))),
		kv("acceptance_criteria", array(closed([]string{"id", "requirement", "evidence"},
			kv("id", criterion), kv("requirement", text), kv("evidence", enum(contract.EvidenceAutomated, contract.EvidenceReview))), 1, contract.MaxListLen)),
		kv("verification", array(closed([]string{"id", "argv", "proves"},
			kv("id", criterion), kv("argv", argv), kv("cwd", str(0, contract.MaxPathLen)),
			kv("timeout_seconds", timeoutSec), kv("proves", proves)), 0, contract.MaxCommands)),
		kv("allowed_commands", array(closed([]string{"id", "argv"},
			kv("id", criterion), kv("argv", argv), kv("cwd", str(0, contract.MaxPathLen)),
			kv("timeout_seconds", timeoutSec)), 0, contract.MaxCommands)),
		kv("file_assertions", array(closed([]string{"id", "path", "expected_utf8", "proves"},
			kv("id", criterion), kv("path", relPath), kv("expected_utf8", str(0, contract.MaxExpectedBytes)),
			kv("proves", proves)), 0, contract.MaxCommands)),
		kv("pause_conditions", array(text, 0, contract.MaxListLen).with(kv("default", []any{}))),
	)
}

func delegateInput() object {
	return root(closed([]string{"task_id", "contract"},
		kv("task_id", taskIDIn),
		kv("contract", contractSchema()),
		kv("base_ref", str(1, core.MaxBaseRefLen)),
		kv("worker_lane", describe(enum("fast", "deep"),
			"fast (default): direct edits. deep: long multi-step Goal session. Omitted on resume: unchanged.")),
		kv("reasoning_effort", describe(enum(effortEnum...), "Lowest adequate; low is the lowest.")),
		kv("execution_timeout_seconds", describe(integer(core.MinExecutionTimeoutSeconds, core.MaxExecutionTimeoutSeconds),
			fmt.Sprintf("Worker deadline; default fast %d, deep %d. Omitted on resume: unchanged.", core.DefaultFastTimeoutSeconds, core.DefaultDeepTimeoutSeconds))),
		kv("wait_mode", enum("review", "background").with(kv("default", "review"))),
		kv("wait_timeout_seconds", waitSecs.with(kv("default", core.DefaultWaitSeconds))),
		kv("pause_revision", integer(0, 0)),
		kv("pause_reason_hash", pattern(sha256Pattern)),
		kv("path_base", describe(enum("cwd", "repository"),
			"Contract paths relative to cwd (default for new tasks) or the repository root.")),
		kv("resume", object{kv("type", "boolean"), kv("default", true)}),
	))
}

func controlInput() object {
	return root(closed([]string{"task_id", "action"},
		kv("task_id", taskIDIn),
		kv("action", enum(core.ActionSteer, core.ActionRespond, core.ActionCancel, core.ActionFinalize, core.ActionClose)),
		kv("message", describe(str(0, core.MaxSteerMessageLen), "steer: required.")),
		kv("interaction_id", describe(str(1, core.MaxInteractionIDLen), "respond: required.")),
		kv("decision", describe(enum(core.DecisionAllow, core.DecisionDeny), "respond: required.")),
		kv("option_id", describe(str(1, core.MaxOptionIDLen), "respond: optional offered option.")),
		kv("answer", describe(str(1, core.MaxAnswerLen), "respond: optional free-form answer.")),
		kv("review_summary", describe(str(1, core.MaxReviewSummaryLen), "finalize: required.")),
		kv("approved_review_criteria", describe(array(str(1, contract.MaxCriterionIDLen), 0, core.MaxApprovedCriteria),
			"finalize: required; must include every id of required_review_criteria.")),
		kv("expected_review_revision", describe(integer(0, 0), "finalize: required; the reviewed review_revision.")),
		kv("expected_review_tree_hash", describe(pattern(treeHashPattern), "finalize: required; the reviewed review_tree_hash.")),
		kv("commit_message", describe(str(1, core.MaxCommitMessageLen), "finalize: optional.")),
		kv("wait_timeout_seconds", describe(waitSecs, fmt.Sprintf("finalize: optional, default %d.", core.DefaultWaitSeconds))),
		kv("excused_checks", describe(array(closed([]string{"id", "reason"},
			kv("id", describe(str(1, contract.MaxCriterionIDLen), "A verification id of the task's contract.")),
			kv("reason", describe(str(1, core.MaxExcuseReasonLen), "Why the failure may stand; one line, recorded and in the commit message."))), 0, core.MaxExcusedChecks),
			"finalize: optional. Verification ids whose failure predates the change (error details.pre_existing_failure: true), each with why it may stand; named in the commit message. A check that passes on the base cannot be excused.")),
	))
}

func inspectInput() object {
	return root(closed([]string{"task_id"},
		kv("task_id", taskIDIn),
		kv("include", array(enum(core.InspectSections...), 0, len(core.InspectSections))),
		kv("wait_ms", integer(0, core.MaxInspectWaitMS)),
		kv("cursor", str(1, core.MaxInspectCursorLen)),
		kv("max_bytes", integer(core.MinInspectMaxBytes, core.MaxInspectMaxBytes)),
		kv("wait_until", enum("change", "review_required", "interaction", "terminal").with(kv("default", "change"))),
	))
}

var taskViewRequired = []string{
	"task_id", "state", "phase", "contract_hash", "repository_id", "branch", "worktree", "worker_lane",
	"requested_reasoning_effort", "effective_reasoning_effort", "execution_timeout_seconds",
	"source_checkout_integrated", "repair_rounds", "updated_at",
}

func taskViewFields() []field {
	states := make([]string, len(core.States))
	for i, s := range core.States {
		states[i] = string(s)
	}
	effort := enum(append([]string{"minimal"}, effortEnum...)...)
	paths := array(object{kv("type", "string")}, 0, 0)
	return []field{
		kv("task_id", str(1, core.MaxTaskIDLen)),
		kv("state", enum(states...)),
		kv("phase", object{kv("type", "string")}),
		kv("contract_hash", pattern(sha256Pattern)),
		kv("repository_id", str(1, 0)),
		kv("branch", str(1, 0)),
		kv("worktree", str(1, 0)),
		kv("worker_lane", enum(string(core.LaneFast), string(core.LaneDeep))),
		kv("requested_reasoning_effort", effort),
		kv("effective_reasoning_effort", effort),
		kv("execution_timeout_seconds", integer(core.MinExecutionTimeoutSeconds, core.MaxExecutionTimeoutSeconds)),
		kv("source_checkout_integrated", object{kv("type", "boolean"), kv("const", false)}),
		kv("integration_command", str(1, 1024)),
		kv("session_id", str(1, 0)),
		kv("repair_rounds", integer(0, 0)),
		kv("review_revision", integer(0, 0)),
		kv("review_tree_hash", pattern(treeHashPattern)),
		kv("pause_revision", integer(0, 0)),
		kv("pause_reason_hash", pattern(sha256Pattern)),
		kv("reasonix_work_mode", str(1, 0)),
		kv("reasonix_session_mode", str(1, 0)),
		kv("updated_at", str(1, 0)),
		kv("reason", object{kv("type", "string")}),
		kv("commit_hash", pattern(`^[0-9a-f]{40,64}$`)),
		kv("source_collision", closed(
			[]string{"checkpoint", "baseCommit", "dirtyPaths", "committedPaths", "overlappingPaths", "unavailable", "detectedAt"},
			kv("checkpoint", str(1, 0)),
			kv("baseCommit", str(1, 0)),
			kv("sourceHead", str(1, 0)),
			kv("dirtyPaths", paths),
			kv("committedPaths", paths),
			kv("overlappingPaths", paths),
			kv("unavailable", object{kv("type", "boolean")}),
			kv("detectedAt", str(1, 0)),
		)),
	}
}

func usageSchema() object {
	count := object{kv("type", "number"), kv("minimum", 0)}
	return closed(
		[]string{"promptTokens", "completionTokens", "reasoningTokens", "cacheHitTokens", "cacheMissTokens",
			"cacheHitRatio", "estimatedCost", "currency", "usageSource"},
		kv("promptTokens", count),
		kv("completionTokens", count),
		kv("reasoningTokens", count),
		kv("cacheHitTokens", count),
		kv("cacheMissTokens", count),
		kv("cacheHitRatio", nullable(count.with(kv("maximum", 1)))),
		kv("estimatedCost", nullable(count)),
		kv("currency", object{kv("type", []string{"string", "null"})}),
		kv("usageSource", object{kv("type", "string")}),
	)
}

func interactionSchema() object {
	anyObject := object{kv("type", "object"), kv("additionalProperties", object{})}
	plain := object{kv("type", "string")}
	return closed([]string{"id", "kind", "status", "createdAt", "request"},
		kv("id", plain),
		kv("kind", enum(core.InteractionPermission, core.InteractionInput)),
		kv("status", enum(core.InteractionPending, core.InteractionResolved, core.InteractionCancelled)),
		kv("createdAt", plain),
		kv("resolvedAt", plain),
		kv("request", anyObject),
		kv("response", anyObject),
	)
}

func controlOutput() object {
	return root(closed(taskViewRequired, taskViewFields()...))
}

func delegateOutput() object {
	boolean := object{kv("type", "boolean")}
	bundle := []field{
		kv("resume_required", boolean),
		kv("inspect_required", boolean),
		kv("timed_out", boolean),
		kv("summary", str(0, 4096)),
		kv("changed_files", array(str(0, 1024), 0, 256)),
		kv("diff_stat", str(0, 4096)),
		kv("diff", str(0, 12288)),
		kv("risks", array(str(0, 2048), 0, 128)),
		kv("usage", usageSchema()),
		kv("active_interaction", interactionSchema()),
		kv("required_review_criteria", array(str(1, contract.MaxCriterionIDLen), 0, core.MaxApprovedCriteria)),
		kv("review_diff_sha256", pattern(sha256Pattern)),
	}
	return root(closed(taskViewRequired, append(taskViewFields(), bundle...)...))
}

func inspectOutput() object {
	plain := object{kv("type", "string")}
	stringList := array(plain, 0, 0)
	verification := closed(
		[]string{"id", "argv", "cwd", "startedAt", "finishedAt", "exitCode", "timedOut", "passed", "proves",
			"logPath", "sha256", "outputBytes"},
		kv("id", plain),
		kv("argv", stringList),
		kv("cwd", plain),
		kv("startedAt", plain),
		kv("finishedAt", plain),
		kv("exitCode", nullable(object{kv("type", "integer")})),
		kv("timedOut", object{kv("type", "boolean")}),
		kv("passed", object{kv("type", "boolean")}),
		kv("proves", stringList),
		kv("logPath", plain),
		kv("sha256", plain),
		kv("outputBytes", integer(0, 0)),
		kv("baseline", closed([]string{"status", "base"},
			kv("status", enum(core.BaselinePassed, core.BaselineFailed, core.BaselineUnknown)),
			kv("base", plain), kv("exitCode", object{kv("type", "integer")}), kv("timedOut", object{kv("type", "boolean")}),
			kv("logPath", plain), kv("logTail", plain), kv("reason", plain))),
		kv("excused", object{kv("type", "boolean")}),
		kv("excuseReason", plain),
	)
	evidence := closed([]string{"criterionId", "evidence", "approved", "source"},
		kv("criterionId", plain),
		kv("evidence", enum("automated", "review")),
		kv("approved", object{kv("type", "boolean")}),
		kv("source", plain),
		kv("sha256", plain),
		kv("outputBytes", integer(0, 0)),
	)
	event := closed([]string{"seq", "timestamp", "type"},
		kv("task_id", plain),
		kv("seq", integer(0, 0)),
		kv("timestamp", plain),
		kv("type", plain),
		kv("data", object{}),
	)
	sections := closed(nil,
		kv("status", anyOf(closed(taskViewRequired, taskViewFields()...), stringPage)),
		kv("summary", plain),
		kv("changed_files", anyOf(stringList, stringPage)),
		kv("diff_stat", plain),
		kv("diff", plain),
		kv("verification", anyOf(array(verification, 0, 0), stringPage)),
		kv("acceptance_evidence", anyOf(array(evidence, 0, 0), stringPage)),
		kv("risks", anyOf(stringList, stringPage)),
		kv("usage", anyOf(usageSchema(), stringPage)),
		kv("interactions", anyOf(array(interactionSchema(), 0, 0), stringPage)),
		kv("events", anyOf(array(event, 0, 0), stringPage)),
	)
	return root(closed([]string{"task_id", "sections", "truncated", "updated_at"},
		kv("task_id", str(1, core.MaxTaskIDLen)),
		kv("sections", sections),
		kv("truncated", object{kv("type", "boolean")}),
		kv("next_cursor", plain),
		kv("updated_at", str(1, 0)),
	))
}
