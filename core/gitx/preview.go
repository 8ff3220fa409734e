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
	p, _, err := previewApply(ctx, root, base, change, false)
	return p, err
}

// writtenPaths are the paths an apply writes: where the merged tree differs from HEAD's.
type writtenPaths struct {
	added   []string // not in HEAD: the apply creates them
	changed []string // in HEAD: the apply modifies or deletes them
}

// previewApply is PreviewApply that, with paths, also lists the paths the merged tree changes
// against HEAD (no rename detection: both sides of a rename are written), read from the
// temporary object directory before it goes.
func previewApply(ctx context.Context, root, base, change string, paths bool) (ApplyPreview, writtenPaths, error) {
	var w writtenPaths
	for _, h := range []string{base, change} {
		if !hex40.MatchString(h) {
			return ApplyPreview{}, w, badInput("PreviewApply: %q is not a 40-hex object name", h)
		}
	}
	headOut, err := git(ctx, CodeNotGitRepository, ReasonBadRef, inCheckout(root), "rev-parse", "--verify", "-q", "HEAD^{commit}")
	if err != nil {
		return ApplyPreview{}, w, err
	}
	head := strings.TrimSpace(string(headOut))
	objOut, err := git(ctx, CodeNotGitRepository, ReasonGitFailed, inCheckout(root), "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return ApplyPreview{}, w, err
	}
	objects := filepath.Join(strings.TrimSpace(string(objOut)), "objects")
	tmp, err := os.MkdirTemp("", "reasonixctl-preview-")
	if err != nil {
		return ApplyPreview{}, w, &Error{Code: CodeInternal, Reason: ReasonGitFailed, Message: "temporary object directory", Err: err}
	}
	defer os.RemoveAll(tmp)
	env := []string{
		"GIT_OBJECT_DIRECTORY=" + tmp, "GIT_ALTERNATE_OBJECT_DIRECTORIES=" + objects,
		"GIT_AUTHOR_NAME=reasonixctl", "GIT_AUTHOR_EMAIL=preview@reasonixctl.invalid", "GIT_AUTHOR_DATE=@0 +0000",
		"GIT_COMMITTER_NAME=reasonixctl", "GIT_COMMITTER_EMAIL=preview@reasonixctl.invalid", "GIT_COMMITTER_DATE=@0 +0000",
	}
	typ, err := gitCmd{at: inCheckout(root), args: []string{"cat-file", "-t", change}, env: env}.must(ctx, CodeInvalidRequest, ReasonBadRef)
	if err != nil {
		return ApplyPreview{}, w, err
	}
	commit := change
	if strings.TrimSpace(string(typ)) == "tree" {
		out, err := gitCmd{at: inCheckout(root), args: []string{"commit-tree", change, "-p", base, "-m", "preview"}, env: env}.must(ctx, CodeInternal, ReasonGitFailed)
		if err != nil {
			return ApplyPreview{}, w, err
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
		if paths {
			// The first line of a clean merge is the merged tree, an object of the temporary
			// directory: what differs from HEAD there is what cherry-pick's checkout writes.
			ls := lines(out)
			if len(ls) == 0 || !hex40.MatchString(ls[0]) {
				return ApplyPreview{}, w, newErr(CodeInternal, ReasonGitFailed, "merge-tree printed no tree")
			}
			diff, err := gitCmd{at: inCheckout(root), args: []string{"diff-tree", "-r", "-z", "--no-renames", "--name-status", head, ls[0]}, env: env}.must(ctx, CodeInternal, ReasonGitFailed)
			if err != nil {
				return ApplyPreview{}, w, err
			}
			if w, err = parseWritten(diff); err != nil {
				return ApplyPreview{}, w, err
			}
		}
		return p, w, nil
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
		return p, w, nil
	}
	return ApplyPreview{}, w, wrap(CodeInternal, ReasonGitFailed, err)
}

// parseWritten reads `diff-tree -r -z --no-renames --name-status`: a status letter, then
// its path, each NUL-terminated.
func parseWritten(out []byte) (writtenPaths, error) {
	var w writtenPaths
	f := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if len(f) == 1 && f[0] == "" {
		return w, nil
	}
	if len(f)%2 != 0 {
		return w, newErr(CodeInternal, ReasonGitFailed, "diff-tree output is malformed")
	}
	for i := 0; i < len(f); i += 2 {
		switch st, path := f[i], f[i+1]; {
		case st == "A":
			w.added = append(w.added, path)
		case st == "M" || st == "D" || st == "T":
			w.changed = append(w.changed, path)
		default:
			return w, newErr(CodeInternal, ReasonGitFailed, "diff-tree status %q for %s", st, path)
		}
	}
	w.added, w.changed = sortedUnique(w.added), sortedUnique(w.changed)
	return w, nil
}
