package baseline

import (
	"os"
	"path/filepath"
	"slices"

	"reasonixctl/core/contract"
	"reasonixctl/sandbox"
)

// dependencyFolders are the folders a source checkout installs its dependencies into and git
// ignores, so a worktree never has them. Verification sees the source's copy read-only.
var dependencyFolders = []string{"node_modules", ".venv", "venv"}

// DependencyBinds binds the dependency folders of the checkout at repoRoot into tree, a copy of
// its files (a worktree, or a base commit's files), as verificationBinds does.
func DependencyBinds(repoRoot, tree string, c *contract.Contract, hidden []string) []sandbox.Bind {
	dirs := []string{"."}
	for _, v := range c.Verification {
		if v.Cwd != "" && v.Cwd != "." {
			dirs = append(dirs, v.Cwd)
		}
	}
	seen := map[string]bool{}
	var out []sandbox.Bind
	for _, d := range dirs {
		for _, name := range dependencyFolders {
			rel := filepath.Join(filepath.FromSlash(d), name)
			if seen[rel] {
				continue
			}
			seen[rel] = true
			src := filepath.Join(repoRoot, rel)
			dst := filepath.Join(tree, rel)
			if st, err := os.Stat(src); err != nil || !st.IsDir() {
				continue
			}
			if _, err := os.Lstat(dst); err == nil && !slices.Contains(hidden, filepath.ToSlash(rel)) {
				continue // the worktree has its own (tracked) copy
			}
			if _, err := os.Stat(filepath.Dir(dst)); err != nil {
				continue
			}
			out = append(out, sandbox.Bind{Src: src, Dst: dst})
		}
	}
	return out
}
