package guard

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"reasonixctl/core/gitx"
)

// fixture is a checkout (a directory with a .git entry) and a state directory.
type fixture struct {
	repo, state string
}

func newFixture(t testing.TB) fixture {
	t.Helper()
	repo, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{".git", "src", "docs"} {
		if err := os.MkdirAll(filepath.Join(repo, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(repo, "src", "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return fixture{repo: repo, state: t.TempDir()}
}

// activate writes the record of a task owning src/** in the fixture's checkout.
func (f fixture) activate(t testing.TB) ActiveRepo {
	t.Helper()
	common := filepath.Join(f.repo, ".git")
	rec := ActiveRepo{RepositoryID: gitx.RepoID(f.repo, common), Root: f.repo, CommonDir: common,
		Tasks: []ActiveTask{{TaskID: "guarded-1", WriteScope: []string{"src/**"},
			Worktree: "/state/worktrees/x/guarded-1", Branch: "reasonix/guarded-1"}}}
	if err := WriteActive(f.state, rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

// input reads a recorded Codex hook input with its cwd set to dir.
func input(t testing.TB, name, dir string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "hook-input", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return []byte(strings.ReplaceAll(string(b), "${CWD}", dir))
}

func TestDecideFromRecordedInputs(t *testing.T) {
	f := newFixture(t)
	f.activate(t)
	cases := []struct {
		input string
		allow bool
		why   string // in the reason of a denial
	}{
		{"bash-read", true, ""},
		{"bash-read-absolute", true, ""},
		{"bash-login-shell", true, ""},
		{"bash-write", false, "unsafe_read_command"},
		{"bash-redirect", false, "redirection"},
		{"bash-git-commit", false, "git_mutation"},
		{"patch-in-scope", false, "src/main.go is in the write scope (src/**) of active task guarded-1 in"},
		{"patch-add-in-scope", false, "src/new/feature.go"},
		{"patch-move-into-scope", false, "src/notes.md"},
		{"patch-absolute-in-scope", false, "src/main.go"},
		{"patch-outside", true, ""},
		{"patch-no-headers", false, "names no file"},
	}
	for _, c := range cases {
		t.Run(c.input, func(t *testing.T) {
			d := Decide(f.state, input(t, c.input, f.repo))
			if d.Allow != c.allow {
				t.Fatalf("allow = %v, want %v (reason %q)", d.Allow, c.allow, d.Reason)
			}
			if !c.allow && !strings.Contains(d.Reason, c.why) {
				t.Fatalf("reason %q lacks %q", d.Reason, c.why)
			}
		})
	}
}

func TestDecideAllowsEverythingWithoutAnActiveTask(t *testing.T) {
	f := newFixture(t)
	for _, name := range []string{"bash-write", "bash-redirect", "patch-in-scope", "patch-no-headers"} {
		if d := Decide(f.state, input(t, name, f.repo)); !d.Allow {
			t.Fatalf("%s denied without a task: %s", name, d.Reason)
		}
	}
	// The last task of the repository ended: its record is gone and all is allowed again.
	rec := f.activate(t)
	if d := Decide(f.state, input(t, "patch-in-scope", f.repo)); d.Allow {
		t.Fatal("in-scope patch allowed while the task is active")
	}
	rec.Tasks = nil
	if err := WriteActive(f.state, rec); err != nil {
		t.Fatal(err)
	}
	if d := Decide(f.state, input(t, "patch-in-scope", f.repo)); !d.Allow {
		t.Fatalf("denied after the task ended: %s", d.Reason)
	}
}

func TestDecideAllowsOtherCheckouts(t *testing.T) {
	f := newFixture(t)
	f.activate(t)
	other := newFixture(t)
	for _, name := range []string{"bash-write", "patch-in-scope"} {
		if d := Decide(f.state, input(t, name, other.repo)); !d.Allow {
			t.Fatalf("%s in another checkout denied: %s", name, d.Reason)
		}
	}
	// A nested checkout inside the guarded one is another repository too.
	nested := filepath.Join(f.repo, "src", "vendored")
	if err := os.MkdirAll(filepath.Join(nested, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if d := Decide(f.state, input(t, "bash-write", nested)); !d.Allow {
		t.Fatalf("nested checkout denied: %s", d.Reason)
	}
}

func TestDecideFailsClosedOnCorruptState(t *testing.T) {
	f := newFixture(t)
	rec := f.activate(t)
	path := ActivePath(f.state, rec.RepositoryID)
	for name, content := range map[string]string{
		"truncated":      `{"version":1,"repository_id":`,
		"future version": strings.Replace(mustRead(t, path), `"version": 2`, `"version": 3`, 1),
		"wrong identity": strings.Replace(mustRead(t, path), f.repo, f.repo+"-elsewhere", 1),
	} {
		t.Run(name, func(t *testing.T) {
			// A truncated record is another repository's; the others replace this one's.
			extra := filepath.Join(ActiveDir(f.state), "0123456789abcdef01234567.json")
			bad := path
			if name == "truncated" {
				bad = extra
			}
			orig := mustRead(t, path)
			t.Cleanup(func() {
				os.WriteFile(path, []byte(orig), 0o600)
				os.Remove(extra)
			})
			if err := os.WriteFile(bad, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			// Even a call in another checkout is refused: the broken record may cover it.
			for _, dir := range []string{f.repo, t.TempDir()} {
				d := Decide(f.state, input(t, "bash-read", dir))
				if d.Allow || !strings.Contains(d.Reason, "cannot tell which paths active reasonixctl tasks own") {
					t.Fatalf("decision %+v", d)
				}
			}
		})
	}
	// Unreadable input is refused as well.
	if d := Decide(f.state, []byte("{not json")); d.Allow {
		t.Fatal("malformed input allowed")
	}
}

// A record written by an owner started before the upgrade (version 1, naming each task's state)
// still guards: the state is ignored.
func TestDecideReadsVersionOneRecords(t *testing.T) {
	f := newFixture(t)
	rec := f.activate(t)
	path := ActivePath(f.state, rec.RepositoryID)
	v1 := strings.Replace(mustRead(t, path), `"version": 2`, `"version": 1`, 1)
	v1 = strings.Replace(v1, `"task_id": "guarded-1",`, `"task_id": "guarded-1", "state": "running",`, 1)
	if !strings.Contains(v1, `"state": "running"`) || !strings.Contains(v1, `"version": 1`) {
		t.Fatalf("not a version 1 record: %s", v1)
	}
	if err := os.WriteFile(path, []byte(v1), 0o600); err != nil {
		t.Fatal(err)
	}
	d := Decide(f.state, input(t, "patch-in-scope", f.repo))
	if d.Allow || !strings.Contains(d.Reason, "active task guarded-1") {
		t.Fatalf("decision %+v", d)
	}
}

func mustRead(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The hook's stdout is exactly what Codex's PreToolUse parser accepts: nothing for an allow, a
// hookSpecificOutput deny with a non-empty reason otherwise.
func TestOutputIsCodexWireFormat(t *testing.T) {
	if out := Output(Decision{Allow: true}); len(out) != 0 {
		t.Fatalf("allow wrote %q", out)
	}
	var got map[string]map[string]string
	if err := json.Unmarshal(Output(Decision{Reason: "no"}), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no"}
	if len(got) != 1 || len(got["hookSpecificOutput"]) != 3 {
		t.Fatalf("output %v", got)
	}
	for k, v := range want {
		if got["hookSpecificOutput"][k] != v {
			t.Fatalf("%s = %q, want %q", k, got["hookSpecificOutput"][k], v)
		}
	}
}

func TestSplitCommand(t *testing.T) {
	ok := map[string][][]string{
		`git status`:                     {{"git", "status"}},
		`rg -n "a b" src | head -5`:      {{"rg", "-n", "a b", "src"}, {"head", "-5"}},
		`cd src && ls; cat 'x y'`:        {{"cd", "src"}, {"ls"}, {"cat", "x y"}},
		"git log --oneline\nwc -l a\\ b": {{"git", "log", "--oneline"}, {"wc", "-l", "a b"}},
		`git log HEAD~1 --format=%h`:     {{"git", "log", "HEAD~1", "--format=%h"}},
		`rg "\"q\"" .`:                   {{"rg", `"q"`, "."}},
		`cat a || true`:                  {{"cat", "a"}, {"true"}},
	}
	for line, want := range ok {
		got, err := splitCommand(line)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if a, b := toJSON(got), toJSON(want); a != b {
			t.Fatalf("%q: got %s, want %s", line, a, b)
		}
	}
	for _, line := range []string{`echo x > f`, `cat < f`, `ls $(pwd)`, "ls `pwd`", `echo "$HOME"`, `ls *.go`,
		`(cd a; ls)`, `sleep 1 &`, `ls ~`, `X=1 ls`, `echo {a,b}`, `'unterminated`, `; ls`, `ls |& cat`, `ls # c`, ``} {
		if got, err := splitCommand(line); err == nil {
			t.Fatalf("%q accepted as %v", line, got)
		}
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func BenchmarkDecide(b *testing.B) {
	f := newFixture(b)
	f.activate(b)
	for _, name := range []string{"bash-read", "patch-in-scope"} {
		in := input(b, name, f.repo)
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				Decide(f.state, in)
			}
		})
	}
	b.Run("no-active-task", func(b *testing.B) {
		empty := b.TempDir()
		in := input(b, "patch-in-scope", f.repo)
		for b.Loop() {
			Decide(empty, in)
		}
	})
}

// BenchmarkWriteActive is what the engine adds to a state change that moves what the guard sees.
func BenchmarkWriteActive(b *testing.B) {
	f := newFixture(b)
	rec := f.activate(b)
	for b.Loop() {
		if err := WriteActive(f.state, rec); err != nil {
			b.Fatal(err)
		}
	}
}
