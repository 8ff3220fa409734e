package engine

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
	"reasonixctl/core/baseline"
	"reasonixctl/core/contract"
	"reasonixctl/core/doctor"
	"reasonixctl/sandbox"
)

func needTools(t *testing.T, tools ...string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds real projects")
	}
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed here: %v", tool, err)
		}
	}
	if !doctor.SandboxAvailable() {
		t.Fatal("bubblewrap is required for these tests")
	}
}

func commitFiles(t *testing.T, repo string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		writeFile(t, filepath.Join(repo, name), []byte(body))
		git(t, repo, "add", name)
	}
	git(t, repo, "commit", "-q", "-m", "project")
}

func finalizeWith(h *harness, v core.TaskView, excuses []core.ExcusedCheck, criteria ...string) (core.TaskView, error) {
	rev := v.ReviewRevision
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	return h.e.Control(ctx, core.Finalize{
		TaskID: v.TaskID, ReviewSummary: "looks fine", ApprovedReviewCriteria: criteria,
		ExpectedReviewRevision: &rev, ExpectedReviewTreeHash: v.ReviewTreeHash, WaitTimeoutSeconds: intPtr(600),
		ExcusedChecks: excuses,
	})
}

// A Go module whose `go vet` already fails before the change: finalize says the failure is
// pre-existing, with the base's own output; the supervisor may then excuse it with a reason, and
// the commit names the excused check. The base runs once: a second failing finalize reuses it.
func TestPreExistingFailureIsReportedAndCanBeExcused(t *testing.T) {
	needTools(t, "go")
	scn := &acptest.Scenario{Name: "go", Turns: []acptest.Turn{{
		Steps:   []acptest.Step{{Write: &acptest.WriteFile{Path: "NOTES.md", Content: "checked\n"}}},
		Summary: "Wrote NOTES.md.",
	}}}
	h := newHarness(t, scn)
	commitFiles(t, h.repo, map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"m.go":   "package m\n\nimport \"fmt\"\n\nfunc Hello() { fmt.Printf(\"%d\\n\", \"not a number\") }\n",
	})
	res, err := h.delegate("vet", func(r *core.DelegateRequest) { r.Contract = languageContract([][]string{{"go", "vet", "./..."}}) })
	if err != nil || res.State != core.StateReviewRequired {
		t.Fatalf("delegate: %v %+v", err, res)
	}
	_, err = finalizeWith(h, res.TaskView, nil, "reads-well")
	e := mustCode(t, err, core.CodeVerificationFailed)
	if e.Details["pre_existing_failure"] != true {
		t.Fatalf("pre_existing_failure: %+v", e.Details)
	}
	base, _ := e.Details["baseline"].(*core.BaselineSummary)
	if base == nil || base.Status != core.BaselineFailed || !strings.Contains(base.LogTail, "wrong type") {
		t.Fatalf("baseline: %+v", base)
	}
	if !strings.Contains(e.Message, "fails on the base commit") {
		t.Errorf("message: %s", e.Message)
	}
	d, _ := h.e.Get(t.Context(), "vet")
	if len(d.Verification) != 1 || !d.Verification[0].Baseline.PreExisting() {
		t.Fatalf("the checks do not show the baseline: %+v", d.Verification)
	}
	cached, _ := filepath.Glob(filepath.Join(h.state, "baseline", "*.json"))
	if len(cached) != 1 {
		t.Fatalf("baseline cache: %v", cached)
	}
	st, _ := os.Stat(cached[0])

	// An excuse without a reason, or for a command the contract lacks, is refused at once.
	view := d.View
	_, err = finalizeWith(h, view, []core.ExcusedCheck{{ID: "v1", Reason: " "}}, "reads-well")
	mustCode(t, err, core.CodeInvalidRequest)
	_, err = finalizeWith(h, view, []core.ExcusedCheck{{ID: "nope", Reason: "x"}}, "reads-well")
	mustCode(t, err, core.CodeInvalidRequest)

	v, err := finalizeWith(h, view, []core.ExcusedCheck{{ID: "v1", Reason: "vet fails upstream since v0.6.0"}}, "reads-well")
	if err != nil {
		t.Fatal(err)
	}
	if v.State != core.StateCompleted || v.CommitHash == "" {
		t.Fatalf("not committed: %+v", v)
	}
	msg := git(t, h.repo, "log", "-1", "--format=%B", v.CommitHash)
	if !strings.Contains(msg, "Excused-check: v1 fails before this change too; vet fails upstream since v0.6.0") {
		t.Errorf("commit message:\n%s", msg)
	}
	if trailers := git(t, h.repo, "log", "-1", "--format=%(trailers:key=Excused-check,valueonly)", v.CommitHash); !strings.Contains(trailers, "v1 fails") {
		t.Errorf("git sees no trailer: %q", trailers)
	}
	d, _ = h.e.Get(t.Context(), "vet")
	if !d.Verification[0].Excused || d.Verification[0].ExcuseReason != "vet fails upstream since v0.6.0" {
		t.Errorf("the excuse is not recorded: %+v", d.Verification[0])
	}
	// The base ran once: the second finalize read the cached result.
	if st2, err := os.Stat(cached[0]); err != nil || !st2.ModTime().Equal(st.ModTime()) {
		t.Errorf("the baseline ran again")
	}
	if left, _ := os.ReadDir(filepath.Join(h.state, "baseline", "trees")); len(left) != 0 {
		t.Errorf("exported base trees left behind: %d", len(left))
	}
}

// A check that passes on the base and fails after the change is the change's fault: the error
// says so and it can never be excused.
func TestFailureCausedByTheChangeCannotBeExcused(t *testing.T) {
	needTools(t, "python3")
	scn := &acptest.Scenario{Name: "py", Turns: []acptest.Turn{{
		Steps: []acptest.Step{{Write: &acptest.WriteFile{Path: "NOTES.md", Content: "checked\n"}},
			{Write: &acptest.WriteFile{Path: "test_new.py", Content: "import unittest\n\nclass N(unittest.TestCase):\n    def test_new(self):\n        self.assertEqual(1, 2, 'broken by the change')\n"}}},
		Summary: "Wrote a test.",
	}}}
	h := newHarness(t, scn)
	commitFiles(t, h.repo, map[string]string{
		"pyproject.toml": "[project]\nname = \"calc\"\nversion = \"0.1.0\"\n",
		"test_calc.py":   "import unittest\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(1 + 2, 3)\n",
	})
	res, err := h.delegate("py", func(r *core.DelegateRequest) {
		r.Contract = []byte(strings.Replace(string(languageContract([][]string{{"python3", "-m", "unittest"}})), `"write_scope":["NOTES.md"]`, `"write_scope":["NOTES.md","test_new.py"]`, 1))
	})
	if err != nil || res.State != core.StateReviewRequired {
		t.Fatalf("delegate: %v %+v", err, res)
	}
	_, err = finalizeWith(h, res.TaskView, nil, "reads-well")
	e := mustCode(t, err, core.CodeVerificationFailed)
	if e.Details["pre_existing_failure"] != false || !strings.Contains(e.Message, "passes on the base commit") {
		t.Fatalf("details %+v\n%s", e.Details, e.Message)
	}
	d, _ := h.e.Get(t.Context(), "py")
	_, err = finalizeWith(h, d.View, []core.ExcusedCheck{{ID: "v1", Reason: "flaky"}}, "reads-well")
	e = mustCode(t, err, core.CodeVerificationFailed)
	if e.Details["reason"] != "not_excusable" {
		t.Fatalf("details %+v", e.Details)
	}
	d, _ = h.e.Get(t.Context(), "py")
	if d.View.State != core.StateReviewRequired || d.View.CommitHash != "" || d.Verification[0].Excused {
		t.Fatalf("after a refused excuse: %+v %+v", d.View, d.Verification)
	}
}

// The worker's code runs in verification with its task's kept cache (XDG_CACHE_HOME, GOCACHE…);
// the base run must not see what it left there, or a test the change broke by planting a file could make the base fail
// too and the failure look pre-existing, and excusable.
func TestBaseRunDoesNotSeeWhatTheChangePlanted(t *testing.T) {
	needTools(t, "python3")
	scn := &acptest.Scenario{Name: "plant", Turns: []acptest.Turn{{
		Steps: []acptest.Step{{Write: &acptest.WriteFile{Path: "NOTES.md", Content: "checked\n"}},
			{Write: &acptest.WriteFile{Path: "test_new.py", Content: "import os, unittest\n\nclass N(unittest.TestCase):\n    def test_new(self):\n" +
				"        os.makedirs(os.environ['XDG_CACHE_HOME'], exist_ok=True)\n        open(os.path.join(os.environ['XDG_CACHE_HOME'], 'planted'), 'w').close()\n        self.fail('broken by the change')\n"}}},
		Summary: "Wrote a test.",
	}}}
	h := newHarness(t, scn)
	commitFiles(t, h.repo, map[string]string{
		"pyproject.toml": "[project]\nname = \"calc\"\nversion = \"0.1.0\"\n",
		"test_calc.py": "import os, unittest\n\nclass T(unittest.TestCase):\n    def test_home(self):\n" +
			"        self.assertFalse(os.path.exists(os.path.join(os.environ['XDG_CACHE_HOME'], 'planted')))\n",
	})
	res, err := h.delegate("plant", func(r *core.DelegateRequest) {
		r.Contract = []byte(strings.Replace(string(languageContract([][]string{{"python3", "-m", "unittest"}})), `"write_scope":["NOTES.md"]`, `"write_scope":["NOTES.md","test_new.py"]`, 1))
	})
	if err != nil || res.State != core.StateReviewRequired {
		t.Fatalf("delegate: %v %+v", err, res)
	}
	_, err = finalizeWith(h, res.TaskView, nil, "reads-well")
	e := mustCode(t, err, core.CodeVerificationFailed)
	if _, err := os.Stat(filepath.Join(h.e.taskCacheDir("plant"), "xdg-cache", "planted")); err != nil {
		t.Fatalf("the change's test planted nothing in its cache: %v", err)
	}
	if e.Details["pre_existing_failure"] != false || !strings.Contains(e.Message, "passes on the base commit") {
		t.Fatalf("the base run saw the planted file: details %+v\n%s", e.Details, e.Message)
	}
}

// A baseline that cannot run is unknown, never a pre-existing failure, and is not cached.
func TestBaselineThatCannotRunIsUnknown(t *testing.T) {
	repo := newRepo(t)
	state := t.TempDir()
	b := &baseline.Commit{
		Runner: &sandbox.Runner{Bwrap: "/nonexistent/bwrap"}, StateDir: state, RepoRoot: repo,
		CommonDir: filepath.Join(repo, ".git"), Base: git(t, repo, "rev-parse", "HEAD"), CacheDir: t.TempDir(),
	}
	defer b.Close()
	v := contract.Verification{Command: contract.Command{ID: "t", Argv: []string{"test", "-f", "README"}, Cwd: ".", TimeoutSeconds: 30}}
	got := b.Run(t.Context(), &contract.Contract{Verification: []contract.Verification{v}}, v)
	if got.Status != core.BaselineUnknown || got.PreExisting() || !strings.Contains(got.Reason, "sandbox") {
		t.Fatalf("%+v", got)
	}
	if cached, _ := filepath.Glob(filepath.Join(state, "baseline", "*.json")); len(cached) != 0 {
		t.Fatalf("an unknown result was cached: %v", cached)
	}
	if err := notExcusable(core.VerificationResult{ID: "t", Baseline: got}); !strings.Contains(err.Error(), "unknown") {
		t.Fatalf("excusing an unknown baseline: %v", err)
	}
}

// A Node package whose `node --test` already fails before the change: finalize reports the
// failure as pre-existing with the base's own output; instead of excusing it, the supervisor
// amends the contract in review (drops the failing check, adds one for the tests that do pass)
// and finalize then commits with the amended checks.
func TestNodePreExistingFailureThenAmendedChecks(t *testing.T) {
	needTools(t, "node")
	scn := &acptest.Scenario{Name: "node", Turns: []acptest.Turn{{
		Steps:   []acptest.Step{{Write: &acptest.WriteFile{Path: "NOTES.md", Content: "checked\n"}}},
		Summary: "Wrote NOTES.md.",
	}}}
	h := newHarness(t, scn)
	commitFiles(t, h.repo, map[string]string{
		"package.json": `{"name":"n","version":"1.0.0","private":true,"scripts":{"test":"node --test"}}` + "\n",
		"sum.js":       "module.exports = (a, b) => a + b + 1;\n",
		"sum.test.js": "const test = require('node:test');\nconst assert = require('node:assert');\nconst sum = require('./sum');\n" +
			"test('sum', () => assert.strictEqual(sum(1, 1), 2, 'the sum is off upstream'));\n",
		"ok.test.js": "const test = require('node:test');\nconst assert = require('node:assert');\ntest('ok', () => assert.ok(true));\n",
	})
	res, err := h.delegate("node", func(r *core.DelegateRequest) { r.Contract = languageContract([][]string{{"node", "--test"}}) })
	if err != nil || res.State != core.StateReviewRequired {
		t.Fatalf("delegate: %v %+v", err, res)
	}
	_, err = finalizeWith(h, res.TaskView, nil, "reads-well")
	e := mustCode(t, err, core.CodeVerificationFailed)
	if e.Details["pre_existing_failure"] != true {
		t.Fatalf("pre_existing_failure: %+v", e.Details)
	}
	base, _ := e.Details["baseline"].(*core.BaselineSummary)
	if base == nil || base.Status != core.BaselineFailed || !strings.Contains(base.LogTail, "# fail 1") {
		t.Fatalf("baseline: %+v", base)
	}

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	v, err := h.e.Control(ctx, core.AmendChecks{TaskID: "node", DropChecks: []string{"v1"},
		AddChecks: []core.AddedCheck{{ID: "ok-tests", Argv: []string{"node", "--test", "ok.test.js"}, TimeoutSeconds: 120}}})
	if err != nil {
		t.Fatal(err)
	}
	if v.ContractHash == res.ContractHash {
		t.Fatalf("the contract did not change: %+v", v)
	}
	// "passes" lost its prover and is the supervisor's to approve now.
	v, err = finalizeWith(h, v, nil, "reads-well", "passes")
	if err != nil {
		t.Fatal(err)
	}
	if v.State != core.StateCompleted || v.CommitHash == "" {
		t.Fatalf("not committed: %+v", v)
	}
	d, _ := h.e.Get(t.Context(), "node")
	if len(d.Verification) != 1 || d.Verification[0].ID != "ok-tests" || !d.Verification[0].Passed {
		t.Fatalf("verification after amending: %+v", d.Verification)
	}
}
