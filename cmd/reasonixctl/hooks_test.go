package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"reasonixctl/core/doctor"
	"reasonixctl/core/gitx"
	"reasonixctl/core/guard"
)

// A hooks.json with hooks of other tools, which install and uninstall must leave alone.
const otherHooks = `{
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "/usr/local/bin/audit-shell", "timeout": 30}]}
    ],
    "PostToolUse": [
      {"matcher": "apply_patch", "hooks": [{"type": "command", "command": "gofmt -l ."}]}
    ]
  },
  "x-note": "kept as is"
}
`

func hooksEnv(t *testing.T) (codexHome, state string) {
	t.Helper()
	codexHome, state = t.TempDir(), privateDir(t)
	t.Setenv("CODEX_HOME", codexHome)
	t.Setenv("CODEX_REASONIX_STATE_DIR", state)
	return codexHome, state
}

func decodeJSON(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%v in %s", err, b)
	}
	return v
}

func TestHooksInstallUninstallRoundTrip(t *testing.T) {
	home, _ := hooksEnv(t)
	path := filepath.Join(home, "hooks.json")
	if err := os.WriteFile(path, []byte(otherHooks), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func() []byte {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}

	if code, _, errOut := runCmd(rootCmd, "hooks", "install"); code != 2 || !strings.Contains(errOut, "--user is required") {
		t.Fatalf("without --user: %d %q", code, errOut)
	}
	code, out, _ := runCmd(rootCmd, "hooks", "install", "--user")
	if code != 0 || !strings.Contains(out, "Dry run: would add") || !strings.Contains(out, "+ ") || !strings.Contains(out, hookMatcher) {
		t.Fatalf("dry run: %d %s", code, out)
	}
	if string(read()) != otherHooks {
		t.Fatal("the dry run wrote the file")
	}
	if code, _, _ := runCmd(rootCmd, "hooks", "status", "--user"); code != 1 {
		t.Fatalf("status before install: %d", code)
	}

	if code, out, errOut := runCmd(rootCmd, "hooks", "install", "--user", "--apply"); code != 0 {
		t.Fatalf("install: %d %s %s", code, out, errOut)
	}
	installed := read()
	var doc struct {
		Hooks struct {
			PreToolUse []struct {
				Matcher string `json:"matcher"`
				Hooks   []struct {
					Type, Command string
					Timeout       int
				} `json:"hooks"`
			}
			PostToolUse []any
		} `json:"hooks"`
		Note string `json:"x-note"`
	}
	if err := json.Unmarshal(installed, &doc); err != nil {
		t.Fatal(err)
	}
	pre := doc.Hooks.PreToolUse
	if len(pre) != 2 || pre[0].Hooks[0].Command != "/usr/local/bin/audit-shell" || len(doc.Hooks.PostToolUse) != 1 || doc.Note != "kept as is" {
		t.Fatalf("other hooks disturbed:\n%s", installed)
	}
	ours := pre[1]
	if ours.Matcher != "^(?:Bash|apply_patch)$" || ours.Hooks[0].Type != "command" ||
		!strings.HasSuffix(ours.Hooks[0].Command, " hook pre-tool-use --state-dir "+os.Getenv("CODEX_REASONIX_STATE_DIR")) {
		t.Fatalf("our entry: %+v", ours)
	}
	if code, out, _ := runCmd(rootCmd, "hooks", "install", "--user", "--apply"); code != 0 || !strings.Contains(out, "already installed") {
		t.Fatalf("second install: %d %s", code, out)
	}
	if !bytes.Equal(read(), installed) {
		t.Fatal("a second install changed the file")
	}
	if code, out, _ := runCmd(rootCmd, "hooks", "status", "--user"); code != 0 || !strings.Contains(out, "is installed") || !strings.Contains(out, "No task is active") {
		t.Fatalf("status: %d %s", code, out)
	}

	code, out, _ = runCmd(rootCmd, "hooks", "uninstall", "--user")
	if code != 0 || !strings.Contains(out, "Dry run: would remove") || !bytes.Equal(read(), installed) {
		t.Fatalf("uninstall dry run: %d %s", code, out)
	}
	if code, out, _ := runCmd(rootCmd, "hooks", "uninstall", "--user", "--apply"); code != 0 || !strings.Contains(out, "Removed") {
		t.Fatalf("uninstall: %d %s", code, out)
	}
	if got, want := decodeJSON(t, read()), decodeJSON(t, []byte(otherHooks)); !reflect.DeepEqual(got, want) {
		t.Fatalf("after uninstall:\n%s", read())
	}
	if code, out, _ := runCmd(rootCmd, "hooks", "uninstall", "--user", "--apply"); code != 0 || !strings.Contains(out, "not installed") {
		t.Fatalf("second uninstall: %d %s", code, out)
	}
}

func TestHooksInstallCreatesTheFileAndRefusesAMalformedOne(t *testing.T) {
	home, _ := hooksEnv(t)
	path := filepath.Join(home, "hooks.json")
	if code, _, errOut := runCmd(rootCmd, "hooks", "install", "--user", "--apply"); code != 0 {
		t.Fatalf("install: %d %s", code, errOut)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("new file: %v %v", st, err)
	}
	if err := os.WriteFile(path, []byte(`{"hooks": [`), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCmd(rootCmd, "hooks", "uninstall", "--user", "--apply"); code != 1 || !strings.Contains(errOut, "nothing was changed") {
		t.Fatalf("malformed: %d %s", code, errOut)
	}
	if b, _ := os.ReadFile(path); string(b) != `{"hooks": [` {
		t.Fatal("a malformed file was rewritten")
	}
}

// hookRun runs the hook in-process with a recorded input.
func hookRun(t *testing.T, state string, in []byte) (code int, stdout string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = runPreToolUse(state, bytes.NewReader(in), &out, &errb)
	return code, out.String()
}

func recorded(t testing.TB, name, cwd string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "core", "guard", "testdata", "hook-input", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return []byte(strings.ReplaceAll(string(b), "${CWD}", cwd))
}

func TestHookAnswersInCodexFormat(t *testing.T) {
	repo, state := t.TempDir(), privateDir(t)
	repo, _ = filepath.EvalSymlinks(repo)
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	common := filepath.Join(repo, ".git")
	if err := guard.WriteActive(state, guard.ActiveRepo{RepositoryID: gitx.RepoID(repo, common), Root: repo, CommonDir: common,
		Tasks: []guard.ActiveTask{{TaskID: "t1", WriteScope: []string{"src/**"}}}}); err != nil {
		t.Fatal(err)
	}
	if code, out := hookRun(t, state, recorded(t, "bash-read", repo)); code != 0 || out != "" {
		t.Fatalf("read: %d %q", code, out)
	}
	code, out := hookRun(t, state, recorded(t, "patch-in-scope", repo))
	var got struct {
		HookSpecificOutput struct{ HookEventName, PermissionDecision, PermissionDecisionReason string }
	}
	if code != 0 || json.Unmarshal([]byte(out), &got) != nil || got.HookSpecificOutput.PermissionDecision != "deny" ||
		got.HookSpecificOutput.HookEventName != "PreToolUse" || !strings.Contains(got.HookSpecificOutput.PermissionDecisionReason, "t1") {
		t.Fatalf("patch: %d %q", code, out)
	}
	// A state directory that cannot be listed denies (fail closed), still in Codex's format.
	if err := os.WriteFile(filepath.Join(state, "x"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out := hookRun(t, filepath.Join(state, "x"), recorded(t, "bash-read", repo)); code != 0 || !strings.Contains(out, `"permissionDecision":"deny"`) {
		t.Fatalf("unreadable state: %d %q", code, out)
	}
}

// Done when: with a task active (a running reasonixctl --mcp owns the state directory), the
// installed hook, run as Codex runs it, denies a patch of the task's write scope and allows a
// read; once the task is committed everything is allowed again.
func TestInstalledHookBesideRunningOwner(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin, err := buildBinaries()
	if err != nil {
		t.Fatal(err)
	}
	repo, state, home := testRepo(t), privateDir(t), t.TempDir()
	install := exec.Command(filepath.Join(bin, "reasonixctl"), "hooks", "install", "--user", "--apply")
	install.Env = append(os.Environ(), "CODEX_HOME="+home, "CODEX_REASONIX_STATE_DIR="+state)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	var doc struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string } `json:"hooks"`
		} `json:"hooks"`
	}
	b, _ := os.ReadFile(filepath.Join(home, "hooks.json"))
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Hooks["PreToolUse"]) != 1 {
		t.Fatalf("hooks.json: %v %s", err, b)
	}
	command := doc.Hooks["PreToolUse"][0].Hooks[0].Command
	// Codex runs the command through the shell, with its own environment.
	hook := func(tool, text string) string {
		in, _ := json.Marshal(map[string]any{"session_id": "s", "turn_id": "1", "transcript_path": nil, "cwd": repo,
			"hook_event_name": "PreToolUse", "model": "m", "permission_mode": "default", "tool_name": tool,
			"tool_use_id": "call_1", "tool_input": map[string]any{"command": text}})
		cmd := exec.Command("sh", "-c", command)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
		cmd.Stdin = bytes.NewReader(in)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("hook: %v", err)
		}
		return string(out)
	}
	patch := "*** Begin Patch\n*** Add File: result.txt\n+mine\n*** End Patch\n"

	s := startMCP(t, state)
	s.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "e2e", "version": "1"}})
	s.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	if out := hook("apply_patch", patch); out != "" {
		t.Fatalf("denied before any task: %s", out)
	}
	res := s.tool("reasonix_delegate", map[string]any{"task_id": "guard-e2e", "contract": e2eContract}, codexMeta(repo, true))
	if res.IsError {
		t.Fatalf("delegate: %s", res.Content[0].Text)
	}
	if out := hook("apply_patch", patch); !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "result.txt is in the write scope") {
		t.Fatalf("in-scope patch: %q", out)
	}
	if out := hook("Bash", "git log --oneline -3"); out != "" {
		t.Fatalf("read denied: %s", out)
	}
	if out := hook("Bash", "git add -A"); !strings.Contains(out, "git_mutation") {
		t.Fatalf("mutation: %q", out)
	}
	var view struct {
		ReviewRevision         int      `json:"review_revision"`
		ReviewTreeHash         string   `json:"review_tree_hash"`
		RequiredReviewCriteria []string `json:"required_review_criteria"`
	}
	json.Unmarshal(res.StructuredContent, &view)
	fin := s.tool("reasonix_control", map[string]any{
		"task_id": "guard-e2e", "action": "finalize", "review_summary": "ok", "approved_review_criteria": view.RequiredReviewCriteria,
		"expected_review_revision": view.ReviewRevision, "expected_review_tree_hash": view.ReviewTreeHash,
	}, codexMeta(repo, true))
	if fin.IsError {
		t.Fatalf("finalize: %s", fin.Content[0].Text)
	}
	if out := hook("apply_patch", patch); out != "" {
		t.Fatalf("denied after the commit: %s", out)
	}
}

// doctor says whether the guard is installed, and installed as this reasonixctl would.
func TestDoctorReportsTheGuard(t *testing.T) {
	home, _ := hooksEnv(t)
	if c := guardCheck(); c.Status != doctor.CheckWarn || !strings.Contains(c.Detail, "not installed") {
		t.Fatalf("before install: %+v", c)
	}
	if code, out, errOut := runCmd(rootCmd, "hooks", "install", "--user", "--apply"); code != 0 {
		t.Fatalf("install: %d %s %s", code, out, errOut)
	}
	if c := guardCheck(); c.Status != doctor.CheckOK {
		t.Fatalf("after install: %+v", c)
	}
	path := filepath.Join(home, "hooks.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	stale := strings.Replace(string(b), "pre-tool-use", "pre-tool-use --old-flag", 1)
	if err := os.WriteFile(path, []byte(stale), 0o644); err != nil {
		t.Fatal(err)
	}
	if c := guardCheck(); c.Status != doctor.CheckWarn || !strings.Contains(c.Detail, "not as this reasonixctl would install it") {
		t.Fatalf("a stale entry: %+v", c)
	}
}
