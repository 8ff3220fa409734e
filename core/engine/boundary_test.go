package engine

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"reasonixctl/core"
	"reasonixctl/core/doctor"
)

// Attacks on the verification boundary (issue 36): what the checks see must be exactly the
// reviewed tree. Files inside a nested folder named .git and empty folders never appear in
// `git status --ignored`, so the review neither lists nor refuses them; a check must not see
// them either.

// needBoundaryTools skips without the sandbox or the programs a case runs.
func needBoundaryTools(t *testing.T, tools ...string) {
	t.Helper()
	if !doctor.SandboxAvailable() {
		t.Fatal("bubblewrap is required for these tests")
	}
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed here: %v", tool, err)
		}
	}
}

// commitToRepo adds files to the harness's repository in one commit, before any delegation.
func commitToRepo(t *testing.T, h *harness, files map[string]string) {
	t.Helper()
	for name, body := range files {
		writeFile(t, filepath.Join(h.repo, name), []byte(body))
		git(t, h.repo, "add", name)
	}
	git(t, h.repo, "commit", "-q", "-m", "project")
}

// boundaryContract is happyContract with the verification commands replaced.
func boundaryContract(t *testing.T, verify ...[]string) string {
	t.Helper()
	var c map[string]any
	if err := json.Unmarshal([]byte(happyContract), &c); err != nil {
		t.Fatal(err)
	}
	var vs []any
	for i, argv := range verify {
		vs = append(vs, map[string]any{"id": "check" + string(rune('a'+i)), "argv": argv, "proves": []string{"result"}})
	}
	c["verification"] = vs
	b, _ := json.Marshal(c)
	return string(b)
}

// refusedAtReview reports whether the review refused the planted worktree (paused with its
// reason, nothing committed), which is a safe outcome too; otherwise the task must be in review.
func refusedAtReview(t *testing.T, h *harness, r *taskRecord) bool {
	t.Helper()
	switch r.State {
	case core.StateReviewRequired:
		return false
	case core.StatePaused:
		t.Logf("the review refused the planted worktree: %s: %s", r.Phase, r.Reason)
		assertBranchAtBase(t, h, r.TaskID)
		return true
	}
	t.Fatalf("the planted worktree did not reach review: %s %s: %s", r.State, r.Phase, r.Reason)
	return false
}

// verificationLogs is the text of every verification log the task has.
func verificationLogs(t *testing.T, h *harness, id string) string {
	t.Helper()
	var out strings.Builder
	d, err := h.e.Get(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range d.Verification {
		b, _ := os.ReadFile(v.LogPath)
		out.WriteString("--- " + v.ID + "\n")
		out.Write(b)
	}
	return out.String()
}

// A test file inside a nested folder named .git is not in the review (git never lists it), so a
// find-based test runner must not run it: the checks see the reviewed tree only. The hidden test
// says it ran, in its output and with a marker file; neither may appear. Finalize may then
// commit what the reviewed tree proves, or refuse with a typed error.
func TestBoundaryChecksDoNotRunTestsHiddenInANestedGitFolder(t *testing.T) {
	needBoundaryTools(t, "python3", "find", "make")
	h := newHarness(t, repairScenario())
	// The project's test runner runs every *_test.py that find lists.
	commitToRepo(t, h, map[string]string{
		"Makefile":         "test:\n\t@for f in $$(find . -name '*_test.py' | sort); do echo \"running $$f\"; python3 \"$$f\" || exit 1; done\n",
		"tests/ok_test.py": "print('reviewed test ran')\n",
	})
	const marker = "HIDDEN-NESTED-GIT-TEST-RAN"
	r := plantAndReview(t, h, "nested-git", boundaryContract(t, []string{"make", "test"}), func(wt string) {
		writeFile(t, filepath.Join(wt, "tests", "fixtures", ".git", "hook_test.py"), []byte(
			"import os\nprint('"+marker+"')\nopen(os.path.join(os.getcwd(), 'hidden-test-ran.marker'), 'w').write('ran\\n')\n"))
	})
	if refusedAtReview(t, h, r) {
		return
	}
	v, err := h.finalize(r.view(), "looks-right")
	logs := verificationLogs(t, h, "nested-git")
	if strings.Contains(logs, marker) {
		t.Errorf("ATTACK SUCCEEDED: the check ran tests/fixtures/.git/hook_test.py, a file the review never showed (finalize: state %s, err %v); the check's log:\n%s",
			v.State, err, logs)
	}
	if _, serr := os.Stat(filepath.Join(r.Worktree, "hidden-test-ran.marker")); serr == nil {
		t.Errorf("ATTACK SUCCEEDED: the hidden test under tests/fixtures/.git ran during verification and wrote hidden-test-ran.marker into the worktree")
	}
	if err != nil {
		if ce := core.AsError(err); ce.Code == core.CodeInternalError {
			t.Fatalf("finalize failed without a refusal of its own: %v", err)
		}
		assertBranchAtBase(t, h, "nested-git")
		return
	}
	if v.State != core.StateCompleted {
		t.Fatalf("finalize: state %s", v.State)
	}
	if files := git(t, h.repo, "show", "--name-only", "--format=", v.CommitHash); files != "result.txt" {
		t.Fatalf("the commit holds %q, want result.txt only", files)
	}
}

// An empty folder is not in the review (git does not track folders), so it must not change
// what a check proves: with an empty check/ folder beside the reviewed Makefile, `make check`
// says "check is up to date" and runs nothing. The reviewed result.txt says ok where the
// Makefile's check wants good, so finalize must fail verification and commit nothing.
func TestBoundaryEmptyFolderCannotSatisfyACheck(t *testing.T) {
	needBoundaryTools(t, "make", "grep")
	h := newHarness(t, repairScenario())
	commitToRepo(t, h, map[string]string{
		"Makefile": "check:\n\tgrep -qx good result.txt\n",
	})
	r := plantAndReview(t, h, "empty-dir", boundaryContract(t, []string{"make", "check"}), func(wt string) {
		if err := os.Mkdir(filepath.Join(wt, "check"), 0o755); err != nil {
			t.Fatal(err)
		}
	})
	if refusedAtReview(t, h, r) {
		return
	}
	v, err := h.finalize(r.view(), "looks-right")
	if err == nil {
		committed := git(t, h.repo, "show", v.CommitHash+":result.txt")
		t.Fatalf("ATTACK SUCCEEDED: an empty check/ folder, which no review shows, made `make check` pass without running, and finalize committed result.txt = %q (state %s, commit %s); the check's log:\n%s",
			committed, v.State, v.CommitHash, verificationLogs(t, h, "empty-dir"))
	}
	ce := mustCode(t, err, core.CodeVerificationFailed)
	if !strings.Contains(ce.Message, "make check") {
		t.Errorf("the failure does not name the check: %s", ce.Message)
	}
	assertBranchAtBase(t, h, "empty-dir")
}
