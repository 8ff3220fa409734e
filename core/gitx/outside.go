package gitx

import (
	"context"
	"os"
	"path/filepath"
	"strings"
)

// Outside is what a worktree holds beyond a reviewed tree.
type Outside struct {
	// Ignored lists ignored files and folders (a folder that an ignore pattern matches is one
	// entry, with a trailing /), the untracked .reasonix folder among them: on disk, never in a
	// commit.
	Ignored []string
	// Drift lists what changed since the review: tracked files modified or deleted, untracked
	// files that are not ignored.
	Drift []string
}

// Unreviewed compares the worktree with tree, a reviewed tree, through a view: what is ignored
// and what drifted. keptIndex, when it is the index BuildReviewKeepingIndex kept for tree, saves
// reading the whole checkout again. pathspec, when given, limits the comparison to those
// repository-relative prefixes. It refuses a worktree whose .git was rewritten or whose HEAD
// moved (see CheckHead). One git process, two without a kept index.
func Unreviewed(ctx context.Context, wt Worktree, tree, keptIndex string, pathspec []string) (Outside, error) {
	if !hex40.MatchString(tree) || !hex40.MatchString(wt.Base) || !filepath.IsAbs(wt.Path) {
		return Outside{}, badInput("Unreviewed needs a worktree with an absolute path, a resolved base and a 40-hex tree")
	}
	if err := CheckHead(ctx, wt); err != nil {
		return Outside{}, err
	}
	tx, err := newReviewTx(wt)
	if err != nil {
		return Outside{}, err
	}
	defer tx.close()
	if !copyKeptIndex(keptIndex, tree, tx.index) {
		if seeded, _ := seedIndex(wt, tx.index); seeded {
			if _, err := tx.cmd("read-tree", "-m", tree).run(ctx); err != nil {
				if ctx.Err() != nil {
					return Outside{}, ctx.Err()
				}
				os.Remove(tx.index)
			}
		}
		if _, err := os.Stat(tx.index); err != nil {
			if _, err := tx.cmd("read-tree", tree).must(ctx, CodeInternal, ReasonGitFailed); err != nil {
				return Outside{}, err
			}
		}
	}
	args := []string{"status", "--porcelain=v2", "-z", "--untracked-files=all", "--ignored=matching", "--no-renames", "--ignore-submodules=all"}
	if len(pathspec) > 0 {
		args = append(append(args, "--"), pathspec...)
	}
	c := tx.cmd(args...)
	c.env = []string{"GIT_LITERAL_PATHSPECS=1"}
	out, err := c.must(ctx, CodeInternal, ReasonGitFailed)
	if err != nil {
		return Outside{}, err
	}
	st, err := parseStatus(out)
	if err != nil {
		return Outside{}, &Error{Code: CodeInternal, Reason: ReasonGitFailed, Message: "unexpected status output", Err: err}
	}
	var o Outside
	for _, e := range st.entries {
		switch {
		case e.kind == '!':
			o.Ignored = append(o.Ignored, e.path)
		case e.unstaged():
			o.Drift = append(o.Drift, e.path)
		}
	}
	o.Ignored, o.Drift = sortedUnique(o.Ignored), sortedUnique(o.Drift)
	return o, nil
}

// copyKeptIndex copies a kept review index to dst, with its time (git's racy-entry check is
// relative to it), when it records exactly tree.
func copyKeptIndex(kept, tree, dst string) bool {
	b, fi, ok := readKeptIndex(kept, tree)
	if !ok {
		return false
	}
	if os.WriteFile(dst, b, 0o600) != nil || os.Chtimes(dst, fi.ModTime(), fi.ModTime()) != nil {
		os.Remove(dst)
		return false
	}
	return true
}

// IgnoredRoots turns Outside.Ignored into paths for a file system: folders without their
// trailing slash.
func IgnoredRoots(ignored []string) []string {
	out := make([]string, len(ignored))
	for i, p := range ignored {
		out[i] = strings.TrimSuffix(p, "/")
	}
	return out
}
