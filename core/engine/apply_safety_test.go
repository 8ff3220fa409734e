package engine

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
)

// What applying a task must never do, tried on a real checkout: replace a file git ignores
// (by .gitignore or .git/info/exclude) or does not track, write at or through a symlink, or
// commit into (or abort) a merge, rebase, am, cherry-pick, revert or bisect of the person's.
// The dry run and the apply decide alike, and a refusal leaves everything as it was.

// checkoutBytes is what a refused apply must not change: the fingerprint, every file on disk
// (ignored ones and the git directory's operation files included) and where links lead.
func checkoutBytes(t *testing.T, repo string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(sourceFingerprint(t, repo))
	err := filepath.WalkDir(repo, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repo, p)
		switch {
		case rel == ".git/objects" || rel == ".git/logs" || rel == ".git/index" || rel == ".git/hooks":
			return filepath.SkipDir
		case d.Type()&os.ModeSymlink != 0:
			to, _ := os.Readlink(p)
			b.WriteString("\n" + rel + " -> " + to)
		case d.Type().IsRegular():
			c, _ := os.ReadFile(p)
			b.WriteString("\n" + rel + ": " + string(c))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// sameDecision asserts that a dry run and an apply answered alike: both refused with the same
// code and details, or both went ahead.
func sameDecision(t *testing.T, dryErr, applyErr error) {
	t.Helper()
	if (dryErr == nil) != (applyErr == nil) {
		t.Fatalf("the dry run said %v, the apply %v", dryErr, applyErr)
	}
	if dryErr == nil {
		return
	}
	d, a := core.AsError(dryErr), core.AsError(applyErr)
	dj, _ := json.Marshal(d.Details)
	aj, _ := json.Marshal(a.Details)
	if d.Code != a.Code || string(dj) != string(aj) || d.Message != a.Message {
		t.Fatalf("the dry run refused with %s %s, the apply with %s %s", d.Code, dj, a.Code, aj)
	}
}

func plantFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A file of the person's where the commit writes result.txt is refused, by the dry run and the
// apply alike, naming the path and how git sees it; nothing changes, the ignored file keeps its
// bytes. Before, the dry run said "applies cleanly" and cherry-pick replaced it.
func TestApplyRefusesFilesOfThePersonWhereTheCommitWrites(t *testing.T) {
	cases := []struct {
		name, kind string
		plant      func(t *testing.T, repo string)
	}{
		{"gitignored", "ignored", func(t *testing.T, repo string) {
			plantFile(t, filepath.Join(repo, ".gitignore"), "result.txt\n")
			git(t, repo, "add", ".gitignore")
			git(t, repo, "commit", "-q", "-m", "ignore result.txt")
			plantFile(t, filepath.Join(repo, "result.txt"), "my local preferences\n")
		}},
		{"excluded", "ignored", func(t *testing.T, repo string) {
			plantFile(t, filepath.Join(repo, ".git", "info", "exclude"), "result.txt\n")
			plantFile(t, filepath.Join(repo, "result.txt"), "my feature notes\n")
		}},
		{"untracked", "untracked", func(t *testing.T, repo string) {
			plantFile(t, filepath.Join(repo, "result.txt"), "mine, not yet added\n")
		}},
		{"symlink", "symlink", func(t *testing.T, repo string) {
			outside := filepath.Join(t.TempDir(), "secret.txt")
			plantFile(t, outside, "outside the checkout\n")
			plantFile(t, filepath.Join(repo, ".git", "info", "exclude"), "result.txt\n")
			if err := os.Symlink(outside, filepath.Join(repo, "result.txt")); err != nil {
				t.Fatal(err)
			}
		}},
		{"ignored folder in the way", "ignored", func(t *testing.T, repo string) {
			plantFile(t, filepath.Join(repo, ".git", "info", "exclude"), "result.txt/\n")
			plantFile(t, filepath.Join(repo, "result.txt", "cache.bin"), "built here\n")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, writeTurn(writeResult()))
			completedTask(t, h, "land")
			tc.plant(t, h.repo)
			before := checkoutBytes(t, h.repo)
			_, dry := h.e.ApplyToCheckout(context.Background(), "land", false)
			_, err := h.e.ApplyToCheckout(context.Background(), "land", true)
			sameDecision(t, dry, err)
			ce := mustCode(t, err, core.CodeOwnershipAmbiguous)
			want := "result.txt"
			if tc.name == "ignored folder in the way" {
				want = "result.txt/cache.bin"
			}
			if ce.Details["reason"] != "paths_in_the_way" || !slices.Equal(ce.Details["paths"].([]string), []string{want}) ||
				!strings.Contains(ce.Message, want+" ("+tc.kind+")") || !strings.Contains(ce.Message, "nothing was changed") {
				t.Fatalf("refusal: %s %v", ce.Message, ce.Details)
			}
			kinds := map[string]string{"ignored": "ignored", "untracked": "untracked", "symlink": "symlinks"}
			if got := ce.Details[kinds[tc.kind]].([]string); !slices.Equal(got, []string{want}) {
				t.Fatalf("details[%s] = %v", kinds[tc.kind], got)
			}
			if ce.NextAction != core.NextResolveSourceCollision {
				t.Fatalf("next action %s", ce.NextAction)
			}
			if got := checkoutBytes(t, h.repo); got != before {
				t.Fatalf("a refused apply changed the checkout:\n%s\n---\n%s", before, got)
			}
		})
	}
}

// A symlinked folder on the way to a path the commit creates is refused: the write would land
// where the link leads.
func TestApplyRefusesASymlinkOnTheWay(t *testing.T) {
	scn := writeTurn(acptest.Step{Write: &acptest.WriteFile{Path: "out/result.txt", Content: "ok\n"}})
	h := newHarness(t, scn)
	res, err := h.delegate("via", func(r *core.DelegateRequest) {
		r.Contract = json.RawMessage(strings.Replace(withScope("out/result.txt"), `"test", "-f", "result.txt"`, `"test", "-f", "out/result.txt"`, 1))
	})
	if err != nil || res.State != core.StateReviewRequired {
		t.Fatalf("delegate: %v %+v", err, res.TaskView)
	}
	if v, err := h.finalize(res.TaskView, "looks-right"); err != nil || v.State != core.StateCompleted {
		t.Fatalf("finalize: %v %+v", err, v)
	}
	elsewhere := t.TempDir()
	plantFile(t, filepath.Join(h.repo, ".git", "info", "exclude"), "out\n")
	if err := os.Symlink(elsewhere, filepath.Join(h.repo, "out")); err != nil {
		t.Fatal(err)
	}
	_, dry := h.e.ApplyToCheckout(context.Background(), "via", false)
	_, err = h.e.ApplyToCheckout(context.Background(), "via", true)
	sameDecision(t, dry, err)
	if ce := mustCode(t, err, core.CodeOwnershipAmbiguous); !slices.Equal(ce.Details["symlinks"].([]string), []string{"out"}) {
		t.Fatalf("refusal: %s %v", ce.Message, ce.Details)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Fatalf("the apply wrote through the link: %v", entries)
	}
}

// gitMayStop runs git in dir with a fixed identity and no editor, returning its output and error
// (the setups below expect some commands to stop).
func gitMayStop(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com", "GIT_EDITOR=true", "GIT_SEQUENCE_EDITOR=true")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// inProgressSetups leave the checkout with an operation of the person's under way, most of
// them with a clean status (which is what let an apply through before). Each returns the file
// in the git directory that says the operation is under way.
var inProgressSetups = []struct {
	op    string
	setup func(t *testing.T, repo string) string
}{
	{"cherry-pick", func(t *testing.T, repo string) string {
		// A sequence of two picks whose first stop was resolved and committed by hand: no
		// CHERRY_PICK_HEAD, a clean status, and `git cherry-pick --continue` still to run.
		git(t, repo, "switch", "-q", "-c", "side")
		commitInSource(t, repo, "README", "side one\n")
		commitInSource(t, repo, "side2.txt", "two\n")
		git(t, repo, "switch", "-q", "main")
		commitInSource(t, repo, "README", "mine\n")
		if out, err := gitMayStop(t, repo, "cherry-pick", "side~1", "side"); err == nil {
			t.Fatalf("the sequence did not stop: %s", out)
		}
		plantFile(t, filepath.Join(repo, "README"), "resolved\n")
		git(t, repo, "add", "README")
		if out, err := gitMayStop(t, repo, "commit", "-q", "--no-edit"); err != nil {
			t.Fatalf("commit: %v %s", err, out)
		}
		return "sequencer"
	}},
	{"revert", func(t *testing.T, repo string) string {
		commitInSource(t, repo, "README", "one\n")
		commitInSource(t, repo, "README", "two\n")
		commitInSource(t, repo, "other.txt", "x\n")
		// Reverting "one" conflicts with "two"; resolved and committed, "other" remains.
		if out, err := gitMayStop(t, repo, "revert", "HEAD~2", "HEAD"); err == nil {
			t.Fatalf("the sequence did not stop: %s", out)
		}
		plantFile(t, filepath.Join(repo, "README"), "resolved\n")
		git(t, repo, "add", "README")
		if out, err := gitMayStop(t, repo, "commit", "-q", "--no-edit"); err != nil {
			t.Fatalf("commit: %v %s", err, out)
		}
		return "sequencer"
	}},
	{"merge", func(t *testing.T, repo string) string {
		git(t, repo, "switch", "-q", "-c", "side")
		git(t, repo, "commit", "-q", "--allow-empty", "-m", "nothing")
		git(t, repo, "switch", "-q", "main")
		if out, err := gitMayStop(t, repo, "merge", "--no-ff", "--no-commit", "side"); err != nil {
			t.Fatalf("merge: %v %s", err, out)
		}
		return "MERGE_HEAD"
	}},
	{"rebase", func(t *testing.T, repo string) string {
		commitInSource(t, repo, "other.txt", "one more\n")
		if out, err := gitMayStop(t, repo, "rebase", "--exec", "false", "HEAD~1"); err == nil {
			t.Fatalf("the rebase did not stop: %s", out)
		}
		return "rebase-merge"
	}},
	{"am", func(t *testing.T, repo string) string {
		patch := filepath.Join(t.TempDir(), "p.patch")
		plantFile(t, patch, "From: a <a@example.com>\nSubject: p\n\n---\ndiff --git a/README b/README\n--- a/README\n+++ b/README\n@@ -1 +1 @@\n-not there\n+y\n")
		if out, err := gitMayStop(t, repo, "am", patch); err == nil {
			t.Fatalf("am did not stop: %s", out)
		}
		return "rebase-apply"
	}},
	{"bisect", func(t *testing.T, repo string) string {
		git(t, repo, "bisect", "start")
		return "BISECT_START"
	}},
}

// An apply while the person is in the middle of an operation is refused, dry run and apply
// alike, saying which and how to finish it; the operation is still there to continue. Before,
// an apply during a cherry-pick sequence failed, ran `git cherry-pick --abort` (main moved back,
// the sequence gone) and said the checkout was left as it was.
func TestApplyRefusesACheckoutInTheMiddleOfAnOperation(t *testing.T) {
	for _, tc := range inProgressSetups {
		t.Run(tc.op, func(t *testing.T) {
			h := newHarness(t, writeTurn(writeResult()))
			completedTask(t, h, "land")
			trace := tc.setup(t, h.repo)
			before := checkoutBytes(t, h.repo)
			head := git(t, h.repo, "rev-parse", "HEAD")
			_, dry := h.e.ApplyToCheckout(context.Background(), "land", false)
			_, err := h.e.ApplyToCheckout(context.Background(), "land", true)
			sameDecision(t, dry, err)
			ce := mustCode(t, err, core.CodeInvalidState)
			if ce.Details["operation"] != tc.op || ce.Details["reason"] != "operation_in_progress" ||
				!strings.Contains(ce.Message, "in the middle of a "+tc.op) || !strings.Contains(ce.Message, "nothing was changed") {
				t.Fatalf("refusal: %s %v", ce.Message, ce.Details)
			}
			if got := checkoutBytes(t, h.repo); got != before || git(t, h.repo, "rev-parse", "HEAD") != head {
				t.Fatalf("a refused apply changed the checkout:\n%s\n---\n%s", before, got)
			}
			if _, err := os.Stat(filepath.Join(h.repo, ".git", trace)); err != nil {
				t.Fatalf("the %s is no longer under way: %v", tc.op, err)
			}
		})
	}
	// The sequence can still be finished, and then the apply goes ahead.
	h := newHarness(t, writeTurn(writeResult()))
	completedTask(t, h, "land")
	inProgressSetups[0].setup(t, h.repo)
	if _, err := h.e.ApplyToCheckout(context.Background(), "land", true); err == nil {
		t.Fatal("applied during the sequence")
	}
	if out, err := gitMayStop(t, h.repo, "cherry-pick", "--continue"); err != nil {
		t.Fatalf("continue: %v %s", err, out)
	}
	if b, _ := os.ReadFile(filepath.Join(h.repo, "side2.txt")); string(b) != "two\n" {
		t.Fatalf("the rest of the sequence: %q", b)
	}
	if res, err := h.e.ApplyToCheckout(context.Background(), "land", true); err != nil || !res.Applied {
		t.Fatalf("apply after the sequence: %v %+v", err, res)
	}
}

// The dry run and the apply are one decision: across checkouts that refuse for every reason,
// and one that applies, a dry run that says it applies is followed by an apply that does, and
// one that refuses by the same refusal.
func TestApplyDryRunDecidesAsTheApply(t *testing.T) {
	plants := map[string]func(t *testing.T, repo string){
		"clean": func(*testing.T, string) {},
		"excluded": func(t *testing.T, repo string) {
			plantFile(t, filepath.Join(repo, ".git", "info", "exclude"), "result.txt\n")
			plantFile(t, filepath.Join(repo, "result.txt"), "x")
		},
		"dirty":     func(t *testing.T, repo string) { plantFile(t, filepath.Join(repo, "README"), "edited\n") },
		"conflict":  func(t *testing.T, repo string) { commitInSource(t, repo, "result.txt", "theirs\n") },
		"detached":  func(t *testing.T, repo string) { git(t, repo, "checkout", "-q", "--detach") },
		"bisecting": func(t *testing.T, repo string) { git(t, repo, "bisect", "start") },
		"no identity": func(t *testing.T, repo string) {
			t.Setenv("GIT_AUTHOR_NAME", "")
			t.Setenv("GIT_AUTHOR_EMAIL", "")
			t.Setenv("HOME", t.TempDir())
			t.Setenv("XDG_CONFIG_HOME", "")
		},
	}
	for name, plant := range plants {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, writeTurn(writeResult()))
			completedTask(t, h, "land")
			plant(t, h.repo)
			before := checkoutBytes(t, h.repo)
			dryRes, dry := h.e.ApplyToCheckout(context.Background(), "land", false)
			if dry != nil {
				if got := checkoutBytes(t, h.repo); got != before {
					t.Fatal("the dry run changed the checkout")
				}
			}
			res, err := h.e.ApplyToCheckout(context.Background(), "land", true)
			sameDecision(t, dry, err)
			if err != nil {
				if got := checkoutBytes(t, h.repo); got != before {
					t.Fatalf("a refused apply changed the checkout:\n%s\n---\n%s", before, got)
				}
				return
			}
			if name != "clean" || !res.Applied || dryRes.Head != res.Head || dryRes.Branch != res.Branch {
				t.Fatalf("%s applied: dry %+v, apply %+v", name, dryRes, res)
			}
		})
	}
}

// twoFileTask completes a task whose commit changes the tracked m.flt and adds aa.txt and
// zz.fail, for the failures below.
func twoFileTask(t *testing.T) *harness {
	t.Helper()
	scn := writeTurn(
		acptest.Step{Write: &acptest.WriteFile{Path: "aa.txt", Content: "new\n"}},
		acptest.Step{Write: &acptest.WriteFile{Path: "m.flt", Content: "changed\n"}},
		acptest.Step{Write: &acptest.WriteFile{Path: "zz.fail", Content: "last\n"}},
	)
	h := newHarness(t, scn)
	commitInSource(t, h.repo, "m.flt", "original\n")
	res, err := h.delegate("two", func(r *core.DelegateRequest) {
		r.Contract = json.RawMessage(strings.Replace(withScope("aa.txt", "m.flt", "zz.fail"), `"test", "-f", "result.txt"`, `"test", "-f", "aa.txt"`, 1))
	})
	if err != nil || res.State != core.StateReviewRequired {
		t.Fatalf("delegate: %v %+v", err, res.TaskView)
	}
	if v, err := h.finalize(res.TaskView, "looks-right"); err != nil || v.State != core.StateCompleted {
		t.Fatalf("finalize: %v %+v", err, v)
	}
	return h
}

// setFilters gives the person's checkout smudge filters: zz.fail's always fails, m.flt's works
// once (its second run fails), so a pick stops after writing aa.txt and m.flt.
func setFilters(t *testing.T, repo string) {
	t.Helper()
	once := filepath.Join(t.TempDir(), "ran")
	plantFile(t, filepath.Join(repo, ".git", "info", "attributes"), "*.fail filter=boom\n*.flt filter=once\n")
	git(t, repo, "config", "filter.boom.smudge", "false")
	git(t, repo, "config", "filter.boom.clean", "cat")
	git(t, repo, "config", "filter.boom.required", "true")
	git(t, repo, "config", "filter.once.smudge", "sh -c 'test -e "+once+" && exit 1; : >"+once+"; cat'")
	git(t, repo, "config", "filter.once.clean", "cat")
	git(t, repo, "config", "filter.once.required", "true")
}

// A pick that fails after it has written files is undone: the files it wrote are taken back
// and the checkout is read again before the message says it is as it was. Before, the files it
// had written stayed, while the message said "the checkout was left as it was".
func TestApplyFailingMidwayIsUndoneAndSaysSoOnlyWhenTrue(t *testing.T) {
	h := twoFileTask(t)
	plantFile(t, filepath.Join(h.repo, ".git", "info", "attributes"), "*.fail filter=boom\n")
	git(t, h.repo, "config", "filter.boom.smudge", "false")
	git(t, h.repo, "config", "filter.boom.clean", "cat")
	git(t, h.repo, "config", "filter.boom.required", "true")
	before := checkoutBytes(t, h.repo)
	head := git(t, h.repo, "rev-parse", "HEAD")
	if _, err := h.e.ApplyToCheckout(context.Background(), "two", false); err != nil {
		t.Fatalf("dry run: %v", err)
	}
	_, err := h.e.ApplyToCheckout(context.Background(), "two", true)
	ce := mustCode(t, err, core.CodeInvalidState)
	if ce.Details["restored"] != true || !strings.Contains(ce.Message, "is as it was") || !strings.Contains(ce.Message, "smudge filter boom failed") {
		t.Fatalf("failure: %s %v", ce.Message, ce.Details)
	}
	if got := checkoutBytes(t, h.repo); got != before || git(t, h.repo, "rev-parse", "HEAD") != head {
		t.Fatalf("the failed apply left the checkout changed:\n%s\n---\n%s", before, got)
	}
}

// When undoing a failed pick does not bring the checkout back, the message says what differs
// and never that the checkout is as it was.
func TestApplyFailingMidwayThatCannotBeUndoneSaysWhatDiffers(t *testing.T) {
	h := twoFileTask(t)
	setFilters(t, h.repo)
	_, err := h.e.ApplyToCheckout(context.Background(), "two", true)
	ce := mustCode(t, err, core.CodeInvalidState)
	differs, _ := ce.Details["differs"].([]string)
	if ce.Details["restored"] != false || strings.Contains(ce.Message, "as it was") || !strings.Contains(ce.Message, "did not bring the checkout back") ||
		len(differs) == 0 || !strings.Contains(strings.Join(differs, ";"), "m.flt") {
		t.Fatalf("failure: %s %v", ce.Message, ce.Details)
	}
	// What it says is what git says.
	if st := git(t, h.repo, "status", "--porcelain"); !strings.Contains(st, "m.flt") {
		t.Fatalf("status after: %q", st)
	}
}

// A pick refused by git before it starts (the index is locked by another git) changes nothing,
// and says so because the checkout was read again and found as it was.
func TestApplyFailingBeforeItStartsSaysTheCheckoutIsAsItWas(t *testing.T) {
	h := newHarness(t, writeTurn(writeResult()))
	completedTask(t, h, "land")
	lock := filepath.Join(h.repo, ".git", "index.lock")
	plantFile(t, lock, "")
	before := checkoutBytes(t, h.repo)
	_, err := h.e.ApplyToCheckout(context.Background(), "land", true)
	ce := mustCode(t, err, core.CodeInvalidState)
	if ce.Details["restored"] != true || !strings.Contains(ce.Message, "index.lock") {
		t.Fatalf("failure: %s %v", ce.Message, ce.Details)
	}
	if got := checkoutBytes(t, h.repo); got != before {
		t.Fatal("the failed apply changed the checkout")
	}
	os.Remove(lock)
	if res, err := h.e.ApplyToCheckout(context.Background(), "land", true); err != nil || !res.Applied {
		t.Fatalf("apply once the lock is gone: %v %+v", err, res)
	}
}

// The preview of a completed task's commit (the dashboard's "apply" line) asks apply's own
// checks once the merge is clean, so it never says a commit applies when apply would refuse.
func TestCommitPreviewSaysWhatApplyWouldRefuse(t *testing.T) {
	h := newHarness(t, writeTurn(writeResult()))
	completedTask(t, h, "land")
	ctx := context.Background()
	if p, err := h.e.CherryPickPreview(ctx, "land"); err != nil || !p.Clean || p.Refusal != "" {
		t.Fatalf("clean checkout: %v %+v", err, p)
	}
	plantFile(t, filepath.Join(h.repo, ".git", "info", "exclude"), "result.txt\n")
	plantFile(t, filepath.Join(h.repo, "result.txt"), "mine\n")
	_, refusal := h.e.ApplyToCheckout(ctx, "land", false)
	if p, err := h.e.CherryPickPreview(ctx, "land"); err != nil || !p.Clean || refusal == nil || p.Refusal != core.AsError(refusal).Message {
		t.Fatalf("excluded file in the way: %v %+v (apply: %v)", err, p, refusal)
	}
	os.Remove(filepath.Join(h.repo, "result.txt"))
	if _, err := h.e.ApplyToCheckout(ctx, "land", true); err != nil {
		t.Fatal(err)
	}
	if p, err := h.e.CherryPickPreview(ctx, "land"); err != nil || !strings.Contains(p.Refusal, "already on main") {
		t.Fatalf("after the apply: %v %+v", err, p)
	}
}
