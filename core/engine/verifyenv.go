package engine

import (
	"path/filepath"

	"reasonixctl/core/baseline"
	"reasonixctl/core/contract"
	"reasonixctl/sandbox"
)

// taskCacheDir is the task's private toolchain cache: kept across its repair rounds, removed
// when the task is archived.
func (e *Engine) taskCacheDir(id string) string {
	return filepath.Join(e.cfg.StateDir, "cache", id)
}

// verificationBinds are the source checkout's dependency folders, bound read-only at the same
// place in the worktree, for the repository root and each verification command's directory.
// A folder of the worktree's own there wins, unless the review left it out (hidden): then the
// checks get the source's copy, never the worker's.
func verificationBinds(r *taskRecord, c *contract.Contract, hidden []string) []sandbox.Bind {
	return baseline.DependencyBinds(r.RepoRoot, r.Worktree, c, hidden)
}
