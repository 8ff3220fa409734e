package baseline

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"

	"reasonixctl/core"
	"reasonixctl/core/contract"
	"reasonixctl/core/gitx"
	"reasonixctl/core/scaffold"
	"reasonixctl/sandbox"
)

// Options says where and how CheckHEAD runs a contract's verification commands.
type Options struct {
	StateDir string // the state directory: the run's cache and results live there
	Dir      string // the person's checkout (or a folder inside it)
	// AllowUnsandboxed and Network are as for tasks (CODEX_REASONIX_ALLOW_UNSANDBOXED, …).
	AllowUnsandboxed bool
	Network          bool
	Logger           *slog.Logger
}

// CheckHEAD runs each verification command of c on the HEAD commit of the checkout holding
// o.Dir, as finalize runs them (the same sandbox, a private cache of the repository's under the
// state directory, the checkout's dependency folders bound read-only), on a copy of the commit's
// files: the checkout itself is neither read nor written beyond git's objects. It returns the
// commit and a result per command, in the contract's order; each is cached per command and
// commit.
func CheckHEAD(ctx context.Context, o Options, c *contract.Contract) (string, []core.BaseCheck, error) {
	dir, err := filepath.Abs(o.Dir)
	if err == nil {
		dir, err = filepath.EvalSymlinks(dir)
	}
	if err != nil {
		return "", nil, core.Errorf(core.CodeNotGitRepository, nil, "%s cannot be resolved: %w", o.Dir, err)
	}
	src, err := gitx.OpenSource(ctx, dir, "HEAD")
	if err != nil {
		return "", nil, core.Errorf(core.CodeNotGitRepository, nil, "%s: %w", dir, err)
	}
	cache := CacheDir(o.StateDir, src.ID)
	if err := os.MkdirAll(cache, 0o700); err != nil {
		return "", nil, core.Errorf(core.CodeInternalError, nil, "cache: %w", err)
	}
	b := &Commit{
		Runner:   &sandbox.Runner{AllowUnsandboxed: o.AllowUnsandboxed, Logger: o.Logger, Private: []string{o.StateDir}},
		StateDir: o.StateDir, RepoRoot: src.Root, CommonDir: src.CommonDir, Base: src.Base, CacheDir: cache, Network: o.Network,
	}
	defer b.Close()
	out := make([]core.BaseCheck, 0, len(c.Verification))
	for _, v := range c.Verification {
		out = append(out, core.BaseCheck{ID: v.ID, Argv: v.Argv, Cwd: v.Cwd, Baseline: b.Run(ctx, c, v)})
	}
	return src.Base, out, nil
}

// DraftChecked drafts a contract for the checkout at o.Dir as `contract init --check` does:
// every command found runs on HEAD first (CheckHEAD), and those that fail there in a way that
// cannot be told from a failure a change causes are left out of the draft. One whose failures
// its toolchain names (BaselineResult.FailuresKnown) is kept: finalize can excuse exactly
// those and still catches every other. It returns the draft and what each command did on HEAD.
func DraftChecked(ctx context.Context, o Options) (core.ContractDraft, []core.BaseCheck, error) {
	d, err := scaffold.New(scaffold.Options{Dir: o.Dir})
	if err != nil {
		return d, nil, err
	}
	c, err := contract.Parse(d.JSON)
	if err != nil {
		return d, nil, err
	}
	_, checks, err := CheckHEAD(ctx, o, c)
	if err != nil {
		return d, nil, err
	}
	failed := map[string]bool{}
	for _, ch := range checks {
		if ch.Baseline.Status == core.BaselineFailed && !ch.Baseline.FailuresKnown() {
			failed[ch.ID] = true
		}
	}
	if len(failed) == 0 {
		return d, checks, nil
	}
	d, err = scaffold.New(scaffold.Options{Dir: o.Dir, Keep: func(ch scaffold.Check) bool { return !failed[ch.ID] }})
	return d, checks, err
}
