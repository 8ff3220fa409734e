package gitx

import (
	"bytes"
	"context"
	"os"
	"path"
	"path/filepath"
	"slices"
)

// NotInTree lists what dir holds on disk that tree does not: every file, link, special file and
// folder — an empty one, an ignored one, a nested `.git`, the worktree's own `.git` link — whose
// path is not an entry of tree, and the contents of a submodule's folder. Each is one
// slash-separated path relative to dir; a folder's contents are not listed under it. Together
// with a drift check that the entries of tree hold its bytes, leaving these out of a view of dir
// makes the view exactly tree, whatever the review could or could not see. dir is read without
// following any link.
func NotInTree(ctx context.Context, commonDir, tree, dir string) ([]string, error) {
	if !hex40.MatchString(tree) || !filepath.IsAbs(dir) {
		return nil, badInput("NotInTree needs a 40-hex tree and an absolute folder")
	}
	out, err := git(ctx, CodeInternal, ReasonGitFailed, inRepository(commonDir), "ls-tree", "-r", "-t", "-z", "--full-tree", tree)
	if err != nil {
		return nil, err
	}
	const (
		isFile = iota + 1
		isDir
		isSubmodule
	)
	entries := map[string]int{}
	for rec := range bytes.SplitSeq(out, []byte{0}) {
		meta, name, ok := bytes.Cut(rec, []byte{'\t'})
		if !ok {
			continue
		}
		switch f := bytes.Fields(meta); {
		case len(f) != 3:
		case string(f[1]) == "tree":
			entries[string(name)] = isDir
		case string(f[1]) == "commit":
			entries[string(name)] = isSubmodule
		default:
			entries[string(name)] = isFile
		}
	}
	var extra []string
	var walk func(rel string) error
	walk = func(rel string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		list, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			return &Error{Code: CodeInternal, Reason: ReasonGitFailed, Message: "reading the worktree", Err: err}
		}
		for _, e := range list {
			p := path.Join(rel, e.Name())
			switch kind := entries[p]; {
			case kind == isDir && e.IsDir():
				if err := walk(p); err != nil {
					return err
				}
			case kind == isSubmodule && e.IsDir():
				// A submodule is committed as a commit id, never as files: nothing inside shows.
				inside, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(p)))
				if err != nil {
					return &Error{Code: CodeInternal, Reason: ReasonGitFailed, Message: "reading the worktree", Err: err}
				}
				for _, c := range inside {
					extra = append(extra, path.Join(p, c.Name()))
				}
			case kind == isFile && (e.Type().IsRegular() || e.Type()&os.ModeSymlink != 0):
			default:
				extra = append(extra, p)
			}
		}
		return nil
	}
	if err := walk(""); err != nil {
		return nil, err
	}
	slices.Sort(extra)
	return extra, nil
}
