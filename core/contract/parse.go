package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"sync"
)

// idPattern is compiled on first use: at start-up it cost about 1 ms of every process.
var idPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(CriterionIDPattern) })

// Parse decodes a TaskContractV1 document strictly (unknown fields, wrong types and limits are
// all refused), normalises it and checks its internal consistency. Every problem is returned at
// once in an *InvalidError. Exact duplicate commands are dropped, and so is an allowed command
// identical to a verification command.
func Parse(data []byte) (*Contract, error) {
	c, issues := parse(data)
	if len(issues) > 0 {
		return nil, &InvalidError{Issues: issues}
	}
	return c, nil
}

// Lint returns every problem of a TaskContractV1 document, or nil when Parse would accept it.
func Lint(data []byte) []Issue {
	_, issues := parse(data)
	return issues
}

// UnmarshalJSON parses with Parse, so a Contract inside a larger document is just as strict.
func (c *Contract) UnmarshalJSON(data []byte) error {
	parsed, err := Parse(data)
	if err != nil {
		return err
	}
	*c = *parsed
	return nil
}

// MarshalJSON writes the canonical JSON (keys sorted), so stored contracts keep their hash.
func (c *Contract) MarshalJSON() ([]byte, error) { return c.CanonicalJSON(), nil }

// parsedCommand remembers what lint needs beyond the normalised command: where it was and
// whether its timeout was explicit (an explicit default still differs from an omitted one when
// an allowed command is compared with a verification command).
type parsedCommand struct {
	index      int
	v          Verification
	rawCwd     string
	cwdOK      bool
	rawTimeout int // 0 when omitted
	hasID      bool
}

type parsedAssertion struct {
	index int
	a     FileAssertion
	hasID bool
}

type validator struct{ issues []Issue }

func (v *validator) add(path, format string, args ...any) {
	if path == "" {
		path = "$"
	}
	v.issues = append(v.issues, Issue{Path: path, Message: fmt.Sprintf(format, args...)})
}

func parse(data []byte) (*Contract, []Issue) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		return nil, []Issue{{Path: "$", Message: "invalid JSON: " + err.Error()}}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, []Issue{{Path: "$", Message: "unexpected data after the JSON document"}}
	}
	v := &validator{}
	c, verification, allowed, assertions := v.contract(root)
	if c == nil {
		return nil, v.issues
	}
	v.lint(c, verification, allowed, assertions)
	if len(v.issues) > 0 {
		return nil, v.issues
	}
	c.Verification, c.AllowedCommands = dedupe(verification, allowed, c.AllowedCommands != nil)
	return c, nil
}

func (v *validator) contract(root any) (*Contract, []parsedCommand, []parsedCommand, []parsedAssertion) {
	m := v.object("", root, "schema_version", "objective", "user_outcome", "verified_context",
		"write_scope", "forbidden_scope", "invariants", "non_goals", acceptanceCriteriaField,
		verificationField, allowedCommandsField, fileAssertionsField, "pause_conditions")
	if m == nil {
		return nil, nil, nil, nil
	}
	c := &Contract{}
	if x, ok := v.field(m, "", "schema_version", true); ok {
		if n, ok := v.integer("schema_version", x, SchemaVersion, SchemaVersion); ok {
			c.SchemaVersion = n
		}
	}
	if x, ok := v.field(m, "", "objective", true); ok {
		c.Objective = v.text("objective", x)
	}
	if x, ok := v.field(m, "", "user_outcome", true); ok {
		c.UserOutcome = v.text("user_outcome", x)
	}
	c.VerifiedContext = []ContextEntry{}
	if x, ok := v.field(m, "", "verified_context", false); ok {
		for i, item := range v.array("verified_context", x, 0, MaxListLen) {
			p := jsonPath("verified_context", i)
			e := v.object(p, item, "path", "reason")
			if e == nil {
				continue
			}
			var entry ContextEntry
			if x, ok := v.field(e, p, "path", true); ok {
				entry.Path, _ = v.path(p+".path", x, true)
			}
			if x, ok := v.field(e, p, "reason", true); ok {
				entry.Reason = v.text(p+".reason", x)
			}
			c.VerifiedContext = append(c.VerifiedContext, entry)
		}
	}
	if x, ok := v.field(m, "", "write_scope", true); ok {
		c.WriteScope = v.paths("write_scope", x, 1)
	}
	c.ForbiddenScope = []string{}
	if x, ok := v.field(m, "", "forbidden_scope", false); ok {
		c.ForbiddenScope = v.paths("forbidden_scope", x, 0)
	}
	c.Invariants = v.texts(m, "invariants")
	c.NonGoals = v.texts(m, "non_goals")
	c.PauseConditions = v.texts(m, "pause_conditions")
	if x, ok := v.field(m, "", acceptanceCriteriaField, true); ok {
		for i, item := range v.array(acceptanceCriteriaField, x, 1, MaxListLen) {
			p := jsonPath(acceptanceCriteriaField, i)
			e := v.object(p, item, "id", "requirement", "evidence")
			if e == nil {
				continue
			}
			var cr Criterion
			if x, ok := v.field(e, p, "id", true); ok {
				cr.ID, _ = v.id(p+".id", x)
			}
			if x, ok := v.field(e, p, "requirement", true); ok {
				cr.Requirement = v.text(p+".requirement", x)
			}
			if x, ok := v.field(e, p, "evidence", true); ok {
				s, ok := x.(string)
				if ok && (s == EvidenceAutomated || s == EvidenceReview) {
					cr.Evidence = s
				} else {
					v.add(p+".evidence", "must be %q or %q", EvidenceAutomated, EvidenceReview)
				}
			}
			c.AcceptanceCriteria = append(c.AcceptanceCriteria, cr)
		}
	}
	var verification, allowed []parsedCommand
	if x, ok := v.field(m, "", verificationField, true); ok {
		verification = v.commands(verificationField, x, true)
	}
	if x, ok := v.field(m, "", allowedCommandsField, false); ok {
		allowed = v.commands(allowedCommandsField, x, false)
		c.AllowedCommands = []Command{}
	}
	var assertions []parsedAssertion
	if x, ok := v.field(m, "", fileAssertionsField, false); ok {
		c.FileAssertions = []FileAssertion{}
		for i, item := range v.array(fileAssertionsField, x, 0, MaxCommands) {
			p := jsonPath(fileAssertionsField, i)
			e := v.object(p, item, "id", "path", "expected_utf8", "proves")
			if e == nil {
				continue
			}
			pa := parsedAssertion{index: i}
			if x, ok := v.field(e, p, "id", true); ok {
				pa.a.ID, pa.hasID = v.id(p+".id", x)
			}
			if x, ok := v.field(e, p, "path", true); ok {
				pa.a.Path, _ = v.path(p+".path", x, false)
			}
			if x, ok := v.field(e, p, "expected_utf8", true); ok {
				if s, ok := x.(string); !ok {
					v.add(p+".expected_utf8", "must be a string")
				} else if len(s) > MaxExpectedBytes {
					v.add(p+".expected_utf8", "exceeds %d bytes (%d bytes)", MaxExpectedBytes, len(s))
				} else {
					pa.a.ExpectedUTF8 = s
				}
			}
			if x, ok := v.field(e, p, "proves", true); ok {
				pa.a.Proves = v.ids(p+".proves", x)
			}
			assertions = append(assertions, pa)
			c.FileAssertions = append(c.FileAssertions, pa.a)
		}
	}
	return c, verification, allowed, assertions
}

func (v *validator) commands(field string, x any, verification bool) []parsedCommand {
	var out []parsedCommand
	keys := []string{"id", "argv", "cwd", "timeout_seconds"}
	if verification {
		keys = append(keys, "proves")
	}
	for i, item := range v.array(field, x, 0, MaxCommands) {
		p := jsonPath(field, i)
		e := v.object(p, item, keys...)
		if e == nil {
			continue
		}
		pc := parsedCommand{index: i, rawCwd: defaultCwd, cwdOK: true}
		if x, ok := v.field(e, p, "id", true); ok {
			pc.v.ID, pc.hasID = v.id(p+".id", x)
		}
		if x, ok := v.field(e, p, "argv", true); ok {
			pc.v.Argv = v.argv(p+".argv", x)
		}
		pc.v.Cwd = defaultCwd
		if x, ok := v.field(e, p, "cwd", false); ok {
			if s, ok := v.str(p+".cwd", x, MaxPathLen); ok {
				pc.rawCwd = s
				pc.v.Cwd, pc.cwdOK = v.path(p+".cwd", s, true)
			} else {
				pc.cwdOK = false
			}
		}
		pc.v.TimeoutSeconds = DefaultCommandTimeout
		if verification {
			pc.v.TimeoutSeconds = DefaultVerifyTimeout
		}
		if x, ok := v.field(e, p, "timeout_seconds", false); ok {
			if n, ok := v.integer(p+".timeout_seconds", x, 1, MaxTimeoutSeconds); ok {
				pc.v.TimeoutSeconds, pc.rawTimeout = n, n
			} else {
				pc.rawTimeout = -1
			}
		}
		if verification {
			if x, ok := v.field(e, p, "proves", true); ok {
				pc.v.Proves = v.ids(p+".proves", x)
			}
		}
		out = append(out, pc)
	}
	return out
}

// object checks that x is a JSON object with only the given keys; unknown keys are reported in
// sorted order so that the issue list is deterministic.
func (v *validator) object(path string, x any, keys ...string) map[string]any {
	m, ok := x.(map[string]any)
	if !ok {
		v.add(path, "must be an object")
		return nil
	}
	var unknown []string
	for k := range m {
		if !slices.Contains(keys, k) {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		full := k
		if path != "" {
			full = path + "." + k
		}
		v.add(full, "unknown field")
	}
	return m
}

func (v *validator) field(m map[string]any, path, key string, required bool) (any, bool) {
	x, ok := m[key]
	full := key
	if path != "" {
		full = path + "." + key
	}
	if !ok {
		if required {
			v.add(full, "required")
		}
		return nil, false
	}
	if x == nil && !required {
		v.add(full, "must not be null (omit it instead)")
		return nil, false
	}
	return x, true
}

func (v *validator) array(path string, x any, lo, hi int) []any {
	a, ok := x.([]any)
	if !ok {
		v.add(path, "must be an array")
		return nil
	}
	switch {
	case len(a) < lo:
		v.add(path, "must have at least %d item(s)", lo)
	case len(a) > hi:
		v.add(path, "must have at most %d items (has %d)", hi, len(a))
	}
	return a
}

func (v *validator) str(path string, x any, maxLen int) (string, bool) {
	s, ok := x.(string)
	if !ok {
		v.add(path, "must be a string")
		return "", false
	}
	if n := lenJS(s); n > maxLen {
		v.add(path, "must be at most %d characters (has %d)", maxLen, n)
		return "", false
	}
	return s, true
}

// text is a trimmed free-text field of 1–MaxTextLen characters.
func (v *validator) text(path string, x any) string {
	s, ok := x.(string)
	if !ok {
		v.add(path, "must be a string")
		return ""
	}
	t := trimJS(s)
	switch n := lenJS(t); {
	case n == 0:
		v.add(path, "must not be empty")
	case n > MaxTextLen:
		v.add(path, "must be at most %d characters after trimming (has %d)", MaxTextLen, n)
	}
	return t
}

func (v *validator) texts(m map[string]any, key string) []string {
	out := []string{}
	x, ok := v.field(m, "", key, false)
	if !ok {
		return out
	}
	for i, item := range v.array(key, x, 0, MaxListLen) {
		out = append(out, v.text(jsonPath(key, i), item))
	}
	return out
}

func (v *validator) id(path string, x any) (string, bool) {
	s, ok := x.(string)
	if !ok {
		v.add(path, "must be a string")
		return "", false
	}
	if !idPattern().MatchString(s) {
		v.add(path, "must match %s", idPattern())
		return s, false
	}
	return s, true
}

func (v *validator) ids(path string, x any) []string {
	var out []string
	for i, item := range v.array(path, x, 1, MaxProves) {
		if s, ok := v.id(jsonPath(path, i), item); ok {
			out = append(out, s)
		}
	}
	return out
}

func (v *validator) argv(path string, x any) []string {
	var out []string
	for i, item := range v.array(path, x, 1, MaxArgv) {
		s, ok := v.str(jsonPath(path, i), item, MaxArgLen)
		if ok && i == 0 && s == "" {
			v.add(jsonPath(path, i), "the executable must not be empty")
		}
		out = append(out, s)
	}
	return out
}

// path checks the raw length, then normalises; the normalised value is returned either way so
// that later checks can carry on.
func (v *validator) path(path string, x any, allowRoot bool) (string, bool) {
	s, ok := v.str(path, x, MaxPathLen)
	if !ok {
		return "", false
	}
	if s == "" {
		v.add(path, "must not be empty")
		return "", false
	}
	n, err := NormalisePath(s, allowRoot)
	if err != nil {
		v.add(path, "%s", err.(*PathError).Reason)
		return s, false
	}
	return n, true
}

func (v *validator) paths(path string, x any, lo int) []string {
	out := []string{}
	for i, item := range v.array(path, x, lo, MaxListLen) {
		if p, ok := v.path(jsonPath(path, i), item, false); ok {
			out = append(out, p)
		}
	}
	return out
}

// integer accepts any JSON number with an integral value in [lo, hi] (1.0 is 1, as in JSON.parse).
func (v *validator) integer(path string, x any, lo, hi int) (int, bool) {
	num, ok := x.(json.Number)
	if !ok {
		v.add(path, "must be a number")
		return 0, false
	}
	f, err := strconv.ParseFloat(string(num), 64)
	if err != nil || f != math.Trunc(f) {
		v.add(path, "must be an integer")
		return 0, false
	}
	if f < float64(lo) || f > float64(hi) {
		if lo == hi {
			v.add(path, "must be %d", lo)
		} else {
			v.add(path, "must be between %d and %d", lo, hi)
		}
		return 0, false
	}
	return int(f), true
}
