package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// maxHideMounts bounds the mounts that hiding paths may take; past it the command is refused.
const maxHideMounts = 20000

// hideMounts returns the bubblewrap arguments that make each hidden path (relative to the
// worktree) absent from the worktree as the command sees it — absent, not emptied, so that not
// even its existence can change what a command does. The folder holding a hidden path becomes
// an empty tmpfs into which everything else it holds is bound again, writable as before
// (symbolic links re-created as links, other special files left out). Parents are handled before
// their descendants, so a hidden path deeper down is hidden inside what its ancestors re-bound.
//
// With readOnly everything is bound read-only and each tmpfs is made read-only by remounts, which
// the caller applies last: after the dependency folders are bound into them.
func hideMounts(worktree string, hidden []string, readOnly bool) (args, remounts []string, err error) {
	hide := map[string]bool{}
	for _, h := range hidden {
		rel := filepath.Clean(filepath.FromSlash(h))
		if h == "" || filepath.IsAbs(rel) || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, nil, invalid("hidden path %q must be inside the worktree", h)
		}
		hide[filepath.Join(worktree, rel)] = true
	}
	underHidden := func(p string) bool {
		for d := filepath.Dir(p); strictlyWithin(d, worktree) || d == worktree; d = filepath.Dir(d) {
			if hide[d] {
				return true
			}
			if d == worktree {
				break
			}
		}
		return false
	}
	parents := map[string]bool{}
	for p := range hide {
		if !underHidden(p) {
			parents[filepath.Dir(p)] = true
		}
	}
	order := make([]string, 0, len(parents))
	for p := range parents {
		order = append(order, p)
	}
	slices.SortFunc(order, func(a, b string) int {
		if da, db := strings.Count(a, "/"), strings.Count(b, "/"); da != db {
			return da - db
		}
		return strings.Compare(a, b)
	})
	bind := "--bind"
	if readOnly {
		bind = "--ro-bind"
	}
	for _, p := range order {
		entries, err := os.ReadDir(p)
		if err != nil {
			continue // gone since it was listed: nothing to hide there
		}
		args = append(args, "--tmpfs", p)
		for _, e := range entries {
			c := filepath.Join(p, e.Name())
			if hide[c] || parents[c] {
				continue // hidden, or laid out in its own turn
			}
			switch t := e.Type(); {
			case t&os.ModeSymlink != 0:
				target, err := os.Readlink(c)
				if err != nil {
					continue
				}
				args = append(args, "--symlink", target, c)
			case t.IsDir() || t.IsRegular():
				args = append(args, bind, c, c)
			}
		}
		if readOnly {
			remounts = append(remounts, "--remount-ro", p)
		}
		if len(args) > 3*maxHideMounts {
			return nil, nil, invalid("too many entries beside the %d paths to hide; remove ignored files from the worktree", len(hidden))
		}
	}
	return args, remounts, nil
}
