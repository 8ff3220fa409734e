package mockllm

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
)

// MockAPIKey is the key every home hands its agent: the mock takes any.
const MockAPIKey = "sk-mock-local"

// CodexModel is the model WriteCodexHome selects. Codex only offers its apply_patch tool to a
// model slug it knows, so the mock's own name will not do.
const CodexModel = "gpt-5.4"

// Every Write*Home function below writes a private home under dir/home for one agent, pointed at
// the mock whose BaseURL() is baseURL, and returns the complete environment to run that agent
// with: nothing of the caller's home or variables but PATH. Each leaves its agent asking before
// edits and commands, as a supervised worker must; the agents' side traffic (updates, telemetry,
// model catalogues) is switched off where the agent allows it.

// WriteReasonixHome writes a private Reasonix configuration under dir/home that points at
// baseURL — provider "mock" (model "mock-model", no reasoning fields) and provider "mockr"
// (model "mock-thinker", DeepSeek-style thinking), permissions mode "ask" — and returns the
// complete environment a worker needs to use it and nothing of the caller's home.
func WriteReasonixHome(dir, baseURL string) (env []string, err error) {
	h, err := newHome(dir, baseURL)
	if err != nil {
		return nil, err
	}
	rxHome := filepath.Join(h.home, ".reasonix")
	if err := h.write(filepath.Join(rxHome, "config.toml"), configTOML(baseURL)); err != nil {
		return nil, err
	}
	return append(h.env, "REASONIX_HOME="+rxHome, "REASONIX_TELEMETRY=off", "MOCK_API_KEY="+MockAPIKey), nil
}

// WriteClaudeHome is for claude-agent-acp (Claude Code): the Anthropic endpoint at baseURL's
// origin, an API key, and Claude's configuration folder inside the home. It writes no settings:
// mode "default" already asks before Write and Bash.
func WriteClaudeHome(dir, baseURL string) (env []string, err error) {
	h, err := newHome(dir, baseURL)
	if err != nil {
		return nil, err
	}
	cfg := filepath.Join(h.home, ".claude")
	if err := os.MkdirAll(cfg, 0o700); err != nil {
		return nil, fmt.Errorf("mockllm: %w", err)
	}
	return append(h.withTmp(),
		"CLAUDE_CONFIG_DIR="+cfg,
		"ANTHROPIC_BASE_URL="+h.origin,
		"ANTHROPIC_API_KEY="+MockAPIKey,
		// no update checks, telemetry or error reports: only the model calls reach the mock
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
	), nil
}

// WriteCodexHome is for codex-acp: $CODEX_HOME/config.toml with model provider "mock" on the
// Responses wire, its key in MOCK_API_KEY, and model CodexModel. Approval policy "untrusted"
// asks before every edit and every command not known to be harmless; sandbox mode
// "workspace-write" lets an approved command write in the workspace (in read-only mode it runs,
// asked or not, in a read-only sandbox, and "untrusted" forbids asking for more). No retries: a
// scripted failure reaches the client at once. The environment's TMPDIR is dir/tmp and must not
// be replaced by one holding CODEX_HOME: Codex refuses to set up its helper binaries in a home
// under the temporary directory, and then every sandboxed command fails.
func WriteCodexHome(dir, baseURL string) (env []string, err error) {
	h, err := newHome(dir, baseURL)
	if err != nil {
		return nil, err
	}
	codexHome := filepath.Join(h.home, ".codex") // a sibling of TMPDIR, never under it
	cfg := fmt.Sprintf(`model = %q
model_provider = "mock"
approval_policy = "untrusted"
sandbox_mode = "workspace-write"
check_for_update_on_startup = false

[model_providers.mock]
name = "Mock"
base_url = %q
wire_api = "responses"
env_key = "MOCK_API_KEY"
request_max_retries = 0
stream_max_retries = 0
`, CodexModel, baseURL)
	if err := h.write(filepath.Join(codexHome, "config.toml"), cfg); err != nil {
		return nil, err
	}
	return append(h.withTmp(), "CODEX_HOME="+codexHome, "MOCK_API_KEY="+MockAPIKey), nil
}

// WriteGeminiHome is for Gemini CLI (gemini --acp): the Gemini endpoint at baseURL's origin, an
// API key, and ~/.gemini/settings.json choosing API-key auth with usage statistics, telemetry and
// updates off. Its default approval mode asks before each tool. Scripts for it want WithAsides:
// it routes and checks with JSON side calls.
func WriteGeminiHome(dir, baseURL string) (env []string, err error) {
	h, err := newHome(dir, baseURL)
	if err != nil {
		return nil, err
	}
	settings := map[string]any{
		"security":  map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		"general":   map[string]any{"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
	}
	if err := h.writeJSON(filepath.Join(h.home, ".gemini", "settings.json"), settings); err != nil {
		return nil, err
	}
	return append(h.withTmp(), "GEMINI_API_KEY="+MockAPIKey, "GOOGLE_GEMINI_BASE_URL="+h.origin), nil
}

// WriteQwenHome is for Qwen Code (qwen --acp --auth-type openai): the OpenAI endpoint, key and
// model "mock-model", and ~/.qwen/settings.json with approval mode "default" (its own default,
// "auto", approves by itself) and usage statistics, telemetry and updates off.
func WriteQwenHome(dir, baseURL string) (env []string, err error) {
	h, err := newHome(dir, baseURL)
	if err != nil {
		return nil, err
	}
	settings := map[string]any{
		"security":  map[string]any{"auth": map[string]any{"selectedType": "openai"}},
		"tools":     map[string]any{"approvalMode": "default"},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		"general":   map[string]any{"enableAutoUpdate": false},
	}
	if err := h.writeJSON(filepath.Join(h.home, ".qwen", "settings.json"), settings); err != nil {
		return nil, err
	}
	return append(h.withTmp(), "OPENAI_BASE_URL="+baseURL, "OPENAI_API_KEY="+MockAPIKey, "OPENAI_MODEL=mock-model"), nil
}

// WriteOpencodeHome is for opencode (opencode acp): $XDG_CONFIG_HOME/opencode/opencode.json with
// provider "mock" (OpenAI-compatible, model "mock-model", also its small model for titles) and
// permission {edit: ask, bash: ask}, without which it asks nothing. The variables keep it from
// fetching its model catalogue, plugins, language servers and updates, and from reading a
// repository's own opencode.json, which could turn the asking off again.
func WriteOpencodeHome(dir, baseURL string) (env []string, err error) {
	h, err := newHome(dir, baseURL)
	if err != nil {
		return nil, err
	}
	cfg := map[string]any{
		"model":       "mock/mock-model",
		"small_model": "mock/mock-model",
		"provider": map[string]any{"mock": map[string]any{
			"npm":     "@ai-sdk/openai-compatible",
			"name":    "Mock",
			"options": map[string]any{"baseURL": baseURL, "apiKey": "{env:MOCK_API_KEY}"},
			"models":  map[string]any{"mock-model": map[string]any{"name": "Mock model", "tool_call": true}},
		}},
		"permission": map[string]any{"edit": "ask", "bash": "ask"},
		"autoupdate": false,
		"share":      "disabled",
	}
	if err := h.writeJSON(filepath.Join(h.xdgConfig, "opencode", "opencode.json"), cfg); err != nil {
		return nil, err
	}
	return append(h.withTmp(),
		"MOCK_API_KEY="+MockAPIKey,
		"OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_DISABLE_MODELS_FETCH=1",
		"OPENCODE_DISABLE_DEFAULT_PLUGINS=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"OPENCODE_DISABLE_CLAUDE_CODE=1",
		"OPENCODE_DISABLE_PROJECT_CONFIG=1",
		"OPENCODE_PURE=1",
	), nil
}

// home is the part every agent's home shares.
type home struct {
	home, tmp, xdgConfig string
	origin               string // scheme://host of the base URL
	env                  []string
}

func newHome(dir, baseURL string) (*home, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("mockllm: base URL %q is not an http(s) URL", baseURL)
	}
	if dir == "" {
		return nil, fmt.Errorf("mockllm: empty home directory")
	}
	dir, err = filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("mockllm: %w", err)
	}
	h := &home{home: filepath.Join(dir, "home"), tmp: filepath.Join(dir, "tmp"), origin: u.Scheme + "://" + u.Host}
	h.xdgConfig = filepath.Join(h.home, ".config")
	xdg := [][2]string{
		{"XDG_CONFIG_HOME", h.xdgConfig},
		{"XDG_DATA_HOME", filepath.Join(h.home, ".local", "share")},
		{"XDG_STATE_HOME", filepath.Join(h.home, ".local", "state")},
		{"XDG_CACHE_HOME", filepath.Join(h.home, ".cache")},
	}
	path := os.Getenv("PATH")
	if path == "" {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	h.env = []string{"HOME=" + h.home}
	if err := os.MkdirAll(h.tmp, 0o700); err != nil {
		return nil, fmt.Errorf("mockllm: %w", err)
	}
	for _, kv := range xdg {
		if err := os.MkdirAll(kv[1], 0o700); err != nil {
			return nil, fmt.Errorf("mockllm: %w", err)
		}
		h.env = append(h.env, kv[0]+"="+kv[1])
	}
	h.env = append(h.env, "LANG=C.UTF-8", "PATH="+path)
	return h, nil
}

// withTmp adds the private TMPDIR: the agents write temporary files, and Codex needs its home
// outside the temporary directory. Reasonix's environment has none, as before.
func (h *home) withTmp() []string { return append(h.env, "TMPDIR="+h.tmp) }

func (h *home) write(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("mockllm: %w", err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		return fmt.Errorf("mockllm: %w", err)
	}
	return nil
}

func (h *home) writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("mockllm: %w", err)
	}
	return h.write(path, string(b)+"\n")
}

func configTOML(baseURL string) string {
	q := fmt.Sprintf("%q", baseURL) // a URL has no characters where Go and TOML quoting differ
	return `config_version = 10
default_model = "mock"

[[providers]]
name = "mock"
kind = "openai"
base_url = ` + q + `
models = ["mock-model"]
api_key_env = "MOCK_API_KEY"
reasoning_protocol = "none"
context_window = 128000

[[providers]]
name = "mockr"
kind = "openai"
base_url = ` + q + `
models = ["mock-thinker"]
api_key_env = "MOCK_API_KEY"
reasoning_protocol = "deepseek"
context_window = 128000

[permissions]
mode = "ask"
`
}
