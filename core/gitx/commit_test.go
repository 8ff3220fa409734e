package gitx_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"reasonixctl/core/gitx"
	"reasonixctl/sandbox"
)

var author = gitx.Identity{Name: "Task Author", Email: "author@example.com"}

func reviewed(t testing.TB, wt gitx.Worktree) gitx.Review {
	t.Helper()
	r, err := gitx.BuildReview(ctx, wt)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func request(wt gitx.Worktree, r gitx.Review) gitx.CommitRequest {
	return gitx.CommitRequest{Worktree: wt, Tree: r.Tree, Files: r.Paths(), Message: "task: do the thing\n\nBody.\n", Author: author}
}

// assertUncommitted checks that a refused commit left the branch at the base and nothing staged.
func assertUncommitted(t *testing.T, wt gitx.Worktree) {
	t.Helper()
	if got := sh(t, wt.Path, "rev-parse", wt.Ref()); got != wt.Base {
		t.Fatalf("branch moved to %s after a refused commit", got)
	}
	if staged := sh(t, wt.Path, "diff", "--cached", "--name-only", "HEAD"); staged != "" {
		t.Fatalf("index not restored, staged: %s", staged)
	}
}

func TestCommitExactlyTheReviewedTree(t *testing.T) {
	f := newFixture(t)
	sourceHead := sh(t, f.src, "rev-parse", "HEAD")
	wt := f.task(t, "commit")
	edit(t, wt)
	r := reviewed(t, wt)
	res, err := gitx.Commit(ctx, request(wt, r))
	if err != nil {
		t.Fatal(err)
	}
	if got := sh(t, wt.Path, "rev-parse", wt.Ref()); got != res.Commit {
		t.Fatalf("branch at %s, commit %s", got, res.Commit)
	}
	if parents := sh(t, wt.Path, "rev-list", "--parents", "-n1", res.Commit); parents != res.Commit+" "+wt.Base {
		t.Fatalf("parents: %s", parents)
	}
	if tree := sh(t, wt.Path, "rev-parse", res.Commit+"^{tree}"); tree != r.Tree {
		t.Fatalf("commit tree %s, reviewed %s", tree, r.Tree)
	}
	if who := sh(t, wt.Path, "log", "-1", "--format=%an <%ae>|%cn|%s", res.Commit); who != "Task Author <author@example.com>|Task Author|task: do the thing" {
		t.Fatalf("commit metadata: %s", who)
	}
	// Only untracked .reasonix metadata remains, as before.
	if st := sh(t, wt.Path, "status", "--porcelain", "--untracked-files=all"); st != "?? .reasonix/session.log" {
		t.Fatalf("worktree after commit:\n%s", st)
	}
	if got := sh(t, f.src, "rev-parse", "HEAD"); got != sourceHead {
		t.Fatalf("source HEAD moved")
	}
}

func TestCommitRefusesWorktreeMovedPastReview(t *testing.T) {
	moves := map[string]func(wt gitx.Worktree){
		"edit":      func(wt gitx.Worktree) { os.WriteFile(filepath.Join(wt.Path, "a.txt"), []byte("later\n"), 0o644) },
		"new file":  func(wt gitx.Worktree) { os.WriteFile(filepath.Join(wt.Path, "late.txt"), []byte("x"), 0o644) },
		"delete":    func(wt gitx.Worktree) { os.Remove(filepath.Join(wt.Path, "lib", "b.txt")) },
		"mode":      func(wt gitx.Worktree) { os.Chmod(filepath.Join(wt.Path, "a.txt"), 0o755) },
		"revert":    func(wt gitx.Worktree) { os.WriteFile(filepath.Join(wt.Path, "a.txt"), []byte("alpha\nbeta\n"), 0o644) },
		"new in .r": nil, // untracked .reasonix files are not part of the review: not a move
	}
	for name, move := range moves {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			wt := f.task(t, "moved")
			write(t, filepath.Join(wt.Path, "a.txt"), "reviewed\n", 0o644)
			r := reviewed(t, wt)
			if move == nil {
				write(t, filepath.Join(wt.Path, ".reasonix", "late.log"), "x", 0o644)
				if _, err := gitx.Commit(ctx, request(wt, r)); err != nil {
					t.Fatalf("untracked metadata blocked the commit: %v", err)
				}
				return
			}
			move(wt)
			_, err := gitx.Commit(ctx, request(wt, r))
			wantCode(t, err, gitx.CodeOwnershipAmbiguous, gitx.ReasonTreeMoved)
			assertUncommitted(t, wt)
		})
	}
}

func TestCommitRefusesWorkerCommitAndWrongBranch(t *testing.T) {
	f := newFixture(t)
	wt := f.task(t, "worker")
	write(t, filepath.Join(wt.Path, "a.txt"), "reviewed\n", 0o644)
	r := reviewed(t, wt)
	sh(t, wt.Path, "commit", "-q", "-am", "worker committed")
	_, err := gitx.Commit(ctx, request(wt, r))
	wantCode(t, err, gitx.CodeOwnershipAmbiguous, gitx.ReasonHeadMoved)

	wt2 := f.task(t, "branch")
	write(t, filepath.Join(wt2.Path, "a.txt"), "reviewed\n", 0o644)
	r2 := reviewed(t, wt2)
	sh(t, wt2.Path, "switch", "-q", "--detach")
	_, err = gitx.Commit(ctx, request(wt2, r2))
	wantCode(t, err, gitx.CodeOwnershipAmbiguous, gitx.ReasonWrongBranch)
	if got := sh(t, wt2.Path, "rev-parse", wt2.Ref()); got != wt2.Base {
		t.Fatalf("task branch moved")
	}
}

func TestCommitStagedSetMustEqualFiles(t *testing.T) {
	f := newFixture(t)
	wt := f.task(t, "staged")
	edit(t, wt)
	r := reviewed(t, wt)
	req := request(wt, r)
	req.Files = req.Files[1:]
	_, err := gitx.Commit(ctx, req)
	wantCode(t, err, gitx.CodeInvalidRequest, gitx.ReasonStagedMismatch)
	assertUncommitted(t, wt)

	// A tracked .reasonix change is in the tree but never in Files: the commit is refused.
	wt2 := f.task(t, "meta")
	write(t, filepath.Join(wt2.Path, "a.txt"), "x\n", 0o644)
	write(t, filepath.Join(wt2.Path, ".reasonix", "tracked.json"), "{\"x\":1}\n", 0o644)
	r2 := reviewed(t, wt2)
	_, err = gitx.Commit(ctx, request(wt2, r2))
	wantCode(t, err, gitx.CodeInvalidRequest, gitx.ReasonStagedMismatch)
	assertUncommitted(t, wt2)
}

func TestCommitCompareAndSwap(t *testing.T) {
	f := newFixture(t)
	wt := f.task(t, "cas")
	write(t, filepath.Join(wt.Path, "a.txt"), "reviewed\n", 0o644)
	r := reviewed(t, wt)
	other := sh(t, wt.Path, "commit-tree", "-p", wt.Base, "-m", "intruder", r.Tree)
	req := request(wt, r)
	req.BeforeCommit = func(context.Context) error {
		sh(t, f.src, "update-ref", wt.Ref(), other) // someone else moves the branch first
		return nil
	}
	_, err := gitx.Commit(ctx, req)
	wantCode(t, err, gitx.CodeCommitFailed, gitx.ReasonRefMoved)
	if got := sh(t, wt.Path, "rev-parse", wt.Ref()); got != other {
		t.Fatalf("the lost swap changed the branch to %s", got)
	}
}

func TestCommitRollsBackRefOnFailedPostcondition(t *testing.T) {
	f := newFixture(t)
	wt := f.task(t, "rollback")
	write(t, filepath.Join(wt.Path, "a.txt"), "reviewed\n", 0o644)
	r := reviewed(t, wt)
	req := request(wt, r)
	req.BeforeCommit = func(context.Context) error {
		// Changes after the last check make the worktree differ from the new commit.
		return os.WriteFile(filepath.Join(wt.Path, "a.txt"), []byte("too late\n"), 0o644)
	}
	_, err := gitx.Commit(ctx, req)
	wantCode(t, err, gitx.CodeCommitFailed, gitx.ReasonPostcondition)
	assertUncommitted(t, wt)

	write(t, filepath.Join(wt.Path, "a.txt"), "reviewed\n", 0o644)
	req.BeforeCommit = func(context.Context) error { return errors.New("source collision") }
	_, err = gitx.Commit(ctx, req)
	wantCode(t, err, gitx.CodeCommitFailed, gitx.ReasonAborted)
	assertUncommitted(t, wt)
}

func TestCommitRejectsBadRequests(t *testing.T) {
	f := newFixture(t)
	wt := f.task(t, "bad")
	write(t, filepath.Join(wt.Path, "a.txt"), "reviewed\n", 0o644)
	r := reviewed(t, wt)
	cases := map[string]func(*gitx.CommitRequest){
		"empty message":   func(q *gitx.CommitRequest) { q.Message = "" },
		"long subject":    func(q *gitx.CommitRequest) { q.Message = strings.Repeat("s", 101) },
		"long message":    func(q *gitx.CommitRequest) { q.Message = "s\n" + strings.Repeat("b", 5000) },
		"control char":    func(q *gitx.CommitRequest) { q.Message = "subject\x1b[31m" },
		"no author":       func(q *gitx.CommitRequest) { q.Author = gitx.Identity{} },
		"author brackets": func(q *gitx.CommitRequest) { q.Author.Email = "a>b" },
		"short tree":      func(q *gitx.CommitRequest) { q.Tree = "abc" },
		"no files":        func(q *gitx.CommitRequest) { q.Files = nil },
		"bad task":        func(q *gitx.CommitRequest) { q.Worktree.Task = "../x" },
	}
	for name, mutate := range cases {
		req := request(wt, r)
		mutate(&req)
		if _, err := gitx.Commit(ctx, req); err == nil {
			t.Errorf("%s: accepted", name)
		} else {
			wantCode(t, err, gitx.CodeInvalidRequest, "")
		}
	}
	assertUncommitted(t, wt)
}

// sandboxHooks adapts the sandbox runner the way the engine does.
func sandboxHooks(runs *[]string) gitx.HookRunner {
	r := &sandbox.Runner{}
	return func(ctx context.Context, h gitx.HookRun) error {
		res, err := r.Run(ctx, sandbox.Spec{Argv: h.Argv, Worktree: h.Worktree, ExtraReadOnly: h.ReadOnly,
			Env: h.Env, Timeout: h.Timeout, MaxOutput: h.MaxOutput})
		if err != nil {
			return err
		}
		*runs = append(*runs, h.Name+":"+strings.TrimSpace(string(res.Stderr))) // git hook run sends hook output to stderr
		if !res.Passed() {
			return fmt.Errorf("exit %d: %s", res.ExitCode, res.Stderr)
		}
		return nil
	}
}

func installHook(t testing.TB, src, name, body string) {
	t.Helper()
	write(t, filepath.Join(src, ".git", "hooks", name), "#!/bin/sh\n"+body+"\n", 0o755)
}

func TestHooksOffByDefault(t *testing.T) {
	f := newFixture(t)
	marker := filepath.Join(t.TempDir(), "ran")
	for _, h := range []string{"pre-commit", "commit-msg", "post-checkout", "reference-transaction", "post-commit"} {
		installHook(t, f.src, h, "echo "+h+" >> "+marker+"; exit 1")
	}
	wt := f.task(t, "nohooks")
	write(t, filepath.Join(wt.Path, "a.txt"), "reviewed\n", 0o644)
	if _, err := gitx.Commit(ctx, request(wt, reviewed(t, wt))); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Fatalf("hooks ran: %s", b)
	}
}

func TestHooksRunSandboxed(t *testing.T) {
	if p := (&sandbox.Runner{}).Probe(); !p.Available {
		t.Fatalf("bubblewrap is required: %s", p.Detail)
	}
	cases := []struct {
		name, hook, body string
		reason           string
	}{
		{"passing", "pre-commit", `git diff --cached --quiet HEAD && exit 1; test -f a.txt && echo checked-staged-tree`, ""},
		{"failing pre-commit", "pre-commit", "echo no >&2; exit 1", gitx.ReasonHookFailed},
		{"mutates worktree", "pre-commit", "echo formatted > a.txt", gitx.ReasonHookMutated},
		{"rewrites message", "commit-msg", `echo "Change-Id: 1" >> "$1"`, gitx.ReasonHookFailed},
		{"stages more", "pre-commit", "echo x > extra.txt; git add extra.txt", gitx.ReasonHookFailed},
		{"reaches network", "pre-commit", "exec 3<>/dev/tcp/127.0.0.1/9", gitx.ReasonHookFailed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			installHook(t, f.src, c.hook, c.body)
			wt := f.task(t, "hooks")
			write(t, filepath.Join(wt.Path, "a.txt"), "reviewed\n", 0o644)
			var runs []string
			req := request(wt, reviewed(t, wt))
			req.Hooks = sandboxHooks(&runs)
			hctx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			res, err := gitx.Commit(hctx, req)
			if c.reason == "" {
				if err != nil {
					t.Fatal(err)
				}
				if strings.Join(runs, ",") != "pre-commit:checked-staged-tree,prepare-commit-msg:,commit-msg:" {
					t.Fatalf("hooks run: %v", runs)
				}
				if got := sh(t, wt.Path, "rev-parse", wt.Ref()); got != res.Commit {
					t.Fatalf("branch not at the commit")
				}
				return
			}
			wantCode(t, err, gitx.CodeCommitFailed, c.reason)
			if c.reason == gitx.ReasonHookMutated {
				// The hook's write is the user's to see; only the commit is refused.
				sh(t, wt.Path, "checkout", "--", "a.txt")
			}
			assertUncommitted(t, wt)
		})
	}
}
