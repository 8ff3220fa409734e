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
// Codex already knows. The model reads the descriptions and input schemas in every turn, so
// their words are few (describe_test.go holds them to a budget); the output schemas are for the
// client to check results with, so they spell out every type in full, with a few words a field.

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
		kv("schema_version", describe(object{kv("type", "number"), kv("const", contract.SchemaVersion)}, "Always 1.")),
		kv("objective", describe(text, "What to change, briefly.")),
		kv("user_outcome", describe(text, "What the user sees when done.")),
		kv("verified_context", describe(array(closed([]string{"path", "reason"},
			kv("path", describe(relPath, "A file you read.")), kv("reason", describe(text, "Why it matters."))), 0, contract.MaxListLen),
			"Files to start from.")),
		kv("write_scope", describe(array(relPath, 1, contract.MaxListLen),
			"The only writable paths or globs.")),
		kv("forbidden_scope", describe(array(relPath, 0, contract.MaxListLen),
			"Carve-outs in broad write_scope globs; never a catch-all.")),
		kv("invariants", describe(array(text, 0, contract.MaxListLen), "What must stay true.")),
		kv("non_goals", describe(array(text, 0, contract.MaxListLen), "What not to do.")),
		kv("acceptance_criteria", describe(array(closed([]string{"id", "requirement", "evidence"},
			kv("id", describe(criterion, "Named by proves.")), kv("requirement", describe(text, "What must hold.")),
			kv("evidence", describe(enum(contract.EvidenceAutomated, contract.EvidenceReview),
				"automated: proved by verification or file_assertions; review: you approve it."))), 1, contract.MaxListLen),
			"What done means.")),
		kv("verification", describe(array(closed([]string{"id", "argv", "proves"},
			kv("id", describe(criterion, "Command id.")), kv("argv", describe(argv, "Exact argv, no shell.")), kv("cwd", describe(str(0, contract.MaxPathLen), cwdText)),
			kv("timeout_seconds", describe(timeoutSec, "Time limit.")), kv("proves", describe(proves, "Criteria that exit 0 proves."))), 0, contract.MaxCommands),
			"Sandboxed checks after the worker.")),
		kv("allowed_commands", describe(array(closed([]string{"id", "argv"},
			kv("id", describe(criterion, "Command id.")), kv("argv", describe(argv, "Exact argv, no shell.")), kv("cwd", describe(str(0, contract.MaxPathLen), cwdText)),
			kv("timeout_seconds", describe(timeoutSec, "Time limit."))), 0, contract.MaxCommands),
			"Commands beyond reads the worker may run.")),
		kv("file_assertions", describe(array(closed([]string{"id", "path", "expected_utf8", "proves"},
			kv("id", describe(criterion, "Assertion id.")), kv("path", describe(relPath, "File.")), kv("expected_utf8", describe(str(0, contract.MaxExpectedBytes), "Its exact content.")),
			kv("proves", describe(proves, "Criteria it proves."))), 0, contract.MaxCommands),
			"Exact file contents checked after the worker.")),
		kv("pause_conditions", describe(array(text, 0, contract.MaxListLen), "When the worker stops to ask.")),
	)
}

// cwdText describes a command's cwd.
const cwdText = "Repository-relative; default root."

func delegateInput() object {
	return root(closed([]string{"task_id", "contract"},
		kv("task_id", describe(taskIDIn, "Your task id; reusing it resumes.")),
		kv("contract", describe(contractSchema(), "TaskContractV1 (same on resume).")),
		kv("base_ref", describe(str(1, core.MaxBaseRefLen), "Commit to start from; default HEAD.")),
		kv("worker_lane", describe(enum("fast", "deep"),
			"fast (default): direct edits; deep: long multi-step work. Kept on resume.")),
		kv("worker", describe(enum(core.WorkerNames...),
			"The ACP agent that does the task; default CODEX_REASONIX_WORKER, else reasonix. Kept on resume.")),
		kv("reasoning_effort", describe(enum(effortEnum...), "Lowest adequate.")),
		kv("execution_timeout_seconds", describe(integer(core.MinExecutionTimeoutSeconds, core.MaxExecutionTimeoutSeconds),
			fmt.Sprintf("Worker deadline, default fast %d, deep %d; kept on resume.", core.DefaultFastTimeoutSeconds, core.DefaultDeepTimeoutSeconds))),
		kv("wait_mode", describe(enum("review", "background").with(kv("default", "review")), "background returns at once.")),
		kv("wait_timeout_seconds", describe(waitSecs.with(kv("default", core.DefaultWaitSeconds)), "This call's wait; the worker goes on.")),
		kv("pause_revision", describe(integer(0, 0), "To resume a pause.")),
		kv("pause_reason_hash", describe(pattern(sha256Pattern), "To resume a pause.")),
		kv("path_base", describe(enum("cwd", "repository"),
			"Contract paths relative to cwd (default) or repository root.")),
		kv("resume", describe(object{kv("type", "boolean"), kv("default", true)}, "false: only wait, even if paused.")),
	))
}

func controlInput() object {
	return root(closed([]string{"task_id", "action"},
		kv("task_id", describe(taskIDIn, "The task.")),
		kv("action", describe(enum(core.ActionSteer, core.ActionRespond, core.ActionCancel, core.ActionFinalize, core.ActionClose,
			core.ActionAmendChecks, core.ActionRebase), actionText)),
		kv("message", describe(str(0, core.MaxSteerMessageLen), "steer: required.")),
		kv("interaction_id", describe(str(1, core.MaxInteractionIDLen), "respond: required.")),
		kv("decision", describe(enum(core.DecisionAllow, core.DecisionDeny), decisionText)),
		kv("option_id", describe(str(1, core.MaxOptionIDLen), "respond: an offered option.")),
		kv("answer", describe(str(1, core.MaxAnswerLen), "respond: a question's option, by its name.")),
		kv("review_summary", describe(str(1, core.MaxReviewSummaryLen), "finalize: required.")),
		kv("approved_review_criteria", describe(array(str(1, contract.MaxCriterionIDLen), 0, core.MaxApprovedCriteria),
			"finalize: required; all required_review_criteria.")),
		kv("expected_review_revision", describe(integer(0, 0), "finalize: required; review_revision.")),
		kv("expected_review_tree_hash", describe(pattern(treeHashPattern), "finalize: required; review_tree_hash.")),
		kv("commit_message", describe(str(1, core.MaxCommitMessageLen), "finalize: optional.")),
		kv("wait_timeout_seconds", describe(waitSecs, fmt.Sprintf("finalize: default %d.", core.DefaultWaitSeconds))),
		kv("acknowledged_risks", describe(array(str(1, core.MaxRiskLen), 0, core.MaxAcknowledgedRisks),
			"finalize: the id of each source_risks entry.")),
		kv("excused_checks", describe(array(closed([]string{"id", "reason"},
			kv("id", describe(str(1, contract.MaxCriterionIDLen), "Verification id.")),
			kv("reason", describe(str(1, core.MaxExcuseReasonLen), "One line, for the commit message."))), 0, core.MaxExcusedChecks),
			"finalize: checks that fail on the base too (pre_existing_failure), with reasons.")),
		// amend_checks: the contract's limits are checked on the amended contract; the schema
		// leaves them out, as words the model would read in every turn.
		kv("drop_checks", describe(array(object{kv("type", "string")}, 0, 0), "amend_checks: verification ids to drop.")),
		kv("add_checks", describe(array(closed([]string{"id", "argv"},
			kv("id", describe(criterion, "Check id.")), kv("argv", describe(array(object{kv("type", "string")}, 1, 0), "Exact argv, no shell.")),
			kv("cwd", describe(object{kv("type", "string")}, cwdText)), kv("timeout_seconds", describe(integer(1, 0), "Time limit."))), 0, 0),
			"amend_checks: checks to add; each proves a new criterion <id>-passes.")),
	))
}

// actionText says what each reasonix_control action needs: JSON Schema could say it only
// with if/then, outside the subset Codex reads. Each field's description names the actions that
// take it, required or optional, so this does not list them again.
const actionText = "Fields name their actions; cancel, close, rebase take none. rebase: a review conflicting with HEAD moves onto it for a repair round."

// decisionText says what respond's decision does to each kind of interaction. A question is put
// to the worker's ask tool as a permission request whose options are the answers: the worker
// learns only which option was chosen (chooseOption in core/engine), so an answer naming no
// option is kept in the record but never reaches it.
const decisionText = "respond: required. Permission: allow or deny what it asks. Question: allow answers with option_id, or the option named by answer (other text is only recorded; the worker gets its first allow option); deny without option_id declines to answer."

func inspectInput() object {
	return root(closed([]string{"task_id"},
		kv("task_id", describe(taskIDIn, "The task.")),
		kv("include", describe(array(enum(core.InspectSections...), 0, len(core.InspectSections)), "Default: all but diff and events.")),
		kv("wait_ms", describe(integer(0, core.MaxInspectWaitMS), "Wait up to this for wait_until.")),
		kv("cursor", describe(str(1, core.MaxInspectCursorLen), "The last next_cursor.")),
		kv("max_bytes", describe(integer(core.MinInspectMaxBytes, core.MaxInspectMaxBytes), "Response budget; default 65536.")),
		kv("wait_until", describe(enum("change", "review_required", "interaction", "terminal").with(kv("default", "change")), "What wait_ms waits for.")),
	))
}

var taskViewRequired = []string{
	"task_id", "state", "phase", "contract_hash", "repository_id", "branch", "worktree", "worker_lane",
	"requested_reasoning_effort", "effective_reasoning_effort", "execution_timeout_seconds",
	"source_checkout_integrated", "repair_rounds", "updated_at",
}

// commitHashPattern is the finalize commit's hash: the earlier bridge's pattern, which leaves
// room for repositories with SHA-256 object names.
const commitHashPattern = `^[0-9a-f]{40,64}$`

// taskView is the task view, reasonix_control's result and inspect's status section, followed
// by more fields where a result adds them (reasonix_delegate's review bundle). All three results
// are built here, so they cannot drift apart.
func taskView(more ...field) object {
	states := make([]string, len(core.States))
	for i, s := range core.States {
		states[i] = string(s)
	}
	effort := enum(append([]string{"minimal"}, effortEnum...)...)
	paths := array(object{kv("type", "string")}, 0, 0)
	fields := []field{
		kv("task_id", describe(str(1, core.MaxTaskIDLen), "The task.")),
		kv("state", describe(enum(states...), "waiting_*: see active_interaction.")),
		kv("phase", describe(object{kv("type", "string")}, "Step within the state, e.g. creating_worktree.")),
		kv("contract_hash", describe(pattern(sha256Pattern), "Contract's sha256.")),
		kv("repository_id", describe(str(1, 0), "Source repository.")),
		kv("branch", describe(str(1, 0), "The task's own branch.")),
		kv("worktree", describe(str(1, 0), "The worker's checkout.")),
		kv("worker_lane", describe(enum(string(core.LaneFast), string(core.LaneDeep)), "As delegated.")),
		kv("worker", describe(enum(core.WorkerNames...), "The agent doing the task.")),
		kv("requested_reasoning_effort", describe(effort, "As delegated.")),
		kv("effective_reasoning_effort", describe(effort, "What the worker runs with.")),
		kv("execution_timeout_seconds", describe(integer(core.MinExecutionTimeoutSeconds, core.MaxExecutionTimeoutSeconds), "Worker deadline.")),
		kv("source_checkout_integrated", describe(object{kv("type", "boolean"), kv("const", false)}, "Your checkout is never changed.")),
		kv("integration_command", describe(str(1, 1024), "Once completed: how to take the commit.")),
		kv("session_id", describe(str(1, 0), "Worker session.")),
		kv("repair_rounds", describe(integer(0, 0), "Repairs so far.")),
		kv("review_revision", describe(integer(0, 0), "finalize's expected_review_revision.")),
		kv("review_tree_hash", describe(pattern(treeHashPattern), "finalize's expected_review_tree_hash.")),
		kv("pause_revision", describe(integer(0, 0), "delegate's pause_revision.")),
		kv("pause_reason_hash", describe(pattern(sha256Pattern), "delegate's pause_reason_hash.")),
		kv("reasonix_work_mode", describe(str(1, 0), "Worker's work mode, e.g. standard.")),
		kv("reasonix_session_mode", describe(str(1, 0), "Worker's ACP session mode.")),
		kv("updated_at", describe(str(1, 0), "RFC 3339.")),
		kv("reason", describe(object{kv("type", "string")}, "Why paused or failed.")),
		kv("commit_hash", describe(pattern(commitHashPattern), "Once completed: the task's commit.")),
		kv("source_collision", describe(closed(
			[]string{"checkpoint", "baseCommit", "dirtyPaths", "committedPaths", "overlappingPaths", "unavailable", "detectedAt"},
			kv("checkpoint", describe(str(1, 0), "When checked.")),
			kv("baseCommit", describe(str(1, 0), "Task's base.")),
			kv("sourceHead", describe(str(1, 0), "Source HEAD now.")),
			kv("dirtyPaths", describe(paths, "Uncommitted there.")),
			kv("committedPaths", describe(paths, "Committed since base.")),
			kv("overlappingPaths", describe(paths, "Also changed by the task.")),
			kv("unavailable", describe(object{kv("type", "boolean")}, "Source unreadable.")),
			kv("detectedAt", describe(str(1, 0), "RFC 3339.")),
		), "The source changed the task's files.")),
	}
	return closed(taskViewRequired, append(fields, more...)...)
}

func usageSchema() object {
	count := object{kv("type", "number"), kv("minimum", 0)}
	return closed(
		[]string{"promptTokens", "completionTokens", "reasoningTokens", "cacheHitTokens", "cacheMissTokens",
			"cacheHitRatio", "estimatedCost", "currency", "usageSource"},
		kv("promptTokens", describe(count, "Input tokens.")),
		kv("completionTokens", describe(count, "Output tokens.")),
		kv("reasoningTokens", describe(count, "Of those, reasoning.")),
		kv("cacheHitTokens", describe(count, "Input from cache.")),
		kv("cacheMissTokens", describe(count, "Input not cached.")),
		kv("cacheHitRatio", describe(nullable(count.with(kv("maximum", 1))), "null: unknown.")),
		kv("estimatedCost", describe(nullable(count), "null: unknown.")),
		kv("currency", describe(object{kv("type", []string{"string", "null"})}, "Of the cost.")),
		kv("usageSource", describe(object{kv("type", "string")}, "Who counted.")),
	)
}

func interactionSchema() object {
	anyObject := object{kv("type", "object"), kv("additionalProperties", object{})}
	plain := object{kv("type", "string")}
	return closed([]string{"id", "kind", "status", "createdAt", "request"},
		kv("id", describe(plain, "respond's interaction_id.")),
		kv("kind", describe(enum(core.InteractionPermission, core.InteractionInput), "A command or a question.")),
		kv("status", describe(enum(core.InteractionPending, core.InteractionResolved, core.InteractionCancelled), "pending: answer it.")),
		kv("createdAt", describe(plain, "RFC 3339.")),
		kv("resolvedAt", describe(plain, "RFC 3339.")),
		kv("request", describe(anyObject, "argv, cwd, reason; or question, options.")),
		kv("response", describe(anyObject, "decision; by: asked_user, codex, supervisor or policy; client; outcome.")),
	)
}

func controlOutput() object { return root(taskView()) }

func delegateOutput() object {
	boolean := object{kv("type", "boolean")}
	bundle := []field{
		kv("resume_required", describe(boolean, "Paused: resume with pause_*.")),
		kv("inspect_required", describe(boolean, "Result cut: inspect for all.")),
		kv("timed_out", describe(boolean, "The wait ended; work goes on.")),
		kv("summary", describe(str(0, 4096), "Worker's own account.")),
		kv("changed_files", describe(array(str(0, 1024), 0, 256), "Paths changed.")),
		kv("diff_stat", describe(str(0, 4096), "git diff --stat.")),
		kv("diff", describe(str(0, 12288), "The change, maybe cut.")),
		kv("risks", describe(array(str(0, 2048), 0, 128), "Read before finalize.")),
		kv("usage", describe(usageSchema(), "Tokens and cost.")),
		kv("active_interaction", describe(interactionSchema(), "Answer with respond.")),
		kv("required_review_criteria", describe(array(str(1, contract.MaxCriterionIDLen), 0, core.MaxApprovedCriteria), "finalize's approved_review_criteria.")),
		kv("review_diff_sha256", describe(pattern(sha256Pattern), "Reviewed diff's sha256.")),
	}
	return root(taskView(bundle...))
}

func inspectOutput() object {
	plain := object{kv("type", "string")}
	stringList := array(plain, 0, 0)
	boolean := object{kv("type", "boolean")}
	exitCode := describe(nullable(object{kv("type", "integer")}), "null: did not exit.")
	when := describe(plain, "RFC 3339.")
	failures := array(closed([]string{"id", "pre_existing"},
		kv("id", describe(plain, "Names the failure.")),
		kv("message", describe(plain, "What the output says.")),
		kv("pre_existing", describe(boolean, "Fails on the base too.")),
	), 0, 0)
	baseline := closed([]string{"status", "base"},
		kv("status", describe(enum(core.BaselinePassed, core.BaselineFailed, core.BaselineUnknown), "failed: a pre-existing failure.")),
		kv("base", describe(plain, "The commit it ran on.")),
		kv("exitCode", describe(object{kv("type", "integer")}, "Its exit status.")),
		kv("timedOut", describe(boolean, "Hit its limit.")),
		kv("logPath", describe(plain, "Output log.")),
		kv("logTail", describe(plain, "The log's last lines.")),
		kv("reason", describe(plain, "Why unknown.")),
		kv("failures", describe(failures, "What its output names.")),
		kv("failureFormat", describe(plain, "How read.")),
		kv("outputDigest", describe(plain, "Of its normalised output.")),
	)
	verification := closed(
		[]string{"id", "argv", "cwd", "startedAt", "finishedAt", "exitCode", "timedOut", "passed", "proves",
			"logPath", "sha256", "outputBytes"},
		kv("id", describe(plain, "Check id.")),
		kv("argv", describe(stringList, "As run.")),
		kv("cwd", describe(plain, "Repository-relative.")),
		kv("startedAt", when),
		kv("finishedAt", when),
		kv("exitCode", exitCode),
		kv("timedOut", describe(boolean, "Hit its limit.")),
		kv("passed", describe(boolean, "Exit 0 in time.")),
		kv("proves", describe(stringList, "Criteria it proves.")),
		kv("logPath", describe(plain, "Output log.")),
		kv("sha256", describe(plain, "Of the log.")),
		kv("outputBytes", describe(integer(0, 0), "Log size.")),
		kv("baseline", describe(baseline, "The same check on the base commit.")),
		kv("excused", describe(boolean, "Fails on the base too.")),
		kv("excuseReason", describe(plain, "Why excused.")),
		kv("failures", describe(failures, "One per failure.")),
		kv("failureFormat", describe(plain, "How read: go, pytest, …, output.")),
	)
	evidence := closed([]string{"criterionId", "evidence", "approved", "source"},
		kv("criterionId", describe(plain, "The criterion.")),
		kv("evidence", describe(enum("automated", "review"), "How it is proved.")),
		kv("approved", describe(boolean, "Proved or approved.")),
		kv("source", describe(plain, "What proved it.")),
		kv("sha256", describe(plain, "Of the source.")),
		kv("outputBytes", describe(integer(0, 0), "Source size.")),
	)
	event := closed([]string{"seq", "timestamp", "type"},
		kv("task_id", describe(plain, "The task.")),
		kv("seq", describe(integer(0, 0), "Journal order.")),
		kv("timestamp", when),
		kv("type", describe(plain, "Event name.")),
		kv("data", describe(object{}, "Its details.")),
	)
	sections := closed(nil,
		kv("status", describe(anyOf(taskView(), stringPage), "Or a page of it.")),
		kv("summary", describe(plain, "Worker's own account.")),
		kv("changed_files", describe(anyOf(stringList, stringPage), "Paths changed.")),
		kv("diff_stat", describe(plain, "git diff --stat.")),
		kv("diff", describe(plain, "The change.")),
		kv("verification", describe(anyOf(array(verification, 0, 0), stringPage), "Check runs.")),
		kv("acceptance_evidence", describe(anyOf(array(evidence, 0, 0), stringPage), "Per criterion.")),
		kv("risks", describe(anyOf(stringList, stringPage), "Found in review.")),
		kv("usage", describe(anyOf(usageSchema(), stringPage), "Tokens and cost.")),
		kv("interactions", describe(anyOf(array(interactionSchema(), 0, 0), stringPage), "Asked and answered.")),
		kv("events", describe(anyOf(array(event, 0, 0), stringPage), "The journal.")),
	)
	return root(closed([]string{"task_id", "sections", "truncated", "updated_at"},
		kv("task_id", describe(str(1, core.MaxTaskIDLen), "The task.")),
		kv("sections", describe(sections, "A string: paged; read on with cursor.")),
		kv("truncated", describe(boolean, "More follows: next_cursor.")),
		kv("next_cursor", describe(plain, "inspect's cursor.")),
		kv("updated_at", describe(str(1, 0), "RFC 3339.")),
	))
}
