package contract

import (
	"fmt"
	"slices"
	"strings"
)

// Limits and fixed values of TaskContractV1.
const (
	SchemaVersion         = 1
	MaxTextLen            = 20000 // UTF-16 units of a trimmed text field
	MaxPathLen            = 1024
	MaxListLen            = 1000 // scopes, context, invariants, criteria, …
	MaxCommands           = 256  // verification, allowed_commands, file_assertions
	MaxArgv               = 128
	MaxArgLen             = 4096
	MaxProves             = 256
	MaxTimeoutSeconds     = 1800
	DefaultVerifyTimeout  = 600 // seconds, verification entries without timeout_seconds
	DefaultCommandTimeout = 120 // seconds, allowed_commands entries without timeout_seconds
	MaxExpectedBytes      = 64 << 10
	// CriterionIDPattern is the form of every id in a contract (criteria, commands, file
	// assertions); MaxCriterionIDLen is the length it allows.
	CriterionIDPattern = `^[A-Za-z][A-Za-z0-9._-]{0,63}$`
	MaxCriterionIDLen  = 64
	EvidenceAutomated  = "automated"
	EvidenceReview     = "review"
)

// Names used in issue paths.
const (
	defaultCwd              = "."
	allowedCommandsField    = "allowed_commands"
	fileAssertionsField     = "file_assertions"
	verificationField       = "verification"
	acceptanceCriteriaField = "acceptance_criteria"
)

// Contract is a parsed, normalised TaskContractV1. Obtain one from Parse (or json.Unmarshal):
// text is trimmed, paths are normalised and defaults are applied. Treat it as read-only; it is
// the immutable agreement the task was created with. AllowedCommands and FileAssertions are nil
// when the input omitted them and non-nil (maybe empty) when it gave them, because an absent list
// stays absent in the canonical JSON and so in the hash.
type Contract struct {
	SchemaVersion      int
	Objective          string
	UserOutcome        string
	VerifiedContext    []ContextEntry
	WriteScope         []string
	ForbiddenScope     []string
	Invariants         []string
	NonGoals           []string
	AcceptanceCriteria []Criterion
	Verification       []Verification
	AllowedCommands    []Command
	FileAssertions     []FileAssertion
	PauseConditions    []string
}

// ContextEntry is a path the supervisor already checked, with why it matters.
type ContextEntry struct {
	Path   string // normalised; "." for the repository root
	Reason string
}

// Criterion is one acceptance criterion; Evidence is EvidenceAutomated or EvidenceReview.
type Criterion struct {
	ID          string
	Requirement string
	Evidence    string
}

// Command is a command the worker may run verbatim: exact argv in a repository-relative cwd.
type Command struct {
	ID             string
	Argv           []string
	Cwd            string // normalised, "." by default
	TimeoutSeconds int    // defaulted: 600 for verification, 120 for allowed commands
}

// Verification is a command whose success proves acceptance criteria.
type Verification struct {
	Command
	Proves []string
}

// FileAssertion proves criteria by the exact bytes of a file after the task.
type FileAssertion struct {
	ID           string
	Path         string
	ExpectedUTF8 string // exact bytes, never trimmed
	Proves       []string
}

// Issue is one problem of a contract, located by its dotted JSON path ("verification.0.cwd";
// "$" for the document itself).
type Issue struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

func (i Issue) String() string { return i.Path + ": " + i.Message }

// InvalidError lists every problem found in a contract.
type InvalidError struct{ Issues []Issue }

func (e *InvalidError) Error() string {
	if len(e.Issues) == 1 {
		return "invalid contract: " + e.Issues[0].String()
	}
	return fmt.Sprintf("invalid contract: %d issues, first %s", len(e.Issues), e.Issues[0])
}

// Commands returns every command the worker may run by exact match: the verification commands,
// then the allowed commands.
func (c *Contract) Commands() []Command {
	out := make([]Command, 0, len(c.Verification)+len(c.AllowedCommands))
	for _, v := range c.Verification {
		out = append(out, v.Command)
	}
	return append(out, c.AllowedCommands...)
}

// MatchCommand finds the command whose argv equals argv element by element and whose cwd equals
// the normalised cwd (relative to the repository root).
func (c *Contract) MatchCommand(argv []string, cwd string) (Command, bool) {
	if c == nil {
		return Command{}, false
	}
	norm, err := NormalisePath(cwd, true)
	if err != nil {
		return Command{}, false
	}
	for _, cmd := range c.Commands() {
		if cmd.Cwd == norm && slices.Equal(cmd.Argv, argv) {
			return cmd, true
		}
	}
	return Command{}, false
}

// Forbidden reports whether a repository path matches a forbidden_scope pattern. An invalid path
// (absolute, escaping) counts as forbidden.
func (c *Contract) Forbidden(path string) bool {
	p, err := NormalisePath(path, false)
	if err != nil {
		return true
	}
	return c != nil && slices.ContainsFunc(c.ForbiddenScope, func(pat string) bool { return Match(pat, p) })
}

// WriteAllowed reports whether the worker may write a repository path: it matches write_scope
// and no forbidden_scope pattern. Invalid paths and the repository root are never writable.
func (c *Contract) WriteAllowed(path string) bool {
	p, err := NormalisePath(path, false)
	if c == nil || err != nil || c.Forbidden(p) {
		return false
	}
	return slices.ContainsFunc(c.WriteScope, func(pat string) bool { return Match(pat, p) })
}

// WritePrefixes returns path prefixes that together cover every path WriteAllowed accepts: each
// write_scope pattern up to its first segment with glob syntax. nil means the scope can reach
// any path (a pattern that starts with a glob).
func (c *Contract) WritePrefixes() []string {
	if c == nil || len(c.WriteScope) == 0 {
		return nil
	}
	var out []string
	for _, pat := range c.WriteScope {
		var lit []string
		for _, seg := range strings.Split(pat, "/") {
			if HasGlob(seg) {
				break
			}
			lit = append(lit, seg)
		}
		if len(lit) == 0 || lit[0] == "" {
			return nil
		}
		out = append(out, strings.Join(lit, "/"))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// CriteriaIDs returns the ids of the acceptance criteria with the given evidence kind
// (EvidenceAutomated or EvidenceReview), sorted.
func (c *Contract) CriteriaIDs(evidence string) []string {
	var ids []string
	for _, a := range c.AcceptanceCriteria {
		if a.Evidence == evidence {
			ids = append(ids, a.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

// Criterion returns the acceptance criterion with this id.
func (c *Contract) Criterion(id string) (Criterion, bool) {
	i := slices.IndexFunc(c.AcceptanceCriteria, func(a Criterion) bool { return a.ID == id })
	if i < 0 {
		return Criterion{}, false
	}
	return c.AcceptanceCriteria[i], true
}

func (c *Contract) clone() *Contract {
	out := *c
	out.VerifiedContext = slices.Clone(c.VerifiedContext)
	out.WriteScope = slices.Clone(c.WriteScope)
	out.ForbiddenScope = slices.Clone(c.ForbiddenScope)
	out.Invariants = slices.Clone(c.Invariants)
	out.NonGoals = slices.Clone(c.NonGoals)
	out.AcceptanceCriteria = slices.Clone(c.AcceptanceCriteria)
	out.PauseConditions = slices.Clone(c.PauseConditions)
	out.Verification = make([]Verification, len(c.Verification))
	for i, v := range c.Verification {
		v.Argv, v.Proves = slices.Clone(v.Argv), slices.Clone(v.Proves)
		out.Verification[i] = v
	}
	if c.AllowedCommands != nil {
		out.AllowedCommands = make([]Command, len(c.AllowedCommands))
		for i, a := range c.AllowedCommands {
			a.Argv = slices.Clone(a.Argv)
			out.AllowedCommands[i] = a
		}
	}
	if c.FileAssertions != nil {
		out.FileAssertions = make([]FileAssertion, len(c.FileAssertions))
		for i, f := range c.FileAssertions {
			f.Proves = slices.Clone(f.Proves)
			out.FileAssertions[i] = f
		}
	}
	return &out
}

func jsonPath(parts ...any) string {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteByte('.')
		}
		fmt.Fprint(&b, p)
	}
	return b.String()
}
