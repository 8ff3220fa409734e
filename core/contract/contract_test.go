package contract

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func mustParse(t *testing.T, doc string) *Contract {
	t.Helper()
	c, err := Parse([]byte(doc))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return c
}

func TestSeedFixtureHashMatchesEarlierBridge(t *testing.T) {
	data, err := os.ReadFile("testdata/seed-fixture.json")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/seed-fixture.sha256")
	if err != nil {
		t.Fatal(err)
	}
	c := mustParse(t, string(data))
	if got := c.Hash(); got != strings.TrimSpace(string(want)) {
		t.Fatalf("hash %s, want %s\n%s", got, want, c.CanonicalJSON())
	}
}

// The expected hashes below were computed by the earlier bridge's algorithm (JSON.stringify of
// the key-sorted contract, two-space indent, newline) on the normalised form of each input.
func TestHashOfNormalisedContracts(t *testing.T) {
	tests := []struct{ name, doc, hash string }{
		{
			name: "verification without cwd and timeout gets the defaults",
			doc: `{"schema_version":1,"objective":"Create an offline result file","user_outcome":"The repository contains the expected result",
				"verified_context":[{"path":"README.md","reason":"Repository fixture"}],"write_scope":["result.txt"],"forbidden_scope":["secrets/**"],
				"invariants":["Do not modify README.md"],"non_goals":["No network calls"],
				"acceptance_criteria":[{"id":"ac_result","requirement":"result.txt has expected content","evidence":"automated"}],
				"verification":[{"id":"verify_result","argv":["test","-f","result.txt"],"proves":["ac_result"]}],
				"pause_conditions":["Any requested scope expansion"]}`,
			hash: "463f5f3967e1dfc1ef39300482af9fdcd0598fb6675eb7b799b6c637ecea9a99",
		},
		{
			name: "trimming, path normalisation, duplicates, escapes and optional lists",
			doc: `{"schema_version":1,"objective":"  Fix <the> bug & \u2028 add “quotes” 😀 \t","user_outcome":"Tests pass\u0001",
				"write_scope":["src\\lib\\","./docs//guide.md","pkg/**/*.go"],"forbidden_scope":["pkg/internal/**"],
				"acceptance_criteria":[{"evidence":"automated","id":"ac1","requirement":" works "},{"id":"rev","requirement":"Reads well","evidence":"review"}],
				"verification":[{"id":"t","argv":["go","test","./..."],"proves":["ac1"]},{"id":"t","argv":["go","test","./..."],"proves":["ac1"]}],
				"allowed_commands":[{"id":"t","argv":["go","test","./..."]},{"id":"vet","argv":["go","vet","./..."],"cwd":"src/"}],
				"file_assertions":[{"id":"fa","path":"./docs/guide.md","expected_utf8":"  exact \n","proves":["ac1"]}]}`,
			hash: "4ae4e8cadb850813433b85f949e573b0b30d23e1f6b9ce3b4129013fce10ed68",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustParse(t, tt.doc)
			if got := c.Hash(); got != tt.hash {
				t.Fatalf("hash %s, want %s\n%s", got, tt.hash, c.CanonicalJSON())
			}
		})
	}
}

func TestHashIsStable(t *testing.T) {
	base := mustParse(t, minimal)
	reordered := mustParse(t, `{"verification":[{"proves":["ac"],"id":"v","argv":["make","check"]}],
		"acceptance_criteria":[{"evidence":"automated","requirement":"It works","id":"ac"}],
		"write_scope":["src"],"user_outcome":"Done","objective":"Do it","schema_version":1}`)
	if base.Hash() != reordered.Hash() {
		t.Error("key order changed the hash")
	}
	again := mustParse(t, string(base.CanonicalJSON()))
	if again.Hash() != base.Hash() || string(again.CanonicalJSON()) != string(base.CanonicalJSON()) {
		t.Error("re-parsing the canonical JSON changed it")
	}
	marshalled, err := json.Marshal(struct{ C *Contract }{base})
	if err != nil {
		t.Fatal(err)
	}
	var back struct{ C *Contract }
	if err := json.Unmarshal(marshalled, &back); err != nil || back.C.Hash() != base.Hash() {
		t.Errorf("json round trip: %v", err)
	}
	withEmpty := mustParse(t, strings.Replace(minimal, `"schema_version":1`, `"schema_version":1,"allowed_commands":[]`, 1))
	if withEmpty.Hash() == base.Hash() {
		t.Error("an empty allowed_commands list must hash differently from an absent one")
	}
	if base.AllowedCommands != nil || withEmpty.AllowedCommands == nil {
		t.Error("absent and empty allowed_commands must stay distinguishable")
	}
}

const minimal = `{"schema_version":1,"objective":"Do it","user_outcome":"Done","write_scope":["src"],
	"acceptance_criteria":[{"id":"ac","requirement":"It works","evidence":"automated"}],
	"verification":[{"id":"v","argv":["make","check"],"proves":["ac"]}]}`

func TestDefaultsAndHelpers(t *testing.T) {
	c := mustParse(t, `{"schema_version":1,"objective":"o","user_outcome":"u","write_scope":["src","docs/*.md"],"forbidden_scope":["src/secret"],
		"acceptance_criteria":[{"id":"b","requirement":"r","evidence":"review"},{"id":"a","requirement":"r","evidence":"automated"},{"id":"c","requirement":"r","evidence":"review"}],
		"verification":[{"id":"v","argv":["make","check"],"proves":["a"]}],
		"allowed_commands":[{"id":"lint","argv":["make","lint"],"cwd":"src"}]}`)
	v := c.Verification[0]
	if v.Cwd != "." || v.TimeoutSeconds != DefaultVerifyTimeout {
		t.Errorf("verification defaults: %+v", v)
	}
	if a := c.AllowedCommands[0]; a.Cwd != "src" || a.TimeoutSeconds != DefaultCommandTimeout {
		t.Errorf("allowed command defaults: %+v", a)
	}
	for _, list := range [][]string{c.ForbiddenScope, c.Invariants, c.NonGoals, c.PauseConditions} {
		if list == nil {
			t.Error("a defaulted list is nil")
		}
	}
	if got := c.CriteriaIDs(EvidenceReview); !slices.Equal(got, []string{"b", "c"}) {
		t.Errorf("review criteria %v", got)
	}
	if got := c.CriteriaIDs(EvidenceAutomated); !slices.Equal(got, []string{"a"}) {
		t.Errorf("automated criteria %v", got)
	}
	if cr, ok := c.Criterion("b"); !ok || cr.Evidence != EvidenceReview {
		t.Errorf("Criterion(b) = %+v, %v", cr, ok)
	}
	if _, ok := c.Criterion("zz"); ok {
		t.Error("Criterion(zz) found")
	}
	if cmds := c.Commands(); len(cmds) != 2 || cmds[0].ID != "v" || cmds[1].ID != "lint" {
		t.Errorf("Commands %+v", cmds)
	}
	if cmd, ok := c.MatchCommand([]string{"make", "lint"}, "./src/"); !ok || cmd.ID != "lint" {
		t.Error("MatchCommand did not find lint in src")
	}
	for _, miss := range []struct {
		argv []string
		cwd  string
	}{{[]string{"make", "lint"}, "."}, {[]string{"make", "lint", "x"}, "src"}, {[]string{"make"}, "src"}, {[]string{"make", "lint"}, "../src"}} {
		if _, ok := c.MatchCommand(miss.argv, miss.cwd); ok {
			t.Errorf("MatchCommand(%v, %q) matched", miss.argv, miss.cwd)
		}
	}
	var nilContract *Contract
	if _, ok := nilContract.MatchCommand([]string{"make"}, "."); ok || nilContract.WriteAllowed("src/a") {
		t.Error("a nil contract allows nothing")
	}
}

func TestWriteAllowed(t *testing.T) {
	c := mustParse(t, `{"schema_version":1,"objective":"o","user_outcome":"u",
		"write_scope":["src","docs/*.md","pkg/**/*.go",".github/workflows/ci.yml"],"forbidden_scope":["src/vendor/**","**/*.gen.go"],
		"acceptance_criteria":[{"id":"a","requirement":"r","evidence":"review"}],"verification":[]}`)
	tests := []struct {
		path string
		want bool
	}{
		{"src", true}, {"src/a.go", true}, {"src/deep/x/y.go", true}, {"./src//a.go", true}, {`src\win.go`, true},
		{"srcx/a.go", false}, {"src/vendor/lib.go", false}, {"src/vendor", false}, {"src/x.gen.go", false},
		{"docs/a.md", true}, {"docs/.hidden.md", true}, {"docs/sub/a.md", false}, {"docs/a.txt", false},
		{"pkg/a.go", true}, {"pkg/x/y/z.go", true}, {"pkg/x/y.gen.go", false}, {"pkg/x/y.txt", false},
		{".github/workflows/ci.yml", true}, {".github/workflows/other.yml", false},
		{"", false}, {".", false}, {"/abs/src/a.go", false}, {"src/../etc/passwd", false}, {"README.md", false},
	}
	for _, tt := range tests {
		if got := c.WriteAllowed(tt.path); got != tt.want {
			t.Errorf("WriteAllowed(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

func TestNormalisePath(t *testing.T) {
	tests := []struct {
		in, want  string
		allowRoot bool
		err       string
	}{
		{in: " src/a.go ", want: "src/a.go"},
		{in: `src\lib\x.go`, want: "src/lib/x.go"},
		{in: "./a//b/./c/", want: "a/b/c"},
		{in: ".", allowRoot: true, want: "."},
		{in: "./", allowRoot: true, want: "."},
		{in: ".", err: "repository root"},
		{in: "", err: "non-empty"},
		{in: "   ", err: "non-empty"},
		{in: "a\x00b", err: "non-empty"},
		{in: "/etc/passwd", err: "absolute"},
		{in: `\\server\share`, err: "absolute"},
		{in: "C:/x", err: "absolute"},
		{in: "c:x", err: "absolute"},
		{in: "!src", err: "negated"},
		{in: "a/../b", err: "'..'"},
		{in: `a\..\b`, err: "'..'"},
		{in: "..", err: "'..'"},
		{in: "a/..b/c", want: "a/..b/c"},
		{in: "src/**/*.go", want: "src/**/*.go"},
		{in: "a /", want: "a"},       // found by FuzzNormalisePath: must be a fixed point
		{in: "./!x", err: "negated"}, // likewise: "!x" would not re-parse
	}
	for _, tt := range tests {
		got, err := NormalisePath(tt.in, tt.allowRoot)
		if tt.err != "" {
			var pe *PathError
			if !errors.As(err, &pe) || !strings.Contains(pe.Reason, tt.err) {
				t.Errorf("NormalisePath(%q) error %v, want one about %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("NormalisePath(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestLintReportsEveryProblem(t *testing.T) {
	doc := `{"schema_version":2,"objective":"  ","extra":true,
		"verified_context":[{"path":"/abs","reason":"r"},{"path":".","reason":"root is fine"}],
		"write_scope":["src/a.go","lib","/abs","a/../b"],"forbidden_scope":["src/**","."],
		"invariants":[""],
		"acceptance_criteria":[{"id":"a1","requirement":"r","evidence":"automated"},{"id":"a1","requirement":"r","evidence":"review"},
			{"id":"a2","requirement":"r","evidence":"automated"},{"id":"rev","requirement":"r","evidence":"review"},{"id":"9bad","requirement":"r","evidence":"maybe"}],
		"verification":[{"id":"v","argv":["make"],"proves":["a1","ghost"]},{"id":"v","argv":["make","x"],"proves":["a1"]},
			{"id":"w","argv":["","x"],"cwd":"../up","timeout_seconds":0,"proves":["a1"],"env":{}}],
		"allowed_commands":[{"id":"v","argv":["make"],"timeout_seconds":5},{"id":"l","argv":["lint"]},{"id":"l","argv":["lint"],"cwd":"sub"}],
		"file_assertions":[{"id":"f","path":"out.txt","expected_utf8":"x","proves":["rev","nope"]},{"id":"f","path":".","expected_utf8":"y","proves":["a2"]}]}`
	want := []Issue{
		{"extra", "unknown field"},
		{"schema_version", "must be 1"},
		{"objective", "must not be empty"},
		{"user_outcome", "required"},
		{"verified_context.0.path", "must not be absolute"},
		{"write_scope.2", "must not be absolute"},
		{"write_scope.3", "must not contain a '..' segment"},
		{"forbidden_scope.1", "must not resolve to the repository root"},
		{"invariants.0", "must not be empty"},
		{"acceptance_criteria.4.id", "must match ^[A-Za-z][A-Za-z0-9._-]{0,63}$"},
		{"acceptance_criteria.4.evidence", `must be "automated" or "review"`},
		{"verification.2.env", "unknown field"},
		{"verification.2.argv.0", "the executable must not be empty"},
		{"verification.2.cwd", "must not contain a '..' segment"},
		{"verification.2.timeout_seconds", "must be between 1 and 1800"},
		{"file_assertions.1.path", "must not resolve to the repository root"},
		{"forbidden_scope.0", `matches the write_scope target "src/a.go"; write_scope already denies every path it does not list`},
		{"acceptance_criteria.1.id", `duplicate id "a1"`},
		{"file_assertions.1.id", `duplicate id "f"`},
		{"verification.1.id", `conflicting id "v": reused with a different argv, cwd, timeout or proves`},
		{"allowed_commands.2.id", `conflicting id "l": reused with a different argv, cwd, timeout or proves`},
		{"allowed_commands.0.id", `conflicting id "v": a verification command with this id has a different argv, cwd or timeout`},
		{"verification.0.proves.1", `unknown acceptance criterion "ghost"`},
		{"file_assertions.0.proves.0", `file assertions can prove only automated criteria; "rev" needs review`},
		{"file_assertions.0.proves.1", `unknown acceptance criterion "nope"`},
	}
	got := Lint([]byte(doc))
	if !slices.Equal(got, want) {
		var b strings.Builder
		for _, is := range got {
			b.WriteString("\n" + is.String())
		}
		t.Fatalf("Lint returned%s", b.String())
	}
	_, err := Parse([]byte(doc))
	var inv *InvalidError
	if !errors.As(err, &inv) || len(inv.Issues) != len(want) {
		t.Fatalf("Parse error %v", err)
	}
}

func TestLintMore(t *testing.T) {
	tests := []struct {
		name, doc string
		want      []Issue
	}{
		{"not JSON", `{`, []Issue{{"$", "invalid JSON: unexpected EOF"}}},
		{"trailing data", minimal + ` {}`, []Issue{{"$", "unexpected data after the JSON document"}}},
		{"not an object", `[]`, []Issue{{"$", "must be an object"}}},
		{"unproved automated criterion", `{"schema_version":1,"objective":"o","user_outcome":"u","write_scope":["a"],
			"acceptance_criteria":[{"id":"a","requirement":"r","evidence":"automated"}],"verification":[]}`,
			[]Issue{{"acceptance_criteria.0", `automated criterion "a" is proved by no verification command or file assertion`}}},
		{"null optional list", strings.Replace(minimal, `"schema_version":1`, `"schema_version":1,"invariants":null`, 1),
			[]Issue{{"invariants", "must not be null (omit it instead)"}}},
		{"types", `{"schema_version":"1","objective":1,"user_outcome":"u","write_scope":"a","acceptance_criteria":[],"verification":{}}`,
			[]Issue{{"schema_version", "must be a number"}, {"objective", "must be a string"}, {"write_scope", "must be an array"},
				{"acceptance_criteria", "must have at least 1 item(s)"}, {"verification", "must be an array"}}},
		{"fractional timeout", strings.Replace(minimal, `"proves"`, `"timeout_seconds":1.5,"proves"`, 1),
			[]Issue{{"verification.0.timeout_seconds", "must be an integer"}}},
		{"too long text", strings.Replace(minimal, `"Do it"`, `"`+strings.Repeat("é", MaxTextLen+1)+`"`, 1),
			[]Issue{{"objective", "must be at most 20000 characters after trimming (has 20001)"}}},
		{"assertion too large", strings.Replace(minimal, `"schema_version":1`, `"schema_version":1,"file_assertions":[{"id":"f","path":"a","expected_utf8":"`+strings.Repeat("x", MaxExpectedBytes+1)+`","proves":["ac"]}]`, 1),
			[]Issue{{"file_assertions.0.expected_utf8", "exceeds 65536 bytes (65537 bytes)"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Lint([]byte(tt.doc)); !slices.Equal(got, tt.want) {
				t.Errorf("got %v\nwant %v", got, tt.want)
			}
		})
	}
	if got := Lint([]byte(minimal)); got != nil {
		t.Errorf("minimal contract: %v", got)
	}
	if got := Lint([]byte(`{"schema_version":1.0,"objective":"o","user_outcome":"u","write_scope":["a"],"acceptance_criteria":[{"id":"a","requirement":"r","evidence":"review"}],"verification":[]}`)); got != nil {
		t.Errorf("1.0 is the integer 1: %v", got)
	}
}

func TestApplyPathBase(t *testing.T) {
	repo := t.TempDir()
	sub := filepath.Join(repo, "pkg", "web")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(sub, link); err != nil {
		t.Fatal(err)
	}
	c := mustParse(t, `{"schema_version":1,"objective":"o","user_outcome":"u","verified_context":[{"path":".","reason":"here"}],
		"write_scope":["src"],"forbidden_scope":["src/gen/**"],
		"acceptance_criteria":[{"id":"a","requirement":"r","evidence":"automated"}],
		"verification":[{"id":"v","argv":["make"],"proves":["a"]}],"allowed_commands":[{"id":"l","argv":["lint"],"cwd":"src"}],
		"file_assertions":[{"id":"f","path":"src/out.txt","expected_utf8":"x","proves":["a"]}]}`)
	before := c.Hash()

	got, err := ApplyPathBase(c, PathBaseCwd, repo, link)
	if err != nil {
		t.Fatal(err)
	}
	if got.VerifiedContext[0].Path != "pkg/web" || got.WriteScope[0] != "pkg/web/src" || got.ForbiddenScope[0] != "pkg/web/src/gen/**" ||
		got.Verification[0].Cwd != "pkg/web" || got.AllowedCommands[0].Cwd != "pkg/web/src" || got.FileAssertions[0].Path != "pkg/web/src/out.txt" {
		t.Errorf("prefixed contract:\n%s", got.CanonicalJSON())
	}
	if c.Hash() != before {
		t.Error("ApplyPathBase modified its input")
	}
	if same, err := ApplyPathBase(c, PathBaseCwd, repo, repo); err != nil || same.Hash() != before {
		t.Errorf("cwd at the root: %v", err)
	}
	if same, err := ApplyPathBase(c, PathBaseRepository, repo, sub); err != nil || same.Hash() != before {
		t.Errorf("repository base: %v", err)
	}
	if _, err := ApplyPathBase(c, PathBaseCwd, sub, repo); err == nil {
		t.Error("a cwd outside the repository must be refused")
	}
	if _, err := ApplyPathBase(c, "elsewhere", repo, repo); err == nil {
		t.Error("an unknown path base must be refused")
	}
}

func TestPrompt(t *testing.T) {
	c := mustParse(t, `{"schema_version":1,"objective":"Add a flag","user_outcome":"Users can opt out","write_scope":["cmd"],
		"invariants":["Keep the API"],"pause_conditions":["A new dependency is needed"],
		"acceptance_criteria":[{"id":"ac","requirement":"The flag works","evidence":"automated"}],
		"verification":[{"id":"test","argv":["go","test","./cmd/<x>"],"proves":["ac"]}],
		"allowed_commands":[{"id":"vet","argv":["go","vet"],"timeout_seconds":30}]}`)
	fast := Prompt(c, LaneFast)
	deep := PromptWithDeadline(c, LaneDeep, 900)
	for _, p := range []string{fast, deep} {
		for _, want := range []string{responsibilities, "Objective: Add a flag", "User outcome: Users can opt out", "Write scope:\n- cmd",
			"Forbidden scope (always wins):\n- (none)", "Invariants:\n- Keep the API", "Pause conditions:\n- A new dependency is needed",
			footerTitle, "denies the same request 2 times", c.Hash()} {
			if !strings.Contains(p, want) {
				t.Errorf("prompt lacks %q:\n%s", want, p)
			}
		}
	}
	if !strings.HasPrefix(fast, responsibilities+"\n\nEdit task") || !strings.Contains(fast, "Do not write plans") {
		t.Errorf("fast prompt body:\n%s", fast)
	}
	if strings.Contains(fast, "[ac]") || strings.Contains(fast, "argv=") {
		t.Error("the fast prompt must not list criteria or commands")
	}
	for _, want := range []string{"Goal: implement", "plan or todo", "- [ac] (automated) The flag works",
		`- [test] cwd=. timeout=600s argv=["go","test","./cmd/<x>"] proves=ac`, `- [vet] cwd=. timeout=30s argv=["go","vet"]`, "before 900 seconds"} {
		if !strings.Contains(deep, want) {
			t.Errorf("deep prompt lacks %q:\n%s", want, deep)
		}
	}
	if !strings.Contains(fast, "before the task's execution deadline") {
		t.Error("Prompt without a deadline must say so generally")
	}
}
