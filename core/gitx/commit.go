package gitx

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Hook limits from the specification.
const (
	HookTimeout   = 5 * time.Minute
	HookMaxOutput = 2 << 20
)

// HookRun is one git hook to run sandboxed: the worktree writable, ReadOnly readable, nothing
// else. The caller adapts its sandbox to HookRunner; gitx itself runs no hook.
type HookRun struct {
	Name      string // pre-commit, prepare-commit-msg or commit-msg
	Argv      []string
	Worktree  string // also the working directory
	ReadOnly  []string
	Env       map[string]string
	Timeout   time.Duration
	MaxOutput int
}

// HookRunner runs a hook and returns an error unless it exited 0 without timeout or truncation.
type HookRunner func(ctx context.Context, h HookRun) error

// CommitRequest asks for exactly the reviewed tree to become one commit on the task branch.
type CommitRequest struct {
	Worktree Worktree
	Tree     string   // the reviewed tree
	Files    []string // the reviewed changed files: the index must change exactly these
	Message  string
	Author   Identity
	// Hooks runs pre-commit, prepare-commit-msg and commit-msg; nil leaves hooks off.
	Hooks HookRunner
	// ReviewIndex, when set, is the index BuildReviewKeepingIndex kept for this review: if it
	// records exactly Tree it becomes the worktree's index without a read-tree (hooks off only).
	ReviewIndex string
	// BeforeCommit, when set, is the caller's last check (such as a collision scan) after staging
	// and hooks, right before the commit object is written; an error aborts.
	BeforeCommit func(ctx context.Context) error
}

// CommitResult describes the commit made.
type CommitResult struct {
	Commit string
	Tree   string
}

// Commit stages the reviewed tree into the worktree's index (read-tree), checks that the
// worktree is exactly that tree on the task branch at the base, optionally runs hooks, writes
// `commit-tree <tree> -p <base>` and moves the branch with a compare-and-swap from the base.
// Any failure leaves the index matching HEAD, and a branch that had moved is swapped back.
// A worktree that changed after the review is refused with ownership_ambiguous / tree_moved,
// one whose .git was rewritten with worktree_tampered (checked before each step, and again
// right before the commit object is written and before the branch moves). Git reads the
// worktree's files only through a view (see view), and its refs only in the repository.
func Commit(ctx context.Context, req CommitRequest) (CommitResult, error) {
	wt := req.Worktree
	if err := validateCommit(req); err != nil {
		return CommitResult{}, err
	}
	if err := CheckLink(wt); err != nil {
		return CommitResult{}, err
	}
	admin, err := wt.adminDir()
	if err != nil {
		return CommitResult{}, err
	}
	index := filepath.Join(admin, "index")
	repo := inRepository(wt.CommonDir)
	tx, err := newReviewTx(wt)
	if err != nil {
		return CommitResult{}, err
	}
	defer tx.close()

	// Cleanup must run even when ctx is what failed.
	cleanup := context.WithoutCancel(ctx)
	refMoved := false
	var commit string
	fail := func(err error) (CommitResult, error) {
		if refMoved {
			if _, e := git(cleanup, CodeCommitFailed, ReasonGitFailed, repo, "update-ref", "-m", "reasonixctl: roll back", wt.Ref(), wt.Base, commit); e != nil {
				err = errors.Join(err, e)
			}
		}
		// HEAD is the base again: the branch never moved, or was swapped back.
		if _, e := tx.cmdOn(index, "read-tree", wt.Base).must(cleanup, CodeCommitFailed, ReasonGitFailed); e != nil {
			err = errors.Join(err, e)
		}
		return CommitResult{}, err
	}

	// With a plain index, `read-tree -i -m` (-i: the worktree is not compared) keeps the stat data of the entries the tree leaves as
	// they are, so the status checks below read only the task's changed files; the index is the
	// reviewed tree either way. It must still be plain afterwards (no mark hides a file).
	// With hooks the tree is read alone: their check's write-tree must get the cache-tree of the
	// reviewed tree, not one carried over from the worktree's index.
	// The review's own index, when kept and still the reviewed tree, is installed as it is.
	installed := req.Hooks == nil && req.ReviewIndex != "" && installIndex(wt, req.ReviewIndex, req.Tree)
	readTree := []string{"read-tree", req.Tree}
	merge := !installed && req.Hooks == nil && worktreeIndexPlain(wt)
	if merge {
		readTree = []string{"read-tree", "-i", "-m", req.Tree}
	}
	if !installed {
		if _, err := tx.cmdOn(index, readTree...).must(ctx, CodeCommitFailed, ReasonGitFailed); err != nil {
			return fail(err)
		}
	}
	if merge && !worktreeIndexPlain(wt) {
		return fail(newErr(CodeOwnershipAmbiguous, ReasonTreeMoved, "the worktree's index changed while the reviewed tree was staged"))
	}
	if err := checkStaged(ctx, tx, index, req); err != nil {
		return fail(err)
	}
	if req.Hooks != nil {
		if err := runHooks(ctx, tx, req); err != nil {
			return fail(err)
		}
	}
	if req.BeforeCommit != nil {
		if err := req.BeforeCommit(ctx); err != nil {
			return fail(&Error{Code: CodeCommitFailed, Reason: ReasonAborted, Message: "the last check before the commit refused it", Err: err})
		}
	}
	if err := CheckLink(wt); err != nil {
		return fail(err)
	}
	author := req.Author
	out, err := gitCmd{at: repo, stdin: []byte(req.Message), env: []string{
		"GIT_AUTHOR_NAME=" + author.Name, "GIT_AUTHOR_EMAIL=" + author.Email,
		"GIT_COMMITTER_NAME=" + author.Name, "GIT_COMMITTER_EMAIL=" + author.Email,
	}, args: []string{"commit-tree", req.Tree, "-p", wt.Base, "-F", "-"}}.must(ctx, CodeCommitFailed, ReasonGitFailed)
	if err != nil {
		return fail(err)
	}
	commit = strings.TrimSpace(string(out))
	if !hex40.MatchString(commit) {
		return fail(newErr(CodeCommitFailed, ReasonGitFailed, "commit-tree returned %q", commit))
	}
	if err := CheckLink(wt); err != nil {
		return fail(err)
	}
	if _, err := (gitCmd{at: repo, args: []string{"update-ref", "-m", "reasonixctl: commit " + wt.Task, wt.Ref(), commit, wt.Base}}).run(ctx); err != nil {
		return fail(&Error{Code: CodeCommitFailed, Reason: ReasonRefMoved, Message: "the task branch is no longer at the base", Err: err})
	}
	refMoved = true
	head, err := headOf(ctx, wt)
	if err == nil {
		err = tx.view.setHead(commit)
	}
	var post status
	if err == nil {
		post, err = worktreeStatus(ctx, tx, index)
	}
	if err != nil {
		return fail(wrap(CodeCommitFailed, ReasonPostcondition, err))
	}
	if head[0] != commit || head[1] != wt.Ref() || post.head != commit || len(post.entries) > 0 {
		return fail(&Error{Code: CodeCommitFailed, Reason: ReasonPostcondition,
			Message: "after the commit the worktree is not clean at the new commit", Paths: limitPaths(post.paths(nil))})
	}
	return CommitResult{Commit: commit, Tree: req.Tree}, nil
}

func validateCommit(req CommitRequest) error {
	wt := req.Worktree
	if err := ValidTaskID(wt.Task); err != nil {
		return err
	}
	if !filepath.IsAbs(wt.Path) || !hex40.MatchString(wt.Base) || !hex40.MatchString(req.Tree) {
		return badInput("Commit needs an absolute worktree path, a resolved base and a 40-hex reviewed tree")
	}
	if len(req.Files) == 0 {
		return badInput("nothing to commit: the reviewed tree changes no file")
	}
	if err := ValidateMessage(req.Message); err != nil {
		return err
	}
	return validIdentity(req.Author)
}

// ValidateMessage applies the commit message rules: at most 5000 characters, a non-empty subject
// line of at most 100, no control characters but tab, LF and CR. (Secrets are the caller's check.)
func ValidateMessage(msg string) error {
	if !utf8.ValidString(msg) || utf8.RuneCountInString(msg) > 5000 {
		return badInput("commit message must be valid UTF-8 of at most 5000 characters")
	}
	if strings.ContainsFunc(msg, func(r rune) bool {
		return (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0x7f
	}) {
		return badInput("commit message contains a control character")
	}
	subject, _, _ := strings.Cut(msg, "\n")
	subject = strings.TrimSpace(subject)
	if subject == "" || utf8.RuneCountInString(subject) > 100 {
		return badInput("commit subject must be 1-100 characters")
	}
	return nil
}

// worktreeStatus compares the worktree's files with index, and index with the view's HEAD.
func worktreeStatus(ctx context.Context, tx *reviewTx, index string) (status, error) {
	out, err := tx.cmdOn(index, "status", "--porcelain=v2", "-z", "--branch", "--untracked-files=all", "--no-renames", "--ignore-submodules=all").run(ctx)
	if err != nil {
		return status{}, err
	}
	return parseStatus(out)
}

// checkStaged verifies, in one status, that the worktree is on the task branch at the base, that
// the index (now the reviewed tree) changes exactly req.Files, and that the files on disk are
// still the reviewed ones.
func checkStaged(ctx context.Context, tx *reviewTx, index string, req CommitRequest) error {
	wt := req.Worktree
	if err := CheckHead(ctx, wt); err != nil {
		return err
	}
	st, err := worktreeStatus(ctx, tx, index)
	if err != nil {
		return wrap(CodeCommitFailed, ReasonGitFailed, err)
	}
	if moved := st.paths(statusEntry.unstaged); len(moved) > 0 {
		return &Error{Code: CodeOwnershipAmbiguous, Reason: ReasonTreeMoved,
			Message: "the worktree changed after the review", Paths: limitPaths(moved)}
	}
	if staged, want := st.paths(statusEntry.staged), sortedUnique(slices.Clone(req.Files)); !slices.Equal(staged, want) {
		return &Error{Code: CodeInvalidRequest, Reason: ReasonStagedMismatch,
			Message: "the reviewed tree does not change exactly the listed files", Paths: limitPaths(symmetricDiff(staged, want))}
	}
	return nil
}

func symmetricDiff(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			out = append(out, x)
		}
	}
	return out
}

// runHooks runs the commit hooks against a disposable copy of the index and a message file in
// the transaction folder, then refuses the commit if a hook changed the index, the worktree or
// the message.
func runHooks(ctx context.Context, tx *reviewTx, req CommitRequest) error {
	wt := req.Worktree
	gitDir, err := wt.adminDir()
	if err != nil {
		return &Error{Code: CodeCommitFailed, Reason: ReasonGitFailed, Message: "cannot find the worktree's git directory", Err: err}
	}
	index, err := os.ReadFile(filepath.Join(gitDir, "index"))
	if err == nil {
		err = os.WriteFile(tx.index, index, 0o600)
	}
	msgFile := filepath.Join(tx.dir, "COMMIT_EDITMSG")
	if err == nil {
		err = os.WriteFile(msgFile, []byte(req.Message), 0o600)
	}
	if err != nil {
		return &Error{Code: CodeCommitFailed, Reason: ReasonGitFailed, Message: "cannot prepare the hook transaction", Err: err}
	}
	gitExe, err := gitPath()
	if err != nil {
		return &Error{Code: CodeCommitFailed, Reason: ReasonGitFailed, Message: "git not found", Err: err}
	}
	env := map[string]string{
		"GIT_INDEX_FILE": tx.index, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null",
		"GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C", "GIT_EDITOR": ":",
		"GIT_AUTHOR_NAME": req.Author.Name, "GIT_AUTHOR_EMAIL": req.Author.Email,
	}
	readOnly := sortedUnique([]string{wt.RepoRoot, wt.CommonDir, gitDir, tx.dir})
	for _, h := range []struct {
		name string
		args []string
	}{
		{"pre-commit", nil},
		{"prepare-commit-msg", []string{msgFile, "message"}},
		{"commit-msg", []string{msgFile}},
	} {
		argv := append([]string{gitExe, "hook", "run", "--ignore-missing", h.name}, append([]string{"--"}, h.args...)...)
		run := HookRun{Name: h.name, Argv: argv, Worktree: wt.Path, ReadOnly: readOnly, Env: env, Timeout: HookTimeout, MaxOutput: HookMaxOutput}
		if err := req.Hooks(ctx, run); err != nil {
			return &Error{Code: CodeCommitFailed, Reason: ReasonHookFailed, Message: h.name + " hook failed", Err: err}
		}
	}
	out, err := tx.cmd("write-tree").must(ctx, CodeCommitFailed, ReasonGitFailed)
	if err != nil {
		return err
	}
	msg, _ := os.ReadFile(msgFile)
	if strings.TrimSpace(string(out)) != req.Tree || !bytes.Equal(msg, []byte(req.Message)) {
		return newErr(CodeCommitFailed, ReasonHookMutated, "a hook changed the index or the commit message")
	}
	if err := checkStaged(ctx, tx, filepath.Join(gitDir, "index"), req); err != nil {
		return &Error{Code: CodeCommitFailed, Reason: ReasonHookMutated, Message: "a hook changed the worktree", Err: err}
	}
	return nil
}
