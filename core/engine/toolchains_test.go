package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
	"reasonixctl/core/doctor"
	"reasonixctl/core/scaffold"
)

// languageRepo is a small real project of one language: what is committed, what is installed
// but ignored (a dependency folder), and the verification commands its users would run.
type languageRepo struct {
	name      string
	tools     []string // skip with the reason when one is missing
	committed map[string]string
	installed map[string]string // written after the commit, ignored by git
	verify    [][]string
	// prepare does what the project's user has done before delegating: its lock file written
	// and staged, its dependencies downloaded into the user's caches.
	prepare func(t *testing.T, dir string)
}

func languageRepos() []languageRepo {
	return []languageRepo{
		{
			name:  "go module with a dependency from the module cache",
			tools: []string{"go"},
			committed: map[string]string{
				"go.mod": "module example.com/m\n\ngo 1.22\n\nrequire github.com/google/uuid v1.6.0\n",
				"go.sum": "github.com/google/uuid v1.6.0 h1:NIvaJDMOsjHA8n1jAhLSgzrAzy1Hgr+hNrb57e+94F0=\n" +
					"github.com/google/uuid v1.6.0/go.mod h1:TIyPZe4MgqvfeYDBFedMoGGpEw/LqOeaOT+nhxU+yHo=\n",
				"m.go":      "package m\n\nimport \"github.com/google/uuid\"\n\nfunc ID() string { return uuid.NewString() }\n",
				"m_test.go": "package m\n\nimport \"testing\"\n\nfunc TestID(t *testing.T) {\n\tif len(ID()) != 36 {\n\t\tt.Fatal(ID())\n\t}\n}\n",
			},
			verify: [][]string{{"go", "vet", "./..."}, {"go", "test", "./..."}},
			prepare: func(t *testing.T, dir string) {
				// Into the module cache the sandbox shows read-only; a fresh machine has none.
				cmd := exec.Command("go", "mod", "download")
				cmd.Dir = dir
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("go mod download (the module proxy must be reachable): %v\n%s", err, out)
				}
			},
		},
		{
			name:  "node package tested with node --test",
			tools: []string{"node", "npm"},
			committed: map[string]string{
				"package.json": `{"name":"n","version":"1.0.0","private":true,"scripts":{"test":"node --test"}}` + "\n",
				"sum.test.js":  "const test = require('node:test');\nconst assert = require('node:assert');\ntest('sum', () => assert.strictEqual(1 + 1, 2));\n",
			},
			verify: [][]string{{"npm", "test"}},
		},
		{
			name:  "npm package with a dependency in node_modules",
			tools: []string{"node", "npm"},
			committed: map[string]string{
				".gitignore":   "node_modules/\n",
				"package.json": `{"name":"p","version":"1.0.0","private":true,"scripts":{"test":"node test.js"},"dependencies":{"answer":"1.0.0"}}` + "\n",
				"test.js":      "const answer = require('answer');\nif (answer !== 42) { console.error('answer is', answer); process.exit(1); }\nconsole.log('ok');\n",
			},
			installed: map[string]string{
				"node_modules/answer/package.json": `{"name":"answer","version":"1.0.0","main":"index.js"}` + "\n",
				"node_modules/answer/index.js":     "module.exports = 42;\n",
			},
			verify: [][]string{{"npm", "test"}},
		},
		{
			name:  "python package tested with unittest",
			tools: []string{"python3"},
			committed: map[string]string{
				"pyproject.toml": "[project]\nname = \"calc\"\nversion = \"0.1.0\"\n",
				"calc.py":        "def add(a, b):\n    return a + b\n",
				"test_calc.py":   "import unittest\nimport calc\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(calc.add(1, 2), 3)\n\nif __name__ == '__main__':\n    unittest.main()\n",
			},
			verify: [][]string{{"python3", "-m", "unittest"}},
		},
		{
			name:  "rust crate tested offline",
			tools: []string{"cargo"},
			committed: map[string]string{
				".gitignore": "target/\n",
				"Cargo.toml": "[package]\nname = \"c\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
				"src/lib.rs": "pub fn add(a: u32, b: u32) -> u32 { a + b }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() { assert_eq!(super::add(1, 2), 3); }\n}\n",
			},
			verify: [][]string{{"cargo", "test", "--offline"}},
			prepare: func(t *testing.T, dir string) {
				cmd := exec.Command("cargo", "generate-lockfile", "--offline")
				cmd.Dir = dir
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("cargo generate-lockfile: %v\n%s", err, out)
				}
				git(t, dir, "add", "Cargo.lock")
			},
		},
	}
}

// Each language's natural verifiers run in the sandbox, offline and without the user's HOME,
// and the task commits.
func TestVerificationWorksOnRealProjects(t *testing.T) {
	if testing.Short() {
		t.Skip("builds real projects")
	}
	if !doctor.SandboxAvailable() {
		t.Fatal("bubblewrap is required for these tests")
	}
	for _, lr := range languageRepos() {
		t.Run(lr.name, func(t *testing.T) {
			for _, tool := range lr.tools {
				if _, err := exec.LookPath(tool); err != nil {
					t.Skipf("%s is not installed here: %v", tool, err)
				}
			}
			scn := &acptest.Scenario{Name: "lang", Turns: []acptest.Turn{{
				Steps:   []acptest.Step{{Write: &acptest.WriteFile{Path: "NOTES.md", Content: "checked\n"}}},
				Summary: "Wrote NOTES.md.",
			}}}
			h := newHarness(t, scn)
			for name, body := range lr.committed {
				writeFile(t, filepath.Join(h.repo, name), []byte(body))
				git(t, h.repo, "add", name)
			}
			if lr.prepare != nil {
				lr.prepare(t, h.repo)
			}
			git(t, h.repo, "commit", "-q", "-m", "project")
			for name, body := range lr.installed {
				writeFile(t, filepath.Join(h.repo, name), []byte(body))
			}
			// The contract is the one `reasonixctl contract init` drafts for the repository.
			draft, err := scaffold.New(scaffold.Options{Dir: h.repo, Objective: "Note that the project was checked",
				UserOutcome: "NOTES.md says checked", WriteScope: []string{"NOTES.md"}})
			if err != nil {
				t.Fatal(err)
			}
			var found [][]string
			for _, c := range draft.Checks {
				found = append(found, c.Argv)
			}
			if !reflect.DeepEqual(found, lr.verify) {
				t.Fatalf("contract init found %v, want %v", found, lr.verify)
			}
			res, err := h.delegate("lang", func(r *core.DelegateRequest) { r.Contract = draft.JSON })
			if err != nil {
				t.Fatal(err)
			}
			if res.State != core.StateReviewRequired {
				t.Fatalf("state %s: %s", res.State, res.Reason)
			}
			// The first verification of a task builds the toolchain's caches (Go's standard
			// library included) into the task's private cache: allow it the time.
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
			defer cancel()
			rev := res.ReviewRevision
			v, err := h.e.Control(ctx, core.Finalize{
				TaskID: "lang", ReviewSummary: "checked", ApprovedReviewCriteria: []string{"objective-met"},
				ExpectedReviewRevision: &rev, ExpectedReviewTreeHash: res.ReviewTreeHash, WaitTimeoutSeconds: intPtr(600),
			})
			if err != nil {
				d, _ := h.e.Get(t.Context(), "lang")
				for _, vr := range d.Verification {
					log, _ := os.ReadFile(vr.LogPath)
					t.Logf("%s:\n%s", vr.ID, log)
				}
				t.Fatal(err)
			}
			if v.State != core.StateCompleted || v.CommitHash == "" {
				t.Fatalf("not committed: %+v", v)
			}
			files := git(t, h.repo, "show", "--name-only", "--format=", v.CommitHash)
			if files != "NOTES.md" {
				t.Fatalf("commit holds %q", files)
			}
			if _, err := os.Stat(h.e.taskCacheDir("lang")); err != nil {
				t.Fatalf("no private cache: %v", err)
			}
		})
	}
}

func languageContract(verify [][]string) json.RawMessage {
	type verification struct {
		ID     string   `json:"id"`
		Argv   []string `json:"argv"`
		Proves []string `json:"proves"`
	}
	var vs []verification
	for i, argv := range verify {
		vs = append(vs, verification{ID: fmt.Sprintf("v%d", i+1), Argv: argv, Proves: []string{"passes"}})
	}
	c := map[string]any{
		"schema_version": 1,
		"objective":      "Note that the project was checked",
		"user_outcome":   "NOTES.md says checked and the project's own checks pass",
		"write_scope":    []string{"NOTES.md"},
		"acceptance_criteria": []map[string]string{
			{"id": "passes", "requirement": "the project's checks pass", "evidence": "automated"},
			{"id": "reads-well", "requirement": "the note reads well", "evidence": "review"},
		},
		"verification": vs,
	}
	b, _ := json.Marshal(c)
	return b
}

func intPtr(n int) *int { return &n }

// A failing test's own words reach the supervisor in the error, with the command, its exit
// code and the log's path.
func TestFailedVerificationCarriesItsEvidence(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skipf("python3 is not installed here: %v", err)
	}
	scn := &acptest.Scenario{Name: "lang", Turns: []acptest.Turn{{
		Steps: []acptest.Step{{Write: &acptest.WriteFile{Path: "NOTES.md", Content: "checked\n"}}},
	}}}
	h := newHarness(t, scn)
	writeFile(t, filepath.Join(h.repo, "test_calc.py"), []byte("import unittest\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(1 + 2, 4, 'the sum is off by one')\n"))
	git(t, h.repo, "add", "test_calc.py")
	git(t, h.repo, "commit", "-q", "-m", "project")
	res, err := h.delegate("failing", func(r *core.DelegateRequest) {
		r.Contract = languageContract([][]string{{"python3", "-m", "unittest"}})
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.finalize(res.TaskView, "reads-well")
	e := mustCode(t, err, core.CodeVerificationFailed)
	for _, want := range []string{"python3 -m unittest exited 1", "the sum is off by one", "FAILED (failures=1)", "v1.log"} {
		if !strings.Contains(e.Message, want) {
			t.Errorf("message lacks %q:\n%s", want, e.Message)
		}
	}
	if e.Details["log_path"] == "" || e.Details["argv"] == nil {
		t.Errorf("details: %+v", e.Details)
	}
	d, _ := h.e.Get(t.Context(), "failing")
	if d.View.State != core.StateReviewRequired {
		t.Fatalf("state %s, want review_required", d.View.State)
	}
}

// What the worker says before asking is journaled before the question, so the person reads the
// agent's last words first (and the prompt can quote them).
func TestTextBeforeAQuestionIsJournaledFirst(t *testing.T) {
	scn := &acptest.Scenario{Name: "ask", Turns: []acptest.Turn{{Steps: []acptest.Step{
		{Text: "I need to know which greeting you prefer before writing it.", Chunks: 6},
		{Ask: &acptest.Question{Question: "Which greeting?", Options: []acptest.Choice{{Label: "hello"}, {Label: "hi"}}}},
	}}}}
	h := newHarness(t, scn)
	res, err := h.delegate("asks")
	if err != nil {
		t.Fatal(err)
	}
	if res.State != core.StateWaitingInput {
		t.Fatalf("state %s", res.State)
	}
	var order []string
	for _, ev := range journal(t, h, "asks") {
		if ev.Type == core.EventAgentMessage || ev.Type == core.EventInteractionWaiting {
			order = append(order, ev.Type)
		}
	}
	if len(order) < 2 || order[0] != core.EventAgentMessage || order[len(order)-1] != core.EventInteractionWaiting {
		t.Fatalf("journal order %v", order)
	}
}
