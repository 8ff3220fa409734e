package gitx

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// ApplyPreview says whether a change would apply to a checkout's current HEAD.
type ApplyPreview struct {
	Head      string   // the HEAD commit the change was merged onto
	Clean     bool     // merges without conflicts
	Conflicts []string // the paths that conflict, sorted
	Moved     bool     // HEAD is no longer the change's base
}

// PreviewApply merges the change from base to change (a tree, or a commit whose parent is
// base) onto root's HEAD the way `git cherry-pick` would, without touching root: no file,
// index or ref is written, and neither are objects. Every object the merge needs to write (the
// commit wrapping a tree, the merged trees and blobs) goes to a temporary object directory
// that reads the repository's own store as an alternate and is removed afterwards; the
// repository's object store is left exactly as it was.
//
// The merge base is base. git ≥ 2.40 is told so (--merge-base); older versions (merge-tree
// --write-tree needs 2.38) compute it, which is the same commit while HEAD descends from base.
func PreviewApply(ctx context.Context, root, base, change string) (ApplyPreview, error) {
	for _, h := range []string{base, change} {
		if !hex40.MatchString(h) {
			return ApplyPreview{}, badInput("PreviewApply: %q is not a 40-hex object name", h)
		}
	}
	headOut, err := git(ctx, CodeNotGitRepository, ReasonBadRef, inCheckout(root), "rev-parse", "--verify", "-q", "HEAD^{commit}")
	if err != nil {
		return ApplyPreview{}, err
	}
	head := strings.TrimSpace(string(headOut))
	objOut, err := git(ctx, CodeNotGitRepository, ReasonGitFailed, inCheckout(root), "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return ApplyPreview{}, err
	}
	objects := filepath.Join(strings.TrimSpace(string(objOut)), "objects")
	tmp, err := os.MkdirTemp("", "reasonixctl-preview-")
	if err != nil {
		return ApplyPreview{}, &Error{Code: CodeInternal, Reason: ReasonGitFailed, Message: "temporary object directory", Err: err}
	}
	defer os.RemoveAll(tmp)
	env := []string{
		"GIT_OBJECT_DIRECTORY=" + tmp, "GIT_ALTERNATE_OBJECT_DIRECTORIES=" + objects,
		"GIT_AUTHOR_NAME=reasonixctl", "GIT_AUTHOR_EMAIL=preview@reasonixctl.invalid", "GIT_AUTHOR_DATE=@0 +0000",
		"GIT_COMMITTER_NAME=reasonixctl", "GIT_COMMITTER_EMAIL=preview@reasonixctl.invalid", "GIT_COMMITTER_DATE=@0 +0000",
	}
	typ, err := gitCmd{at: inCheckout(root), args: []string{"cat-file", "-t", change}, env: env}.must(ctx, CodeInvalidRequest, ReasonBadRef)
	if err != nil {
		return ApplyPreview{}, err
	}
	commit := change
	if strings.TrimSpace(string(typ)) == "tree" {
		out, err := gitCmd{at: inCheckout(root), args: []string{"commit-tree", change, "-p", base, "-m", "preview"}, env: env}.must(ctx, CodeInternal, ReasonGitFailed)
		if err != nil {
			return ApplyPreview{}, err
		}
		commit = strings.TrimSpace(string(out))
	}
	args := []string{"merge-tree", "--write-tree", "--name-only", "--no-messages", "--merge-base=" + base, head, commit}
	out, err := gitCmd{at: inCheckout(root), args: args, env: env}.run(ctx)
	var ge *GitError
	if errors.As(err, &ge) && ge.ExitCode == 129 {
		// git before 2.40: no --merge-base.
		args = append(args[:4], head, commit)
		out, err = gitCmd{at: inCheckout(root), args: args, env: env}.run(ctx)
	}
	p := ApplyPreview{Head: head, Moved: head != base}
	switch {
	case err == nil:
		p.Clean = true
		return p, nil
	case errors.As(err, &ge) && ge.ExitCode == 1:
		// The first line is the merged tree; the conflicted paths follow, up to a blank line.
		ls := strings.Split(string(out), "\n")
		seen := map[string]bool{}
		for _, l := range ls[1:] {
			if l == "" {
				break
			}
			if !seen[l] {
				seen[l] = true
				p.Conflicts = append(p.Conflicts, l)
			}
		}
		p.Conflicts = sortedUnique(p.Conflicts)
		return p, nil
	}
	return ApplyPreview{}, wrap(CodeInternal, ReasonGitFailed, err)
}
