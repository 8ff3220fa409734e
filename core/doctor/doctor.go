package doctor

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"reasonixctl/acp"
	"reasonixctl/acp/agents"
	"reasonixctl/core/statedir"
	"reasonixctl/sandbox"
	"reasonixctl/store"
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

// Options says what to check.
type Options struct {
	WorkerBin string // "" means $REASONIX_BIN, else reasonix
	// Worker is the worker checked (acp/agents.Names); "" means $CODEX_REASONIX_WORKER, else
	// reasonix.
	Worker    string
	StateDir  string
	CodexHome string // "" means $CODEX_HOME, else ~/.codex
	// EnvAllow are the CODEX_REASONIX_ENV_ALLOWLIST globs: what reaches the worker besides
	// the fixed list.
	EnvAllow []string
	// RepoDir is the repository whose verification toolchains are checked ("" skips them).
	RepoDir string
	// AskOwner dials the process that owns StateDir and returns what it says about itself; nil
	// skips asking. (The owner's socket client lives in core/remote, which imports core.)
	AskOwner func(ctx context.Context, dir string) (OwnerAnswer, error)
}

// OwnerAnswer is what the owner of a state directory answers on its socket.
type OwnerAnswer struct {
	PID       int
	Mode      string
	StartedAt time.Time
	Protocol  int
}

// Run checks the machine for what a first run needs: the platform, git, a worker that
// answers ACP initialize as Reasonix does, its provider and API key, bubblewrap, the state
// directory, the toolchains the repository's checks need and the Codex configuration. It
// changes nothing and calls no provider.
func Run(ctx context.Context, o Options) []Check {
	checks := []Check{platformCheck(), gitCheck(ctx)}
	name := o.Worker
	if name == "" {
		name = os.Getenv("CODEX_REASONIX_WORKER")
	}
	var worker []Check
	path := ""
	if name == "" || name == agents.Reasonix {
		worker, path = workerChecks(ctx, o.WorkerBin)
	} else {
		worker = agentChecks(ctx, name, o.EnvAllow)
	}
	checks = append(checks, worker...)
	keyVar := ""
	if path != "" {
		var provider []Check
		provider, keyVar = providerChecks(ctx, path, o.EnvAllow)
		checks = append(checks, provider...)
	}
	state := stateCheck(o.StateDir)
	checks = append(checks, envCheck(o.EnvAllow), sandboxCheck(), state, ownerCheck(ctx, o, state))
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

// stateCheck is statedir.Check, the check every mode makes before it opens the directory, in
// its words.
func stateCheck(dir string) Check {
	if err := statedir.Check(dir); err != nil {
		return Check{"state_directory", CheckFail, err.Error()}
	}
	if _, err := os.Lstat(dir); os.IsNotExist(err) {
		return Check{"state_directory", CheckOK, dir + " (created on first use, mode 0700)"}
	}
	return Check{"state_directory", CheckOK, dir}
}

// ownerAskTimeout bounds how long the doctor waits for an owner's socket to answer.
const ownerAskTimeout = 5 * time.Second

// ownerCheck says who owns the state directory and whether its socket answers: while another
// process owns it, the task commands run through that socket. In a directory the state check
// refused it reads nothing, as no mode would.
func ownerCheck(ctx context.Context, o Options, state Check) Check {
	if state.Status == CheckFail {
		return Check{"owner", CheckWarn, "not checked: nothing in a refused state directory is read (see state_directory)"}
	}
	info := store.CurrentOwner(o.StateDir)
	if info == nil {
		return Check{"owner", CheckOK, "no reasonixctl owns the state directory; commands open it directly"}
	}
	who := fmt.Sprintf("owned by %s (pid %d, since %s)", OwnerName(info.Mode), info.PID, info.StartedAt.Local().Format(time.DateTime))
	if o.AskOwner == nil {
		return Check{"owner", CheckWarn, who}
	}
	ctx, cancel := context.WithTimeout(ctx, ownerAskTimeout)
	defer cancel()
	ans, err := o.AskOwner(ctx, o.StateDir)
	if err != nil {
		return Check{"owner", CheckFail, fmt.Sprintf("%s, but its socket does not answer: %v; task commands cannot run beside it: stop that process (or let it finish) and run again", who, err)}
	}
	return Check{"owner", CheckOK, fmt.Sprintf("%s, socket answers (protocol %d)", who, ans.Protocol)}
}

// OwnerName names an owner by how it was started, from its mode (engine.Config.Mode).
func OwnerName(mode string) string {
	switch mode {
	case "mcp":
		return "reasonixctl --mcp"
	case "tui":
		return "the reasonixctl dashboard"
	case "serve":
		return "reasonixctl serve (the background owner)"
	}
	return "reasonixctl (" + mode + ")"
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
