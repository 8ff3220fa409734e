package core

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"reasonixctl/core/contract"
	"reasonixctl/core/gitx"
	"reasonixctl/core/scaffold"
	"reasonixctl/sandbox"
)

// BaseCheckOptions says where and how CheckOnBase runs a contract's verification commands.
type BaseCheckOptions struct {
	StateDir string // the state directory: the run's cache and results live there
	Dir      string // the person's checkout (or a folder inside it)
	// AllowUnsandboxed and Network are as for tasks (CODEX_REASONIX_ALLOW_UNSANDBOXED, …).
	AllowUnsandboxed bool
	Network          bool
	Logger           *slog.Logger
}

// BaseCheck is one verification command run on the checkout's HEAD commit.
type BaseCheck struct {
	ID       string
	Argv     []string
	Cwd      string
	Baseline *BaselineResult
}

// CheckOnBase runs each verification command of c on the HEAD commit of the checkout holding
// o.Dir, as finalize runs them (the same sandbox, a private cache of the repository's under the
// state directory, the checkout's dependency folders bound read-only), on a copy of the commit's
// files: the checkout itself is neither read nor written beyond git's objects. It returns the
// commit and a result per command, in the contract's order; each is cached per command and
// commit.
func CheckOnBase(ctx context.Context, o BaseCheckOptions, c *contract.Contract) (string, []BaseCheck, error) {
	dir, err := filepath.Abs(o.Dir)
	if err == nil {
		dir, err = filepath.EvalSymlinks(dir)
	}
	if err != nil {
		return "", nil, Errorf(CodeNotGitRepository, nil, "%s cannot be resolved: %w", o.Dir, err)
	}
	src, err := gitx.OpenSource(ctx, dir, "HEAD")
	if err != nil {
		return "", nil, Errorf(CodeNotGitRepository, nil, "%s: %w", dir, err)
	}
	cache := filepath.Join(o.StateDir, "cache", "base-"+src.ID)
	if err := os.MkdirAll(cache, 0o700); err != nil {
		return "", nil, Errorf(CodeInternalError, nil, "cache: %w", err)
	}
	b := &BaseRun{
		Runner:   &sandbox.Runner{AllowUnsandboxed: o.AllowUnsandboxed, Logger: o.Logger},
		StateDir: o.StateDir, RepoRoot: src.Root, CommonDir: src.CommonDir, Base: src.Base, CacheDir: cache, Network: o.Network,
	}
	defer b.Close()
	out := make([]BaseCheck, 0, len(c.Verification))
	for _, v := range c.Verification {
		out = append(out, BaseCheck{ID: v.ID, Argv: v.Argv, Cwd: v.Cwd, Baseline: b.Run(ctx, c, v)})
	}
	return src.Base, out, nil
}

// FirstFailingLines is the first n lines of what a command printed on the base commit (its
// log without the header), for a person deciding about it.
func FirstFailingLines(b *BaselineResult, n int) string {
	if b == nil {
		return ""
	}
	if b.Status == BaselineUnknown {
		return b.Reason
	}
	text := b.LogTail
	if b.LogPath != "" {
		if raw, err := os.ReadFile(b.LogPath); err == nil {
			text = string(raw)
		}
	}
	var out []string
	for i, l := range strings.Split(text, "\n") {
		if i < 4 && (strings.HasPrefix(l, "$ ") || strings.HasPrefix(l, "cwd: ") || strings.HasPrefix(l, "base: ") || strings.HasPrefix(l, "exit: ")) {
			continue
		}
		if strings.TrimSpace(l) == "" {
			continue
		}
		out = append(out, strings.TrimRight(l, "\r "))
		if len(out) == n {
			break
		}
	}
	return strings.Join(out, "\n")
}

// DraftContractChecked drafts a contract for the checkout at o.Dir as `contract init --check`
// does: every command found runs on HEAD first (CheckOnBase), and those that fail there are
// left out of the draft. It returns the draft and what each command did on HEAD.
func DraftContractChecked(ctx context.Context, o BaseCheckOptions) (ContractDraft, []BaseCheck, error) {
	d, err := scaffold.New(scaffold.Options{Dir: o.Dir})
	if err != nil {
		return d, nil, err
	}
	c, err := contract.Parse(d.JSON)
	if err != nil {
		return d, nil, err
	}
	_, checks, err := CheckOnBase(ctx, o, c)
	if err != nil {
		return d, nil, err
	}
	failed := map[string]bool{}
	for _, ch := range checks {
		if ch.Baseline.Status == BaselineFailed {
			failed[ch.ID] = true
		}
	}
	if len(failed) == 0 {
		return d, checks, nil
	}
	d, err = scaffold.New(scaffold.Options{Dir: o.Dir, Keep: func(ch scaffold.Check) bool { return !failed[ch.ID] }})
	return d, checks, err
}
