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

// Rebase moves a task's worktree from its base to onto, a commit that descends from the base:
// the change from the base to reviewTree (what the worktree holds) is merged onto onto the way
// `git cherry-pick` would, the worktree's files become the merged tree — a file the merge could
// not settle holds conflict markers, the side of onto first — and the task branch and the
// worktree's index move to onto. The merge runs in a view (no config, neutral attributes, so no
// merge driver, filter or hook of anyone's runs); the files are written through the view, the
// branch by compare-and-swap in the repository and the index from the repository's side. A file
// that no longer holds what reviewTree says refuses the rebase (tree_moved) before anything is
// written. The merged objects go to the repository's store; nothing else of it changes.
func Rebase(ctx context.Context, wt Worktree, reviewTree, onto string) (RebaseResult, error) {
	for _, h := range []string{wt.Base, reviewTree, onto} {
		if !hex40.MatchString(h) {
			return RebaseResult{}, badInput("Rebase: %q is not a 40-hex object name", h)
		}
	}
	if !filepath.IsAbs(wt.Path) || !filepath.IsAbs(wt.CommonDir) {
		return RebaseResult{}, badInput("Rebase needs a worktree with an absolute path and common directory")
	}
	if err := CheckHead(ctx, wt); err != nil {
		return RebaseResult{}, err
	}
	admin, err := wt.adminDir()
	if err != nil {
		return RebaseResult{}, err
	}
	repo := inRepository(wt.CommonDir)
	if _, err := (gitCmd{at: repo, args: []string{"merge-base", "--is-ancestor", wt.Base, onto}}).run(ctx); err != nil {
		if exitCode(err) == 1 {
			return RebaseResult{}, newErr(CodeInvalidRequest, ReasonBadRef, "%s does not descend from the task's base %s", onto, wt.Base)
		}
		return RebaseResult{}, wrap(CodeInternal, ReasonGitFailed, err)
	}
	tx, err := newReviewTx(wt)
	if err != nil {
		return RebaseResult{}, err
	}
	defer tx.close()
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
	forgetCreatedIndex(wt.Path)
	if _, err := git(ctx, CodeInternal, ReasonGitFailed, inAdminDir(admin), "read-tree", onto); err != nil {
		return res, err
	}
	return res, nil
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
