package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"reasonixctl/core"
	"reasonixctl/core/doctor"
	"reasonixctl/core/guard"
	"reasonixctl/core/statedir"
	"reasonixctl/store/atomicfile"
)

// The Codex hook reasonixctl installs: a PreToolUse command hook for Codex's shell and patch
// tools, in the user's hooks.json.
const (
	hookMatcher    = "^(?:Bash|apply_patch)$"
	hookSubcommand = "hook pre-tool-use"
	hookTimeoutSec = 10
	// maxHookInput bounds what the hook reads from Codex: a patch body can be large, but not this.
	maxHookInput = 32 << 20
)

// codexHome is Codex's configuration directory: CODEX_HOME, else ~/.codex.
func codexHome() (string, error) {
	if d := os.Getenv("CODEX_HOME"); d != "" {
		return filepath.Abs(d)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no Codex home: set CODEX_HOME or HOME: %w", err)
	}
	return filepath.Join(home, ".codex"), nil
}

func newHooksCmd(stdout, stderr io.Writer) *cobra.Command {
	sub := func(use, short string, run func(apply bool) int, withApply bool) *cobra.Command {
		var user, apply bool
		c := &cobra.Command{
			Use: use, Short: short, Args: exactArgs(0, "no arguments"),
			RunE: func(cmd *cobra.Command, args []string) error {
				if !user {
					return errors.New("--user is required: the hook goes in the user's Codex hooks.json ($CODEX_HOME or ~/.codex)")
				}
				return done(run(apply))
			},
		}
		c.Flags().BoolVar(&user, "user", false, "the user's Codex configuration ($CODEX_HOME/hooks.json, else ~/.codex/hooks.json)")
		if withApply {
			c.Flags().BoolVar(&apply, "apply", false, "write the change (without it: show what would change)")
		}
		return c
	}
	return group("hooks", "install the Codex guard hook that keeps Codex out of paths active tasks own",
		sub("install --user [--apply]", "add the PreToolUse guard to Codex's hooks.json",
			func(apply bool) int { return hooksChange(true, apply, stdout, stderr) }, true),
		sub("status --user", "say whether the guard is installed and which tasks it guards",
			func(bool) int { return hooksStatus(stdout, stderr) }, false),
		sub("uninstall --user [--apply]", "remove the guard (only its own entry) from Codex's hooks.json",
			func(apply bool) int { return hooksChange(false, apply, stdout, stderr) }, true),
	)
}

func newHookCmd(stdout, stderr io.Writer) *cobra.Command {
	var dir string
	pre := &cobra.Command{
		Use:   "pre-tool-use [--state-dir DIR]",
		Short: "Codex PreToolUse hook: reads the hook input on stdin, answers on stdout",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return done(runPreToolUse(dir, cmd.InOrStdin(), stdout, stderr))
		},
	}
	pre.Flags().StringVar(&dir, "state-dir", "", "the state directory whose active tasks are guarded (default: as reasonixctl resolves it)")
	return group("hook", "hooks run by Codex (installed with `reasonixctl hooks install`)", pre)
}

// runPreToolUse is the hook itself. It always exits 0 with Codex's JSON answer on stdout, also
// when it denies because something is wrong: Codex treats other exit codes as a failed hook and
// lets the call run, and the guard must fail closed.
func runPreToolUse(dir string, stdin io.Reader, stdout, stderr io.Writer) int {
	var d guard.Decision
	raw, err := io.ReadAll(io.LimitReader(stdin, maxHookInput+1))
	switch {
	case err != nil:
		d.Reason = "reasonixctl guard: reading the hook input failed: " + err.Error()
	case len(raw) > maxHookInput:
		d.Reason = "reasonixctl guard: the hook input is over 32 MiB, so the call is refused"
	default:
		if dir == "" {
			dir, err = stateDir()
		} else {
			err = statedir.Ensure(dir)
		}
		if err != nil {
			d.Reason = "reasonixctl guard: no state directory, so active tasks cannot be checked: " + err.Error()
		} else {
			d = guard.Decide(dir, raw)
		}
	}
	if _, err := stdout.Write(guard.Output(d)); err != nil {
		// Exit code 2 with the reason on stderr is Codex's other way to block.
		fmt.Fprintln(stderr, d.Reason)
		return 2
	}
	return 0
}

// hookCommand is the command line Codex runs: this binary, by its real path, pinned to the
// state directory resolved now (Codex may run hooks with another environment).
func hookCommand() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	dir, err := stateDirPath()
	if err != nil {
		return "", err
	}
	// The hook refuses a directory every mode refuses, and so would deny every call; checked
	// without creating it, so that the doctor, which asks for this line too, changes nothing.
	if err := statedir.Check(dir); err != nil {
		return "", err
	}
	return core.ShellWords([]string{exe}) + " " + hookSubcommand + " " + core.ShellWords([]string{"--state-dir", dir}), nil
}

// isOurHandler recognises the handler reasonixctl installed, whatever binary path it names.
func isOurHandler(h any) bool {
	m, ok := h.(map[string]any)
	if !ok {
		return false
	}
	cmd, _ := m["command"].(string)
	return m["type"] == "command" && strings.Contains(cmd, hookSubcommand) &&
		(strings.Contains(cmd, hookSubcommand+" --state-dir ") || strings.Contains(cmd, "reasonixctl"))
}

// hooksFile is a decoded hooks.json. Everything but our own handler is kept as it was read.
type hooksFile struct {
	path   string
	exists bool
	doc    map[string]any
	raw    []byte
}

func readHooksFile() (*hooksFile, error) {
	home, err := codexHome()
	if err != nil {
		return nil, err
	}
	f := &hooksFile{path: filepath.Join(home, "hooks.json"), doc: map[string]any{}}
	f.raw, err = os.ReadFile(f.path)
	if errors.Is(err, os.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, err
	}
	f.exists = true
	if len(bytes.TrimSpace(f.raw)) == 0 {
		return f, nil
	}
	dec := json.NewDecoder(bytes.NewReader(f.raw))
	dec.UseNumber() // numbers stay as written
	if err := dec.Decode(&f.doc); err != nil {
		return nil, fmt.Errorf("%s is not a JSON object: %w; fix it by hand, nothing was changed", f.path, err)
	}
	if f.doc == nil {
		f.doc = map[string]any{}
	}
	return f, nil
}

// preToolUse returns the hooks.PreToolUse groups, or an error when the file has another shape
// than Codex reads.
func (f *hooksFile) preToolUse() ([]any, error) {
	hooks, ok := f.doc["hooks"]
	if !ok {
		return nil, nil
	}
	hm, ok := hooks.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: \"hooks\" is not an object; nothing was changed", f.path)
	}
	groups, ok := hm["PreToolUse"]
	if !ok {
		return nil, nil
	}
	gs, ok := groups.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: \"hooks.PreToolUse\" is not an array; nothing was changed", f.path)
	}
	return gs, nil
}

// withoutOurs returns the groups with our handler removed, dropping a group left empty, and
// the commands of the handlers removed.
func withoutOurs(groups []any) ([]any, []string) {
	var out []any
	var removed []string
	for _, g := range groups {
		gm, ok := g.(map[string]any)
		hs, ok2 := gm["hooks"].([]any)
		if !ok || !ok2 {
			out = append(out, g)
			continue
		}
		var keep []any
		for _, h := range hs {
			if isOurHandler(h) {
				cmd, _ := h.(map[string]any)["command"].(string)
				removed = append(removed, cmd)
				continue
			}
			keep = append(keep, h)
		}
		if len(keep) == len(hs) {
			out = append(out, g)
			continue
		}
		if len(keep) == 0 {
			continue
		}
		ng := map[string]any{}
		for k, v := range gm {
			ng[k] = v
		}
		ng["hooks"] = keep
		out = append(out, ng)
	}
	return out, removed
}

func ourGroup(command string) map[string]any {
	return map[string]any{
		"matcher": hookMatcher,
		"hooks": []any{map[string]any{
			"type":          "command",
			"command":       command,
			"timeout":       hookTimeoutSec,
			"statusMessage": "reasonixctl guard",
		}},
	}
}

// hooksChange installs (or removes) our entry: a dry run printing the resulting file unless
// apply is set.
func hooksChange(install, apply bool, stdout, stderr io.Writer) int {
	f, err := readHooksFile()
	if err != nil {
		fmt.Fprintln(stderr, "reasonixctl:", err)
		return 1
	}
	groups, err := f.preToolUse()
	if err != nil {
		fmt.Fprintln(stderr, "reasonixctl:", err)
		return 1
	}
	before, err := json.MarshalIndent(f.doc, "", "  ")
	if err != nil {
		fmt.Fprintln(stderr, "reasonixctl:", err)
		return 1
	}
	rest, removed := withoutOurs(groups)
	var command string
	if install {
		if command, err = hookCommand(); err != nil {
			fmt.Fprintln(stderr, "reasonixctl:", err)
			return 1
		}
		rest = append(rest, ourGroup(command))
	}
	hooks, _ := f.doc["hooks"].(map[string]any)
	if hooks == nil {
		hooks = map[string]any{}
	}
	if len(rest) == 0 {
		delete(hooks, "PreToolUse")
	} else {
		hooks["PreToolUse"] = rest
	}
	f.doc["hooks"] = hooks
	out, err := json.MarshalIndent(f.doc, "", "  ")
	if err != nil {
		fmt.Fprintln(stderr, "reasonixctl:", err)
		return 1
	}
	out = append(out, '\n')
	if !install && len(removed) == 0 {
		fmt.Fprintf(stdout, "The guard is not installed in %s; nothing to remove.\n", f.path)
		return 0
	}
	if install && len(removed) == 1 && removed[0] == command && bytes.Equal(append(before, '\n'), out) {
		fmt.Fprintf(stdout, "The guard is already installed in %s:\n  %s\n", f.path, command)
		return 0
	}
	if !apply {
		verb := "add"
		if !install {
			verb = "remove"
		} else if len(removed) > 0 {
			verb = "replace"
		}
		fmt.Fprintf(stdout, "Dry run: would %s the reasonixctl PreToolUse guard (matcher %s) in %s.\n", verb, hookMatcher, f.path)
		for _, r := range removed {
			fmt.Fprintf(stdout, "- %s\n", r)
		}
		if install {
			fmt.Fprintf(stdout, "+ %s\n", command)
		}
		fmt.Fprintf(stdout, "The file would read:\n%s", out)
		fmt.Fprintln(stdout, "Nothing was written; run again with --apply.")
		return 0
	}
	if err := writeFileAtomic(f.path, out); err != nil {
		fmt.Fprintln(stderr, "reasonixctl:", err)
		return 1
	}
	if install {
		fmt.Fprintf(stdout, "Installed the reasonixctl guard in %s:\n  %s\n", f.path, command)
		fmt.Fprintln(stdout, "Codex (0.124 or later) runs it before every Bash and apply_patch call once you trust it: start Codex\n"+
			"interactively and approve it when Codex says hooks need review (/hooks); until then Codex skips it.")
	} else {
		fmt.Fprintf(stdout, "Removed the reasonixctl guard from %s; other hooks are unchanged.\n", f.path)
	}
	return 0
}

// hooksStatus says whether our handler is installed and what it guards now. Exit 1 when it is
// not installed.
func hooksStatus(stdout, stderr io.Writer) int {
	f, err := readHooksFile()
	if err != nil {
		fmt.Fprintln(stderr, "reasonixctl:", err)
		return 1
	}
	groups, err := f.preToolUse()
	if err != nil {
		fmt.Fprintln(stderr, "reasonixctl:", err)
		return 1
	}
	_, found := withoutOurs(groups)
	if len(found) == 0 {
		fmt.Fprintf(stdout, "The reasonixctl guard is not installed in %s (run `reasonixctl hooks install --user --apply`).\n", f.path)
		return 1
	}
	fmt.Fprintf(stdout, "The reasonixctl guard is installed in %s:\n", f.path)
	for _, c := range found {
		fmt.Fprintf(stdout, "  %s\n", c)
	}
	if want, err := hookCommand(); err == nil && !containsString(found, want) {
		fmt.Fprintf(stdout, "It differs from what this reasonixctl would install:\n  %s\nRun `reasonixctl hooks install --user --apply` to update it.\n", want)
	}
	dir, err := stateDir()
	if err != nil {
		fmt.Fprintln(stderr, "reasonixctl:", err)
		return 1
	}
	repos, err := guard.ReadActive(dir)
	if err != nil {
		fmt.Fprintf(stdout, "Active tasks cannot be read, so the guard denies every Bash and apply_patch call: %v\n", err)
		return 1
	}
	if len(repos) == 0 {
		fmt.Fprintln(stdout, "No task is active: Codex may run and edit anything.")
		return 0
	}
	for _, r := range repos {
		for _, t := range r.Tasks {
			fmt.Fprintf(stdout, "Guarding %s: task %s owns %s\n", r.Root, t.TaskID, strings.Join(t.WriteScope, ", "))
		}
	}
	return 0
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// writeFileAtomic replaces path with b through a temporary file in the same directory, keeping
// the mode of the file it replaces (0600 for a new one).
func writeFileAtomic(path string, b []byte) error {
	mode := os.FileMode(0o600)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	return atomicfile.WriteFile(path, b, atomicfile.Options{Perm: mode, Pattern: ".hooks.json.*.tmp", MkdirAll: true})
}

// guardCheck is doctor's line about the Codex guard hook: whether it is installed, and as this
// reasonixctl would install it.
func guardCheck() doctor.Check {
	f, err := readHooksFile()
	if err != nil {
		return doctor.Check{Name: "codex_guard", Status: doctor.CheckWarn, Detail: err.Error()}
	}
	groups, err := f.preToolUse()
	if err != nil {
		return doctor.Check{Name: "codex_guard", Status: doctor.CheckWarn, Detail: err.Error()}
	}
	_, found := withoutOurs(groups)
	if len(found) == 0 {
		return doctor.Check{Name: "codex_guard", Status: doctor.CheckWarn, Detail: "not installed in " + f.path +
			": while a task runs, Codex may still edit the paths it owns; run `reasonixctl hooks install --user --apply`"}
	}
	if want, err := hookCommand(); err == nil && !containsString(found, want) {
		return doctor.Check{Name: "codex_guard", Status: doctor.CheckWarn, Detail: "installed in " + f.path +
			" but not as this reasonixctl would install it; run `reasonixctl hooks install --user --apply`"}
	}
	return doctor.Check{Name: "codex_guard", Status: doctor.CheckOK, Detail: "installed in " + f.path +
		" (Codex runs it once you approve it with /hooks)"}
}
