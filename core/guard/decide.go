package guard

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"reasonixctl/core/contract"
	"reasonixctl/core/policy"
	"reasonixctl/core/safetext"
)

// Tool names the hook is installed for (Codex's canonical names in PreToolUse input).
const (
	ToolBash       = "Bash"
	ToolApplyPatch = "apply_patch"
)

// Input is Codex's PreToolUse hook input, read from the hook's stdin. Codex sends more fields
// (session_id, turn_id, transcript_path, model, permission_mode, tool_use_id); the guard needs
// only these. For both Bash and apply_patch, tool_input.command holds the text: the command
// line, or the patch body.
type Input struct {
	HookEventName string          `json:"hook_event_name"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
	Cwd           string          `json:"cwd"`
}

// Decision is the guard's answer: allow, or deny with the reason Codex shows its model.
type Decision struct {
	Allow  bool
	Reason string
}

func allow() Decision { return Decision{Allow: true} }

func deny(format string, args ...any) Decision {
	return Decision{Reason: fmt.Sprintf(format, args...)}
}

// Decide answers one PreToolUse call from the active-task records of stateDir alone. With no
// active task every call is allowed. In a repository with an active task, Bash runs only simple
// read-only commands (the policy's read classes) and apply_patch may not touch a path in an
// active write scope. Unreadable input or records deny: the guard fails closed.
func Decide(stateDir string, raw []byte) Decision {
	var in Input
	if err := json.Unmarshal(raw, &in); err != nil {
		return deny("reasonixctl guard: the hook input is not valid JSON (%v), so the call is refused.", err)
	}
	if in.ToolName != ToolBash && in.ToolName != ToolApplyPatch {
		return allow()
	}
	repos, err := ReadActive(stateDir)
	if err != nil {
		return deny("reasonixctl guard: cannot tell which paths active reasonixctl tasks own, so %s is refused: %v. "+
			"Restarting reasonixctl rewrites these records from its store.", in.ToolName, err)
	}
	if len(repos) == 0 {
		return allow()
	}
	var ti struct {
		Command *string `json:"command"`
	}
	if err := json.Unmarshal(in.ToolInput, &ti); err != nil || ti.Command == nil {
		return deny("reasonixctl guard: the %s call has no tool_input.command string, so it cannot be checked against the active reasonixctl tasks.", in.ToolName)
	}
	if !filepath.IsAbs(in.Cwd) {
		return deny("reasonixctl guard: the hook input's cwd %q is not absolute, so the call cannot be placed in a repository.", in.Cwd)
	}
	cwd := realPath(filepath.Clean(in.Cwd))
	if in.ToolName == ToolBash {
		return decideBash(*ti.Command, cwd, repos)
	}
	return decidePatch(*ti.Command, cwd, repos)
}

func decideBash(command, cwd string, repos []ActiveRepo) Decision {
	repo := repoAt(cwd, repos)
	if repo == nil {
		return allow()
	}
	if why, ok := readOnly(command, 0); !ok {
		return deny("reasonixctl: %s is active in %s, so only simple read-only commands may run in this checkout "+
			"(git status/diff/log/show, rg, cat, sed -n, ls, head, …, joined by |, && or ;); this command is refused: %s. "+
			"Leave changes to the task until it is finalized or cancelled.", describeTasks(repo.Tasks), repo.Root, why)
	}
	return allow()
}

// readOnly reports whether every simple command of the line is one the policy allows as a read;
// otherwise it says why not. cd only moves where the next reads run.
func readOnly(line string, depth int) (string, bool) {
	cmds, err := splitCommand(line)
	if err != nil {
		return "the command cannot be checked: " + err.Error(), false
	}
	for _, argv := range cmds {
		if argv[0] == "cd" {
			continue
		}
		if script, ok := shellScript(argv); ok {
			if depth >= 2 {
				return "shells nested too deeply", false
			}
			if why, ok := readOnly(script, depth+1); !ok {
				return why, false
			}
			continue
		}
		if d := policy.ClassifyArgv(neutralise(argv), ".", nil); !d.Allow {
			return d.Code + ": " + d.Reason, false
		}
	}
	return "", true
}

// neutralise replaces operands that name paths outside a worktree (absolute, ~, ..) by a plain
// name before classifying: the policy confines the worker to its worktree, but reading anywhere
// is harmless to a task, and the options that write or run programs are still seen.
func neutralise(argv []string) []string {
	out := append([]string(nil), argv...)
	for i := 1; i < len(out); i++ {
		a := out[i]
		if a == "" || a[0] == '-' {
			continue
		}
		if a[0] == '/' || a[0] == '~' || a == ".." || strings.HasPrefix(a, "../") || strings.Contains(a, "/../") || strings.HasSuffix(a, "/..") {
			out[i] = "path"
		}
	}
	return out
}

func decidePatch(body, cwd string, repos []ActiveRepo) Decision {
	paths, err := patchPaths(body)
	if err != nil {
		return deny("reasonixctl guard: active reasonixctl tasks own parts of %s, and this patch cannot be checked against them: %v.", rootsOf(repos), err)
	}
	for _, p := range paths {
		abs := filepath.FromSlash(p)
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(cwd, abs)
		}
		abs = realPath(filepath.Clean(abs))
		repo := repoAt(filepath.Dir(abs), repos)
		if repo == nil {
			continue
		}
		rel, err := filepath.Rel(repo.Root, abs)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		rel = filepath.ToSlash(rel)
		for _, t := range repo.Tasks {
			for _, pat := range t.WriteScope {
				if contract.Match(pat, rel) {
					return deny("reasonixctl: %s is in the write scope (%s) of active task %s in %s; Codex must not edit it while the task owns it. "+
						"Review and finalize or cancel the task first (reasonix_inspect shows where it stands), or patch only files outside its write scope.", rel, pat, t.TaskID, repo.Root)
				}
			}
		}
	}
	return allow()
}

// repoAt returns the active repository whose checkout contains dir: the nearest ancestor of dir
// with a .git entry is the checkout's top level, as git finds it, and must be a record's root.
func repoAt(dir string, repos []ActiveRepo) *ActiveRepo {
	top := toplevel(dir)
	if top == "" {
		return nil
	}
	for i := range repos {
		if repos[i].Root == top {
			return &repos[i]
		}
	}
	return nil
}

func toplevel(dir string) string {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// realPath resolves symlinks in the longest existing prefix of p (a patch may add files in
// directories that do not exist yet), so that paths compare with the records' real roots.
func realPath(p string) string {
	var rest []string
	for cur := p; ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(append([]string{r}, rest...)...)
		} else if !errors.Is(err, os.ErrNotExist) {
			return p
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = append([]string{filepath.Base(cur)}, rest...)
		cur = parent
	}
}

func describeTasks(ts []ActiveTask) string {
	parts := make([]string, 0, len(ts))
	for _, t := range ts {
		parts = append(parts, t.TaskID)
	}
	if len(parts) == 1 {
		return "reasonixctl task " + parts[0]
	}
	return "reasonixctl tasks " + strings.Join(parts, ", ")
}

func rootsOf(repos []ActiveRepo) string {
	roots := make([]string, 0, len(repos))
	for _, r := range repos {
		roots = append(roots, r.Root)
	}
	return strings.Join(roots, ", ")
}

// Output is the hook's stdout for a decision: nothing for an allow (Codex then proceeds as if
// no hook ran; it rejects permissionDecision "allow" without updatedInput), and for a deny the
// hookSpecificOutput Codex reads.
func Output(d Decision) []byte {
	if d.Allow {
		return nil
	}
	b, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName":            "PreToolUse",
		"permissionDecision":       "deny",
		"permissionDecisionReason": d.Reason,
	}})
	return append(safetext.EscapeJSON(b), '\n')
}
