package contract

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
)

// CanonicalJSON is the contract as JSON with object keys sorted at every level, indented by two
// spaces and followed by a newline, with strings escaped exactly as JavaScript's JSON.stringify
// escapes them. Optional lists that were absent stay absent. These bytes define the hash.
func (c *Contract) CanonicalJSON() []byte {
	var b strings.Builder
	writeValue(&b, c.tree(), "")
	b.WriteByte('\n')
	return []byte(b.String())
}

// Hash is the contract_hash: the hex sha256 of CanonicalJSON.
func (c *Contract) Hash() string {
	sum := sha256.Sum256(c.CanonicalJSON())
	return hex.EncodeToString(sum[:])
}

type object map[string]any

func strs(in []string) []any {
	out := make([]any, len(in))
	for i, s := range in {
		out[i] = s
	}
	return out
}

func (cmd Command) tree() object {
	return object{"id": cmd.ID, "argv": strs(cmd.Argv), "cwd": cmd.Cwd, "timeout_seconds": cmd.TimeoutSeconds}
}

func (c *Contract) tree() object {
	ctx := make([]any, len(c.VerifiedContext))
	for i, e := range c.VerifiedContext {
		ctx[i] = object{"path": e.Path, "reason": e.Reason}
	}
	criteria := make([]any, len(c.AcceptanceCriteria))
	for i, a := range c.AcceptanceCriteria {
		criteria[i] = object{"id": a.ID, "requirement": a.Requirement, "evidence": a.Evidence}
	}
	verification := make([]any, len(c.Verification))
	for i, v := range c.Verification {
		o := v.Command.tree()
		o["proves"] = strs(v.Proves)
		verification[i] = o
	}
	t := object{
		"schema_version":      c.SchemaVersion,
		"objective":           c.Objective,
		"user_outcome":        c.UserOutcome,
		"verified_context":    ctx,
		"write_scope":         strs(c.WriteScope),
		"forbidden_scope":     strs(c.ForbiddenScope),
		"invariants":          strs(c.Invariants),
		"non_goals":           strs(c.NonGoals),
		"acceptance_criteria": criteria,
		"verification":        verification,
		"pause_conditions":    strs(c.PauseConditions),
	}
	if c.AllowedCommands != nil {
		allowed := make([]any, len(c.AllowedCommands))
		for i, a := range c.AllowedCommands {
			allowed[i] = a.tree()
		}
		t[allowedCommandsField] = allowed
	}
	if c.FileAssertions != nil {
		assertions := make([]any, len(c.FileAssertions))
		for i, f := range c.FileAssertions {
			assertions[i] = object{"id": f.ID, "path": f.Path, "expected_utf8": f.ExpectedUTF8, "proves": strs(f.Proves)}
		}
		t[fileAssertionsField] = assertions
	}
	return t
}

// writeValue follows JSON.stringify(value, null, 2): empty containers print as [] and {}.
// Keys sort by UTF-16 code units, which for the ASCII keys of a contract is byte order.
func writeValue(b *strings.Builder, v any, indent string) {
	inner := indent + "  "
	switch t := v.(type) {
	case string:
		writeString(b, t)
	case int:
		b.WriteString(strconv.Itoa(t))
	case []any:
		if len(t) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, item := range t {
			if i > 0 {
				b.WriteString(",\n")
			}
			b.WriteString(inner)
			writeValue(b, item, inner)
		}
		b.WriteString("\n" + indent + "]")
	case object:
		if len(t) == 0 {
			b.WriteString("{}")
			return
		}
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b.WriteString("{\n")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(",\n")
			}
			b.WriteString(inner)
			writeString(b, k)
			b.WriteString(": ")
			writeValue(b, t[k], inner)
		}
		b.WriteString("\n" + indent + "}")
	default:
		panic("contract: canonical JSON of unexpected type")
	}
}

const hexDigits = "0123456789abcdef"

func writeString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte(hexDigits[r>>4])
				b.WriteByte(hexDigits[r&0xf])
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}
