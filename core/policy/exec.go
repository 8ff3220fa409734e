package policy

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"reasonixctl/core/contract"
)

// MetaKey is the key of the worker's static command metadata inside a tool call's _meta.
const MetaKey = "reasonix.io"

// ExecMeta is the worker's static description of a simple shell command, _meta["reasonix.io"].
type ExecMeta struct {
	CommandSchemaVersion int      // must be 1
	Tool                 string   // must be "bash"
	Argv                 []string // nil when absent: a compound command
	Cwd                  string   // absolute
	ApprovalID           string   // "" when absent
}

// ExecRequest is one execute permission request.
type ExecRequest struct {
	ToolCallID string
	Meta       *ExecMeta // nil when the tool call has no _meta["reasonix.io"]
	RawArgv    []string  // rawInput.argv, nil when absent
	RawCwd     string    // rawInput.cwd, "" when absent
	Worktree   string    // the task's worktree (any path that resolves to it)

	malformed string // why the wire values could not be read, if they could not
}

// ExecRequestFromToolCall builds the request from a tool call as it arrived: its id, its _meta
// and its rawInput as decoded JSON (nil when absent). Values of the wrong type make the request
// malformed, which ClassifyExec denies with metadata_invalid.
func ExecRequestFromToolCall(toolCallID string, meta map[string]any, rawInput any, worktree string) ExecRequest {
	req := ExecRequest{ToolCallID: toolCallID, Worktree: worktree}
	bad := func(format string, args ...any) ExecRequest {
		req.malformed = fmt.Sprintf(format, args...)
		return req
	}
	if x, ok := meta[MetaKey]; ok {
		m, ok := x.(map[string]any)
		if !ok {
			return bad("_meta[%q] is not an object", MetaKey)
		}
		em := &ExecMeta{}
		if v, ok := m["commandSchemaVersion"]; ok {
			n, ok := wholeNumber(v)
			if !ok {
				return bad("commandSchemaVersion is not an integer")
			}
			em.CommandSchemaVersion = n
		}
		var ok1, ok2, ok3, ok4 bool
		em.Tool, ok1 = optString(m, "tool")
		em.Cwd, ok2 = optString(m, "cwd")
		em.ApprovalID, ok3 = optString(m, "approvalId")
		em.Argv, ok4 = optStrings(m, "argv")
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return bad("tool, cwd, approvalId or argv has the wrong type")
		}
		req.Meta = em
	}
	if raw, ok := rawInput.(map[string]any); ok {
		var ok1, ok2 bool
		req.RawArgv, ok1 = optStrings(raw, "argv")
		req.RawCwd, ok2 = optString(raw, "cwd")
		if !ok1 || !ok2 {
			return bad("rawInput argv or cwd has the wrong type")
		}
	}
	return req
}

// wholeNumber reads a decoded JSON number (float64, or json.Number with UseNumber) that is an
// integer of a sane size.
func wholeNumber(v any) (int, bool) {
	var f float64
	switch t := v.(type) {
	case float64:
		f = t
	case json.Number:
		var err error
		if f, err = t.Float64(); err != nil {
			return 0, false
		}
	default:
		return 0, false
	}
	if f != math.Trunc(f) || math.Abs(f) > 1<<31 {
		return 0, false
	}
	return int(f), true
}

func optString(m map[string]any, key string) (string, bool) {
	v, ok := m[key]
	if !ok || v == nil {
		return "", true
	}
	s, ok := v.(string)
	return s, ok
}

func optStrings(m map[string]any, key string) ([]string, bool) {
	v, ok := m[key]
	if !ok || v == nil {
		return nil, true
	}
	items, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, len(items))
	for i, it := range items {
		if out[i], ok = it.(string); !ok {
			return nil, false
		}
	}
	return out, true
}

// ClassifyExec decides an execute request: first its metadata (§5: schema version, tool, argv,
// absolute cwd inside the worktree, agreement with rawInput), then the hard denials, then the
// allow classes — read-only git, audited reads, the env wrapper, an exact contract command — and
// finally unknown_executable. A nil contract is an empty one.
func ClassifyExec(req ExecRequest, c *contract.Contract) Decision {
	cwd, d, ok := checkMeta(req)
	if !ok {
		return d
	}
	return classifyArgv(req.Meta.Argv, cwd, c)
}

// checkMeta validates the metadata and returns the command's cwd relative to the worktree.
func checkMeta(req ExecRequest) (string, Decision, bool) {
	invalid := func(format string, args ...any) (string, Decision, bool) {
		return "", deny(CodeMetadataInvalid, "The command's metadata is invalid: "+fmt.Sprintf(format, args...)+"."), false
	}
	m := req.Meta
	switch {
	case req.malformed != "":
		return invalid("%s", req.malformed)
	case m == nil:
		return invalid("the request has no _meta[%q]", MetaKey)
	case m.Tool != "bash":
		return invalid("tool is %q, not \"bash\"", m.Tool)
	case m.Argv == nil:
		return "", deny(CodeNoStaticArgv, "The command is compound (pipes, &&, redirection or substitution), so the worker sent no static argv to check."), false
	case m.CommandSchemaVersion != 1:
		return invalid("commandSchemaVersion is %d, not 1", m.CommandSchemaVersion)
	case len(m.Argv) == 0 || len(m.Argv) > contract.MaxArgv:
		return invalid("argv has %d items (1–%d allowed)", len(m.Argv), contract.MaxArgv)
	case slices.Contains(m.Argv, ""):
		return invalid("argv has an empty item")
	case !filepath.IsAbs(m.Cwd):
		return invalid("cwd %q is not absolute", m.Cwd)
	case m.ApprovalID != "" && m.ApprovalID != req.ToolCallID && "gate-"+m.ApprovalID != req.ToolCallID:
		// The worker numbers approvals "N" and names the request "gate-N".
		return invalid("approvalId %q does not belong to tool call %q", m.ApprovalID, req.ToolCallID)
	case req.RawArgv != nil && !slices.Equal(req.RawArgv, m.Argv):
		return invalid("rawInput argv differs from the metadata argv")
	case req.RawCwd != "" && req.RawCwd != m.Cwd:
		return invalid("rawInput cwd differs from the metadata cwd")
	}
	root, err := filepath.EvalSymlinks(req.Worktree)
	if err != nil {
		return invalid("the worktree cannot be resolved: %v", err)
	}
	dir, err := filepath.EvalSymlinks(m.Cwd)
	if err != nil {
		return invalid("cwd %q cannot be resolved", m.Cwd)
	}
	rel, ok := within(root, dir)
	if !ok {
		return "", deny(CodeCwdEscape, fmt.Sprintf("The command's cwd %q is outside the worktree.", m.Cwd)), false
	}
	return rel, Decision{}, true
}

// within returns p relative to root, slash-separated ("." for root), when p is inside root.
func within(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// ClassifyArgv decides a static argv run from cwd (relative to the worktree root, "." for the
// root) without request metadata: the hard denials, the allow classes and the contract. It is
// what ClassifyExec does after the metadata checks, and what GateContract applies to every
// verification command.
func ClassifyArgv(argv []string, cwd string, c *contract.Contract) Decision {
	if len(argv) == 0 || argv[0] == "" {
		return deny(CodeMetadataInvalid, "The command has no executable.")
	}
	return classifyArgv(argv, cwd, c)
}

func classifyArgv(argv []string, cwd string, c *contract.Contract) Decision {
	if d, denied := hardDenial(argv); denied {
		return d
	}
	switch exe := executable(argv[0]); {
	case exe == "git":
		return gitDecision(argv)
	case readCommands[exe]:
		return readDecision(exe, argv)
	case exe == "env":
		inner, d, ok := envInner(argv)
		if !ok {
			return d
		}
		// The wrapped command stands on its own: hard denials and the git and read rules apply
		// to it; only a command no class knows may still match the contract as a whole.
		if d := classifyArgv(inner, cwd, nil); d.Allow || d.Code != CodeUnknownExecutable {
			return d
		}
	}
	if cmd, ok := c.MatchCommand(argv, cwd); ok {
		return allow(cmd.TimeoutSeconds, fmt.Sprintf("The command is the contract's command %q (exact argv and cwd).", cmd.ID))
	}
	return deny(CodeUnknownExecutable, fmt.Sprintf("%q is not a read-only command and the contract lists no command with this exact argv in cwd %q.", argv[0], cwd))
}

// executable is the lowercased basename of argv[0] without ".exe": what hard denials look at.
func executable(argv0 string) string {
	base := argv0
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	return strings.TrimSuffix(strings.ToLower(base), ".exe")
}

// GateContract runs every verification command of a contract through ClassifyArgv, as if the
// worker requested it from its cwd: a contract whose verification would be denied is invalid.
// Issues are located as "verification.<id>", with the message "<code>: <reason>".
func GateContract(c *contract.Contract) []contract.Issue {
	var issues []contract.Issue
	for _, v := range c.Verification {
		if d := ClassifyArgv(v.Argv, v.Cwd, c); !d.Allow {
			issues = append(issues, contract.Issue{Path: "verification." + v.ID, Message: d.Code + ": " + d.Reason})
		}
	}
	return issues
}
