package core

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

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
}

// Doctor checks the machine for what reasonixctl needs: the platform, git, the worker binary
// and its supervisor flags and extensions, bubblewrap, the state directory and the Codex
// configuration. It changes nothing.
func Doctor(ctx context.Context, o DoctorOptions) []Check {
	checks := []Check{platformCheck(), gitCheck(ctx)}
	checks = append(checks, workerChecks(ctx, o.WorkerBin)...)
	checks = append(checks, sandboxCheck(), stateCheck(o.StateDir), codexCheck(o.CodexHome))
	return checks
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

// workerChecks finds the binary, its supervisor flags, and starts it once to check that
// initialize offers the Reasonix status extension. No session is opened: no provider is called.
func workerChecks(ctx context.Context, bin string) []Check {
	info, err := acp.ProbeBinary(ctx, bin)
	if err != nil {
		return []Check{{"reasonix_binary", CheckFail, err.Error() + " (install reasonix or set REASONIX_BIN)"}}
	}
	checks := []Check{{"reasonix_binary", CheckOK, info.Path + ": " + info.Version}}
	var missing []string
	for _, f := range acp.SupervisorFlags {
		if !slices.Contains(info.Flags, f) {
			missing = append(missing, "--"+f)
		}
	}
	if len(missing) > 0 {
		checks = append(checks, Check{"supervisor_flags", CheckFail, "the worker lacks " + strings.Join(missing, ", ") + ": upgrade Reasonix"})
	} else {
		checks = append(checks, Check{"supervisor_flags", CheckOK, "--" + strings.Join(acp.SupervisorFlags, ", --")})
	}
	dir, err := os.MkdirTemp("", "reasonixctl-doctor-")
	if err != nil {
		return append(checks, Check{"worker_protocol", CheckFail, err.Error()})
	}
	defer os.RemoveAll(dir)
	sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	w, err := acp.Start(sctx, acp.LaunchConfig{Bin: info.Path, Dir: dir})
	if err != nil {
		return append(checks, Check{"worker_protocol", CheckFail, err.Error()})
	}
	defer w.Close()
	wi := w.Info()
	return append(checks, Check{"worker_protocol", CheckOK,
		fmt.Sprintf("ACP v%d, %s %s, status extension and steer (%s)", wi.ProtocolVersion, wi.AgentName, wi.AgentVersion, wi.SteerMethod)})
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

// codexCheck reads Codex's config for the reasonix-worker server: without a long enough tool
// timeout Codex cuts delegate and finalize waits short. Its absence only matters to Codex users.
func codexCheck(home string) Check {
	if home == "" {
		home = os.Getenv("CODEX_HOME")
	}
	if home == "" {
		h, _ := os.UserHomeDir()
		home = filepath.Join(h, ".codex")
	}
	path := filepath.Join(home, "config.toml")
	f, err := os.Open(path)
	if err != nil {
		return Check{"codex_config", CheckWarn, "no " + path + ": register with `codex mcp add reasonix-worker -- reasonixctl --mcp` to use Codex"}
	}
	defer f.Close()
	in, found, timeout, required := false, false, 0, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			in = line == "[mcp_servers.reasonix-worker]" || line == `[mcp_servers."reasonix-worker"]`
			found = found || in
			continue
		}
		if !in {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		v = strings.TrimSpace(strings.SplitN(v, "#", 2)[0])
		switch strings.TrimSpace(k) {
		case "tool_timeout_sec":
			timeout, _ = strconv.Atoi(strings.TrimSuffix(v, ".0"))
		case "required":
			required = v == "true"
		}
	}
	switch {
	case !found:
		return Check{"codex_config", CheckWarn, path + " has no [mcp_servers.reasonix-worker]"}
	case timeout < 900:
		return Check{"codex_config", CheckFail, fmt.Sprintf("%s: set tool_timeout_sec = 900 under [mcp_servers.reasonix-worker] (now %d; Codex's default 300 s cuts waits short)", path, timeout)}
	case !required:
		return Check{"codex_config", CheckWarn, path + ": add required = true so Codex waits for the server before its first turn"}
	}
	return Check{"codex_config", CheckOK, path + ": tool_timeout_sec = " + strconv.Itoa(timeout) + ", required"}
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
