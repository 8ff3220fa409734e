package core

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"

	"reasonixctl/acp"
	"reasonixctl/sandbox"
)

// Check statuses.
const (
	CheckOK   = "ok"
	CheckWarn = "warn" // works, but something a user would want to know
	CheckFail = "fail"
)

// Check is one line of the doctor's report.
type Check struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail"`
}

// DoctorOptions says what to check.
type DoctorOptions struct {
	WorkerBin string // "" means $REASONIX_BIN, else reasonix
	StateDir  string
	CodexHome string // "" means $CODEX_HOME, else ~/.codex
	// EnvAllow are the CODEX_REASONIX_ENV_ALLOWLIST globs: what reaches the worker besides
	// the fixed list.
	EnvAllow []string
	// RepoDir is the repository whose verification toolchains are checked ("" skips them).
	RepoDir string
}

// Doctor checks the machine for what a first run needs: the platform, git, a worker that
// answers ACP initialize as Reasonix does, its provider and API key, bubblewrap, the state
// directory, the toolchains the repository's checks need and the Codex configuration. It
// changes nothing and calls no provider.
func Doctor(ctx context.Context, o DoctorOptions) []Check {
	checks := []Check{platformCheck(), gitCheck(ctx)}
	worker, path := workerChecks(ctx, o.WorkerBin)
	checks = append(checks, worker...)
	keyVar := ""
	if path != "" {
		var provider []Check
		provider, keyVar = providerChecks(ctx, path, o.EnvAllow)
		checks = append(checks, provider...)
	}
	checks = append(checks, envCheck(o.EnvAllow), sandboxCheck(), stateCheck(o.StateDir))
	if o.RepoDir != "" {
		checks = append(checks, toolchainCheck(o.RepoDir))
	}
	return append(checks, codexChecks(o.CodexHome, keyVar)...)
}

func platformCheck() Check {
	if runtime.GOOS == "linux" || runtime.GOOS == "darwin" {
		return Check{"platform", CheckOK, runtime.GOOS + "/" + runtime.GOARCH}
	}
	return Check{"platform", CheckFail, runtime.GOOS + " is not supported: use Linux or macOS"}
}

func gitCheck(ctx context.Context) Check {
	out, err := exec.CommandContext(ctx, "git", "--version").Output()
	if err != nil {
		return Check{"git", CheckFail, "git not found: install git 2.36 or newer"}
	}
	v := strings.TrimSpace(string(out))
	fields := strings.Fields(v)
	if len(fields) >= 3 {
		parts := strings.SplitN(fields[2], ".", 3)
		if len(parts) >= 2 {
			major, _ := strconv.Atoi(parts[0])
			minor, _ := strconv.Atoi(parts[1])
			if major < 2 || (major == 2 && minor < 36) {
				return Check{"git", CheckFail, v + ": reasonixctl needs git 2.36 or newer"}
			}
		}
	}
	return Check{"git", CheckOK, v}
}

// SandboxAvailable reports whether bubblewrap works on this machine (probed once per process).
func SandboxAvailable() bool { return (&sandbox.Runner{}).Probe().Available }

func sandboxCheck() Check {
	p := (&sandbox.Runner{}).Probe()
	if !p.Available {
		return Check{"sandbox", CheckFail, p.Detail + ": install bubblewrap; without it the worker refuses every shell command and verification cannot run"}
	}
	return Check{"sandbox", CheckOK, p.Engine + " at " + p.Executable}
}

func stateCheck(dir string) Check {
	fi, err := os.Stat(dir)
	switch {
	case os.IsNotExist(err):
		return Check{"state_directory", CheckOK, dir + " (created on first use, mode 0700)"}
	case err != nil:
		return Check{"state_directory", CheckFail, err.Error()}
	case fi.Mode().Perm()&0o077 != 0:
		return Check{"state_directory", CheckFail, fmt.Sprintf("%s has mode %04o: run chmod 700 %s", dir, fi.Mode().Perm(), dir)}
	}
	return Check{"state_directory", CheckOK, dir}
}

// WorkerVersion is the worker binary's own version line, or a word saying why there is none;
// the dashboard shows it in its header.
func WorkerVersion(ctx context.Context, bin string) string {
	info, err := acp.ProbeBinary(ctx, bin)
	if err != nil {
		return "not found (see reasonixctl doctor)"
	}
	return info.Version
}
