package gitx

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
)

// RebaseResult is what Rebase did to a task's worktree.
type RebaseResult struct {
	From, Onto string   // the old and the new base
	Tree       string   // the merged tree now in the worktree's files, conflict markers included
	Conflicts  []string // the paths the merge could not settle, sorted
}

// rebaseIdentity makes the throw-away commit of the reviewed tree that the merge needs; it
// never reaches a ref.
var rebaseIdentity = []string{
	"GIT_AUTHOR_NAME=reasonixctl", "GIT_AUTHOR_EMAIL=rebase@reasonixctl.invalid", "GIT_AUTHOR_DATE=@0 +0000",
	"GIT_COMMITTER_NAME=reasonixctl", "GIT_COMMITTER_EMAIL=rebase@reasonixctl.invalid", "GIT_COMMITTER_DATE=@0 +0000",
}

// A rebase moves a task's worktree from its base to onto, a commit that descends from the base:
// the change from the base to reviewTree (what the worktree holds) is merged onto onto the way
// `git cherry-pick` would, the worktree's files become the merged tree — a file the merge could
// not settle holds conflict markers, the side of onto first — and the task branch and the
// worktree's index move to onto. The merge runs in a view (no config, neutral attributes, so no
// merge driver, filter or hook of anyone's runs); the files are written through the view, the
// branch by compare-and-swap in the repository and the index from the repository's side. A file
// that no longer holds what reviewTree says refuses the rebase (tree_moved) before anything is
// written. The merged objects go to the repository's store; nothing else of it changes.
//
// PlanRebase is its first half: the checks and the merge, whose objects go to the repository's
// store; nothing of the worktree, its branch or its index changes. ApplyRebase writes the result.
// A caller records the plan in between, so that a crash after the branch moved is finished by
// FinishRebase instead of leaving a branch its record does not know.
func PlanRebase(ctx context.Context, wt Worktree, reviewTree, onto string) (RebaseResult, error) {
	tx, err := newReviewTx(wt)
	if err != nil {
		return RebaseResult{}, err
	}
	defer tx.close()
	return planRebase(ctx, wt, tx, reviewTree, onto)
}

// ApplyRebase is the second half of a rebase: it writes what PlanRebase planned for the same
// worktree and reviewed tree.
func ApplyRebase(ctx context.Context, wt Worktree, reviewTree string, res RebaseResult) (RebaseResult, error) {
	if err := checkRebaseInput(wt, reviewTree, res.Onto, res.Tree); err != nil {
		return RebaseResult{}, err
	}
	if res.From != wt.Base {
		return RebaseResult{}, badInput("ApplyRebase: the plan starts at %s, the worktree's base is %s", res.From, wt.Base)
	}
	if err := CheckHead(ctx, wt); err != nil {
		return RebaseResult{}, err
	}
	tx, err := newReviewTx(wt)
	if err != nil {
		return RebaseResult{}, err
	}
	defer tx.close()
	return applyRebase(ctx, wt, tx, reviewTree, res)
}

func checkRebaseInput(wt Worktree, hashes ...string) error {
	for _, h := range append([]string{wt.Base}, hashes...) {
		if !hex40.MatchString(h) {
			return badInput("Rebase: %q is not a 40-hex object name", h)
		}
	}
	if !filepath.IsAbs(wt.Path) || !filepath.IsAbs(wt.CommonDir) {
		return badInput("Rebase needs a worktree with an absolute path and common directory")
	}
	return nil
}

func planRebase(ctx context.Context, wt Worktree, tx *reviewTx, reviewTree, onto string) (RebaseResult, error) {
	if err := checkRebaseInput(wt, reviewTree, onto); err != nil {
		return RebaseResult{}, err
	}
	if err := CheckHead(ctx, wt); err != nil {
		return RebaseResult{}, err
	}
	repo := inRepository(wt.CommonDir)
	if _, err := (gitCmd{at: repo, args: []string{"merge-base", "--is-ancestor", wt.Base, onto}}).run(ctx); err != nil {
		if exitCode(err) == 1 {
			return RebaseResult{}, newErr(CodeInvalidRequest, ReasonBadRef, "%s does not descend from the task's base %s", onto, wt.Base)
		}
		return RebaseResult{}, wrap(CodeInternal, ReasonGitFailed, err)
	}
	bare := tx.view.bare()
	out, err := gitCmd{at: bare, args: []string{"commit-tree", reviewTree, "-p", wt.Base, "-m", "reasonixctl: reviewed change"}, env: rebaseIdentity}.
		must(ctx, CodeInternal, ReasonGitFailed)
	if err != nil {
		return RebaseResult{}, err
	}
	change := strings.TrimSpace(string(out))
	args := []string{"merge-tree", "--write-tree", "--name-only", "--no-messages", "--merge-base=" + wt.Base, onto, change}
	out, err = gitCmd{at: bare, args: args, env: rebaseIdentity}.run(ctx)
	var ge *GitError
	if errors.As(err, &ge) && ge.ExitCode == 129 {
		// git before 2.40: no --merge-base; onto descends from the base, so it is the one found.
		args = append(args[:4], onto, change)
		out, err = gitCmd{at: bare, args: args, env: rebaseIdentity}.run(ctx)
	}
	if err != nil && exitCode(err) != 1 {
		return RebaseResult{}, wrap(CodeInternal, ReasonGitFailed, err)
	}
	ls := strings.Split(string(out), "\n")
	res := RebaseResult{From: wt.Base, Onto: onto, Tree: strings.TrimSpace(ls[0])}
	if !hex40.MatchString(res.Tree) {
		return RebaseResult{}, newErr(CodeInternal, ReasonGitFailed, "merge-tree returned %q", ls[0])
	}
	if err != nil {
		for _, l := range ls[1:] {
			if l == "" {
				break
			}
			res.Conflicts = append(res.Conflicts, l)
		}
		res.Conflicts = sortedUnique(res.Conflicts)
	}
	return res, nil
}

func applyRebase(ctx context.Context, wt Worktree, tx *reviewTx, reviewTree string, res RebaseResult) (RebaseResult, error) {
	admin, err := wt.adminDir()
	if err != nil {
		return RebaseResult{}, err
	}
	repo := inRepository(wt.CommonDir)
	onto := res.Onto
	// The files: from the reviewed tree to the merged one, through the view. The disposable
	// index holds the reviewed tree with the files' stat data, so a two-tree read-tree refuses a
	// file that differs from it instead of overwriting it.
	if _, err := tx.cmd("read-tree", reviewTree).must(ctx, CodeInternal, ReasonGitFailed); err != nil {
		return RebaseResult{}, err
	}
	if _, err := tx.cmd("update-index", "-q", "--refresh").run(ctx); err != nil && ctx.Err() != nil {
		return RebaseResult{}, ctx.Err()
	}
	if _, err := tx.cmd("read-tree", "-m", "-u", reviewTree, res.Tree).run(ctx); err != nil {
		if ctx.Err() != nil {
			return RebaseResult{}, ctx.Err()
		}
		return RebaseResult{}, &Error{Code: CodeOwnershipAmbiguous, Reason: ReasonTreeMoved,
			Message: "the worktree's files are not the reviewed tree any more, so they were left as they are", Err: err}
	}
	// The branch, by compare-and-swap from the base; on failure the files go back.
	if _, err := git(ctx, CodeCommitFailed, ReasonRefMoved, repo, "update-ref", "-m", "reasonixctl: rebase onto "+onto, wt.Ref(), onto, wt.Base); err != nil {
		if _, rerr := tx.cmd("read-tree", "-m", "-u", res.Tree, reviewTree).run(context.WithoutCancel(ctx)); rerr != nil {
			return RebaseResult{}, &Error{Code: CodeInternal, Reason: ReasonGitFailed,
				Message: "moving the task branch failed, and so did restoring the worktree's files", Err: errors.Join(err, rerr)}
		}
		return RebaseResult{}, err
	}
	// The worktree's own index is the new base, written from the repository's side.
	return res, rebaseIndex(ctx, wt.Path, admin, onto)
}

// rebaseIndex makes the worktree's own index the tree of onto, the branch's new commit.
func rebaseIndex(ctx context.Context, path, admin, onto string) error {
	forgetCreatedIndex(path)
	_, err := git(ctx, CodeInternal, ReasonGitFailed, inAdminDir(admin), "read-tree", onto)
	return err
}

// FinishRebase finishes a rebase that ApplyRebase may have begun for wt (at its base, res.From)
// when the process died before its caller recorded the result. It reports whether the task
// branch moved: at res.Onto, the files were written before the branch moved, and the index is
// written again (it was the last step); at res.From, nothing was written but perhaps the files,
// and the branch stays. A branch anywhere else, or the worktree on another branch, is
// head_moved or wrong_branch.
func FinishRebase(ctx context.Context, wt Worktree, res RebaseResult) (moved bool, err error) {
	if err := checkRebaseInput(wt, res.From, res.Onto); err != nil {
		return false, err
	}
	if err := CheckLink(wt); err != nil {
		return false, err
	}
	l, err := headOf(ctx, wt)
	if err != nil {
		return false, err
	}
	switch {
	case l[1] != wt.Ref():
		return false, newErr(CodeOwnershipAmbiguous, ReasonWrongBranch, "the worktree is on %s, not %s", strings.TrimPrefix(l[1], "refs/heads/"), BranchPrefix+wt.Task)
	case l[0] == res.From:
		return false, nil
	case l[0] != res.Onto:
		return false, newErr(CodeOwnershipAmbiguous, ReasonHeadMoved, "the task branch is at %s, neither the base %s nor the rebase's %s", l[0], res.From, res.Onto)
	}
	admin, err := wt.adminDir()
	if err != nil {
		return false, err
	}
	return true, rebaseIndex(ctx, wt.Path, admin, res.Onto)
}

// HasConflictMarkers reports whether content holds a line that opens or closes a conflict as
// git writes one ("<<<<<<< " or ">>>>>>> " at the start of a line).
func HasConflictMarkers(content []byte) bool {
	for _, l := range strings.Split(string(content), "\n") {
		if strings.HasPrefix(l, "<<<<<<< ") || strings.HasPrefix(l, ">>>>>>> ") || l == "<<<<<<<" || l == ">>>>>>>" {
			return true
		}
	}
	return false
}
