package doctor

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"reasonixctl/acp"
	"reasonixctl/acp/agents"
)

// agentChecks checks a worker other than Reasonix (CODEX_REASONIX_WORKER): its profile and
// command line, that it answers ACP initialize (started in a throw-away folder with a private
// home made from its profile, so nothing of the user's is written; no session is opened, so no
// model is called), the supervision the supervisor will switch on, its model endpoint and which
// of its variables are set.
func agentChecks(ctx context.Context, name string, allow []string) []Check {
	p, err := agents.Lookup(name, os.Environ())
	if err != nil {
		return []Check{{"worker", CheckFail, err.Error()}}
	}
	checks := []Check{{"worker", CheckOK, fmt.Sprintf("%s (CODEX_REASONIX_WORKER): %s", p.Name, strings.Join(p.Command, " "))}}
	path, err := exec.LookPath(p.Command[0])
	if err != nil {
		how := p.Install
		if p.Overridden {
			how = "fix " + agents.OverrideVar(p.Name)
		}
		return append(checks, Check{"worker_binary", CheckFail, fmt.Sprintf("%s is not on PATH: %s", p.Command[0], how)})
	}
	dir, err := os.MkdirTemp("", "reasonixctl-doctor-")
	if err != nil {
		return append(checks, Check{"worker_binary", CheckFail, err.Error()})
	}
	defer os.RemoveAll(dir)
	home := filepath.Join(dir, "home")
	work := filepath.Join(dir, "work")
	env := []string{"HOME=" + home}
	setup, err := p.Home(os.Environ(), home)
	if err == nil {
		err = writeProbeHome(home, work, setup)
	}
	if err != nil {
		return append(checks, Check{"worker_config", CheckFail, fmt.Sprintf("the %s worker's configuration cannot be prepared: %v", p.Name, err)})
	}
	env = append(env, setup.Env...)
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cfg := acp.LaunchConfig{Agent: p, Dir: work, EnvAllow: append(append([]string(nil), allow...), setup.EnvNames...), Env: env}
	if p.UsesFS {
		cfg.FSRoot = work
	}
	w, err := acp.Start(sctx, cfg)
	if err != nil {
		return append(checks, Check{"worker_binary", CheckFail, fmt.Sprintf("%s did not answer ACP initialize: %v", path, err)})
	}
	defer w.Close()
	wi := w.Info()
	checks = append(checks, Check{"worker_binary", CheckOK, fmt.Sprintf("%s: %s %s, ACP v%d", path, wi.AgentName, wi.AgentVersion, wi.ProtocolVersion)})
	checks = append(checks, Check{"worker_supervision", CheckOK, supervision(p, wi)})
	endpoints := p.Endpoints(os.Environ())
	if len(endpoints) == 0 {
		checks = append(checks, Check{"worker_endpoint", CheckWarn, "no model endpoint found in the " + p.Name + " configuration"})
	} else {
		checks = append(checks, Check{"worker_endpoint", CheckOK, strings.Join(endpoints, ", ")})
	}
	return append(checks, agentEnvCheck(p, setup, allow))
}

// supervision says how the worker is kept asking.
func supervision(p agents.Profile, wi acp.WorkerInfo) string {
	var parts []string
	if p.Mode != "" {
		parts = append(parts, "session mode "+p.Mode)
	}
	switch p.Layout {
	case agents.HomeCodex:
		parts = append(parts, "approval_policy untrusted and sandbox_mode workspace-write in its private CODEX_HOME")
	case agents.HomeOpencode:
		parts = append(parts, "permission edit/bash/webfetch ask in its private opencode.json")
	case agents.HomeQwen:
		parts = append(parts, "approvalMode default in its private settings")
	}
	if len(p.NewSessionMeta) > 0 {
		parts = append(parts, "only its private user settings (settingSources user)")
	}
	parts = append(parts, "steer by "+strings.ReplaceAll(wi.Steer, "_", " "))
	if wi.StatusExtension {
		parts = append(parts, "status extension")
	} else {
		parts = append(parts, "turn end and usage from stopReason and usage_update")
	}
	if wi.FS {
		parts = append(parts, "fs/* served inside the worktree")
	}
	return strings.Join(parts, "; ")
}

// agentEnvCheck names (never shows) the worker's variables that are set and passed.
func agentEnvCheck(p agents.Profile, setup agents.HomeSetup, allow []string) Check {
	var set, unset []string
	for _, n := range append(append([]string(nil), p.Env...), setup.EnvNames...) {
		if os.Getenv(n) != "" {
			set = append(set, n)
		} else {
			unset = append(unset, n)
		}
	}
	if len(set) == 0 && len(unset) == 0 {
		return Check{"worker_env", CheckOK, "the " + p.Name + " worker reads its endpoint and key from its own configuration"}
	}
	if len(set) == 0 {
		return Check{"worker_env", CheckWarn, "none of " + strings.Join(unset, ", ") + " is set: the worker may not reach its model"}
	}
	return Check{"worker_env", CheckOK, "set and passed to the worker: " + strings.Join(set, ", ")}
}

// writeProbeHome writes the throw-away home of the initialize probe.
func writeProbeHome(home, work string, setup agents.HomeSetup) error {
	for _, d := range append([]string{home, work}, setup.Dirs...) {
		if !filepath.IsAbs(d) {
			d = filepath.Join(home, filepath.FromSlash(d))
		}
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	for _, f := range setup.Files {
		p := filepath.Join(home, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.Data, 0o600); err != nil {
			return err
		}
	}
	return nil
}
