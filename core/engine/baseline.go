package engine

import "reasonixctl/core/baseline"

// taskBaseRun is the base run of a task: its base commit, its repository, its private cache and
// its network setting, as finalize runs its checks.
func (e *Engine) taskBaseRun(r *taskRecord) *baseline.Commit {
	return &baseline.Commit{
		Runner: e.sandbox(), StateDir: e.cfg.StateDir, RepoRoot: r.RepoRoot, CommonDir: r.RepoCommonDir,
		Base: r.BaseCommit, CacheDir: e.taskCacheDir(r.TaskID), Network: r.Network,
	}
}
