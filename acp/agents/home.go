package agents

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// HomeFile is a file of the agent's private home, written afresh at each start.
type HomeFile struct {
	Path string // relative to the home, slash-separated, never leaving it
	Data []byte
}

// HomeSetup is what an agent's private home holds and the variables that point the agent at it.
type HomeSetup struct {
	// Dirs are folders made in the home (relative), before the files.
	Dirs  []string
	Files []HomeFile
	// Env are KEY=VALUE entries for the agent naming places of its home (absolute, below the
	// home path given to Home).
	Env []string
	// EnvNames are more of the user's variables the agent needs, found in the user's own
	// configuration (the key variable a Codex provider or an opencode provider names).
	EnvNames []string
}

// maxConfigBytes bounds a user's agent configuration read to derive the private home's.
const maxConfigBytes = 1 << 20

// Home derives the agent's private home from the user's environment env: home is the path the
// agent sees as HOME. The user's own agent configuration is read for its model endpoint only;
// what would let the agent act without asking (approval settings, project trust, MCP servers,
// plugins, notification programs) is never copied, and the supervision settings are written
// over it. Reasonix's home is prepared by the engine itself: its setup is empty.
func (p Profile) Home(env []string, home string) (HomeSetup, error) {
	switch p.Layout {
	case HomeClaude:
		settings, _ := json.MarshalIndent(map[string]any{"permissions": map[string]any{"defaultMode": "default"}}, "", "  ")
		return HomeSetup{Dirs: []string{".claude"}, Files: []HomeFile{{".claude/settings.json", append(settings, '\n')}},
			Env: []string{"CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude")}}, nil
	case HomeCodex:
		cfg, names, err := codexConfig(env)
		if err != nil {
			return HomeSetup{}, err
		}
		return HomeSetup{Dirs: []string{".codex"}, Files: []HomeFile{{".codex/config.toml", cfg}},
			Env: []string{"CODEX_HOME=" + filepath.Join(home, ".codex")}, EnvNames: names}, nil
	case HomeGemini:
		auth := "gemini-api-key"
		settings := map[string]any{
			"security":  map[string]any{"auth": map[string]any{"selectedType": auth}},
			"tools":     map[string]any{"autoAccept": false},
			"privacy":   map[string]any{"usageStatisticsEnabled": false},
			"telemetry": map[string]any{"enabled": false},
			"general":   map[string]any{"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
		}
		b, _ := json.MarshalIndent(settings, "", "  ")
		return HomeSetup{Dirs: []string{".gemini"}, Files: []HomeFile{{".gemini/settings.json", append(b, '\n')}}}, nil
	case HomeQwen:
		settings := map[string]any{
			"security":  map[string]any{"auth": map[string]any{"selectedType": "openai"}},
			"tools":     map[string]any{"approvalMode": "default"},
			"privacy":   map[string]any{"usageStatisticsEnabled": false},
			"telemetry": map[string]any{"enabled": false},
			"general":   map[string]any{"enableAutoUpdate": false},
		}
		b, _ := json.MarshalIndent(settings, "", "  ")
		return HomeSetup{Dirs: []string{".qwen"}, Files: []HomeFile{{".qwen/settings.json", append(b, '\n')}}}, nil
	case HomeOpencode:
		cfg, names, err := opencodeConfig(env)
		if err != nil {
			return HomeSetup{}, err
		}
		return HomeSetup{Dirs: []string{".config", ".config/opencode"}, Files: []HomeFile{{".config/opencode/opencode.json", cfg}},
			Env: []string{"XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}, EnvNames: names}, nil
	}
	return HomeSetup{}, nil
}

// Endpoints are the host:port values the agent must reach: its model endpoint, from its
// endpoint variables or the user's configuration of it, else the provider's public API.
//
//	reasonix  base_url of every [[providers]] in $REASONIX_HOME (or ~/.reasonix)/config.toml
//	claude    ANTHROPIC_BASE_URL, else api.anthropic.com:443
//	codex     base_url of the model_provider chosen in $CODEX_HOME (or ~/.codex)/config.toml,
//	          else OPENAI_BASE_URL, else api.openai.com:443
//	gemini    GOOGLE_GEMINI_BASE_URL, else generativelanguage.googleapis.com:443
//	qwen      OPENAI_BASE_URL, else api.openai.com:443
//	opencode  options.baseURL of every provider in its opencode.json
//
// A URL without a port gets its scheme's (http 80, https 443). The result is sorted and has no
// duplicates; it is empty when nothing is known (the agent then reaches nothing).
func (p Profile) Endpoints(env []string) []string {
	var urls []string
	fromVar := func(name, fallback string) {
		if v, _ := lookupEnv(env, name); v != "" {
			urls = append(urls, v)
		} else if fallback != "" {
			urls = append(urls, fallback)
		}
	}
	switch p.Name {
	case "", Reasonix:
		urls = reasonixEndpoints(env)
	case Claude:
		fromVar("ANTHROPIC_BASE_URL", "https://api.anthropic.com")
	case Codex:
		if u := codexEndpoint(env); u != "" {
			urls = append(urls, u)
		} else {
			fromVar("OPENAI_BASE_URL", "https://api.openai.com")
		}
	case Gemini:
		fromVar("GOOGLE_GEMINI_BASE_URL", "https://generativelanguage.googleapis.com")
	case Qwen:
		fromVar("OPENAI_BASE_URL", "https://api.openai.com")
	case Opencode:
		urls = opencodeEndpoints(env)
	}
	var out []string
	for _, u := range urls {
		if hp, ok := HostPort(u); ok && !slices.Contains(out, hp) {
			out = append(out, hp)
		}
	}
	sort.Strings(out)
	return out
}

// HostPort is the host:port an http(s) URL reaches.
func HostPort(raw string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Hostname() == "" {
		return "", false
	}
	port := u.Port()
	switch {
	case port != "":
	case u.Scheme == "http":
		port = "80"
	case u.Scheme == "https":
		port = "443"
	default:
		return "", false
	}
	return net.JoinHostPort(u.Hostname(), port), true
}

// readUserFile reads a user's configuration file of at most maxConfigBytes; a missing one is
// nil without error.
func readUserFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if st.Size() > maxConfigBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, maxConfigBytes)
	}
	return os.ReadFile(path)
}

func reasonixEndpoints(env []string) []string {
	dir, _ := lookupEnv(env, "REASONIX_HOME")
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(userHome(env), ".reasonix")
	}
	b, err := readUserFile(filepath.Join(dir, "config.toml"))
	if err != nil || b == nil {
		return nil
	}
	var cfg struct {
		Providers []struct {
			BaseURL string `toml:"base_url"`
		} `toml:"providers"`
	}
	if _, err := toml.Decode(string(b), &cfg); err != nil {
		return nil
	}
	var out []string
	for _, p := range cfg.Providers {
		out = append(out, p.BaseURL)
	}
	return out
}

// userCodexConfig is the user's Codex configuration, nil when there is none.
func userCodexConfig(env []string) (map[string]any, error) {
	dir, _ := lookupEnv(env, "CODEX_HOME")
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(userHome(env), ".codex")
	}
	path := filepath.Join(dir, "config.toml")
	b, err := readUserFile(path)
	if err != nil || b == nil {
		return nil, err
	}
	cfg := map[string]any{}
	if _, err := toml.Decode(string(b), &cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// codexDropped are the keys of a user's Codex configuration never copied: what selects other
// settings (profile, profiles), trusts projects, starts programs (MCP servers, notify) or would
// switch the asking off.
var codexDropped = []string{"profile", "profiles", "projects", "mcp_servers", "notify", "approval_policy",
	"sandbox_mode", "sandbox_workspace_write", "hooks", "tools"}

// codexConfig is the private home's config.toml: the user's model and providers, then the
// supervision: commands asked unless known harmless, edits asked (session mode read-only),
// approved commands writing in the workspace only.
func codexConfig(env []string) ([]byte, []string, error) {
	cfg, err := userCodexConfig(env)
	if err != nil {
		return nil, nil, err
	}
	if cfg == nil {
		cfg = map[string]any{}
	}
	for _, k := range codexDropped {
		delete(cfg, k)
	}
	cfg["approval_policy"] = "untrusted"
	cfg["sandbox_mode"] = "workspace-write"
	cfg["check_for_update_on_startup"] = false
	var names []string
	if provs, ok := cfg["model_providers"].(map[string]any); ok {
		for _, v := range provs {
			if m, ok := v.(map[string]any); ok {
				if k, ok := m["env_key"].(string); ok && validVarName(k) {
					names = append(names, k)
				}
			}
		}
	}
	sort.Strings(names)
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(cfg); err != nil {
		return nil, nil, err
	}
	return buf.Bytes(), names, nil
}

func codexEndpoint(env []string) string {
	cfg, err := userCodexConfig(env)
	if err != nil || cfg == nil {
		return ""
	}
	name, _ := cfg["model_provider"].(string)
	provs, _ := cfg["model_providers"].(map[string]any)
	if p, ok := provs[name].(map[string]any); ok {
		u, _ := p["base_url"].(string)
		return u
	}
	return ""
}

// userOpencodeConfig is the user's opencode.json, nil when there is none.
func userOpencodeConfig(env []string) (map[string]any, error) {
	dir, _ := lookupEnv(env, "XDG_CONFIG_HOME")
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(userHome(env), ".config")
	}
	path := filepath.Join(dir, "opencode", "opencode.json")
	b, err := readUserFile(path)
	if err != nil || b == nil {
		return nil, err
	}
	cfg := map[string]any{}
	if err := json.Unmarshal(b, &cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// opencodeDropped are the keys of a user's opencode.json never copied: programs it would start
// (MCP servers, plugins, formatters, language servers), its own agents and permissions.
var opencodeDropped = []string{"mcp", "plugin", "formatter", "lsp", "agent", "mode", "permission", "instructions", "command"}

var envRefRe = regexp.MustCompile(`\{env:([A-Za-z_][A-Za-z0-9_]*)\}`)

// opencodeConfig is the private home's opencode.json: the user's model and providers, and
// permission {edit: ask, bash: ask, webfetch: ask}, without which opencode asks nothing.
func opencodeConfig(env []string) ([]byte, []string, error) {
	cfg, err := userOpencodeConfig(env)
	if err != nil {
		return nil, nil, err
	}
	if cfg == nil {
		cfg = map[string]any{}
	}
	for _, k := range opencodeDropped {
		delete(cfg, k)
	}
	cfg["permission"] = map[string]any{"edit": "ask", "bash": "ask", "webfetch": "ask"}
	cfg["autoupdate"] = false
	cfg["share"] = "disabled"
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	var names []string
	for _, m := range envRefRe.FindAllSubmatch(b, -1) {
		if n := string(m[1]); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return append(b, '\n'), names, nil
}

func opencodeEndpoints(env []string) []string {
	cfg, err := userOpencodeConfig(env)
	if err != nil || cfg == nil {
		return nil
	}
	var out []string
	provs, _ := cfg["provider"].(map[string]any)
	for _, v := range provs {
		p, _ := v.(map[string]any)
		opts, _ := p["options"].(map[string]any)
		if u, ok := opts["baseURL"].(string); ok {
			out = append(out, u)
		}
	}
	return out
}

func validVarName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}
