package mockllm

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// envOf checks the parts every agent's environment shares and returns it as a map.
func envOf(t *testing.T, dir string, env []string) map[string]string {
	t.Helper()
	vars := map[string]string{}
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			t.Fatalf("not KEY=VALUE: %q", kv)
		}
		if _, dup := vars[k]; dup {
			t.Errorf("%s set twice", k)
		}
		vars[k] = v
	}
	home := filepath.Join(dir, "home")
	if vars["HOME"] != home || vars["TMPDIR"] != filepath.Join(dir, "tmp") || vars["PATH"] == "" ||
		vars["XDG_CONFIG_HOME"] != filepath.Join(home, ".config") {
		t.Errorf("env %v", env)
	}
	for _, k := range []string{"HOME", "TMPDIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"} {
		if fi, err := os.Stat(vars[k]); err != nil || !fi.IsDir() {
			t.Errorf("%s=%s: %v", k, vars[k], err)
		}
	}
	return vars
}

func readJSONFile(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

const testBase = "http://127.0.0.1:1234/v1"

func TestWriteClaudeHome(t *testing.T) {
	dir := t.TempDir()
	env, err := WriteClaudeHome(dir, testBase)
	if err != nil {
		t.Fatal(err)
	}
	v := envOf(t, dir, env)
	// Anthropic's SDK adds /v1 itself
	if v["ANTHROPIC_BASE_URL"] != "http://127.0.0.1:1234" || v["ANTHROPIC_API_KEY"] != MockAPIKey ||
		v["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] != "1" || v["CLAUDE_CONFIG_DIR"] != filepath.Join(dir, "home", ".claude") {
		t.Fatalf("env %v", env)
	}
}

func TestWriteCodexHome(t *testing.T) {
	dir := t.TempDir()
	env, err := WriteCodexHome(dir, testBase)
	if err != nil {
		t.Fatal(err)
	}
	v := envOf(t, dir, env)
	if rel, err := filepath.Rel(v["TMPDIR"], v["CODEX_HOME"]); err != nil || !strings.HasPrefix(rel, "..") {
		t.Fatalf("CODEX_HOME %s is under TMPDIR %s", v["CODEX_HOME"], v["TMPDIR"])
	}
	var cfg struct {
		Model          string `toml:"model"`
		ModelProvider  string `toml:"model_provider"`
		ApprovalPolicy string `toml:"approval_policy"`
		SandboxMode    string `toml:"sandbox_mode"`
		Providers      map[string]struct {
			BaseURL string `toml:"base_url"`
			WireAPI string `toml:"wire_api"`
			EnvKey  string `toml:"env_key"`
		} `toml:"model_providers"`
	}
	if _, err := toml.DecodeFile(filepath.Join(v["CODEX_HOME"], "config.toml"), &cfg); err != nil {
		t.Fatal(err)
	}
	p := cfg.Providers[cfg.ModelProvider]
	if cfg.Model != CodexModel || p.BaseURL != testBase || p.WireAPI != "responses" || v[p.EnvKey] != MockAPIKey ||
		cfg.ApprovalPolicy != "untrusted" || cfg.SandboxMode != "workspace-write" {
		t.Fatalf("config %+v, env %v", cfg, env)
	}
}

func TestWriteGeminiHome(t *testing.T) {
	dir := t.TempDir()
	env, err := WriteGeminiHome(dir, testBase)
	if err != nil {
		t.Fatal(err)
	}
	v := envOf(t, dir, env)
	// Google's SDK adds /v1beta itself
	if v["GOOGLE_GEMINI_BASE_URL"] != "http://127.0.0.1:1234" || v["GEMINI_API_KEY"] != MockAPIKey {
		t.Fatalf("env %v", env)
	}
	s := readJSONFile(t, filepath.Join(v["HOME"], ".gemini", "settings.json"))
	if obj(obj(s["security"])["auth"])["selectedType"] != "gemini-api-key" || obj(s["privacy"])["usageStatisticsEnabled"] != false {
		t.Fatalf("settings %v", s)
	}
}

func TestWriteQwenHome(t *testing.T) {
	dir := t.TempDir()
	env, err := WriteQwenHome(dir, testBase)
	if err != nil {
		t.Fatal(err)
	}
	v := envOf(t, dir, env)
	if v["OPENAI_BASE_URL"] != testBase || v["OPENAI_API_KEY"] != MockAPIKey || v["OPENAI_MODEL"] != "mock-model" {
		t.Fatalf("env %v", env)
	}
	s := readJSONFile(t, filepath.Join(v["HOME"], ".qwen", "settings.json"))
	if obj(s["tools"])["approvalMode"] != "default" || obj(obj(s["security"])["auth"])["selectedType"] != "openai" {
		t.Fatalf("settings %v", s)
	}
}

func TestWriteOpencodeHome(t *testing.T) {
	dir := t.TempDir()
	env, err := WriteOpencodeHome(dir, testBase)
	if err != nil {
		t.Fatal(err)
	}
	v := envOf(t, dir, env)
	cfg := readJSONFile(t, filepath.Join(v["XDG_CONFIG_HOME"], "opencode", "opencode.json"))
	mock := obj(obj(cfg["provider"])["mock"])
	opts := obj(mock["options"])
	perm := obj(cfg["permission"])
	if cfg["model"] != "mock/mock-model" || opts["baseURL"] != testBase || opts["apiKey"] != "{env:MOCK_API_KEY}" ||
		v["MOCK_API_KEY"] != MockAPIKey || obj(mock["models"])["mock-model"] == nil || perm["edit"] != "ask" || perm["bash"] != "ask" {
		t.Fatalf("config %v, env %v", cfg, env)
	}
	if v["OPENCODE_DISABLE_MODELS_FETCH"] != "1" || v["OPENCODE_DISABLE_PROJECT_CONFIG"] != "1" {
		t.Fatalf("env %v", env)
	}
}

func TestHomesRefuseBadInput(t *testing.T) {
	for name, write := range map[string]func(string, string) ([]string, error){
		"reasonix": WriteReasonixHome, "claude": WriteClaudeHome, "codex": WriteCodexHome,
		"gemini": WriteGeminiHome, "qwen": WriteQwenHome, "opencode": WriteOpencodeHome,
	} {
		if _, err := write(t.TempDir(), "127.0.0.1:1234"); err == nil {
			t.Errorf("%s accepted a base URL without a scheme", name)
		}
		if _, err := write("", testBase); err == nil {
			t.Errorf("%s accepted an empty directory", name)
		}
	}
}
