package core

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

// codexEntry is the [mcp_servers.NAME] table that runs reasonixctl --mcp.
type codexEntry struct {
	name  string
	table map[string]any
}

// findCodexEntry picks the server whose command is reasonixctl with --mcp, else the one
// registered under the README's name.
func findCodexEntry(servers map[string]any) (codexEntry, bool) {
	names := make([]string, 0, len(servers))
	for n := range servers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t, _ := servers[n].(map[string]any)
		cmd, _ := t["command"].(string)
		if path.Base(filepath.ToSlash(cmd)) == "reasonixctl" && slices.Contains(stringList(t["args"]), "--mcp") {
			return codexEntry{n, t}, true
		}
	}
	if t, ok := servers[codexServerName].(map[string]any); ok {
		return codexEntry{codexServerName, t}, true
	}
	return codexEntry{}, false
}

func stringList(v any) []string {
	var out []string
	if l, ok := v.([]any); ok {
		for _, x := range l {
			if s, ok := x.(string); ok {
				out = append(out, s)
			} else if m, ok := x.(map[string]any); ok {
				// env_vars entries may be tables naming the variable.
				if s, ok := m["name"].(string); ok {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
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
	var cfg map[string]any
	if _, err := toml.DecodeFile(file, &cfg); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return []Check{{"codex_config", CheckWarn, "no " + file + ": to use Codex, register with `codex mcp add " + codexServerName + " -- reasonixctl --mcp` (see the README, Codex)"}}
		}
		return []Check{{"codex_config", CheckFail, file + " is not valid TOML: " + err.Error()}}
	}
	servers, _ := cfg["mcp_servers"].(map[string]any)
	entry, ok := findCodexEntry(servers)
	if !ok {
		return []Check{{"codex_config", CheckWarn, file + " has no [mcp_servers." + codexServerName + "] running reasonixctl --mcp: register with `codex mcp add " + codexServerName + " -- reasonixctl --mcp`"}}
	}
	t, section := entry.table, "[mcp_servers."+entry.name+"]"
	cmd, _ := t["command"].(string)
	checks := []Check{{"codex_config", CheckOK, fmt.Sprintf("%s %s runs %s", file, section, strings.Join(append([]string{cmd}, stringList(t["args"])...), " "))}}

	timeout, hasTimeout := number(t["tool_timeout_sec"])
	switch {
	case !hasTimeout:
		checks = append(checks, Check{"codex_tool_timeout", CheckFail, fmt.Sprintf("tool_timeout_sec is not set (Codex's default 300 s cuts waits short): add tool_timeout_sec = %d under %s", MinCodexToolTimeout, section)})
	case timeout < MinCodexToolTimeout:
		checks = append(checks, Check{"codex_tool_timeout", CheckFail, fmt.Sprintf("tool_timeout_sec = %g cuts waits short: set tool_timeout_sec = %d under %s", timeout, MinCodexToolTimeout, section)})
	default:
		checks = append(checks, Check{"codex_tool_timeout", CheckOK, fmt.Sprintf("tool_timeout_sec = %g", timeout)})
	}

	if required, _ := t["required"].(bool); required {
		checks = append(checks, Check{"codex_required", CheckOK, "required = true"})
	} else {
		checks = append(checks, Check{"codex_required", CheckWarn, "required is not true: add required = true under " + section + " so Codex waits for the server before its first turn"})
	}

	checks = append(checks, codexApprovalCheck(t, section))
	return append(checks, codexEnvCheck(t, section, keyVar))
}

// codexApprovalCheck reports how Codex approves the server's tools. They are marked
// destructive, so without "approve" `codex exec` (approval policy never) cannot call them.
func codexApprovalCheck(t map[string]any, section string) Check {
	mode, _ := t["default_tools_approval_mode"].(string)
	var perTool []string
	if tools, ok := t["tools"].(map[string]any); ok {
		for name, v := range tools {
			if m, ok := v.(map[string]any); ok {
				if am, ok := m["approval_mode"].(string); ok {
					perTool = append(perTool, name+"="+am)
				}
			}
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
func codexEnvCheck(t map[string]any, section, keyVar string) Check {
	env, _ := t["env"].(map[string]any)
	envNames := make([]string, 0, len(env))
	for k := range env {
		envNames = append(envNames, k)
	}
	sort.Strings(envNames)
	forwarded := stringList(t["env_vars"])
	detail := fmt.Sprintf("env sets %s; env_vars forwards %s", listOrNone(envNames), listOrNone(forwarded))
	if keyVar == "" {
		return Check{"codex_env", CheckOK, detail}
	}
	if _, set := env[keyVar]; !set && !slices.Contains(forwarded, keyVar) {
		return Check{"codex_env", CheckFail, fmt.Sprintf("%s: Codex does not pass %s to reasonixctl: add env_vars = [%q] under %s", detail, keyVar, keyVar, section)}
	}
	allow, _ := env["CODEX_REASONIX_ENV_ALLOWLIST"].(string)
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
