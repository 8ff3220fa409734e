package baseline

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"reasonixctl/core"
)

// Drafts of one repository share a folder under the state directory; a draft never replaces
// another written the same second.
func TestWriteDraftKeepsEveryDraft(t *testing.T) {
	state, at := t.TempDir(), time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	d := core.ContractDraft{Root: "/src/app", JSON: []byte("{}\n")}
	first, err := WriteDraft(state, d, at)
	if err != nil {
		t.Fatal(err)
	}
	second, err := WriteDraft(state, d, at)
	if err != nil {
		t.Fatal(err)
	}
	dir := DraftDir(state, "/src/app")
	if first != filepath.Join(dir, "contract-20250102-030405.json") || second != filepath.Join(dir, "contract-20250102-030405-2.json") {
		t.Fatalf("drafts at %s and %s", first, second)
	}
	if DraftDir(state, "/src/other") == dir {
		t.Fatal("two repositories share a draft folder")
	}
}

// A contract written into the checkout would make it dirty: refused unless git ignores it.
func TestCheckDraftOutputRefusesTheCheckout(t *testing.T) {
	repo := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	err := CheckDraftOutput(t.Context(), repo, filepath.Join(repo, "contract.json"))
	if e := core.AsError(err); e == nil || e.Code != core.CodeInvalidRequest || e.Details["reason"] != "inside_checkout" {
		t.Fatalf("inside the checkout: %v", err)
	}
	if err := os.WriteFile(filepath.Join(repo, ".git", "info", "exclude"), []byte("/contract.json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckDraftOutput(t.Context(), repo, filepath.Join(repo, "contract.json")); err != nil {
		t.Fatalf("ignored: %v", err)
	}
	if err := CheckDraftOutput(t.Context(), repo, filepath.Join(t.TempDir(), "contract.json")); err != nil {
		t.Fatalf("outside: %v", err)
	}
}

// The command that ignores a draft's file quotes every word as core.ShellWords does, and run
// by a shell it ignores exactly that file: a root and names with quotes, spaces, $, backquotes,
// backslashes, wildcards and non-ASCII letters neither break the command nor ignore another file.
func TestIgnoreCommandIsShellWords(t *testing.T) {
	root := filepath.Join(t.TempDir(), `it's "$HOME" a repo`)
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	exclude := core.ShellWords([]string{filepath.Join(real, ".git", "info", "exclude")})
	// Wildcards first: unescaped, their pattern would ignore the names after them.
	names := []string{"*", "?", "[ab]", "a", "b", `back\slash`, "it's", "a b", "trailing ", "$HOME", "`id`", `"dq"`,
		"-n", "semi;colon", "#hash", "!bang", "é ü 文"}
	for _, name := range names {
		err := CheckDraftOutput(t.Context(), root, filepath.Join(root, name))
		e := core.AsError(err)
		if e == nil || e.Details["reason"] != "inside_checkout" {
			t.Fatalf("%q is ignored before its command ran: %v", name, err)
		}
		_, cmd, ok := strings.Cut(e.Message, "ignore the file first: ")
		if want := core.ShellWords([]string{"printf", `%s\n`, ignorePattern(name)}) + " >> " + exclude; !ok || cmd != want {
			t.Fatalf("%q: command %q, want %q", name, cmd, want)
		}
		if out, err := exec.Command("sh", "-c", cmd).CombinedOutput(); err != nil {
			t.Fatalf("%q: %s: %v %s", name, cmd, err, out)
		}
		if err := CheckDraftOutput(t.Context(), root, filepath.Join(root, name)); err != nil {
			t.Fatalf("%q is not ignored after %s: %v", name, cmd, err)
		}
	}
	// A name a shell line cannot carry whole is still quoted, not cut.
	e := core.AsError(CheckDraftOutput(t.Context(), root, filepath.Join(root, "new\nline")))
	if e == nil || !strings.HasSuffix(e.Message, core.ShellWords([]string{"printf", `%s\n`, "/new\nline"})+" >> "+exclude) {
		t.Fatalf("a name with a newline: %v", e)
	}
}
