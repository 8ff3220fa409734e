// Package baseline runs a contract's verification commands on a base commit's files, in the
// sandbox finalize uses, and drafts contracts from a repository's toolchains: the jobs behind
// `contract init --check`, the dashboard's drafts and finalize's pre-existing failures.
package baseline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"reasonixctl/core"
	"reasonixctl/core/contract"
	"reasonixctl/core/failures"
	"reasonixctl/core/gitx"
	"reasonixctl/core/redact"
	"reasonixctl/sandbox"
	"reasonixctl/store/atomicfile"
)

// CacheDir is the toolchain cache of base runs in the repository repoID: base commits only, so
// that no worker's code — which runs with its task's cache as HOME — can plant what makes a
// check fail on the base and a new failure look pre-existing.
func CacheDir(stateDir, repoID string) string {
	return filepath.Join(stateDir, "baseline", "cache", repoID)
}

// baselineTailLines is how much of a baseline's output a result quotes.
const baselineTailLines = 20

// Commit runs verification commands on the files of one base commit, exported once (lazily)
// into a private folder under the state directory through a gitx view: nothing of the person's
// checkout or of any worktree is read or written, and no file a worker wrote is there.
// Results that passed or failed are cached per command and base under <state>/baseline, so a
// command runs there at most once; an unknown one is tried again next time.
type Commit struct {
	Runner    *sandbox.Runner
	StateDir  string
	RepoRoot  string // the person's checkout: its dependency folders are bound read-only
	CommonDir string
	Base      string
	CacheDir  string
	Network   bool

	once    sync.Once
	tree    string
	treeErr error
}

// Close removes the base commit's files, if Run exported them.
func (b *Commit) Close() {
	if b.tree != "" {
		removeTree(filepath.Dir(b.tree))
	}
}

// removeTree removes a base tree a check ran in, folders it made unwritable included; links
// are removed, never followed.
func removeTree(dir string) {
	if os.RemoveAll(dir) == nil {
		return
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	os.RemoveAll(dir)
}

func (b *Commit) export(ctx context.Context) (string, error) {
	b.once.Do(func() {
		parent := filepath.Join(b.StateDir, "baseline", "trees")
		if err := os.MkdirAll(parent, 0o700); err != nil {
			b.treeErr = err
			return
		}
		dir, err := os.MkdirTemp(parent, "base-")
		if err != nil {
			b.treeErr = err
			return
		}
		tree := filepath.Join(dir, "tree")
		if err := os.Mkdir(tree, 0o700); err != nil {
			os.RemoveAll(dir)
			b.treeErr = err
			return
		}
		if err := gitx.ExportTree(ctx, b.CommonDir, b.Base, tree); err != nil {
			os.RemoveAll(dir)
			b.treeErr = err
			return
		}
		b.tree = tree
	})
	return b.tree, b.treeErr
}

// baselineKeyVersion is part of every result's key. 2: base runs stopped sharing a task's cache,
// which its worker's code could have written, so results cached before are not trusted. 3: base
// runs read their tree read-only, as the task's checks do, so that a failure is compared like
// for like. 4: a failed result names its failures (issue 37), which results cached before lack.
const baselineKeyVersion = 4

// baselineKey names a command on a base: its argv, cwd, timeout and network, the base, and the
// checkout whose dependency folders it sees.
func baselineKey(repoRoot, base string, v contract.Verification, network bool) string {
	argv, _ := json.Marshal(v.Argv)
	sum := sha256.Sum256(fmt.Appendf(nil, "%d\x00%s\x00%s\x00%s\x00%s\x00%d\x00%v", baselineKeyVersion, repoRoot, base, argv, v.Cwd, v.TimeoutSeconds, network))
	return hex.EncodeToString(sum[:])[:32]
}

// Run runs v on the base (or returns its cached result). c is the contract v belongs to, for
// the dependency folders of its commands' directories.
func (b *Commit) Run(ctx context.Context, c *contract.Contract, v contract.Verification) *core.BaselineResult {
	dir := filepath.Join(b.StateDir, "baseline")
	key := baselineKey(b.RepoRoot, b.Base, v, b.Network)
	resultPath := filepath.Join(dir, key+".json")
	if raw, err := os.ReadFile(resultPath); err == nil {
		var cached core.BaselineResult
		if json.Unmarshal(raw, &cached) == nil && cached.Base == b.Base && (cached.Status == core.BaselinePassed || cached.Status == core.BaselineFailed) {
			return &cached
		}
	}
	unknown := func(format string, args ...any) *core.BaselineResult {
		return &core.BaselineResult{Status: core.BaselineUnknown, Base: b.Base, Reason: fmt.Sprintf(format, args...)}
	}
	tree, err := b.export(ctx)
	if err != nil {
		return unknown("the base commit's files could not be exported: %v", err)
	}
	timeout := time.Duration(v.TimeoutSeconds) * time.Second
	if timeout <= 0 {
		timeout = time.Duration(contract.DefaultVerifyTimeout) * time.Second
	}
	res, err := b.Runner.Run(ctx, sandbox.Spec{
		Argv: v.Argv, Dir: filepath.Join(tree, filepath.FromSlash(v.Cwd)), Worktree: tree, ReadOnly: true,
		Timeout: timeout, MaxOutput: core.VerificationLogMax, CacheDir: b.CacheDir,
		Binds: DependencyBinds(b.RepoRoot, tree, c, nil), Network: b.Network,
	})
	if err != nil {
		var se *sandbox.Error
		if errors.As(err, &se) && se.Code == sandbox.CodeUnavailable {
			return unknown("the sandbox is unavailable: %s", se.Message)
		}
		return unknown("it could not run: %v", err)
	}
	switch {
	case res.TimedOut:
		return unknown("it did not finish within %s on the base commit", timeout)
	case res.Truncated:
		return unknown("its output exceeded the limit on the base commit")
	case res.ExitCode == 126 || res.ExitCode == 127:
		// The shell's and bubblewrap's "cannot execute" and "not found": the toolchain is missing,
		// which says nothing about the code.
		return unknown("the command could not start (exit %d: not found or not executable): %s", res.ExitCode,
			core.FirstLines(redact.Secrets(string(res.Stderr)), 3))
	}
	text := CheckLog(v, fmt.Sprintf("base: %s\nexit: %d", b.Base, res.ExitCode), res)
	code := res.ExitCode
	out := &core.BaselineResult{Status: core.BaselineFailed, Base: b.Base, ExitCode: &code, LogPath: filepath.Join(dir, key+".log")}
	if res.Passed() {
		out.Status = core.BaselinePassed
	}
	if !res.Passed() {
		readFailures(out, v, text, failures.Roots{Tree: tree, Cache: b.CacheDir})
	}
	if err := os.WriteFile(out.LogPath, text, 0o600); err != nil {
		out.LogPath = ""
	}
	out.LogTail = core.TailOf(string(text), baselineTailLines, 2048)
	if raw, err := json.Marshal(out); err == nil {
		_ = atomicfile.WriteFile(resultPath, raw, atomicfile.Options{})
	}
	return out
}

// readFailures names the failures of a failed base run, from its log as kept (secrets
// redacted, like the task's): what finalize compares a change's failures with. A log cut at its
// limit names none: what it left out could hold any failure.
func readFailures(out *core.BaselineResult, v contract.Verification, log []byte, roots failures.Roots) {
	if len(log) >= core.VerificationLogMax {
		return
	}
	rep := failures.Read(v.Argv, LogOutput(log), roots)
	out.Failures, out.FailureFormat, out.OutputDigest = rep.Failures, rep.Format, rep.Digest
}
