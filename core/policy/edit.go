package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"reasonixctl/core/contract"
	"reasonixctl/core/redact"
)

// ACP tool kinds that ClassifyEdit may allow.
const (
	KindThink  = "think"
	KindRead   = "read"
	KindSearch = "search"
	KindEdit   = "edit"
)

// EditRequest is a permission request for a structured tool (anything but execute).
type EditRequest struct {
	ToolCallID  string
	Kind        string   // the ACP tool kind: think, read, search, edit, delete, move, fetch, other, …
	Paths       []string // from locations and rawInput, absolute or relative to the worktree
	HasRawInput bool
	Worktree    string
	// Foreign marks a request of an agent other than Reasonix (ForeignEditRequestFromToolCall):
	// its paths alone scope it, and one that names none is asked rather than denied.
	Foreign bool
}

// rawPathKeys are the rawInput keys whose string values are paths.
var rawPathKeys = set("path", "file", "target", "source", "destination", "cwd")

// EditRequestFromToolCall collects the paths of a tool call: every location, and every string
// (or list of strings) under a path-like key of rawInput (path, file, target, source,
// destination, cwd; any case, at any depth up to 5).
func EditRequestFromToolCall(toolCallID, kind string, locations []string, rawInput any, worktree string) EditRequest {
	req := EditRequest{ToolCallID: toolCallID, Kind: kind, Worktree: worktree, HasRawInput: rawInput != nil}
	req.Paths = append(req.Paths, locations...)
	var visit func(v any, key string, depth int)
	visit = func(v any, key string, depth int) {
		if depth > 5 {
			return
		}
		switch t := v.(type) {
		case string:
			if rawPathKeys[strings.ToLower(key)] {
				req.Paths = append(req.Paths, t)
			}
		case []any:
			for _, it := range t {
				visit(it, key, depth+1)
			}
		case map[string]any:
			for k, it := range t {
				visit(it, k, depth+1)
			}
		}
	}
	visit(rawInput, "", 0)
	return req
}

// ClassifyEdit decides a structured tool call. Every path must lie inside the worktree once
// symlinks are resolved and must not be a Git control path, a credential path or forbidden by
// the contract. Then, by kind: think is allowed; read and search are allowed when they name a
// path or carry rawInput; edit is allowed when it carries rawInput and at least one path, every
// path is writable under the contract and none is under .reasonix (a foreign agent's edit
// needs only its paths, and one without any is asked); every other kind is denied
// with tool_kind_<kind>. (An "ask-*" input request of kind other is an interaction for the
// engine to open, not a permission to decide here.) A nil contract allows no writes.
func ClassifyEdit(req EditRequest, c *contract.Contract) Decision {
	root, err := filepath.EvalSymlinks(req.Worktree)
	if err != nil {
		return deny(CodeMetadataInvalid, fmt.Sprintf("The worktree cannot be resolved: %v.", err))
	}
	var rels []string
	for _, p := range req.Paths {
		names, d, ok := resolve(req.Worktree, root, p)
		if !ok {
			return d
		}
		for _, n := range names {
			switch {
			case redact.IsGitControlPath(n):
				return deny(CodeGitControlPath, fmt.Sprintf("%q is a Git control path.", p))
			case redact.IsCredentialPath(n):
				return deny(CodeCredentialPath, fmt.Sprintf("%q is a credential path.", p))
			case n != "." && c != nil && c.Forbidden(n):
				return deny(CodeForbiddenPath, fmt.Sprintf("%q is in the contract's forbidden scope.", p))
			}
		}
		rels = append(rels, names...)
	}
	switch req.Kind {
	case KindThink:
		return allow(0, "Thinking has no side effects.")
	case KindRead, KindSearch:
		if len(rels) == 0 && !req.HasRawInput {
			if req.Foreign {
				return deny(CodeUnscopedForeign, "The "+req.Kind+" request names no path and carries no input, so the policy cannot scope it and a person is asked.")
			}
			return deny(CodeUnscopedRequest, "The "+req.Kind+" request names no path and carries no input.")
		}
		return allow(0, "Structured "+req.Kind+" inside the worktree.")
	case KindEdit:
		if req.Foreign && len(rels) == 0 {
			return deny(CodeUnscopedForeign, "The edit names no path in its locations, diff or input, so the policy cannot scope it and a person is asked.")
		}
		if len(rels) == 0 || !req.HasRawInput && !req.Foreign {
			return deny(CodeUnscopedRequest, "The edit names no path or carries no input, so its scope cannot be checked.")
		}
		for _, n := range rels {
			if redact.IsRuntimeMetadataPath(n) {
				return deny(CodeRuntimeMetadata, fmt.Sprintf("%q is runtime metadata under .reasonix.", n))
			}
			if !c.WriteAllowed(n) {
				return deny(CodeOutsideWriteScope, fmt.Sprintf("%q is not in the contract's write scope.", n))
			}
		}
		return allow(0, "Structured edit inside the write scope.")
	}
	kind := sanitizeKind(req.Kind)
	return deny(CodeToolKindPrefix+kind, fmt.Sprintf("Tool calls of kind %q are not available to the worker.", kind))
}

func sanitizeKind(k string) string {
	k = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		case r == '-':
			return '_'
		}
		return -1
	}, k)
	if k == "" || len(k) > 32 {
		return "unknown"
	}
	return k
}

// resolve returns the repository-relative names of a tool path: as written and, when they
// differ, after resolving symlinks. Both must stay inside the worktree.
func resolve(worktree, root, p string) ([]string, Decision, bool) {
	if p == "" || strings.ContainsRune(p, 0) {
		return nil, deny(CodePathEscape, "A tool path is empty or contains NUL."), false
	}
	native := filepath.FromSlash(strings.ReplaceAll(p, `\`, "/"))
	var abs string
	if filepath.IsAbs(native) {
		abs = filepath.Clean(native)
	} else {
		abs = filepath.Join(root, native)
	}
	lexical, ok := within(root, abs)
	if !ok {
		// Absolute paths may name the worktree by an unresolved spelling of it.
		if lexical, ok = within(filepath.Clean(worktree), abs); ok {
			abs = filepath.Join(root, filepath.FromSlash(lexical))
		}
	}
	if !ok {
		return nil, deny(CodePathEscape, fmt.Sprintf("%q is outside the worktree.", p)), false
	}
	real := realExisting(abs)
	resolved, ok := within(root, real)
	if !ok {
		return nil, deny(CodeSymlinkEscape, fmt.Sprintf("%q leads outside the worktree through a symlink.", p)), false
	}
	if resolved == lexical {
		return []string{lexical}, Decision{}, true
	}
	return []string{lexical, resolved}, Decision{}, true
}

// realExisting resolves the symlinks of the longest existing prefix of p and appends the rest:
// a file about to be created is judged by the directory it will land in.
func realExisting(p string) string {
	var tail []string
	for cur := p; ; {
		if _, err := os.Lstat(cur); err == nil {
			if r, err := filepath.EvalSymlinks(cur); err == nil {
				return filepath.Join(append([]string{r}, tail...)...)
			}
			// A dangling symlink: its target is unknown, so treat it as leading nowhere safe.
			return string(filepath.Separator) + "\x00dangling"
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		tail = append([]string{filepath.Base(cur)}, tail...)
		cur = parent
	}
}
