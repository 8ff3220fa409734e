package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
	"reasonixctl/core/gitx"
)

// The secret the hostile objects carry; it matches the sk- pattern.
const plantedSecret = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"

// repairScenario writes result.txt in the first turn; every later (repair) turn just answers.
func repairScenario() *acptest.Scenario {
	return &acptest.Scenario{
		Turns: []acptest.Turn{{Steps: []acptest.Step{writeResult()}}},
		After: &acptest.Turn{Steps: []acptest.Step{{Text: "Repaired."}}},
	}
}

func withScope(scope ...string) string {
	b, _ := json.Marshal(scope)
	return strings.Replace(happyContract, `"write_scope": ["result.txt"]`, `"write_scope": `+string(b), 1)
}

// plantAndReview delegates a task that writes result.txt, then lets plant change the worktree
// the way a command allowed by the contract could have, and asks for a repair round whose end
// is a new review of the planted worktree. It returns the task after that review.
func plantAndReview(t *testing.T, h *harness, id, contractJSON string, plant func(wt string)) *taskRecord {
	t.Helper()
	res, err := h.delegate(id, func(r *core.DelegateRequest) { r.Contract = json.RawMessage(contractJSON) })
	if err != nil || res.State != core.StateReviewRequired {
		t.Fatalf("delegate: %v %+v", err, res.TaskView)
	}
	plant(res.Worktree)
	msg := "repair"
	if _, err := h.e.Control(context.Background(), core.Steer{TaskID: id, Message: msg}); err != nil {
		t.Fatal(err)
	}
	r, timedOut, err := h.e.waitFor(context.Background(), id, 30*time.Second, func(r *taskRecord) bool {
		return r.State == core.StatePaused || (r.State == core.StateReviewRequired && !r.RepairActive)
	})
	if err != nil || timedOut {
		t.Fatalf("no review after the repair round: %v %+v", err, r.view())
	}
	return r
}

// assertRefusedAtReview checks that the review paused the task naming the path and the reason
// (with its hint), and that nothing was committed.
func assertRefusedAtReview(t *testing.T, h *harness, r *taskRecord, reason string, paths ...string) {
	t.Helper()
	if r.State != core.StatePaused || r.Phase != core.PhasePostflightFailed {
		t.Fatalf("want paused %s, got %s %s: %s", core.PhasePostflightFailed, r.State, r.Phase, r.Reason)
	}
	if !strings.Contains(r.Reason, reason+": ") || !strings.Contains(r.Reason, core.RefusalHint(reason)) {
		t.Fatalf("reason %q does not give %s and its hint", r.Reason, reason)
	}
	for _, p := range paths {
		if !strings.Contains(r.Reason, p) {
			t.Fatalf("reason %q does not name %s", r.Reason, p)
		}
	}
	if strings.Contains(r.Reason, plantedSecret) {
		t.Fatalf("reason shows the secret: %q", r.Reason)
	}
	if reason == core.RefusedHeadMoved {
		// The worker's own commit is all the branch holds: nothing was committed on top of it.
		if log := git(t, h.repo, "log", "--format=%s", "main..reasonix/"+r.TaskID); log != "worker committed" {
			t.Fatalf("branch holds %q", log)
		}
		return
	}
	assertBranchAtBase(t, h, r.TaskID)
}

func assertBranchAtBase(t *testing.T, h *harness, id string) {
	t.Helper()
	base := git(t, h.repo, "rev-parse", "main")
	if got := git(t, h.repo, "rev-parse", "refs/heads/reasonix/"+id); got != base {
		t.Fatalf("branch reasonix/%s moved to %s (base %s)", id, got, base)
	}
}

func relink(t *testing.T, target, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path string, content []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
}

// largeWithSecret is 11 MiB of text whose last line holds the secret.
func largeWithSecret() []byte {
	line := strings.Repeat("x", 1023) + "\n"
	return []byte(strings.Repeat(line, 11<<10) + "key = " + plantedSecret + "\n")
}

// Each hostile object, planted before review: the review refuses it with its own
// reason and nothing is committed.
func TestHostileObjectsAreRefusedAtReview(t *testing.T) {
	outside := t.TempDir()
	cases := []struct {
		name, contract, reason string
		paths                  []string
		plant                  func(t *testing.T, wt string)
	}{
		{"symlink-to-readme", happyContract, core.RefusedSymlinkScope, []string{"result.txt", "README"},
			func(t *testing.T, wt string) { relink(t, "README", filepath.Join(wt, "result.txt")) }},
		{"dangling-symlink", happyContract, core.RefusedSymlinkDangling, []string{"result.txt", "missing.txt"},
			func(t *testing.T, wt string) { relink(t, "missing.txt", filepath.Join(wt, "result.txt")) }},
		{"symlink-out-of-repo", withScope("result.txt", "link"), core.RefusedSymlinkEscape, []string{"link"},
			func(t *testing.T, wt string) {
				relink(t, outside, filepath.Join(wt, "link"))
				writeFile(t, filepath.Join(wt, "link", "nested", "new.txt"), []byte("written through the link\n"))
			}},
		{"symlink-secret-target", happyContract, core.RefusedSecret, []string{"result.txt", "symlink target text"},
			func(t *testing.T, wt string) { relink(t, plantedSecret, filepath.Join(wt, "result.txt")) }},
		{"large-file-with-secret", happyContract, core.RefusedTooLarge, []string{"result.txt", "bytes, over the 10485760-byte limit"},
			func(t *testing.T, wt string) { writeFile(t, filepath.Join(wt, "result.txt"), largeWithSecret()) }},
		{"secret-in-file", happyContract, core.RefusedSecret, []string{"result.txt", "line 2"},
			func(t *testing.T, wt string) {
				writeFile(t, filepath.Join(wt, "result.txt"), []byte("ok\nkey = "+plantedSecret+"\n"))
			}},
		{"nested-repository", withScope("result.txt", "vendor", "vendor/**"), core.RefusedNestedRepository, []string{"vendor/evil", "gitlink"},
			func(t *testing.T, wt string) {
				nested := filepath.Join(wt, "vendor", "evil")
				git(t, wt, "init", "-q", nested)
				writeFile(t, filepath.Join(nested, "evil.go"), []byte("package evil\n"))
				git(t, nested, "add", "evil.go")
				git(t, nested, "commit", "-q", "-m", "evil")
			}},
		{"nested-repository-without-commit", withScope("result.txt", "vendor", "vendor/**"), core.RefusedNestedRepository, []string{"vendor/empty"},
			func(t *testing.T, wt string) {
				git(t, wt, "init", "-q", filepath.Join(wt, "vendor", "empty"))
				writeFile(t, filepath.Join(wt, "vendor", "empty", "x.txt"), []byte("x\n"))
			}},
		{"secret-in-a-path-name", withScope("**"), core.RefusedSensitive, []string{"[REDACTED].pem"},
			func(t *testing.T, wt string) { writeFile(t, filepath.Join(wt, plantedSecret+".pem"), []byte("x\n")) }},
		{"credential-under-wide-scope", withScope("**"), core.RefusedSensitive, []string{".env"},
			func(t *testing.T, wt string) { writeFile(t, filepath.Join(wt, ".env"), []byte("TOKEN=abc\n")) }},
		{"symlink-to-credential", withScope("**"), core.RefusedSymlinkSensitive, []string{"result.txt", "conf/.npmrc"},
			func(t *testing.T, wt string) {
				writeFile(t, filepath.Join(wt, "conf", "notes.txt"), []byte("n\n"))
				relink(t, "conf/.npmrc", filepath.Join(wt, "result.txt"))
			}},
		{"worker-commit", happyContract, core.RefusedHeadMoved, []string{"commits since the base"},
			func(t *testing.T, wt string) {
				git(t, wt, "add", "result.txt")
				git(t, wt, "commit", "-q", "-m", "worker committed")
			}},
		{"detached-head", happyContract, core.RefusedWrongBranch, []string{"detached"},
			func(t *testing.T, wt string) { git(t, wt, "switch", "-q", "--detach") }},
	}
	// The whole reason text of the cases with one refusal: "path (detail)" after the reason.
	exact := map[string]string{
		"symlink-to-readme":                "result.txt (links to README, which write_scope does not allow)",
		"dangling-symlink":                 `result.txt (links to "missing.txt"; missing.txt does not exist in the change)`,
		"symlink-out-of-repo":              `link (links to "` + outside + `", outside the repository)`,
		"symlink-secret-target":            "result.txt (symlink target text, line 1)",
		"large-file-with-secret":           "result.txt (11534387 bytes, over the 10485760-byte limit; not scanned)",
		"secret-in-file":                   "result.txt (line 2)",
		"nested-repository":                "vendor/evil (a gitlink (mode 160000) to a commit of another repository)",
		"nested-repository-without-commit": "vendor/empty (a repository of its own without a commit checked out)",
		"secret-in-a-path-name":            "[REDACTED].pem (a credential file)",
		"credential-under-wide-scope":      ".env (a credential file)",
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, repairScenario())
			r := plantAndReview(t, h, tc.name, tc.contract, func(wt string) { tc.plant(t, wt) })
			assertRefusedAtReview(t, h, r, tc.reason, tc.paths...)
			if item, ok := exact[tc.name]; ok {
				want := "the change cannot be committed: " + tc.reason + ": " + item + ". Hint: " + core.RefusalHint(tc.reason)
				if r.Reason != want {
					t.Fatalf("reason\n got %q\nwant %q", r.Reason, want)
				}
			}
			if tc.reason == core.RefusedHeadMoved || tc.reason == core.RefusedWrongBranch {
				if !strings.HasPrefix(r.Reason, "ownership_ambiguous: ") {
					t.Fatalf("reason %q", r.Reason)
				}
			}
			if tc.reason == core.RefusedSensitive && strings.Contains(r.Reason, core.RefusedOutsideScope) {
				t.Fatalf("a credential file is reported as out of scope: %q", r.Reason)
			}
		})
	}
}

// A path under a directory that became a symlink is refused as such, and the link itself for
// where it leads.
func TestPathUnderSymlinkedDirectoryIsRefused(t *testing.T) {
	h := newHarness(t, repairScenario())
	writeFile(t, filepath.Join(h.repo, "lib", "a.txt"), []byte("a\n"))
	writeFile(t, filepath.Join(h.repo, "docs", "a.txt"), []byte("d\n"))
	git(t, h.repo, "add", "-A")
	git(t, h.repo, "commit", "-q", "-m", "lib and docs")
	r := plantAndReview(t, h, "under-link", withScope("result.txt", "lib", "lib/**"), func(wt string) {
		relink(t, "docs", filepath.Join(wt, "lib"))
	})
	assertRefusedAtReview(t, h, r, core.RefusedUnderSymlink, "lib/a.txt")
	if !strings.Contains(r.Reason, core.RefusedSymlinkScope+": lib (links to docs") {
		t.Fatalf("reason %q does not refuse the link itself", r.Reason)
	}
}

// A file just under the size limit is scanned to its last line.
func TestLargeFileUnderTheLimitIsScannedToTheEnd(t *testing.T) {
	h := newHarness(t, repairScenario())
	line := strings.Repeat("x", 1023) + "\n"
	content := []byte(strings.Repeat(line, 9<<10) + "key = " + plantedSecret + "\n")
	r := plantAndReview(t, h, "nine-mib", happyContract, func(wt string) {
		writeFile(t, filepath.Join(wt, "result.txt"), content)
	})
	assertRefusedAtReview(t, h, r, core.RefusedSecret, "result.txt", "line 9217")
}

// saveUncheckedReview records the worktree as the task's review without judging it, as a
// review stored by a version without these checks would be; finalize must judge it itself.
func saveUncheckedReview(t *testing.T, h *harness, id string) core.TaskView {
	t.Helper()
	r, err := h.e.load(id)
	if err != nil {
		t.Fatal(err)
	}
	rev, err := gitx.BuildReview(context.Background(), h.e.worktreeOf(r))
	if err != nil {
		t.Fatal(err)
	}
	if err := h.e.saveReview(context.Background(), id, rev, func(*taskRecord) ([]newEvent, error) { return nil, nil }); err != nil {
		t.Fatal(err)
	}
	d, err := h.e.Get(context.Background(), id)
	if err != nil || d.View.State != core.StateReviewRequired {
		t.Fatalf("%v %+v", err, d.View)
	}
	return d.View
}

// Finalize judges the objects it would commit, whatever the stored review says.
func TestFinalizeRefusesHostileObjectsInTheReviewedTree(t *testing.T) {
	outside := t.TempDir()
	cases := []struct {
		name, contract string
		code           core.Code
		reason         string
		plant          func(t *testing.T, wt string)
	}{
		{"fin-symlink-escape", withScope("result.txt", "link"), core.CodeScopeViolation, core.RefusedSymlinkEscape,
			func(t *testing.T, wt string) { relink(t, outside, filepath.Join(wt, "link")) }},
		{"fin-symlink-readme", happyContract, core.CodeScopeViolation, core.RefusedSymlinkScope,
			func(t *testing.T, wt string) { relink(t, "README", filepath.Join(wt, "result.txt")) }},
		{"fin-symlink-secret", happyContract, core.CodeSecretDetected, core.RefusedSecret,
			func(t *testing.T, wt string) { relink(t, plantedSecret, filepath.Join(wt, "result.txt")) }},
		{"fin-secret", happyContract, core.CodeSecretDetected, core.RefusedSecret,
			func(t *testing.T, wt string) {
				writeFile(t, filepath.Join(wt, "result.txt"), []byte("ok\nkey = "+plantedSecret+"\n"))
			}},
		{"fin-large", happyContract, core.CodeVerificationFailed, core.RefusedTooLarge,
			func(t *testing.T, wt string) { writeFile(t, filepath.Join(wt, "result.txt"), largeWithSecret()) }},
		{"fin-gitlink", withScope("result.txt", "vendor", "vendor/**"), core.CodeScopeViolation, core.RefusedNestedRepository,
			func(t *testing.T, wt string) {
				nested := filepath.Join(wt, "vendor", "evil")
				git(t, wt, "init", "-q", nested)
				writeFile(t, filepath.Join(nested, "evil.go"), []byte("package evil\n"))
				git(t, nested, "add", "evil.go")
				git(t, nested, "commit", "-q", "-m", "evil")
			}},
		{"fin-credential", withScope("**"), core.CodeScopeViolation, core.RefusedSensitive,
			func(t *testing.T, wt string) { writeFile(t, filepath.Join(wt, ".env"), []byte("TOKEN=abc\n")) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil)
			res, err := h.delegate(tc.name, func(r *core.DelegateRequest) { r.Contract = json.RawMessage(tc.contract) })
			if err != nil || res.State != core.StateReviewRequired {
				t.Fatalf("delegate: %v %+v", err, res.TaskView)
			}
			tc.plant(t, res.Worktree)
			v := saveUncheckedReview(t, h, tc.name)
			_, err = h.finalize(v, "looks-right")
			ce := mustCode(t, err, tc.code)
			if ce.Details["reason"] != tc.reason || !strings.Contains(ce.Message, core.RefusalHint(tc.reason)) {
				t.Fatalf("error %s %q details %s", ce.Code, ce.Message, toJSON(ce.Details))
			}
			if strings.Contains(toJSON(ce), plantedSecret) {
				t.Fatalf("the error shows the secret: %s", toJSON(ce))
			}
			d, _ := h.e.Get(context.Background(), tc.name)
			if d.View.State != core.StateReviewRequired || d.View.Phase != core.PhaseRepairRequired || len(d.Verification) != 0 {
				t.Fatalf("after: %+v, verification %v", d.View, d.Verification)
			}
			assertBranchAtBase(t, h, tc.name)
			if staged := git(t, res.Worktree, "diff", "--cached", "--name-only"); staged != "" {
				t.Fatalf("staged: %s", staged)
			}
		})
	}
}

// A source edit in the write scope made at any finalize checkpoint pauses the task with that
// checkpoint and the collision payload, before the next step runs; nothing is committed.
func TestEveryFinalizeCheckpointGuardsAgainstSourceCollisions(t *testing.T) {
	for _, cp := range []string{"finalize_start", "after_verification", "before_staging", "before_commit", "immediately_before_commit"} {
		t.Run(cp, func(t *testing.T) {
			h := newHarness(t, nil)
			id := strings.ReplaceAll(cp, "_", "-")
			res, err := h.delegate(id)
			if err != nil || res.State != core.StateReviewRequired {
				t.Fatalf("delegate: %v %+v", err, res.TaskView)
			}
			hits := 0
			hook := func(task, at string) {
				if task == id && at == cp {
					hits++
					writeFile(t, filepath.Join(h.repo, "result.txt"), []byte("mine\n"))
				}
			}
			checkpointHook.Store(&hook)
			t.Cleanup(func() { checkpointHook.Store(nil) })
			_, err = h.finalize(res.TaskView, "looks-right")
			ce := mustCode(t, err, core.CodeOwnershipAmbiguous)
			if ce.NextAction != core.NextResolveSourceCollision || hits != 1 {
				t.Fatalf("next action %s, hook ran %d times", ce.NextAction, hits)
			}
			d, _ := h.e.Get(context.Background(), id)
			sc := d.View.SourceCollision
			if d.View.State != core.StatePaused || d.View.Phase != core.PhaseSourceCollision || sc == nil {
				t.Fatalf("view %+v", d.View)
			}
			if sc.Checkpoint != cp || strings.Join(sc.DirtyPaths, ",") != "result.txt" || len(sc.CommittedPaths) != 0 ||
				strings.Join(sc.OverlappingPaths, ",") != "result.txt" || sc.Unavailable || sc.BaseCommit != sc.SourceHead {
				t.Fatalf("collision %+v", sc)
			}
			if got, ok := ce.Details["source_collision"].(*core.SourceCollision); !ok || got.Checkpoint != cp {
				t.Fatalf("error details %s", toJSON(ce.Details))
			}
			// Verification runs only after finalize_start has passed.
			if ran := len(d.Verification) > 0; ran != (cp != "finalize_start") {
				t.Fatalf("verification ran: %v at %s", ran, cp)
			}
			assertBranchAtBase(t, h, id)
		})
	}
}

// A commit in the source checkout that touches the write scope is reported as committed paths.
func TestCommittedSourceCollisionAtFinalizeStart(t *testing.T) {
	h := newHarness(t, nil)
	res, err := h.delegate("committed")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(h.repo, "result.txt"), []byte("mine\n"))
	git(t, h.repo, "add", "result.txt")
	git(t, h.repo, "commit", "-q", "-m", "mine")
	_, err = h.finalize(res.TaskView, "looks-right")
	mustCode(t, err, core.CodeOwnershipAmbiguous)
	d, _ := h.e.Get(context.Background(), "committed")
	sc := d.View.SourceCollision
	if sc == nil || sc.Checkpoint != "finalize_start" || strings.Join(sc.CommittedPaths, ",") != "result.txt" ||
		len(sc.DirtyPaths) != 0 || sc.SourceHead == sc.BaseCommit {
		t.Fatalf("collision %+v", sc)
	}
	if got := git(t, h.repo, "rev-parse", "refs/heads/reasonix/committed"); got != sc.BaseCommit {
		t.Fatalf("branch moved to %s", got)
	}
}

// Content the scan cannot read is refused, naming the file, not skipped: here the reviewed blob
// has gone from the object database.
func TestUnreadableContentFailsClosedAtFinalize(t *testing.T) {
	h := newHarness(t, nil)
	res, err := h.delegate("unreadable")
	if err != nil || res.State != core.StateReviewRequired {
		t.Fatalf("delegate: %v %+v", err, res.TaskView)
	}
	blob := git(t, res.Worktree, "rev-parse", res.ReviewTreeHash+":result.txt")
	common := git(t, res.Worktree, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err := os.Remove(filepath.Join(common, "objects", blob[:2], blob[2:])); err != nil {
		t.Fatal(err)
	}
	_, err = h.finalize(res.TaskView, "looks-right")
	ce := mustCode(t, err, core.CodeSecretDetected)
	if ce.Details["reason"] != core.RefusedUnscannable || !strings.Contains(ce.Message, "result.txt") ||
		!strings.Contains(ce.Message, core.RefusalHint(core.RefusedUnscannable)) {
		t.Fatalf("error %q details %s", ce.Message, toJSON(ce.Details))
	}
	d, _ := h.e.Get(context.Background(), "unreadable")
	if d.View.State != core.StateReviewRequired || len(d.Verification) != 0 {
		t.Fatalf("after: %+v", d.View)
	}
	assertBranchAtBase(t, h, "unreadable")
}

// A repair steer is guarded too: a collision at before_steer pauses the task without using a
// repair round.
func TestSteerIsGuardedAgainstSourceCollisions(t *testing.T) {
	h := newHarness(t, repairScenario())
	res, err := h.delegate("steer-guard")
	if err != nil || res.State != core.StateReviewRequired {
		t.Fatalf("delegate: %v %+v", err, res.TaskView)
	}
	hook := func(task, at string) {
		if task == "steer-guard" && at == "before_steer" {
			writeFile(t, filepath.Join(h.repo, "result.txt"), []byte("mine\n"))
		}
	}
	checkpointHook.Store(&hook)
	t.Cleanup(func() { checkpointHook.Store(nil) })
	msg := "repair"
	_, err = h.e.Control(context.Background(), core.Steer{TaskID: "steer-guard", Message: msg})
	mustCode(t, err, core.CodeOwnershipAmbiguous)
	d, _ := h.e.Get(context.Background(), "steer-guard")
	if d.View.State != core.StatePaused || d.View.SourceCollision == nil || d.View.SourceCollision.Checkpoint != "before_steer" || d.View.RepairRounds != 0 {
		t.Fatalf("view %+v", d.View)
	}
}

// The external scanner still runs after the built-in scan, on the changed files.
func TestExternalSecretScannerCanRefuse(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		ok   bool
	}{{[]string{"false"}, false}, {[]string{"test", "-f"}, true}} {
		h := newHarness(t, nil, func(c *Config) { c.SecretScannerArgv = tc.argv })
		res, err := h.delegate("scanner")
		if err != nil {
			t.Fatal(err)
		}
		v, err := h.finalize(res.TaskView, "looks-right")
		if tc.ok {
			if err != nil || v.State != core.StateCompleted {
				t.Fatalf("%v: %v %+v", tc.argv, err, v)
			}
			continue
		}
		mustCode(t, err, core.CodeSecretDetected)
		assertBranchAtBase(t, h, "scanner")
	}
}

// hookAt edits result.txt in the source checkout when task id reaches checkpoint cp.
func hookAt(t *testing.T, h *harness, id, cp string) *int {
	t.Helper()
	hits := new(int)
	hook := func(task, at string) {
		if task == id && at == cp {
			*hits++
			writeFile(t, filepath.Join(h.repo, "result.txt"), []byte("mine\n"))
		}
	}
	checkpointHook.Store(&hook)
	t.Cleanup(func() { checkpointHook.Store(nil) })
	return hits
}

func assertCollisionPause(t *testing.T, h *harness, id, cp string) core.TaskDetail {
	t.Helper()
	d, err := h.e.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	sc := d.View.SourceCollision
	if d.View.State != core.StatePaused || d.View.Phase != core.PhaseSourceCollision || sc == nil || sc.Checkpoint != cp ||
		strings.Join(sc.OverlappingPaths, ",") != "result.txt" || strings.Join(sc.DirtyPaths, ",") != "result.txt" {
		t.Fatalf("view %+v collision %+v", d.View, sc)
	}
	assertBranchAtBase(t, h, id)
	return d
}

// The worker-side checkpoints of the specification: before the worker starts, before and after
// a mutating tool call, and when an answered interaction lets the worker go on.
func TestWorkerSideCheckpointsGuardAgainstSourceCollisions(t *testing.T) {
	t.Run("before_worker_start", func(t *testing.T) {
		h := newHarness(t, nil)
		hits := hookAt(t, h, "start", "before_worker_start")
		_, err := h.delegate("start")
		mustCode(t, err, core.CodeOwnershipAmbiguous)
		d := assertCollisionPause(t, h, "start", "before_worker_start")
		if *hits != 1 || d.View.SessionID != "" {
			t.Fatalf("hook ran %d times, session %q", *hits, d.View.SessionID)
		}
	})
	t.Run("before_worker_mutation", func(t *testing.T) {
		h := newHarness(t, nil)
		hookAt(t, h, "mutation", "before_worker_mutation")
		res, err := h.delegate("mutation")
		if err != nil {
			t.Fatal(err)
		}
		assertCollisionPause(t, h, "mutation", "before_worker_mutation")
		if _, err := os.Lstat(filepath.Join(res.Worktree, "result.txt")); !os.IsNotExist(err) {
			t.Fatalf("the refused write happened: %v", err)
		}
		// The denial is journaled right after the pause the delegate returned on.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		sub, err := h.e.Subscribe(ctx, core.SubscribeOptions{TaskID: "mutation", FromSeq: 1})
		if err != nil {
			t.Fatal(err)
		}
		for ev := range sub.C {
			var p core.PermissionData
			if ev.Type == core.EventPermissionDecided && json.Unmarshal(ev.Data, &p) == nil && p.Decision == core.DecisionDeny && p.Code == "source_collision" {
				return
			}
		}
		t.Fatal("no source_collision denial in the journal")
	})
	t.Run("after_worker_mutation", func(t *testing.T) {
		// One mutation, and a turn that does not end: neither a later before_worker_mutation nor
		// review_readiness can see the edit first.
		h := newHarness(t, writeTurn(writeResult(), acptest.Step{Hang: true}))
		hookAt(t, h, "after", "after_worker_mutation")
		if _, err := h.delegate("after"); err != nil {
			t.Fatal(err)
		}
		assertCollisionPause(t, h, "after", "after_worker_mutation")
	})
	t.Run("resume_after_interaction", func(t *testing.T) {
		h := newHarness(t, writeTurn(
			acptest.Step{Shell: &acptest.Shell{Command: "make lint", Output: "fine"}, Permission: "ask"},
			writeResult()))
		res, err := h.delegate("answer", func(r *core.DelegateRequest) { r.PermissionMode = core.PermissionSupervised })
		if err != nil || res.ActiveInteraction == nil {
			t.Fatalf("%v %+v", err, res.TaskView)
		}
		hookAt(t, h, "answer", "resume_after_interaction")
		_, err = h.e.Control(context.Background(), core.Respond{TaskID: "answer", InteractionID: res.ActiveInteraction.ID, Decision: "allow"})
		mustCode(t, err, core.CodeOwnershipAmbiguous)
		d := assertCollisionPause(t, h, "answer", "resume_after_interaction")
		if ia := d.Interactions[len(d.Interactions)-1]; ia.Status != core.InteractionCancelled {
			t.Fatalf("interaction %+v", ia)
		}
		// The worker was told no and its turn cancelled; once the turn has settled the task is
		// still paused.
		if lt := h.e.liveTask("answer"); lt != nil {
			lt.mu.Lock()
			end := lt.turnEnd
			lt.mu.Unlock()
			if end != nil {
				select {
				case <-end:
				case <-time.After(30 * time.Second):
					t.Fatal("the cancelled turn never settled")
				}
			}
		}
		if d, _ := h.e.Get(context.Background(), "answer"); d.View.State != core.StatePaused {
			t.Fatalf("the task left the pause: %+v", d.View)
		}
	})
}

// A refused review loses nothing: once the object is replaced, resuming with the pause tokens
// reviews the repaired worktree and finalize commits it.
func TestRefusedReviewCanBeRepairedAndFinalized(t *testing.T) {
	h := newHarness(t, repairScenario())
	r := plantAndReview(t, h, "repaired", happyContract, func(wt string) { relink(t, "README", filepath.Join(wt, "result.txt")) })
	assertRefusedAtReview(t, h, r, core.RefusedSymlinkScope, "result.txt")
	if err := os.Remove(filepath.Join(r.Worktree, "result.txt")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(r.Worktree, "result.txt"), []byte("ok\n"))
	rev, hash := r.PauseRevision, r.PauseReasonHash
	res, err := h.delegate("repaired", func(d *core.DelegateRequest) { d.PauseRevision, d.PauseReasonHash = &rev, hash })
	if err != nil || res.State != core.StateReviewRequired {
		t.Fatalf("resume: %v %+v", err, res.TaskView)
	}
	v, err := h.finalize(res.TaskView, "looks-right")
	if err != nil || v.State != core.StateCompleted {
		t.Fatalf("finalize: %v %+v", err, v)
	}
	if mode := git(t, h.repo, "ls-tree", v.CommitHash, "result.txt"); !strings.HasPrefix(mode, "100644 blob") {
		t.Fatalf("committed %q", mode)
	}
}

// The same with a source whose stamp has settled, so that the checkpoints before the edited one
// skip git (their stamp is unchanged): the edit at each checkpoint must still be caught there.
func TestSettledSourceStillGuardsEveryFinalizeCheckpoint(t *testing.T) {
	for _, cp := range []string{"finalize_start", "after_verification", "before_staging", "before_commit", "immediately_before_commit"} {
		t.Run(cp, func(t *testing.T) {
			h := newHarness(t, nil)
			waitSettled(t, h.repo, "result.txt")
			id := "settled-" + strings.ReplaceAll(cp, "_", "-")
			res, err := h.delegate(id)
			if err != nil || res.State != core.StateReviewRequired {
				t.Fatalf("delegate: %v %+v", err, res.TaskView)
			}
			r, _ := h.e.load(id)
			h.e.stamps.mu.Lock()
			kept := h.e.stamps.m[id]
			h.e.stamps.mu.Unlock()
			if kept.base != r.BaseCommit {
				t.Fatal("no stamp was kept for the settled source")
			}
			hook := func(task, at string) {
				if task == id && at == cp {
					writeFile(t, filepath.Join(h.repo, "result.txt"), []byte("mine\n"))
				}
			}
			checkpointHook.Store(&hook)
			t.Cleanup(func() { checkpointHook.Store(nil) })
			_, err = h.finalize(res.TaskView, "looks-right")
			mustCode(t, err, core.CodeOwnershipAmbiguous)
			d, _ := h.e.Get(context.Background(), id)
			if sc := d.View.SourceCollision; sc == nil || sc.Checkpoint != cp || strings.Join(sc.OverlappingPaths, ",") != "result.txt" {
				t.Fatalf("collision %+v", sc)
			}
			assertBranchAtBase(t, h, id)
		})
	}
}

// waitSettled polls until the source's stamp for the prefixes has settled (its files are older
// than the timestamp margin), at most 10 s.
func waitSettled(t *testing.T, repo string, prefixes ...string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if s, ok := gitx.ReadStamp(repo, filepath.Join(repo, ".git"), prefixes); ok && s.Settled() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the source's stamp never settled")
		}
		runtime.Gosched()
	}
}

// A task's worktree is never the source of another task: git would find the repository through
// the worktree's .git, which the worker writes.
func TestDelegateFromATaskWorktreeIsRefused(t *testing.T) {
	h := newHarness(t, nil)
	res, err := h.delegate("first")
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.delegate("second", func(r *core.DelegateRequest) { r.Authority.Cwd = res.Worktree })
	if e := mustCode(t, err, core.CodeInvalidRequest); !strings.Contains(e.Message, "inside a task's worktree") {
		t.Fatalf("message: %s", e.Message)
	}
}
