package agents

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// One test per profile: how it starts, what supervision it switches on, how its options map.
func TestProfiles(t *testing.T) {
	cases := []struct {
		name     string
		command  string
		mode     string
		ext      bool
		reject   string // the option id the agent uses for reject
		envNeeds string
	}{
		{Reasonix, "reasonix acp", "", true, "", ""},
		{Claude, "claude-agent-acp", "default", false, "reject", "ANTHROPIC_BASE_URL"},
		{Codex, "codex-acp", "read-only", false, "abort", "OPENAI_API_KEY"},
		{Gemini, "gemini --acp", "default", false, "cancel", "GEMINI_API_KEY"},
		{Qwen, "qwen --acp --auth-type openai", "default", false, "cancel", "OPENAI_BASE_URL"},
		{Opencode, "opencode acp", "", false, "reject", ""},
	}
	if len(cases) != len(Names) {
		t.Fatalf("a case per worker name: %d cases, %d names", len(cases), len(Names))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Lookup(c.name, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(p.Command, " "); got != c.command {
				t.Errorf("command %q, want %q", got, c.command)
			}
			if p.Mode != c.mode || p.Extensions != c.ext || p.IsReasonix() != (c.name == Reasonix) {
				t.Errorf("mode %q ext %v reasonix %v", p.Mode, p.Extensions, p.IsReasonix())
			}
			if c.reject != "" && !slices.Contains(p.OptionFallback(RejectOnce), c.reject) {
				t.Errorf("reject ids %v lack %q", p.OptionFallback(RejectOnce), c.reject)
			}
			if c.envNeeds != "" && !slices.Contains(p.Env, c.envNeeds) {
				t.Errorf("env %v lacks %s", p.Env, c.envNeeds)
			}
			if !p.IsReasonix() && p.Steer != SteerCancelPrompt {
				t.Errorf("steer %q", p.Steer)
			}
		})
	}
	if p, _ := Lookup("", nil); p.Name != Reasonix {
		t.Errorf("the default worker is %q", p.Name)
	}
	if _, err := Lookup("vim", nil); !errors.Is(err, ErrUnknown) {
		t.Errorf("unknown worker: %v", err)
	}
	// Claude never reads a repository's own settings.
	meta := MustLookup(Claude).NewSessionMeta["claudeCode"].(map[string]any)["options"].(map[string]any)
	if src := meta["settingSources"].([]any); len(src) != 1 || src[0] != "user" {
		t.Errorf("claude settingSources %v", src)
	}
}

func TestOverride(t *testing.T) {
	env := []string{"REASONIXCTL_WORKER_CODEX=/opt/codex/bin/codex-acp --flag 'a b' \"c d\" --x=y"}
	p, err := Lookup(Codex, env)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"/opt/codex/bin/codex-acp", "--flag", "a b", "c d", "--x=y"}; !slices.Equal(p.Command, want) || !p.Overridden {
		t.Errorf("argv %q, want %q", p.Command, want)
	}
	for _, bad := range []string{"codex-acp; rm -rf /", "codex-acp $(id)", "codex-acp `id`", "FOO=1 codex-acp",
		"codex-acp > /tmp/x", "codex-acp \"$HOME\"", "codex-acp 'open", "codex-acp a\\ b", "a | b", "a && b", "~/bin/x", "x *"} {
		if _, err := Lookup(Codex, []string{"REASONIXCTL_WORKER_CODEX=" + bad}); !errors.Is(err, ErrCommand) {
			t.Errorf("%q: want ErrCommand, got %v", bad, err)
		}
	}
	// An empty override keeps the built-in command line.
	if p, err := Lookup(Gemini, []string{"REASONIXCTL_WORKER_GEMINI="}); err != nil || p.Overridden {
		t.Errorf("empty override: %v %v", p, err)
	}
}

func TestEndpoints(t *testing.T) {
	home := t.TempDir()
	env := []string{"HOME=" + home, "ANTHROPIC_BASE_URL=http://127.0.0.1:4567", "GOOGLE_GEMINI_BASE_URL=https://gw.example:8443/x",
		"OPENAI_BASE_URL=http://localhost/v1"}
	write(t, filepath.Join(home, ".codex", "config.toml"), `model = "gpt-5.4"
model_provider = "corp"
approval_policy = "never"
profile = "yolo"
[model_providers.corp]
base_url = "http://10.0.0.5:9000/v1"
env_key = "CORP_KEY"
wire_api = "responses"
[mcp_servers.x]
command = "evil"
`)
	write(t, filepath.Join(home, ".config", "opencode", "opencode.json"),
		`{"model":"m/x","provider":{"m":{"options":{"baseURL":"http://127.0.0.1:7000/v1","apiKey":"{env:M_KEY}"}}},"permission":{"edit":"allow"},"mcp":{"a":{}}}`)
	write(t, filepath.Join(home, ".reasonix", "config.toml"), "[[providers]]\nname=\"a\"\nbase_url=\"https://api.deepseek.com/v1\"\n")
	for name, want := range map[string]string{
		Reasonix: "api.deepseek.com:443", Claude: "127.0.0.1:4567", Codex: "10.0.0.5:9000", Gemini: "gw.example:8443",
		Qwen: "localhost:80", Opencode: "127.0.0.1:7000",
	} {
		if got := MustLookup(name).Endpoints(env); !slices.Equal(got, []string{want}) {
			t.Errorf("%s endpoints %v, want %s", name, got, want)
		}
	}
	if got := MustLookup(Claude).Endpoints(nil); !slices.Equal(got, []string{"api.anthropic.com:443"}) {
		t.Errorf("claude default endpoint %v", got)
	}

	// The private homes: the user's endpoint is kept, the supervision written over it.
	setup, err := MustLookup(Codex).Home(env, "/home/worker")
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if _, err := toml.Decode(string(setup.Files[0].Data), &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg["approval_policy"] != "untrusted" || cfg["sandbox_mode"] != "workspace-write" || cfg["profile"] != nil ||
		cfg["mcp_servers"] != nil || cfg["model_provider"] != "corp" {
		t.Errorf("codex config %v", cfg)
	}
	if !slices.Equal(setup.EnvNames, []string{"CORP_KEY"}) || !slices.Contains(setup.Env, "CODEX_HOME=/home/worker/.codex") {
		t.Errorf("codex env %v names %v", setup.Env, setup.EnvNames)
	}
	setup, err = MustLookup(Opencode).Home(env, "/home/worker")
	if err != nil {
		t.Fatal(err)
	}
	s := string(setup.Files[0].Data)
	if !strings.Contains(s, `"edit": "ask"`) || !strings.Contains(s, `"bash": "ask"`) || strings.Contains(s, `"mcp"`) ||
		!strings.Contains(s, "127.0.0.1:7000") || !slices.Equal(setup.EnvNames, []string{"M_KEY"}) {
		t.Errorf("opencode config %s names %v", s, setup.EnvNames)
	}
	for _, name := range Names {
		setup, err := MustLookup(name).Home(env, "/home/worker")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, f := range setup.Files {
			if filepath.IsAbs(f.Path) || strings.Contains(f.Path, "..") {
				t.Errorf("%s writes %q outside its home", name, f.Path)
			}
		}
	}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}
