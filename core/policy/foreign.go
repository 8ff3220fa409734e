package policy

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"reasonixctl/core/contract"
	"reasonixctl/core/shellargv"
)

// ForeignExecRequest is an execute permission request of an agent other than Reasonix. Such an
// agent sends no static metadata: it describes the command as a shell string (Claude, Qwen,
// opencode: rawInput.command), as an argv that hands a script to a shell (Codex:
// ["/bin/bash", "-lc", "…"], with rawInput.cwd), or only by the request's title (Gemini).
type ForeignExecRequest struct {
	ToolCallID string
	// Command is rawInput.command as decoded JSON; HasCommand says whether it was there.
	Command    any
	HasCommand bool
	// Title is the request's title: the only trace of the command when there is no rawInput.
	Title string
	// Cwd is rawInput.cwd when it is a string ("" when absent: the worktree's root); CwdInvalid
	// says it was there but not a string.
	Cwd        string
	CwdInvalid bool
	Worktree   string
}

// ForeignExecRequestFromToolCall reads a foreign agent's execute request: its command and cwd
// from rawInput (nil when absent) and its title.
func ForeignExecRequestFromToolCall(toolCallID, title string, rawInput any, worktree string) ForeignExecRequest {
	req := ForeignExecRequest{ToolCallID: toolCallID, Title: title, Worktree: worktree}
	raw, ok := rawInput.(map[string]any)
	if !ok {
		return req
	}
	req.Command, req.HasCommand = raw["command"]
	if v, ok := raw["cwd"]; ok && v != nil {
		s, ok := v.(string)
		req.Cwd, req.CwdInvalid = s, !ok
	}
	return req
}

// ForeignExec is what ClassifyForeignExec decided, with the command as it read it.
type ForeignExec struct {
	Decision Decision
	// Argv is the command reduced to plain argv; nil when it could not be.
	Argv []string
	// Cwd is the command's cwd, absolute: rawInput.cwd, else the worktree as given.
	Cwd string
	// Command is the command as the agent sent it, in words (a shell string, an argv joined
	// with spaces, or the title): what a person is asked about when there is no Argv.
	Command string
	// Refusal says why the command is not plain argv; nil when it is.
	Refusal *shellargv.Refusal
}

// ClassifyForeignExec decides a foreign agent's command. A command that reduces to plain argv
// (shellargv.Command: a shell string read by a real shell parser, bash -lc trampolines
// unwrapped) is decided by the same rules as Reasonix's static argv: the hard denials, the
// allow classes and the contract. Any other command — compound, expanded, unreadable, or known
// only by its title — is never allowed by policy: it is denied when a command seen inside it
// is one the policy always denies, and otherwise asked (CodeNotPlainArgv, whose reason is the
// refusal's). A cwd outside the worktree is denied first, as for Reasonix.
func ClassifyForeignExec(req ForeignExecRequest, c *contract.Contract) ForeignExec {
	out := ForeignExec{Cwd: req.Worktree}
	cwd, d, ok := foreignCwd(req)
	if ok {
		out.Cwd = filepath.Join(req.Worktree, filepath.FromSlash(cwd))
	} else if req.Cwd != "" && !req.CwdInvalid {
		out.Cwd = req.Cwd
	}
	var value any = req.Title
	if req.HasCommand {
		value = req.Command
	}
	out.Command = commandWords(value)
	if !ok {
		out.Decision = d
		return out
	}
	if req.HasCommand {
		argv, err := shellargv.Command(req.Command)
		if err == nil {
			out.Argv = argv
			out.Decision = classifyArgv(argv, cwd, c)
			return out
		}
		out.Refusal = asRefusal(err)
	} else {
		out.Refusal = &shellargv.Refusal{Reason: "title_only", Detail: "the request carries no command, only its title"}
	}
	if d, denied := seenDenial(shellargv.Visible(value), cwd); denied {
		d.Reason = strings.TrimSuffix(d.Reason, ".") + fmt.Sprintf(", inside a command that is not plain argv (%s).", out.Refusal.Reason)
		out.Decision = d
		return out
	}
	out.Decision = askNotPlain(out.Refusal)
	return out
}

// foreignCwd is the command's cwd relative to the worktree; a cwd outside it, or one that is
// not a string, is denied.
func foreignCwd(req ForeignExecRequest) (string, Decision, bool) {
	if req.CwdInvalid {
		return "", deny(CodeCwdEscape, "The command's cwd is not a string, so it cannot be placed inside the worktree."), false
	}
	root, err := filepath.EvalSymlinks(req.Worktree)
	if err != nil {
		return "", deny(CodeMetadataInvalid, fmt.Sprintf("The worktree cannot be resolved: %v.", err)), false
	}
	if req.Cwd == "" {
		return ".", Decision{}, true
	}
	if strings.ContainsRune(req.Cwd, 0) {
		return "", deny(CodeCwdEscape, "The command's cwd contains NUL."), false
	}
	abs := filepath.Clean(req.Cwd)
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(root, abs)
	} else if rel, ok := within(filepath.Clean(req.Worktree), abs); ok {
		abs = filepath.Join(root, filepath.FromSlash(rel)) // the worktree by an unresolved spelling
	}
	rel, ok := within(root, realExisting(abs))
	if !ok {
		return "", deny(CodeCwdEscape, fmt.Sprintf("The command's cwd %q is outside the worktree.", req.Cwd)), false
	}
	return rel, Decision{}, true
}

// seenDenial is the first denial the policy would make on a command seen inside one that is
// not plain argv: on a whole command, every rule that denies whatever the contract says; on
// the literal start of one, the hard denials alone (the rest of its words is unknown).
func seenDenial(seen []shellargv.Seen, cwd string) (Decision, bool) {
	for _, s := range seen {
		if s.Partial {
			if d, denied := hardDenial(s.Argv); denied {
				return d, true
			}
			continue
		}
		if d := classifyArgv(s.Argv, cwd, nil); !d.Allow && d.Code != CodeUnknownExecutable {
			return d, true
		}
	}
	return Decision{}, false
}

func askNotPlain(r *shellargv.Refusal) Decision {
	return deny(CodeNotPlainArgv, fmt.Sprintf("The command is not plain argv (%s: %s), so the policy cannot check it and a person is asked.", r.Reason, r.Detail))
}

func asRefusal(err error) *shellargv.Refusal {
	if r, ok := err.(*shellargv.Refusal); ok {
		return r
	}
	return &shellargv.Refusal{Reason: shellargv.ReasonSyntax, Detail: err.Error()}
}

// commandWords is a command value in words, for a person and for the denial fingerprint: a
// string as it is, a list as a shell would read it back (words quoted where they need it).
func commandWords(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		words := make([]string, 0, len(x))
		for _, it := range x {
			s, ok := it.(string)
			if !ok {
				s = fmt.Sprint(it)
			}
			if s == "" || strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") != "" {
				s = "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
			}
			words = append(words, s)
		}
		return strings.Join(words, " ")
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

// foreignPathKeys are the rawInput keys whose string values are paths in the tools of foreign
// agents, beyond rawPathKeys: Claude's file_path and notebook_path, opencode's filepath,
// Codex's move_path, Gemini's absolute_path and dir_path.
var foreignPathKeys = set("file_path", "filepath", "notebook_path", "move_path", "absolute_path", "dir_path", "filename", "file_name")

// ForeignEditRequestFromToolCall collects the paths of a foreign agent's structured tool call:
// every location, every diff content path, every string under a path-like key of rawInput
// (those of EditRequestFromToolCall and the foreign tools' own), and the keys of a Codex
// `changes` map, which are the paths it changes.
func ForeignEditRequestFromToolCall(toolCallID, kind string, locations, diffPaths []string, rawInput any, worktree string) EditRequest {
	req := EditRequestFromToolCall(toolCallID, kind, slices.Concat(locations, diffPaths), nil, worktree)
	req.Foreign, req.HasRawInput = true, rawInput != nil
	var raw []string
	var visit func(v any, key string, depth int)
	visit = func(v any, key string, depth int) {
		if depth > 5 {
			return
		}
		switch t := v.(type) {
		case string:
			if k := strings.ToLower(key); rawPathKeys[k] || foreignPathKeys[k] {
				raw = append(raw, t)
			}
		case []any:
			for _, it := range t {
				visit(it, key, depth+1)
			}
		case map[string]any:
			for k, it := range t {
				if strings.EqualFold(key, "changes") {
					raw = append(raw, k)
				}
				visit(it, k, depth+1)
			}
		}
	}
	visit(rawInput, "", 0)
	// Maps have no order: sorted, the same request always has the same paths (and fingerprint).
	slices.Sort(raw)
	req.Paths = append(req.Paths, slices.Compact(raw)...)
	return req
}
