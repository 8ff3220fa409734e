package mockllm

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
)

// WriteReasonixHome writes a private Reasonix configuration under dir/home that points at
// baseURL — provider "mock" (model "mock-model", no reasoning fields) and provider "mockr"
// (model "mock-thinker", DeepSeek-style thinking), permissions mode "ask" — and returns the
// complete environment a worker needs to use it and nothing of the caller's home.
func WriteReasonixHome(dir, baseURL string) (env []string, err error) {
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
	home := filepath.Join(dir, "home")
	rxHome := filepath.Join(home, ".reasonix")
	xdg := map[string]string{
		"XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"XDG_DATA_HOME":   filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME":  filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME":  filepath.Join(home, ".cache"),
	}
	for _, d := range append([]string{rxHome}, xdg["XDG_CONFIG_HOME"], xdg["XDG_DATA_HOME"], xdg["XDG_STATE_HOME"], xdg["XDG_CACHE_HOME"]) {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("mockllm: %w", err)
		}
	}
	if err := os.WriteFile(filepath.Join(rxHome, "config.toml"), []byte(configTOML(baseURL)), 0o600); err != nil {
		return nil, fmt.Errorf("mockllm: %w", err)
	}
	path := os.Getenv("PATH")
	if path == "" {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	return []string{
		"HOME=" + home,
		"REASONIX_HOME=" + rxHome,
		"REASONIX_TELEMETRY=off",
		"XDG_CONFIG_HOME=" + xdg["XDG_CONFIG_HOME"],
		"XDG_DATA_HOME=" + xdg["XDG_DATA_HOME"],
		"XDG_STATE_HOME=" + xdg["XDG_STATE_HOME"],
		"XDG_CACHE_HOME=" + xdg["XDG_CACHE_HOME"],
		"LANG=C.UTF-8",
		"MOCK_API_KEY=sk-mock-local",
		"PATH=" + path,
	}, nil
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
