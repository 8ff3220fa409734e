package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"reasonixctl/core"
	"reasonixctl/core/doctor"
	"reasonixctl/core/gitx"
	"reasonixctl/core/guard"
)

// privateDir is a fresh directory as reasonixctl makes a state directory, 0700: t.TempDir's are
// 0755, which every mode refuses.
func privateDir(t testing.TB) string {
	t.Helper()
	d := t.TempDir()
	if err := os.Chmod(d, 0o700); err != nil {
		t.Fatal(err)
	}
	return d
}

// unsafeState is a state directory every mode must refuse, holding what would change a
// decision if it were read: a standing grant of `make lint` for repo, and an active task that
// owns repo's src/**.
type unsafeState struct {
	dir, repo string
	grant     core.Grant
	says      []string // what every refusal says: the problem and its fix
}

// newUnsafeState fills a state directory and then makes it unsafe: "foreign" gives it to uid
// 65534 (root only: the test is skipped otherwise), "open" makes it 0777.
func newUnsafeState(t *testing.T, kind string) unsafeState {
	t.Helper()
	if kind == "foreign" && os.Geteuid() != 0 {
		t.Skip("needs root to give a directory to another uid")
	}
	s := unsafeState{dir: filepath.Join(privateDir(t), "state"), repo: testRepo(t)}
	os.Mkdir(s.dir, 0o700)
	src, err := gitx.OpenSource(t.Context(), s.repo, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if s.grant, err = core.AddGrant(s.dir, core.Grant{RepositoryID: src.ID, Repository: src.Root, Argv: []string{"make", "lint"},
		TaskID: "t-planted", CreatedBy: core.BySupervisor}); err != nil {
		t.Fatal(err)
	}
	common := filepath.Join(s.repo, ".git")
	if err := guard.WriteActive(s.dir, guard.ActiveRepo{RepositoryID: gitx.RepoID(s.repo, common), Root: s.repo, CommonDir: common,
		Tasks: []guard.ActiveTask{{TaskID: "t-planted", WriteScope: []string{"src/**"}}}}); err != nil {
		t.Fatal(err)
	}
	switch kind {
	case "foreign":
		if err := os.Chown(s.dir, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		s.says = []string{"state directory " + s.dir + " is owned by uid 65534", "use a state directory of your own, e.g. unset CODEX_REASONIX_STATE_DIR"}
	case "open":
		if err := os.Chmod(s.dir, 0o777); err != nil {
			t.Fatal(err)
		}
		s.says = []string{"state directory " + s.dir + " has mode 0777", "run chmod 700 " + s.dir}
	}
	return s
}

// refusedIn fails the test unless text carries the refusal's words.
func (s unsafeState) refusedIn(t *testing.T, what, text string) {
	t.Helper()
	for _, w := range s.says {
		if !strings.Contains(text, w) {
			t.Errorf("%s does not say %q:\n%s", what, w, text)
		}
	}
}

// listing is every path under dir with its size and modification time: a mode that opened the
// directory would have left its log, lock or store there, or changed a file.
func listing(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %s %d %s\n", p, fi.Mode(), fi.Size(), fi.ModTime())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Every mode that opens the state directory refuses one that another user owns, or that others
// may enter, before it opens anything there: it exits non-zero with the problem and the fix, and
// what was planted in it — a standing grant, an active task — decides nothing.
func TestEveryModeRefusesAnUnsafeStateDirectory(t *testing.T) {
	for _, kind := range []string{"foreign", "open"} {
		t.Run(kind, func(t *testing.T) {
			s := newUnsafeState(t, kind)
			t.Setenv("CODEX_REASONIX_STATE_DIR", s.dir)
			t.Setenv("CODEX_HOME", t.TempDir())
			before := listing(t, s.dir)
			explainArgs := []string{"policy", "explain", "--repo", s.repo, "--worktree", s.repo, "--cwd", s.repo, "--json", "--", "make", "lint"}
			for _, c := range []struct {
				name string
				args []string
			}{
				{"dashboard", nil},
				{"serve", []string{"serve"}},
				{"task list", []string{"task", "list"}},
				{"task prune", []string{"task", "prune", "--apply"}},
				{"stats", []string{"stats"}},
				{"grants list", []string{"grants", "list"}},
				{"grants revoke", []string{"grants", "revoke", s.grant.ID}},
				{"policy explain", explainArgs},
				{"contract init", []string{"contract", "init", "--dir", s.repo}},
				{"hooks install", []string{"hooks", "install", "--user", "--apply"}},
			} {
				var out, errb bytes.Buffer
				code := run(c.args, &out, &errb)
				if code == 0 {
					t.Errorf("%s: exit 0\n%s%s", c.name, out.String(), errb.String())
				}
				s.refusedIn(t, c.name, errb.String())
				if strings.Contains(out.String(), s.grant.ID) || strings.Contains(out.String(), "allow") {
					t.Errorf("%s: the planted grant was read:\n%s", c.name, out.String())
				}
				if strings.Contains(errb.String(), "usage:") {
					t.Errorf("%s: a refused directory is no usage error:\n%s", c.name, errb.String())
				}
			}
			// The hook answers Codex as always (exit 0, a decision on stdout), and denies with
			// the refusal, as it does whenever it cannot check: not with the planted task, and a
			// read it would allow is denied too.
			for _, in := range [][]byte{recorded(t, "patch-in-scope", s.repo), recorded(t, "bash-read", s.repo)} {
				for _, dir := range []string{s.dir, ""} {
					code, out := hookRun(t, dir, in)
					var got struct {
						HookSpecificOutput struct{ PermissionDecision, PermissionDecisionReason string }
					}
					if code != 0 || json.Unmarshal([]byte(out), &got) != nil || got.HookSpecificOutput.PermissionDecision != "deny" ||
						strings.Contains(out, "t-planted") {
						t.Errorf("hook (--state-dir %q): %d %q", dir, code, out)
					}
					s.refusedIn(t, "hook", got.HookSpecificOutput.PermissionDecisionReason)
				}
			}
			if after := listing(t, s.dir); after != before {
				t.Errorf("the refused directory changed:\nbefore:\n%safter:\n%s", before, after)
			}
		})
	}
}

// What was planted would decide if the directory were ours: the refusals above are what stops it.
func TestPlantedStateDecidesInAPrivateDirectory(t *testing.T) {
	s := newUnsafeState(t, "open")
	os.Chmod(s.dir, 0o700)
	t.Setenv("CODEX_REASONIX_STATE_DIR", s.dir)
	code, out, errOut := runCmd(policyCmd, "explain", "--repo", s.repo, "--worktree", s.repo, "--cwd", s.repo, "--", "make", "lint")
	if code != 0 || !strings.Contains(out, "allowed by grant "+s.grant.ID) {
		t.Fatalf("policy explain: %d %q %q", code, out, errOut)
	}
	if code, out := hookRun(t, s.dir, recorded(t, "patch-in-scope", s.repo)); code != 0 || !strings.Contains(out, "t-planted") {
		t.Fatalf("hook, a patch of the planted task's scope: %d %q", code, out)
	}
	if code, out := hookRun(t, s.dir, recorded(t, "bash-read", s.repo)); code != 0 || out != "" {
		t.Fatalf("hook, a read: %d %q", code, out)
	}
}

// The doctor reports the refusal in the same words and reads nothing in the directory: not the
// owner it names.
func TestDoctorReportsAnUnsafeStateDirectory(t *testing.T) {
	for _, kind := range []string{"foreign", "open"} {
		t.Run(kind, func(t *testing.T) {
			s := newUnsafeState(t, kind)
			t.Setenv("CODEX_REASONIX_STATE_DIR", s.dir)
			t.Setenv("CODEX_HOME", t.TempDir())
			before := listing(t, s.dir)
			code, out, errOut := runCmd(func(_ []string, out, errb *bytes.Buffer) int { return runDoctor(true, out, errb) })
			var report struct {
				Checks []doctor.Check `json:"checks"`
			}
			if err := json.Unmarshal([]byte(out), &report); err != nil || code != 1 {
				t.Fatalf("doctor --json: %d %v\n%s\n%s", code, err, out, errOut)
			}
			by := map[string]doctor.Check{}
			for _, c := range report.Checks {
				by[c.Name] = c
			}
			if c := by["state_directory"]; c.Status != doctor.CheckFail {
				t.Errorf("state_directory: %+v", c)
			}
			s.refusedIn(t, "doctor", by["state_directory"].Detail)
			if c := by["owner"]; c.Status == doctor.CheckOK {
				t.Errorf("owner: %+v", c)
			}
			if after := listing(t, s.dir); after != before {
				t.Errorf("the doctor changed the refused directory:\nbefore:\n%safter:\n%s", before, after)
			}
		})
	}
}

// --mcp still lists its tools at once, as Codex expects, but opens nothing in a refused
// directory: every tool call fails with a typed error naming the fix, stdout carries only MCP
// messages, stderr says why, and the exit code is not 0.
func TestMCPOverAnUnsafeStateDirectory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	for _, kind := range []string{"foreign", "open"} {
		t.Run(kind, func(t *testing.T) {
			st := newUnsafeState(t, kind)
			before := listing(t, st.dir)
			s, stderr := spawnMCP(t, st.dir)
			s.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "e2e", "version": "1"}})
			s.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
			if tools := s.call("tools/list", map[string]any{}); !strings.Contains(string(tools), `"reasonix_delegate"`) {
				t.Fatalf("tools/list: %s", tools)
			}
			for range 2 { // a failed open is tried again at the next call, and refused again
				res := s.tool("reasonix_delegate", map[string]any{"task_id": "refused-1", "contract": e2eContract}, codexMeta(st.repo, true))
				var env struct{ Error core.Error }
				if !res.IsError || len(res.Content) != 1 || json.Unmarshal([]byte(res.Content[0].Text), &env) != nil {
					t.Fatalf("delegate: %+v", res)
				}
				if env.Error.Code != core.CodeInternalError || env.Error.NextAction != core.NextFixRequest || env.Error.Retryable {
					t.Errorf("delegate's error: %+v", env.Error)
				}
				st.refusedIn(t, "the tool's error", env.Error.Message)
			}
			code, exited := s.exit(20 * time.Second)
			if !exited || code == 0 {
				t.Errorf("exit code %d (exited by itself: %v)", code, exited)
			}
			for line := range s.lines {
				var msg struct{ JSONRPC string }
				if json.Unmarshal(line, &msg) != nil || msg.JSONRPC != "2.0" {
					t.Errorf("non-protocol line on stdout: %q", line)
				}
			}
			st.refusedIn(t, "stderr", stderr.String())
			if after := listing(t, st.dir); after != before {
				t.Errorf("--mcp changed the refused directory:\nbefore:\n%safter:\n%s", before, after)
			}
		})
	}
}
