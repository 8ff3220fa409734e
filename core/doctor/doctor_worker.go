package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"reasonixctl/acp"
	"reasonixctl/core/scaffold"
)

// workerChecks finds the binary and starts it once: only a binary that answers ACP initialize
// with the Reasonix status extension and steer is a worker (a program that merely exits 0 is
// not). No session is opened, so no provider is called. path is the worker's path when it
// answered, else "".
func workerChecks(ctx context.Context, bin string) (checks []Check, path string) {
	info, err := acp.ProbeBinary(ctx, bin)
	if err != nil && info.Path == "" {
		return []Check{{"reasonix_binary", CheckFail, err.Error() + " (install reasonix or set REASONIX_BIN)"}}, ""
	}
	dir, derr := os.MkdirTemp("", "reasonixctl-doctor-")
	if derr != nil {
		return []Check{{"reasonix_binary", CheckFail, derr.Error()}}, ""
	}
	defer os.RemoveAll(dir)
	sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var w *acp.Worker
	if err == nil {
		w, err = acp.Start(sctx, acp.LaunchConfig{Bin: info.Path, Dir: dir})
	}
	if err != nil {
		return []Check{{"reasonix_binary", CheckFail, fmt.Sprintf(
			"%s is not a Reasonix worker: it did not answer ACP initialize with the Reasonix capabilities (%v); install reasonix (see the README) or point REASONIX_BIN at it", info.Path, err)}}, ""
	}
	defer w.Close()
	checks = []Check{{"reasonix_binary", CheckOK, info.Path + ": " + info.Version}}
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
	wi := w.Info()
	return append(checks, Check{"worker_protocol", CheckOK,
		fmt.Sprintf("ACP v%d, %s %s, status extension and steer (%s)", wi.ProtocolVersion, wi.AgentName, wi.AgentVersion, wi.SteerMethod)}), info.Path
}

// workerProvider is the part of the worker's configuration a first run depends on.
type workerProvider struct {
	ConfigPath string // the file the configuration came from; "" when the built-in presets apply
	UserPath   string // where the worker looks for the user's configuration
	Default    string // default_model
	Name       string // the default provider
	Host       string // its API host
	KeyVar     string // the variable its API key is read from
}

// workerEnv is the environment a worker launched with the allowlist gets from ours.
func workerEnv(allow []string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if name, _, ok := strings.Cut(kv, "="); ok && acp.EnvPassed(name, allow) {
			env = append(env, kv)
		}
	}
	return env
}

// readWorkerProvider asks the worker itself (`reasonix doctor --json`, which redacts secrets)
// where its configuration is and which provider is the default, with the environment the
// supervisor would give it. A worker without that command has its user configuration read
// directly.
func readWorkerProvider(ctx context.Context, bin string, allow []string) (workerProvider, error) {
	dctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	cmd := exec.CommandContext(dctx, bin, "doctor", "--json")
	cmd.Env, cmd.Dir = workerEnv(allow), os.TempDir()
	out, err := cmd.Output()
	var doc struct {
		Config struct {
			SourcePath   string `json:"source_path"`
			UserPath     string `json:"user_path"`
			DefaultModel string `json:"default_model"`
		} `json:"config"`
		Providers []struct {
			Name      string `json:"name"`
			Host      string `json:"base_url_host"`
			KeyEnv    string `json:"api_key_env"`
			IsDefault bool   `json:"is_default"`
		} `json:"providers"`
	}
	if err != nil || json.Unmarshal(out, &doc) != nil || doc.Config.UserPath == "" {
		return readProviderFile()
	}
	p := workerProvider{ConfigPath: doc.Config.SourcePath, UserPath: doc.Config.UserPath, Default: doc.Config.DefaultModel}
	for _, pr := range doc.Providers {
		if pr.IsDefault || (p.Name == "" && pr.Name == p.Default) {
			p.Name, p.Host, p.KeyVar = pr.Name, pr.Host, pr.KeyEnv
		}
	}
	return p, nil
}

// readProviderFile reads $REASONIX_HOME/config.toml, else ~/.reasonix/config.toml.
func readProviderFile() (workerProvider, error) {
	home := os.Getenv("REASONIX_HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return workerProvider{}, err
		}
		home = filepath.Join(h, ".reasonix")
	}
	p := workerProvider{UserPath: filepath.Join(home, "config.toml")}
	var cfg struct {
		DefaultModel string `toml:"default_model"`
		Providers    []struct {
			Name    string `toml:"name"`
			BaseURL string `toml:"base_url"`
			KeyEnv  string `toml:"api_key_env"`
		} `toml:"providers"`
	}
	if _, err := toml.DecodeFile(p.UserPath, &cfg); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return p, nil
		}
		return p, fmt.Errorf("%s: %w", p.UserPath, err)
	}
	p.ConfigPath, p.Default = p.UserPath, cfg.DefaultModel
	for _, pr := range cfg.Providers {
		if pr.Name == cfg.DefaultModel {
			p.Name, p.KeyVar = pr.Name, pr.KeyEnv
			p.Host = strings.TrimPrefix(strings.TrimPrefix(pr.BaseURL, "https://"), "http://")
			p.Host, _, _ = strings.Cut(p.Host, "/")
		}
	}
	return p, nil
}

// loopback reports a provider on this machine, which the worker calls without a key.
func loopback(host string) bool {
	h, _, err := net.SplitHostPort(host)
	if err != nil {
		h = host
	}
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// providerChecks reports the worker's default model and whether its API key reaches it. keyVar
// is the variable the key is read from ("" when none is needed), for the Codex check.
func providerChecks(ctx context.Context, bin string, allow []string) (checks []Check, keyVar string) {
	p, err := readWorkerProvider(ctx, bin, allow)
	if err != nil {
		return []Check{{"worker_provider", CheckFail, "the worker's configuration cannot be read: " + err.Error()}}, ""
	}
	switch {
	case p.Default == "" || p.Name == "":
		where := p.ConfigPath
		if where == "" {
			where = p.UserPath
		}
		return []Check{{"worker_provider", CheckFail, fmt.Sprintf("no default model: set default_model to a [[providers]] name in %s (see the README, Provider setup)", where)}}, ""
	case p.ConfigPath == "":
		checks = append(checks, Check{"worker_provider", CheckWarn, fmt.Sprintf(
			"no %s: the worker uses its built-in presets, default model %s at %s; write that file to choose your provider (see the README, Provider setup)", p.UserPath, p.Name, p.Host)})
	default:
		checks = append(checks, Check{"worker_provider", CheckOK, fmt.Sprintf("%s: default model %s (%s)", p.ConfigPath, p.Default, p.Host)})
	}
	switch {
	case p.KeyVar == "" || (loopback(p.Host) && os.Getenv(p.KeyVar) == ""):
		return append(checks, Check{"worker_api_key", CheckOK, "none needed for " + p.Host}), ""
	case os.Getenv(p.KeyVar) == "":
		return append(checks, Check{"worker_api_key", CheckFail, fmt.Sprintf(
			"%s is not set: export it with the provider's API key, and list it in CODEX_REASONIX_ENV_ALLOWLIST", p.KeyVar)}), p.KeyVar
	case !acp.EnvPassed(p.KeyVar, allow):
		return append(checks, Check{"worker_api_key", CheckFail, fmt.Sprintf(
			"%s is set but the worker would not get it: add it to CODEX_REASONIX_ENV_ALLOWLIST (export CODEX_REASONIX_ENV_ALLOWLIST=%s)", p.KeyVar, p.KeyVar)}), p.KeyVar
	}
	return append(checks, Check{"worker_api_key", CheckOK, p.KeyVar + " is set and passed to the worker"}), p.KeyVar
}

// envCheck names (never shows) what the worker gets from the environment.
func envCheck(allow []string) Check {
	var extra []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if acp.EnvPassed(name, allow) && !acp.EnvPassed(name, nil) {
			extra = append(extra, name)
		}
	}
	sort.Strings(extra)
	detail := "passed to the worker: " + strings.Join(acp.FixedEnv(), ", ")
	if len(allow) == 0 {
		return Check{"worker_env", CheckOK, detail + "; CODEX_REASONIX_ENV_ALLOWLIST adds nothing"}
	}
	set := "none of them is set"
	if len(extra) > 0 {
		set = "set now: " + strings.Join(extra, ", ")
	}
	return Check{"worker_env", CheckOK, fmt.Sprintf("%s; plus CODEX_REASONIX_ENV_ALLOWLIST=%s (%s)", detail, strings.Join(allow, ","), set)}
}

// toolchainCheck looks for the executables the repository's verification commands need, as
// `contract init` would write them.
func toolchainCheck(dir string) Check {
	root := scaffold.RepoRoot(dir)
	checks, _, err := scaffold.Detect(root)
	if err != nil {
		return Check{"toolchains", CheckWarn, err.Error()}
	}
	if len(checks) == 0 {
		return Check{"toolchains", CheckOK, root + " declares no verification toolchain"}
	}
	var found, missing []string
	for _, c := range checks {
		for _, tool := range c.Tools {
			if slices.Contains(found, tool) || slices.Contains(missing, tool) {
				continue
			}
			if _, err := exec.LookPath(tool); err != nil {
				missing = append(missing, tool)
			} else {
				found = append(found, tool)
			}
		}
	}
	if len(missing) > 0 {
		return Check{"toolchains", CheckFail, fmt.Sprintf("%s verifies with %s, but %s is not on PATH: install it, or verification fails at finalize", root, commandList(checks), strings.Join(missing, ", "))}
	}
	return Check{"toolchains", CheckOK, fmt.Sprintf("%s verifies with %s (found %s)", root, commandList(checks), strings.Join(found, ", "))}
}

func commandList(checks []scaffold.Check) string {
	var out []string
	for _, c := range checks {
		out = append(out, strings.Join(c.Argv, " "))
	}
	return strings.Join(out, "; ")
}
