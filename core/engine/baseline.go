package engine

import "reasonixctl/core/baseline"

// taskBaseRun is the base run of a task: its base commit, its repository and its network
// setting, as finalize runs its checks, but with the repository's base cache, never the task's:
// the task's checks ran the worker's code with that cache as HOME.
func (e *Engine) taskBaseRun(r *taskRecord) *baseline.Commit {
	return &baseline.Commit{
		Runner: e.sandbox(), StateDir: e.cfg.StateDir, RepoRoot: r.RepoRoot, CommonDir: r.RepoCommonDir,
		Base: r.BaseCommit, CacheDir: baseline.CacheDir(e.cfg.StateDir, r.RepoID), Network: r.Network,
	}
}
