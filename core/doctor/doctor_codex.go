package doctor

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// codexServerName is the name the README registers reasonixctl under.
const codexServerName = "reasonix-worker"

// MinCodexToolTimeout is the tool_timeout_sec delegate and finalize waits need; Codex's
// default (300 s) cuts them short.
const MinCodexToolTimeout = 900

// codexConfig is the part of Codex's config.toml the doctor reads.
type codexConfig struct {
	MCPServers map[string]codexServer `toml:"mcp_servers"`
}

// codexServer is one [mcp_servers.NAME] table.
type codexServer struct {
	Command                  string                     `toml:"command"`
	Args                     []string                   `toml:"args"`
	ToolTimeoutSec           *tomlNumber                `toml:"tool_timeout_sec"`
	Required                 bool                       `toml:"required"`
	DefaultToolsApprovalMode string                     `toml:"default_tools_approval_mode"`
	Tools                    map[string]codexToolConfig `toml:"tools"`
	Env                      map[string]string          `toml:"env"`
	EnvVars                  []envVarName               `toml:"env_vars"`
}

type codexToolConfig struct {
	ApprovalMode string `toml:"approval_mode"`
}

// tomlNumber is a TOML integer or float.
type tomlNumber float64

func (n *tomlNumber) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case int64:
		*n = tomlNumber(x)
	case float64:
		*n = tomlNumber(x)
	default:
		return fmt.Errorf("want a number, not %T", v)
	}
	return nil
}

// envVarName is an env_vars entry: a variable's name, or a table naming it.
type envVarName string

func (e *envVarName) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case string:
		*e = envVarName(x)
	case map[string]any:
		name, _ := x["name"].(string)
		*e = envVarName(name)
	default:
		return fmt.Errorf("want a variable name or a table with name, not %T", v)
	}
	return nil
}

// codexEntry is the [mcp_servers.NAME] table that runs reasonixctl --mcp.
type codexEntry struct {
	name   string
	server codexServer
}

// findCodexEntry picks the server whose command is reasonixctl with --mcp, else the one
// registered under the README's name.
func findCodexEntry(servers map[string]codexServer) (codexEntry, bool) {
	names := make([]string, 0, len(servers))
	for n := range servers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t := servers[n]
		if path.Base(filepath.ToSlash(t.Command)) == "reasonixctl" && slices.Contains(t.Args, "--mcp") {
			return codexEntry{n, t}, true
		}
	}
	if t, ok := servers[codexServerName]; ok {
		return codexEntry{codexServerName, t}, true
	}
	return codexEntry{}, false
}

// codexChecks reads Codex's config.toml and reports, for the reasonixctl entry, the tool
// timeout, required, the tool approval mode and the environment it passes, each with its fix.
// keyVar is the worker's API key variable ("" when none is needed). Codex is optional: without
// its configuration there is one warning.
func codexChecks(home, keyVar string) []Check {
	if home == "" {
		home = os.Getenv("CODEX_HOME")
	}
	if home == "" {
		h, _ := os.UserHomeDir()
		home = filepath.Join(h, ".codex")
	}
	file := filepath.Join(home, "config.toml")
	var cfg codexConfig
	if _, err := toml.DecodeFile(file, &cfg); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return []Check{{"codex_config", CheckWarn, "no " + file + ": to use Codex, register with `codex mcp add " + codexServerName + " -- reasonixctl --mcp` (see the README, Codex)"}}
		}
		return []Check{{"codex_config", CheckFail, file + " cannot be read as Codex's configuration: " + err.Error()}}
	}
	entry, ok := findCodexEntry(cfg.MCPServers)
	if !ok {
		return []Check{{"codex_config", CheckWarn, file + " has no [mcp_servers." + codexServerName + "] running reasonixctl --mcp: register with `codex mcp add " + codexServerName + " -- reasonixctl --mcp`"}}
	}
	t, section := entry.server, "[mcp_servers."+entry.name+"]"
	checks := []Check{{"codex_config", CheckOK, fmt.Sprintf("%s %s runs %s", file, section, strings.Join(append([]string{t.Command}, t.Args...), " "))}}

	var timeout float64
	if t.ToolTimeoutSec != nil {
		timeout = float64(*t.ToolTimeoutSec)
	}
	switch {
	case t.ToolTimeoutSec == nil:
		checks = append(checks, Check{"codex_tool_timeout", CheckFail, fmt.Sprintf("tool_timeout_sec is not set (Codex's default 300 s cuts waits short): add tool_timeout_sec = %d under %s", MinCodexToolTimeout, section)})
	case timeout < MinCodexToolTimeout:
		checks = append(checks, Check{"codex_tool_timeout", CheckFail, fmt.Sprintf("tool_timeout_sec = %g cuts waits short: set tool_timeout_sec = %d under %s", timeout, MinCodexToolTimeout, section)})
	default:
		checks = append(checks, Check{"codex_tool_timeout", CheckOK, fmt.Sprintf("tool_timeout_sec = %g", timeout)})
	}

	if t.Required {
		checks = append(checks, Check{"codex_required", CheckOK, "required = true"})
	} else {
		checks = append(checks, Check{"codex_required", CheckWarn, "required is not true: add required = true under " + section + " so Codex waits for the server before its first turn"})
	}

	checks = append(checks, codexApprovalCheck(t, section))
	return append(checks, codexEnvCheck(t, section, keyVar))
}

// codexApprovalCheck reports how Codex approves the server's tools. They are marked
// destructive, so without "approve" `codex exec` (approval policy never) cannot call them.
func codexApprovalCheck(t codexServer, section string) Check {
	mode := t.DefaultToolsApprovalMode
	var perTool []string
	for name, tool := range t.Tools {
		if tool.ApprovalMode != "" {
			perTool = append(perTool, name+"="+tool.ApprovalMode)
		}
	}
	sort.Strings(perTool)
	detail := "default_tools_approval_mode = " + fmt.Sprintf("%q", mode)
	if mode == "" {
		detail = "default_tools_approval_mode is not set"
	}
	if len(perTool) > 0 {
		detail += "; per tool: " + strings.Join(perTool, ", ")
	}
	if mode == "approve" {
		return Check{"codex_approval", CheckOK, detail}
	}
	return Check{"codex_approval", CheckWarn, detail + ": interactive Codex asks before each call, and `codex exec` fails with \"requires approval\"; for automation add default_tools_approval_mode = \"approve\" under " + section}
}

// codexEnvCheck reports the variables the entry passes to reasonixctl (names only). Codex
// starts MCP servers with a reduced environment, so the worker's API key reaches reasonixctl
// only through env or env_vars, and the worker only when CODEX_REASONIX_ENV_ALLOWLIST names it.
func codexEnvCheck(t codexServer, section, keyVar string) Check {
	env := t.Env
	envNames := make([]string, 0, len(env))
	for k := range env {
		envNames = append(envNames, k)
	}
	sort.Strings(envNames)
	var forwarded []string
	for _, v := range t.EnvVars {
		if v != "" {
			forwarded = append(forwarded, string(v))
		}
	}
	detail := fmt.Sprintf("env sets %s; env_vars forwards %s", listOrNone(envNames), listOrNone(forwarded))
	if keyVar == "" {
		return Check{"codex_env", CheckOK, detail}
	}
	if _, set := env[keyVar]; !set && !slices.Contains(forwarded, keyVar) {
		return Check{"codex_env", CheckFail, fmt.Sprintf("%s: Codex does not pass %s to reasonixctl: add env_vars = [%q] under %s", detail, keyVar, keyVar, section)}
	}
	allow := env["CODEX_REASONIX_ENV_ALLOWLIST"]
	for _, g := range strings.Split(allow, ",") {
		if ok, _ := path.Match(strings.TrimSpace(g), keyVar); ok {
			return Check{"codex_env", CheckOK, detail + "; " + keyVar + " reaches the worker"}
		}
	}
	if strings.HasPrefix(keyVar, "REASONIX_") {
		return Check{"codex_env", CheckOK, detail + "; " + keyVar + " reaches the worker"}
	}
	return Check{"codex_env", CheckFail, fmt.Sprintf("%s: the worker does not get %s: add env = { CODEX_REASONIX_ENV_ALLOWLIST = %q } under %s", detail, keyVar, keyVar, section)}
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "nothing"
	}
	return strings.Join(names, ", ")
}
