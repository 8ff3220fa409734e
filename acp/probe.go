package acp

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"
)

// BinaryInfo is what a worker binary says about itself without starting a session.
type BinaryInfo struct {
	Path    string
	Version string   // first line of `--version`
	Flags   []string // flags `acp --help` advertises, sorted
}

// SupervisorFlags are the `acp` flags the supervisor relies on: without them the worker may
// write outside the worktree, reach the network or run shell commands unsandboxed.
var SupervisorFlags = []string{"planner", "sandbox-bash", "sandbox-network", "workspace-only"}

// ProbeBinary runs `BIN --version` and `BIN acp --help` ("" means $REASONIX_BIN, else reasonix).
func ProbeBinary(ctx context.Context, bin string) (BinaryInfo, error) {
	if bin == "" {
		bin = os.Getenv("REASONIX_BIN")
	}
	if bin == "" {
		bin = defaultBinary
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return BinaryInfo{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	info := BinaryInfo{Path: path}
	env := childEnv(os.Environ(), nil, nil)
	vctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(vctx, path, "--version")
	cmd.Env, cmd.Dir = env, os.TempDir()
	out, err := cmd.Output()
	if err != nil {
		return info, fmt.Errorf("%w: %s --version: %w", ErrUnavailable, path, err)
	}
	info.Version, _, _ = strings.Cut(strings.TrimSpace(string(out)), "\n")
	flags, err := advertisedFlags(ctx, path, env, "", nil)
	if err != nil {
		return info, fmt.Errorf("%w: %s acp --help: %w", ErrUnavailable, path, err)
	}
	for f := range flags {
		info.Flags = append(info.Flags, f)
	}
	sort.Strings(info.Flags)
	return info, nil
}
