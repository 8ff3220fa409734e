package policy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"reasonixctl/core/contract"
)

func testContract(t testing.TB) *contract.Contract {
	t.Helper()
	c, err := contract.Parse([]byte(`{"schema_version":1,"objective":"o","user_outcome":"u",
		"write_scope":["src","docs/*.md",".reasonix"],"forbidden_scope":["src/gen/**"],
		"acceptance_criteria":[{"id":"ac","requirement":"r","evidence":"automated"}],
		"verification":[{"id":"test","argv":["go","test","./..."],"proves":["ac"]},
			{"id":"unit","argv":["make","unit"],"cwd":"sub","timeout_seconds":45,"proves":["ac"]}],
		"allowed_commands":[{"id":"ci","argv":["env","CI=1","--","pnpm","test"]},{"id":"fmt","argv":["gofmt","-l","."],"timeout_seconds":30},
			{"id":"py","argv":["python3","scripts/check.py"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func argv(s string) []string { return strings.Fields(s) }

// Every rule and code of the shell policy, by static argv (ClassifyArgv runs after the
// metadata checks; those are covered by TestClassifyExecMetadata).
func TestClassifyArgv(t *testing.T) {
	c := testContract(t)
	tests := []struct {
		cmd     string
		cwd     string
		code    string // "" = allow
		timeout int
	}{
		// remote, network, privilege
		{cmd: "gh pr create", code: CodeRemoteAccess},
		{cmd: "gh release create v1", code: CodeRemoteAccess},
		{cmd: "/usr/bin/GH.exe auth status", code: CodeRemoteAccess},
		{cmd: "curl https://example.com", code: CodeNetworkAccess},
		{cmd: "wget x", code: CodeNetworkAccess},
		{cmd: "nc -l 80", code: CodeNetworkAccess},
		{cmd: "ssh host", code: CodeNetworkAccess},
		{cmd: "scp a b", code: CodeNetworkAccess},
		{cmd: "rsync -a a b", code: CodeNetworkAccess},
		{cmd: "telnet host", code: CodeNetworkAccess},
		{cmd: "sudo ls", code: CodePrivilegeEscalation},
		{cmd: "doas ls", code: CodePrivilegeEscalation},
		{cmd: "su root", code: CodePrivilegeEscalation},
		{cmd: "pkexec ls", code: CodePrivilegeEscalation},
		// destructive
		{cmd: "rm -rf src", code: CodeDestructiveFilesystem},
		{cmd: "/bin/rm x", code: CodeDestructiveFilesystem},
		{cmd: "mv a b", code: CodeDestructiveFilesystem},
		{cmd: "cp a b", code: CodeDestructiveFilesystem},
		{cmd: "touch marker", code: CodeDestructiveFilesystem},
		{cmd: "mkdir d", code: CodeDestructiveFilesystem},
		{cmd: "chmod +x f", code: CodeDestructiveFilesystem},
		{cmd: "ln -s a b", code: CodeDestructiveFilesystem},
		{cmd: "tee out", code: CodeDestructiveFilesystem},
		{cmd: "dd if=a of=b", code: CodeDestructiveFilesystem},
		{cmd: "mkfs.ext4 disk", code: CodeDestructiveFilesystem},
		{cmd: "truncate -s0 f", code: CodeDestructiveFilesystem},
		{cmd: "unlink f", code: CodeDestructiveFilesystem},
		// shells and wrappers
		{cmd: "bash -c ls", code: CodeShellEval},
		{cmd: "sh script.sh", code: CodeShellEval},
		{cmd: "zsh", code: CodeShellEval},
		{cmd: "CMD.EXE /c dir", code: CodeShellEval},
		{cmd: "powershell -Command x", code: CodeShellEval},
		{cmd: "eval x", code: CodeShellEval},
		{cmd: "nohup make", code: CodeShellEval},
		{cmd: "xargs rm", code: CodeShellEval},
		{cmd: "timeout 5 rm x", code: CodeShellEval},
		// inline code
		{cmd: "node -e 1", code: CodeInlineCode},
		{cmd: "node --eval=1", code: CodeInlineCode},
		{cmd: "node -p process.env", code: CodeInlineCode},
		{cmd: "python3 -c print(1)", code: CodeInlineCode},
		{cmd: "python -cprint(1)", code: CodeInlineCode},
		{cmd: "python3.12 -bc x", code: CodeInlineCode},
		{cmd: "perl -ne print", code: CodeInlineCode},
		{cmd: "ruby -e x", code: CodeInlineCode},
		{cmd: "php -r x", code: CodeInlineCode},
		{cmd: "deno eval x", code: CodeInlineCode},
		{cmd: "bun --print 1", code: CodeInlineCode},
		{cmd: "python3 -m pytest", code: CodeUnknownExecutable},
		{cmd: "python3 scripts/check.py", code: "", timeout: 120},
		// publishing, decided on the executable
		{cmd: "npm publish", code: CodePublishRelease},
		{cmd: "cargo publish", code: CodePublishRelease},
		{cmd: "npm run release", code: CodePublishRelease},
		{cmd: "pnpm run release:patch", code: CodePublishRelease},
		{cmd: "yarn deploy-prod", code: CodePublishRelease},
		{cmd: "npm dist-tag add x@1 latest", code: CodePublishRelease},
		{cmd: "npx semantic-release", code: CodePublishRelease},
		{cmd: "twine upload dist", code: CodePublishRelease},
		{cmd: "dotnet nuget push x.nupkg", code: CodePublishRelease},
		{cmd: "make release", code: CodePublishRelease},
		{cmd: "./scripts/release.sh", code: CodePublishRelease},
		{cmd: "cat release", code: "", timeout: ReadTimeoutSeconds},
		{cmd: "ls deploy", code: "", timeout: ReadTimeoutSeconds},
		{cmd: "npm run test:release", code: CodeUnknownExecutable},
		// package managers reaching the network
		{cmd: "npm install", code: CodeNetworkAccess},
		{cmd: "pnpm add left-pad", code: CodeNetworkAccess},
		{cmd: "go get example.com/x", code: CodeNetworkAccess},
		{cmd: "cargo update", code: CodeNetworkAccess},
		{cmd: "pip install x", code: CodeNetworkAccess},
		{cmd: "npm whoami", code: CodeNetworkAccess},
		// path escapes
		{cmd: "cat /etc/passwd", code: CodePathEscape},
		{cmd: "ls ../other", code: CodePathEscape},
		{cmd: "head sub/../../x", code: CodePathEscape},
		{cmd: "cat .env", code: CodePathEscape},
		{cmd: "cat config/.ssh/id_rsa", code: CodePathEscape},
		{cmd: "cat server.pem", code: CodePathEscape},
		{cmd: "rg --files=/etc x", code: CodePathEscape},
		{cmd: "ls ~/", code: CodePathEscape},
		{cmd: "cat .env.example", code: "", timeout: ReadTimeoutSeconds},
		{cmd: "go test ./...", code: "", timeout: 600},
		// git
		{cmd: "git status", code: "", timeout: ReadTimeoutSeconds},
		{cmd: "git --no-pager log --oneline -5", code: "", timeout: ReadTimeoutSeconds},
		{cmd: "git diff HEAD~1..HEAD", code: "", timeout: ReadTimeoutSeconds},
		{cmd: "git show HEAD:src/a.go", code: "", timeout: ReadTimeoutSeconds},
		{cmd: "git grep -n foo", code: "", timeout: ReadTimeoutSeconds},
		{cmd: "git symbolic-ref --short HEAD", code: "", timeout: ReadTimeoutSeconds},
		{cmd: "git cat-file -p HEAD", code: "", timeout: ReadTimeoutSeconds},
		{cmd: "git commit -m x", code: CodeGitMutation},
		{cmd: "git add .", code: CodeGitMutation},
		{cmd: "git push", code: CodeGitMutation},
		{cmd: "git checkout main", code: CodeGitMutation},
		{cmd: "git tag v1", code: CodeGitMutation},
		{cmd: "git -c core.pager=x log", code: CodeGitMutation},
		{cmd: "git log -c", code: CodeGitMutation},
		{cmd: "git diff --output=x", code: CodeGitMutation},
		{cmd: "git diff --ext-diff", code: CodeGitMutation},
		{cmd: "git log --outp=x", code: CodeGitMutation},
		{cmd: "git diff --ext", code: CodeGitMutation},
		{cmd: "git log --not main", code: "", timeout: ReadTimeoutSeconds},
		{cmd: "git log --name-only", code: "", timeout: ReadTimeoutSeconds},
		{cmd: "git log --git-dir=x", code: CodeGitMutation},
		{cmd: "git diff --no-index a b", code: CodeGitMutation},
		{cmd: "git grep -Oless x", code: CodeGitMutation},
		{cmd: "git symbolic-ref HEAD refs/heads/x", code: CodeGitMutation},
		{cmd: "git symbolic-ref --delete HEAD", code: CodeGitMutation},
		{cmd: "git cat-file --filters HEAD:a", code: CodeGitMutation},
		{cmd: "git", code: CodeGitMutation},
		// audited reads
		{cmd: "ls -la", code: "", timeout: ReadTimeoutSeconds},
		{cmd: "pwd", code: "", timeout: ReadTimeoutSeconds},
		{cmd: "wc -l src/a.go", code: "", timeout: ReadTimeoutSeconds},
		{cmd: "sed -n 1,20p src/a.go", code: "", timeout: ReadTimeoutSeconds},
		{cmd: "sed -n $p f", code: "", timeout: ReadTimeoutSeconds},
		{cmd: "sed -ne 5p f", code: "", timeout: ReadTimeoutSeconds},
		{cmd: "sed -i s/a/b/ f", code: CodeUnsafeReadCommand},
		{cmd: "sed --in-place=.bak 1p f", code: CodeUnsafeReadCommand},
		{cmd: "sed -n s/a/b/w f", code: CodeUnsafeReadCommand},
		{cmd: "sed -f script.sed f", code: CodeUnsafeReadCommand},
		{cmd: "sed 1e f", code: CodeUnsafeReadCommand},
		{cmd: "find . -name *.go", code: "", timeout: ReadTimeoutSeconds},
		{cmd: "find . -delete", code: CodeUnsafeReadCommand},
		{cmd: "find . -exec rm {} ;", code: CodeUnsafeReadCommand},
		{cmd: "find . -fprint out", code: CodeUnsafeReadCommand},
		{cmd: "rg -n TODO src", code: "", timeout: ReadTimeoutSeconds},
		{cmd: "rg --pre cat x", code: CodeUnsafeReadCommand},
		{cmd: "rg --pre=cat x", code: CodeUnsafeReadCommand},
		{cmd: "rg --hostname-bin=x y", code: CodeUnsafeReadCommand},
		{cmd: "sort -u f", code: "", timeout: ReadTimeoutSeconds},
		{cmd: "sort -t, -k2 f", code: "", timeout: ReadTimeoutSeconds},
		{cmd: "sort -o out f", code: CodeUnsafeReadCommand},
		{cmd: "sort -uo out f", code: CodeUnsafeReadCommand},
		{cmd: "sort --output=out f", code: CodeUnsafeReadCommand},
		{cmd: "sort --compress-program=sh f", code: CodeUnsafeReadCommand},
		{cmd: "sort --outp=out f", code: CodeUnsafeReadCommand},
		{cmd: "sort --compress=gzip f", code: CodeUnsafeReadCommand},
		{cmd: "sort --check f", code: "", timeout: ReadTimeoutSeconds},
		{cmd: "tail -n 20 f", code: "", timeout: ReadTimeoutSeconds},
		{cmd: "tail -F f", code: CodeUnsafeReadCommand},
		{cmd: "tail --follow=name f", code: CodeUnsafeReadCommand},
		{cmd: "tail --foll f", code: CodeUnsafeReadCommand},
		{cmd: "uniq -c f", code: "", timeout: ReadTimeoutSeconds},
		{cmd: "uniq f out", code: CodeUnsafeReadCommand},
		{cmd: "tree -o out", code: CodeUnsafeReadCommand},
		{cmd: "file -C -m magic", code: CodeUnsafeReadCommand},
		// env wrapper
		{cmd: "env CI=1 -- pnpm test", code: "", timeout: 120},
		{cmd: "env CI=1 pnpm test", code: CodeUnknownExecutable},
		{cmd: "env NO_COLOR=1 git status", code: "", timeout: ReadTimeoutSeconds},
		{cmd: "env LC_ALL=C sort f", code: "", timeout: ReadTimeoutSeconds},
		{cmd: "env NODE_OPTIONS=--require=x node app.js", code: CodeEnvInjection},
		{cmd: "env PATH=x ls", code: CodeEnvInjection},
		{cmd: "env -i ls", code: CodeEnvInjection},
		{cmd: "env", code: CodeEnvInjection},
		{cmd: "env CI=1", code: CodeEnvInjection},
		{cmd: "env CI=1 curl x", code: CodeNetworkAccess},
		{cmd: "env CI=1 git push", code: CodeGitMutation},
		{cmd: "env TZ=/etc/localtime date", code: CodePathEscape},
		// exact contract matches
		{cmd: "make unit", cwd: "sub", code: "", timeout: 45},
		{cmd: "make unit", cwd: ".", code: CodeUnknownExecutable},
		{cmd: "gofmt -l .", code: "", timeout: 30},
		{cmd: "gofmt -l . -w", code: CodeUnknownExecutable},
		{cmd: "go test ./... -run X", code: CodeUnknownExecutable},
		{cmd: "go build ./...", code: CodeUnknownExecutable},
		{cmd: "awk {print} f", code: CodeUnknownExecutable},
		{cmd: "./configure", code: CodeUnknownExecutable},
	}
	if len(tests) < 80 {
		t.Fatalf("only %d cases", len(tests))
	}
	for _, tt := range tests {
		cwd := tt.cwd
		if cwd == "" {
			cwd = "."
		}
		d := ClassifyArgv(argv(tt.cmd), cwd, c)
		if d.Code != tt.code || d.Allow != (tt.code == "") || d.TimeoutSeconds != tt.timeout {
			t.Errorf("%s (cwd %s): got allow=%v code=%q timeout=%d (%s); want code=%q timeout=%d", tt.cmd, cwd, d.Allow, d.Code, d.TimeoutSeconds, d.Reason, tt.code, tt.timeout)
		}
		if d.Reason == "" || (!d.Allow && d.Hint == "") || (d.Allow && d.Hint != "") {
			t.Errorf("%s: reason %q hint %q", tt.cmd, d.Reason, d.Hint)
		}
	}
}

// Hard denials stay denials when the contract lists the very command.
func TestContractCannotLoosenHardDenials(t *testing.T) {
	for _, cmd := range []string{"curl x", "rm -rf src", "git commit -m x", "npm publish", "bash -c x", "node -e 1", "sed -i s/a/b/ f", "env PATH=x make"} {
		doc := `{"schema_version":1,"objective":"o","user_outcome":"u","write_scope":["src"],
			"acceptance_criteria":[{"id":"ac","requirement":"r","evidence":"review"}],"verification":[],
			"allowed_commands":[{"id":"x","argv":` + jsonArgv(argv(cmd)) + `}]}`
		c, err := contract.Parse([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if d := ClassifyArgv(argv(cmd), ".", c); d.Allow {
			t.Errorf("%s allowed by the contract", cmd)
		}
	}
}

func jsonArgv(a []string) string {
	return `["` + strings.Join(a, `","`) + `"]`
}

func TestGateContract(t *testing.T) {
	c, err := contract.Parse([]byte(`{"schema_version":1,"objective":"o","user_outcome":"u","write_scope":["src"],
		"acceptance_criteria":[{"id":"ac","requirement":"r","evidence":"automated"}],
		"verification":[{"id":"ok","argv":["go","test","./..."],"proves":["ac"]},{"id":"verify_result","argv":["git","commit","-m","x"],"proves":["ac"]},
			{"id":"net","argv":["curl","x"],"proves":["ac"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	issues := GateContract(c)
	if len(issues) != 2 || issues[0].Path != "verification.verify_result" || !strings.HasPrefix(issues[0].Message, "git_mutation: ") ||
		issues[1].Path != "verification.net" || !strings.HasPrefix(issues[1].Message, "network_access: ") {
		t.Errorf("GateContract = %v", issues)
	}
	if issues := GateContract(testContract(t)); issues != nil {
		t.Errorf("a clean contract: %v", issues)
	}
}

// worktree builds a worktree with a subdirectory, a symlink to a directory outside and a
// symlink to a directory inside.
func worktree(t testing.TB) (root, outside string) {
	t.Helper()
	root = t.TempDir()
	outside = t.TempDir()
	for _, d := range []string{"sub", "src/gen", ".git"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "src"), filepath.Join(root, "srclink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "missing"), filepath.Join(root, "dangling")); err != nil {
		t.Fatal(err)
	}
	return root, outside
}

func TestClassifyExecMetadata(t *testing.T) {
	root, outside := worktree(t)
	c := testContract(t)
	meta := func(mut func(m *ExecMeta)) *ExecMeta {
		m := &ExecMeta{CommandSchemaVersion: 1, Tool: "bash", Argv: []string{"make", "unit"}, Cwd: filepath.Join(root, "sub"), ApprovalID: "3"}
		if mut != nil {
			mut(m)
		}
		return m
	}
	tests := []struct {
		name string
		req  ExecRequest
		code string
	}{
		{"valid, contract command in sub", ExecRequest{ToolCallID: "gate-3", Meta: meta(nil)}, ""},
		{"approval id equal to the tool call id", ExecRequest{ToolCallID: "3", Meta: meta(nil)}, ""},
		{"no approval id", ExecRequest{ToolCallID: "gate-9", Meta: meta(func(m *ExecMeta) { m.ApprovalID = "" })}, ""},
		{"raw input agrees", ExecRequest{ToolCallID: "gate-3", Meta: meta(nil), RawArgv: []string{"make", "unit"}, RawCwd: filepath.Join(root, "sub")}, ""},
		{"no metadata", ExecRequest{ToolCallID: "gate-3"}, CodeMetadataInvalid},
		{"compound command", ExecRequest{ToolCallID: "gate-3", Meta: &ExecMeta{Tool: "bash", ApprovalID: "3"}}, CodeNoStaticArgv},
		{"other tool", ExecRequest{ToolCallID: "gate-3", Meta: meta(func(m *ExecMeta) { m.Tool = "write_file" })}, CodeMetadataInvalid},
		{"schema version 2", ExecRequest{ToolCallID: "gate-3", Meta: meta(func(m *ExecMeta) { m.CommandSchemaVersion = 2 })}, CodeMetadataInvalid},
		{"empty argv", ExecRequest{ToolCallID: "gate-3", Meta: meta(func(m *ExecMeta) { m.Argv = []string{} })}, CodeMetadataInvalid},
		{"empty argv item", ExecRequest{ToolCallID: "gate-3", Meta: meta(func(m *ExecMeta) { m.Argv = []string{"ls", ""} })}, CodeMetadataInvalid},
		{"129 items", ExecRequest{ToolCallID: "gate-3", Meta: meta(func(m *ExecMeta) { m.Argv = make([]string, 129); fill(m.Argv) })}, CodeMetadataInvalid},
		{"relative cwd", ExecRequest{ToolCallID: "gate-3", Meta: meta(func(m *ExecMeta) { m.Cwd = "sub" })}, CodeMetadataInvalid},
		{"approval id of another call", ExecRequest{ToolCallID: "gate-4", Meta: meta(nil)}, CodeMetadataInvalid},
		{"raw argv differs", ExecRequest{ToolCallID: "gate-3", Meta: meta(nil), RawArgv: []string{"make", "other"}}, CodeMetadataInvalid},
		{"raw cwd differs", ExecRequest{ToolCallID: "gate-3", Meta: meta(nil), RawCwd: root}, CodeMetadataInvalid},
		{"missing cwd", ExecRequest{ToolCallID: "gate-3", Meta: meta(func(m *ExecMeta) { m.Cwd = filepath.Join(root, "nope") })}, CodeMetadataInvalid},
		{"cwd outside", ExecRequest{ToolCallID: "gate-3", Meta: meta(func(m *ExecMeta) { m.Cwd = outside })}, CodeCwdEscape},
		{"cwd escaping by symlink", ExecRequest{ToolCallID: "gate-3", Meta: meta(func(m *ExecMeta) { m.Cwd = filepath.Join(root, "out") })}, CodeCwdEscape},
		{"cwd escaping by ..", ExecRequest{ToolCallID: "gate-3", Meta: meta(func(m *ExecMeta) { m.Cwd = filepath.Join(root, "sub", "..", "..") })}, CodeCwdEscape},
		{"cwd through an inner symlink", ExecRequest{ToolCallID: "gate-3", Meta: meta(func(m *ExecMeta) { m.Argv = []string{"ls"}; m.Cwd = filepath.Join(root, "srclink") })}, ""},
		{"hard denial after metadata", ExecRequest{ToolCallID: "gate-3", Meta: meta(func(m *ExecMeta) { m.Argv = []string{"curl", "x"} })}, CodeNetworkAccess},
		{"contract command in the wrong cwd", ExecRequest{ToolCallID: "gate-3", Meta: meta(func(m *ExecMeta) { m.Cwd = root })}, CodeUnknownExecutable},
	}
	for _, tt := range tests {
		tt.req.Worktree = root
		d := ClassifyExec(tt.req, c)
		if d.Code != tt.code || d.Allow != (tt.code == "") {
			t.Errorf("%s: got allow=%v code=%q (%s); want %q", tt.name, d.Allow, d.Code, d.Reason, tt.code)
		}
	}
	if d := ClassifyExec(ExecRequest{ToolCallID: "gate-3", Meta: meta(nil), Worktree: filepath.Join(root, "nope")}, c); d.Code != CodeMetadataInvalid {
		t.Errorf("unresolvable worktree: %+v", d)
	}
}

func fill(a []string) {
	for i := range a {
		a[i] = "x"
	}
}

func TestExecRequestFromToolCall(t *testing.T) {
	root, _ := worktree(t)
	wire := map[string]any{MetaKey: map[string]any{"approvalId": "1", "argv": []any{"git", "status"}, "commandSchemaVersion": float64(1),
		"cwd": root, "fresh": false, "subject": "git status", "tool": "bash"}}
	req := ExecRequestFromToolCall("gate-1", wire, map[string]any{"command": "git status"}, root)
	if d := ClassifyExec(req, nil); !d.Allow || d.TimeoutSeconds != ReadTimeoutSeconds {
		t.Errorf("real worker shape: %+v", d)
	}
	compound := map[string]any{MetaKey: map[string]any{"approvalId": "1", "fresh": false, "subject": "echo x > f && cat f", "tool": "bash"}}
	if d := ClassifyExec(ExecRequestFromToolCall("gate-1", compound, map[string]any{"command": "echo x > f && cat f"}, root), nil); d.Code != CodeNoStaticArgv {
		t.Errorf("compound: %+v", d)
	}
	for name, m := range map[string]map[string]any{
		"meta not an object": {MetaKey: "x"},
		"argv not strings":   {MetaKey: map[string]any{"argv": []any{"ls", 1.0}, "tool": "bash", "commandSchemaVersion": 1.0, "cwd": root}},
		"version not int":    {MetaKey: map[string]any{"argv": []any{"ls"}, "tool": "bash", "commandSchemaVersion": 1.5, "cwd": root}},
		"version a string":   {MetaKey: map[string]any{"argv": []any{"ls"}, "tool": "bash", "commandSchemaVersion": "1", "cwd": root}},
		"absent":             {},
	} {
		if d := ClassifyExec(ExecRequestFromToolCall("gate-1", m, nil, root), nil); d.Code != CodeMetadataInvalid {
			t.Errorf("%s: %+v", name, d)
		}
	}
	numbered := map[string]any{MetaKey: map[string]any{"argv": []any{"ls"}, "tool": "bash", "commandSchemaVersion": json.Number("1"), "cwd": root}}
	if d := ClassifyExec(ExecRequestFromToolCall("gate-1", numbered, nil, root), nil); !d.Allow {
		t.Errorf("json.Number schema version: %+v", d)
	}
	bad := ExecRequestFromToolCall("gate-1", wire, map[string]any{"argv": "git status"}, root)
	if d := ClassifyExec(bad, nil); d.Code != CodeMetadataInvalid {
		t.Errorf("rawInput argv of the wrong type: %+v", d)
	}
}

func TestClassifyEdit(t *testing.T) {
	root, outside := worktree(t)
	c := testContract(t)
	raw := map[string]any{"path": "src/a.go", "content": "x"}
	tests := []struct {
		name  string
		kind  string
		paths []string
		raw   any
		code  string
	}{
		{"edit in scope (relative)", KindEdit, []string{"src/a.go"}, raw, ""},
		{"edit in scope (absolute location)", KindEdit, []string{filepath.Join(root, "src", "new", "b.go")}, raw, ""},
		{"edit in a glob scope", KindEdit, []string{"docs/guide.md"}, raw, ""},
		{"edit outside write scope", KindEdit, []string{"README.md"}, raw, CodeOutsideWriteScope},
		{"edit of the root", KindEdit, []string{"."}, raw, CodeOutsideWriteScope},
		{"edit forbidden", KindEdit, []string{"src/gen/x.go"}, raw, CodeForbiddenPath},
		{"edit under .reasonix", KindEdit, []string{".reasonix/state.json"}, raw, CodeRuntimeMetadata},
		{"edit of .git", KindEdit, []string{".git/config"}, raw, CodeGitControlPath},
		{"edit of nested .git", KindEdit, []string{"src/.GIT/HEAD"}, raw, CodeGitControlPath},
		{"edit of a credential", KindEdit, []string{"src/.env"}, raw, CodeCredentialPath},
		{"edit of a key", KindEdit, []string{"src/server.key"}, raw, CodeCredentialPath},
		{"edit outside the worktree", KindEdit, []string{filepath.Join(outside, "x")}, raw, CodePathEscape},
		{"edit escaping by ..", KindEdit, []string{"src/../../x"}, raw, CodePathEscape},
		{"edit through an outside symlink", KindEdit, []string{"out/x.go"}, raw, CodeSymlinkEscape},
		{"edit through a dangling symlink", KindEdit, []string{"dangling"}, raw, CodeSymlinkEscape},
		{"edit through an inner symlink into scope", KindEdit, []string{"srclink/a.go"}, raw, CodeOutsideWriteScope},
		{"edit without paths", KindEdit, nil, raw, CodeUnscopedRequest},
		{"edit without raw input", KindEdit, []string{"src/a.go"}, nil, CodeUnscopedRequest},
		{"edit with one bad path of two", KindEdit, []string{"src/a.go", "README.md"}, raw, CodeOutsideWriteScope},
		{"think", KindThink, nil, nil, ""},
		{"think touching .git", KindThink, []string{".git/HEAD"}, nil, CodeGitControlPath},
		{"read anywhere inside", KindRead, []string{"README.md"}, raw, ""},
		{"read with raw input only", KindRead, nil, map[string]any{"query": "x"}, ""},
		{"read with nothing", KindRead, nil, nil, CodeUnscopedRequest},
		{"read of a credential", KindRead, []string{"id_rsa"}, raw, CodeCredentialPath},
		{"read outside", KindRead, []string{"/etc/passwd"}, raw, CodePathEscape},
		{"search", KindSearch, []string{"src"}, raw, ""},
		{"delete", "delete", []string{"src/a.go"}, raw, "tool_kind_delete"},
		{"move", "move", []string{"src/a.go"}, raw, "tool_kind_move"},
		{"fetch", "fetch", nil, raw, "tool_kind_fetch"},
		{"execute", "execute", nil, raw, "tool_kind_execute"},
		{"other", "other", nil, nil, "tool_kind_other"},
		{"switch mode", "switch_mode", nil, nil, "tool_kind_switch_mode"},
		{"no kind", "", nil, nil, "tool_kind_unknown"},
	}
	for _, tt := range tests {
		req := EditRequest{ToolCallID: "gate-1", Kind: tt.kind, Paths: tt.paths, HasRawInput: tt.raw != nil, Worktree: root}
		d := ClassifyEdit(req, c)
		if d.Code != tt.code || d.Allow != (tt.code == "") || d.TimeoutSeconds != 0 {
			t.Errorf("%s: got allow=%v code=%q (%s); want %q", tt.name, d.Allow, d.Code, d.Reason, tt.code)
		}
		if !d.Allow && d.Hint == "" {
			t.Errorf("%s: no hint", tt.name)
		}
	}
	if d := ClassifyEdit(EditRequest{Kind: KindEdit, Paths: []string{"src/a.go"}, HasRawInput: true, Worktree: root}, nil); d.Code != CodeOutsideWriteScope {
		t.Errorf("nil contract allows no edit: %+v", d)
	}
}

func TestEditRequestFromToolCall(t *testing.T) {
	root, _ := worktree(t)
	raw := map[string]any{"Path": "src/a.go", "content": "not a path", "edits": []any{map[string]any{"file": "src/b.go"}},
		"source": []any{"src/c.go"}, "destination": "README.md"}
	req := EditRequestFromToolCall("gate-2", KindEdit, []string{filepath.Join(root, "src", "a.go")}, raw, root)
	want := map[string]bool{filepath.Join(root, "src", "a.go"): true, "src/a.go": true, "src/b.go": true, "src/c.go": true, "README.md": true}
	if len(req.Paths) != len(want) || !req.HasRawInput {
		t.Fatalf("paths %v", req.Paths)
	}
	for _, p := range req.Paths {
		if !want[p] {
			t.Errorf("unexpected path %q", p)
		}
	}
	if d := ClassifyEdit(req, testContract(t)); d.Code != CodeOutsideWriteScope {
		t.Errorf("README.md among the paths must deny: %+v", d)
	}
}

func TestFingerprint(t *testing.T) {
	a := Fingerprint("execute", CodeNetworkAccess, []string{"curl", "x"}, ".")
	if !strings.HasPrefix(a, "network_access:") || len(a) != len("network_access:")+16 {
		t.Fatalf("shape %q", a)
	}
	if a != Fingerprint("execute", CodeNetworkAccess, []string{"curl", "x"}, ".") {
		t.Error("not deterministic")
	}
	for _, other := range []string{
		Fingerprint("execute", CodeNetworkAccess, []string{"curl", "y"}, "."),
		Fingerprint("execute", CodeNetworkAccess, []string{"curl", "x"}, "sub"),
		Fingerprint("edit", CodeNetworkAccess, []string{"curl", "x"}, "."),
		Fingerprint("execute", CodeNetworkAccess, []string{"curl x"}, "."),
	} {
		if other == a {
			t.Errorf("collision with %q", other)
		}
	}
	if Fingerprint("think", "x", nil, "") != Fingerprint("think", "x", []string{}, "") {
		t.Error("nil and empty argv must agree")
	}
	// Pinned: the journal and metrics keep fingerprints across versions.
	if got := Fingerprint("execute", CodeNetworkAccess, []string{"curl", "x"}, "."); got != pinnedFingerprint {
		t.Errorf("fingerprint changed: %s", got)
	}
}

// sha256sum of {"kind":"execute","code":"network_access","argv":["curl","x"],"cwd":"."}
const pinnedFingerprint = "network_access:7f3d387768dba214"

func TestAskable(t *testing.T) {
	c := testContract(t)
	if !ClassifyArgv(argv("go build"), ".", c).Askable() {
		t.Error("an unknown executable may be asked about")
	}
	for _, cmd := range []string{"curl x", "git push", "ls"} {
		if ClassifyArgv(argv(cmd), ".", c).Askable() {
			t.Errorf("%s must not be askable", cmd)
		}
	}
}

func BenchmarkClassifyArgv(b *testing.B) {
	c := testContract(b)
	cmds := [][]string{argv("git --no-pager log --oneline -5"), argv("sed -n 1,20p src/a.go"), argv("env CI=1 -- pnpm test"), argv("curl x"), argv("go build ./...")}
	for b.Loop() {
		for _, a := range cmds {
			ClassifyArgv(a, ".", c)
		}
	}
}
