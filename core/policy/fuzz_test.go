package policy

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"reasonixctl/core/contract"
	"reasonixctl/core/redact"
)

var knownCodes = map[string]bool{
	CodeMetadataInvalid: true, CodeNoStaticArgv: true, CodeCwdEscape: true, CodeRemoteAccess: true, CodeNetworkAccess: true,
	CodePrivilegeEscalation: true, CodeDestructiveFilesystem: true, CodeShellEval: true, CodeInlineCode: true, CodePublishRelease: true,
	CodePathEscape: true, CodeGitMutation: true, CodeUnsafeReadCommand: true, CodeEnvInjection: true, CodeUnknownExecutable: true,
}

// FuzzClassifyArgv: every decision is well formed, and listing the command in a contract turns
// only unknown_executable into an allow — never any other denial.
func FuzzClassifyArgv(f *testing.F) {
	for _, s := range []string{"git\x00status", "curl\x00x", "env\x00CI=1\x00--\x00pnpm\x00test", "sed\x00-ne\x001p", "npm\x00run\x00release",
		"python3\x00-c\x00x", "cat\x00/etc/passwd", "sort\x00-uo\x00x", "env\x00LC_ALL=C\x00env\x00CI=1\x00ls", "make\x00unit"} {
		f.Add(s, ".")
	}
	f.Add("make\x00unit", "sub")
	f.Fuzz(func(t *testing.T, joined, cwd string) {
		args := strings.Split(joined, "\x00")
		if args[0] == "" {
			return
		}
		d := ClassifyArgv(args, cwd, nil)
		check(t, args, d)
		if !utf8.ValidString(joined) || !utf8.ValidString(cwd) {
			return // JSON cannot carry these bytes, so no contract can list them
		}
		doc, _ := json.Marshal(map[string]any{"schema_version": 1, "objective": "o", "user_outcome": "u", "write_scope": []string{"src"},
			"acceptance_criteria": []any{map[string]any{"id": "ac", "requirement": "r", "evidence": "review"}}, "verification": []any{},
			"allowed_commands": []any{map[string]any{"id": "x", "argv": args, "cwd": cwd}}})
		c, err := contract.Parse(doc)
		if err != nil {
			return
		}
		listed := ClassifyArgv(args, cwd, c)
		check(t, args, listed)
		switch {
		case d.Allow && (!listed.Allow || listed.TimeoutSeconds != d.TimeoutSeconds):
			t.Fatalf("%q: listing an allowed command changed it: %+v", args, listed)
		case !d.Allow && d.Code != CodeUnknownExecutable && listed.Code != d.Code:
			t.Fatalf("%q: the contract loosened %s into %+v", args, d.Code, listed)
		case d.Code == CodeUnknownExecutable && !listed.Allow:
			t.Fatalf("%q: an exact contract command was denied: %+v", args, listed)
		}
	})
}

func check(t *testing.T, args []string, d Decision) {
	t.Helper()
	if d.Reason == "" {
		t.Fatalf("%q: no reason", args)
	}
	if d.Allow {
		if d.Code != "" || d.Hint != "" || d.TimeoutSeconds <= 0 {
			t.Fatalf("%q: malformed allow %+v", args, d)
		}
		for _, a := range args[1:] {
			if strings.HasPrefix(a, "/") || redact.IsCredentialPath(a) {
				t.Fatalf("%q: allowed with argument %q", args, a)
			}
		}
		return
	}
	if !knownCodes[d.Code] || d.Hint == "" {
		t.Fatalf("%q: malformed deny %+v", args, d)
	}
}

// FuzzClassifyEdit: an allowed edit never reaches outside the worktree, .git, credentials,
// .reasonix or paths the contract does not let the worker write.
func FuzzClassifyEdit(f *testing.F) {
	root, _ := worktree(f)
	c := testContract(f)
	for _, p := range []string{"src/a.go", "out/x", "srclink/a.go", "../x", "/etc/passwd", ".git/config", "src/.env", ".reasonix/x", "docs/a.md", "src/gen/x"} {
		f.Add(p, KindEdit)
	}
	f.Add("README.md", KindRead)
	f.Fuzz(func(t *testing.T, path, kind string) {
		d := ClassifyEdit(EditRequest{Kind: kind, Paths: []string{path}, HasRawInput: true, Worktree: root}, c)
		if d.Reason == "" || (!d.Allow && d.Hint == "") {
			t.Fatalf("%q %q: malformed %+v", kind, path, d)
		}
		if !d.Allow || kind == KindThink || kind == KindRead || kind == KindSearch {
			return
		}
		abs := path
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(root, abs)
		}
		rel, ok := within(root, realExisting(abs))
		if !ok || redact.IsGitControlPath(rel) || redact.IsCredentialPath(rel) || redact.IsRuntimeMetadataPath(rel) || !c.WriteAllowed(rel) {
			t.Fatalf("edit of %q (%q) allowed", path, rel)
		}
	})
}
