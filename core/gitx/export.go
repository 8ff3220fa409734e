package gitx

import (
	"context"
	"os"
	"path/filepath"
)

// IgnoredInCheckout reports whether git ignores path (absolute, inside the checkout at root) in
// the person's checkout: a file written there leaves the checkout clean. A tracked path is not
// ignored.
func IgnoredInCheckout(ctx context.Context, root, path string) (bool, error) {
	rel, err := filepath.Rel(root, path)
	if err != nil || !filepath.IsLocal(rel) {
		return false, badInput("%s is not inside %s", path, root)
	}
	// check-ignore takes no pathspec magic; a path is matched as given.
	_, err = gitCmd{at: inCheckout(root), args: []string{"check-ignore", "-q", "--", filepath.ToSlash(rel)}}.run(ctx)
	switch {
	case err == nil:
		return true, nil
	case exitCode(err) == 1:
		return false, nil
	}
	return false, wrap(CodeInternal, ReasonGitFailed, err)
}

// ExportTree writes the files of commit (a 40-hex commit of the repository whose common
// directory is commonDir) into dst, an empty private folder, as they are stored: through a view
// whose work tree is dst, so no config, attribute, filter or hook of the repository or of any
// worktree applies, and no checkout is touched. Submodules are left out (empty folders).
func ExportTree(ctx context.Context, commonDir, commit, dst string) error {
	if !hex40.MatchString(commit) || !filepath.IsAbs(commonDir) || !filepath.IsAbs(dst) {
		return badInput("ExportTree needs an absolute common directory and destination and a 40-hex commit")
	}
	if entries, err := os.ReadDir(dst); err != nil || len(entries) > 0 {
		return badInput("ExportTree needs an existing empty destination: %s", dst)
	}
	tmp, err := os.MkdirTemp("", "reasonixctl-export-")
	if err != nil {
		return &Error{Code: CodeInternal, Reason: ReasonGitFailed, Message: "temporary folder", Err: err}
	}
	defer os.RemoveAll(tmp)
	v, err := newView(tmp, Worktree{Path: dst, CommonDir: commonDir, Base: commit}, commit)
	if err != nil {
		return err
	}
	index := filepath.Join(tmp, "index")
	if _, err := (gitCmd{at: v.at(index), args: []string{"read-tree", commit}}).must(ctx, CodeInternal, ReasonGitFailed); err != nil {
		return err
	}
	_, err = gitCmd{at: v.at(index), args: []string{"checkout-index", "-a", "-f"}}.must(ctx, CodeInternal, ReasonGitFailed)
	return err
}
