package main

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"reasonixctl/core"
	"reasonixctl/core/engine"
)

// settings is the configuration read from the environment; the names are the earlier bridge's,
// so reasonixctl can replace it in place.
type settings struct {
	bin              string
	model            string
	effort           string
	network          bool
	scannerArgv      []string
	runHooks         bool
	allowUnsandboxed bool
	envAllow         []string
	// askUser: CODEX_REASONIX_PERMISSIONS=ask puts commands the policy does not know to Codex's
	// user (MCP elicitation) instead of denying them at once.
	askUser    bool
	askTimeout time.Duration
	// owner: CODEX_REASONIX_OWNER=serve makes --mcp attach to `reasonixctl serve`, starting one
	// in the background when none runs, instead of owning the state directory itself.
	owner string
	// worker: CODEX_REASONIX_WORKER, the worker of tasks that name none (core.WorkerNames).
	worker string
}

// maxAskTimeoutSeconds bounds CODEX_REASONIX_ASK_TIMEOUT: a day; a worker's turn waiting longer
// for a person is a configuration mistake.
const maxAskTimeoutSeconds = 86400

func readSettings() (settings, error) {
	s := settings{
		bin:              os.Getenv("REASONIX_BIN"),
		model:            os.Getenv("CODEX_REASONIX_MODEL"),
		effort:           os.Getenv("CODEX_REASONIX_EFFORT"),
		network:          os.Getenv("CODEX_REASONIX_NETWORK") == "on",
		runHooks:         os.Getenv("CODEX_REASONIX_RUN_GIT_HOOKS") == "true",
		allowUnsandboxed: os.Getenv("CODEX_REASONIX_ALLOW_UNSANDBOXED") == "true",
	}
	if s.effort == "" {
		s.effort = "medium"
	}
	if !slices.Contains([]string{"low", "medium", "high", "max"}, s.effort) {
		return s, fmt.Errorf("CODEX_REASONIX_EFFORT=%q: use low, medium, high or max", s.effort)
	}
	if v := os.Getenv("CODEX_REASONIX_SECRET_SCANNER_ARGV"); v != "" {
		if err := json.Unmarshal([]byte(v), &s.scannerArgv); err != nil || len(s.scannerArgv) == 0 {
			return s, fmt.Errorf("CODEX_REASONIX_SECRET_SCANNER_ARGV must be a non-empty JSON array of strings")
		}
	}
	switch v := os.Getenv("CODEX_REASONIX_PERMISSIONS"); v {
	case "", "auto":
	case "ask":
		s.askUser = true
	default:
		return s, fmt.Errorf("CODEX_REASONIX_PERMISSIONS=%q: use auto (deny commands the policy does not know) or ask (ask Codex's user about them)", v)
	}
	s.askTimeout = core.DefaultAskTimeout
	if v := os.Getenv("CODEX_REASONIX_ASK_TIMEOUT"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 || n > maxAskTimeoutSeconds {
			return s, fmt.Errorf("CODEX_REASONIX_ASK_TIMEOUT=%q: use a whole number of seconds from 1 to %d (default %d)",
				v, maxAskTimeoutSeconds, int(core.DefaultAskTimeout/time.Second))
		}
		s.askTimeout = time.Duration(n) * time.Second
	}
	switch s.owner = os.Getenv("CODEX_REASONIX_OWNER"); s.owner {
	case "", "mcp", "serve":
	default:
		return s, fmt.Errorf("CODEX_REASONIX_OWNER=%q: use mcp (--mcp owns the state directory when it is free) or serve (attach to reasonixctl serve, starting it when none runs)", s.owner)
	}
	worker, err := core.DefaultWorker(os.Getenv)
	if err != nil {
		return s, err
	}
	s.worker = worker
	for _, g := range strings.Split(os.Getenv("CODEX_REASONIX_ENV_ALLOWLIST"), ",") {
		if g = strings.TrimSpace(g); g != "" {
			s.envAllow = append(s.envAllow, g)
		}
	}
	return s, nil
}

// engineConfig turns settings into the engine's configuration for one mode.
func (s settings) engineConfig(dir, mode string, log *slog.Logger, pm core.PermissionMode) engine.Config {
	return engine.Config{
		StateDir:          dir,
		Mode:              mode,
		Logger:            log,
		Worker:            countedWorkers(engine.BinaryWorker(s.bin, s.envAllow, log), &softLimit),
		Model:             s.model,
		DefaultEffort:     s.effort,
		DefaultWorker:     s.worker,
		PermissionMode:    pm,
		AllowUnsandboxed:  s.allowUnsandboxed,
		RunGitHooks:       s.runHooks,
		SecretScannerArgv: s.scannerArgv,
		AskTimeout:        s.askTimeout,
	}
}
