package doctor

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"reasonixctl/core/statedir"
)

func checkMap(checks []Check) map[string]Check {
	m := map[string]Check{}
	for _, c := range checks {
		m[c.Name] = c
	}
	return m
}

func TestCodexConfigChecks(t *testing.T) {
	const good = "[mcp_servers.reasonix-worker]\ncommand = \"reasonixctl\"\nargs = [\"--mcp\"]\ntool_timeout_sec = 900\nrequired = true\n" +
		"default_tools_approval_mode = \"approve\"\nenv_vars = [\"K_API_KEY\"]\nenv = { CODEX_REASONIX_ENV_ALLOWLIST = \"K_*\" }\n"
	cases := []struct {
		name, config, keyVar string
		want                 map[string]string // check name → status; unnamed checks must be absent
	}{
		{"no file", "", "", map[string]string{"codex_config": CheckWarn}},
		{"not TOML", "[mcp_servers\n", "", map[string]string{"codex_config": CheckFail}},
		{"other server", "[mcp_servers.other]\ntool_timeout_sec = 900\n", "", map[string]string{"codex_config": CheckWarn}},
		{"all good", good, "K_API_KEY", map[string]string{"codex_config": CheckOK, "codex_tool_timeout": CheckOK, "codex_required": CheckOK, "codex_approval": CheckOK, "codex_env": CheckOK}},
		{"found by command under another name, float timeout, comment", "[mcp_servers.rx]\ncommand = \"/opt/bin/reasonixctl\"\nargs = [\"--mcp\"]\ntool_timeout_sec = 1200.0 # long waits\n", "",
			map[string]string{"codex_config": CheckOK, "codex_tool_timeout": CheckOK, "codex_required": CheckWarn, "codex_approval": CheckWarn, "codex_env": CheckOK}},
		{"quoted name, short timeout", "[mcp_servers.\"reasonix-worker\"]\ntool_timeout_sec = 300\nrequired = true\n[other]\ntool_timeout_sec = 1\n", "",
			map[string]string{"codex_config": CheckOK, "codex_tool_timeout": CheckFail, "codex_required": CheckOK, "codex_approval": CheckWarn, "codex_env": CheckOK}},
		{"env_vars as tables, per-tool approval", strings.Replace(good, "env_vars = [\"K_API_KEY\"]\n", "env_vars = [{ name = \"K_API_KEY\" }]\n", 1) + "[mcp_servers.reasonix-worker.tools.reasonix_delegate]\napproval_mode = \"approve\"\n", "K_API_KEY",
			map[string]string{"codex_config": CheckOK, "codex_tool_timeout": CheckOK, "codex_required": CheckOK, "codex_approval": CheckOK, "codex_env": CheckOK}},
		{"no timeout", "[mcp_servers.reasonix-worker]\ncommand = \"reasonixctl\"\n", "", map[string]string{"codex_config": CheckOK, "codex_tool_timeout": CheckFail, "codex_required": CheckWarn, "codex_approval": CheckWarn, "codex_env": CheckOK}},
		{"key not forwarded by Codex", strings.Replace(good, "env_vars = [\"K_API_KEY\"]\n", "", 1), "K_API_KEY",
			map[string]string{"codex_config": CheckOK, "codex_tool_timeout": CheckOK, "codex_required": CheckOK, "codex_approval": CheckOK, "codex_env": CheckFail}},
		{"key not in the allowlist", strings.Replace(good, "K_*", "OTHER", 1), "K_API_KEY",
			map[string]string{"codex_config": CheckOK, "codex_tool_timeout": CheckOK, "codex_required": CheckOK, "codex_approval": CheckOK, "codex_env": CheckFail}},
		{"prompt approval", strings.Replace(good, "\"approve\"", "\"prompt\"", 1), "K_API_KEY",
			map[string]string{"codex_config": CheckOK, "codex_tool_timeout": CheckOK, "codex_required": CheckOK, "codex_approval": CheckWarn, "codex_env": CheckOK}},
	}
	for _, c := range cases {
		home := t.TempDir()
		if c.config != "" {
			if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(c.config), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		got := checkMap(codexChecks(home, c.keyVar))
		if len(got) != len(c.want) {
			t.Errorf("%s: %+v", c.name, got)
		}
		for name, status := range c.want {
			if got[name].Status != status {
				t.Errorf("%s: %s is %s (%s), want %s", c.name, name, got[name].Status, got[name].Detail, status)
			}
		}
	}
	// The fix is in the message, and no value of the environment ever is.
	got := checkMap(codexChecks(writeCodexHome(t, strings.Replace(good, "env_vars = [\"K_API_KEY\"]\n", "", 1)+"[mcp_servers.reasonix-worker.tools.reasonix_delegate]\napproval_mode = \"approve\"\n"), "K_API_KEY"))
	if d := got["codex_env"].Detail; !strings.Contains(d, `env_vars = ["K_API_KEY"]`) || strings.Contains(d, "K_*") && !strings.Contains(d, "CODEX_REASONIX_ENV_ALLOWLIST") {
		t.Errorf("env fix: %s", d)
	}
}

func writeCodexHome(t *testing.T, config string) string {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

// A program that exits 0 to everything is not a worker: it must answer ACP initialize.
func TestDoctorRejectsABinaryThatOnlyExits(t *testing.T) {
	bin, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no true(1) on PATH")
	}
	checks, path := workerChecks(context.Background(), bin)
	if path != "" || len(checks) != 1 || checks[0].Name != "reasonix_binary" || checks[0].Status != CheckFail || !strings.Contains(checks[0].Detail, "not a Reasonix worker") {
		t.Errorf("%q: %+v", path, checks)
	}
}

// Without a worker that can report its configuration, the user's config.toml is read directly.
func TestProviderChecksFromTheConfigFile(t *testing.T) {
	home := t.TempDir()
	t.Setenv("REASONIX_HOME", home)
	notWorker := "/nonexistent/reasonix"
	write := func(config string) {
		if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	status := func(allow ...string) map[string]Check {
		checks, _ := providerChecks(context.Background(), notWorker, allow)
		return checkMap(checks)
	}

	if got := status()["worker_provider"]; got.Status != CheckFail || !strings.Contains(got.Detail, "default_model") {
		t.Errorf("no config: %+v", got)
	}
	write("default_model = \"p\"\n[[providers]]\nname = \"p\"\nbase_url = \"https://api.example.com/v1\"\napi_key_env = \"RX_TEST_KEY\"\n")
	t.Setenv("RX_TEST_KEY", "")
	got := status("RX_TEST_KEY")
	if got["worker_provider"].Status != CheckOK || got["worker_api_key"].Status != CheckFail || !strings.Contains(got["worker_api_key"].Detail, "not set") {
		t.Errorf("key unset: %+v", got)
	}
	t.Setenv("RX_TEST_KEY", "secret-value")
	if got := status()["worker_api_key"]; got.Status != CheckFail || !strings.Contains(got.Detail, "CODEX_REASONIX_ENV_ALLOWLIST=RX_TEST_KEY") || strings.Contains(got.Detail, "secret-value") {
		t.Errorf("key not allowlisted: %+v", got)
	}
	if got := status("RX_*")["worker_api_key"]; got.Status != CheckOK {
		t.Errorf("key allowlisted: %+v", got)
	}
	if _, keyVar := providerChecks(context.Background(), notWorker, nil); keyVar != "RX_TEST_KEY" {
		t.Errorf("key variable %q", keyVar)
	}
	write("default_model = \"missing\"\n[[providers]]\nname = \"p\"\napi_key_env = \"K\"\n")
	if got := status()["worker_provider"]; got.Status != CheckFail {
		t.Errorf("default model names no provider: %+v", got)
	}
	write("default_model = \"local\"\n[[providers]]\nname = \"local\"\nbase_url = \"http://127.0.0.1:8080/v1\"\napi_key_env = \"RX_UNSET_KEY\"\n")
	if got := status()["worker_api_key"]; got.Status != CheckOK {
		t.Errorf("loopback provider needs no key: %+v", got)
	}
}

func TestToolchainCheck(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Cargo.toml"), []byte("[package]\nname = \"c\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir())
	if got := toolchainCheck(dir); got.Status != CheckFail || !strings.Contains(got.Detail, "cargo test --offline") || !strings.Contains(got.Detail, "cargo is not on PATH") {
		t.Errorf("missing cargo: %+v", got)
	}
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "cargo"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	if got := toolchainCheck(dir); got.Status != CheckOK {
		t.Errorf("cargo present: %+v", got)
	}
	if got := toolchainCheck(t.TempDir()); got.Status != CheckOK || !strings.Contains(got.Detail, "no verification toolchain") {
		t.Errorf("empty repository: %+v", got)
	}
}

func TestStateDirectoryCheck(t *testing.T) {
	dir := t.TempDir()
	if got := stateCheck(filepath.Join(dir, "missing")); got.Status != CheckOK {
		t.Errorf("missing: %+v", got)
	}
	open := filepath.Join(dir, "open")
	os.Mkdir(open, 0o755)
	if got := stateCheck(open); got.Status != CheckFail {
		t.Errorf("0755: %+v", got)
	}
	private := filepath.Join(dir, "private")
	os.Mkdir(private, 0o700)
	if got := stateCheck(private); got.Status != CheckOK {
		t.Errorf("0700: %+v", got)
	}
	// The same words as every mode's refusal, fix included.
	if got := stateCheck(open); got.Detail != statedir.Check(open).Error() || !strings.Contains(got.Detail, "chmod 700 "+open) {
		t.Errorf("0755: %+v", got)
	}
}

// A state directory someone else owns is refused in the words every mode uses, and nothing in it
// is read: not its owner record, not its socket.
func TestForeignStateDirectoryIsNotRead(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a directory owned by another uid")
	}
	dir := filepath.Join(t.TempDir(), "theirs")
	os.Mkdir(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "owner.json"), fmt.Appendf(nil, `{"pid": %d, "mode": "mcp"}`, os.Getpid()), 0o600)
	if err := os.Chown(dir, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	state := stateCheck(dir)
	if state.Status != CheckFail || state.Detail != statedir.Check(dir).Error() || !strings.Contains(state.Detail, "owned by uid 65534") ||
		!strings.Contains(state.Detail, "unset CODEX_REASONIX_STATE_DIR") {
		t.Fatalf("state: %+v", state)
	}
	ask := func(context.Context, string) (OwnerAnswer, error) {
		t.Fatal("the owner's socket was dialled")
		return OwnerAnswer{}, nil
	}
	if got := ownerCheck(context.Background(), Options{StateDir: dir, AskOwner: ask}, state); got.Status != CheckWarn || strings.Contains(got.Detail, "owned by") {
		t.Fatalf("owner: %+v", got)
	}
}

func TestDoctorFindsTheWorkerAndItsExtensions(t *testing.T) {
	bin := os.Getenv("REASONIX_BIN")
	if bin == "" {
		t.Skip("REASONIX_BIN is not set (CI sets it through .ci/setup)")
	}
	checks := Run(context.Background(), Options{WorkerBin: bin, StateDir: filepath.Join(t.TempDir(), "state"), CodexHome: t.TempDir()})
	byName := map[string]Check{}
	for _, c := range checks {
		byName[c.Name] = c
	}
	for _, name := range []string{"platform", "git", "reasonix_binary", "supervisor_flags", "worker_protocol", "sandbox", "state_directory"} {
		if byName[name].Status != CheckOK {
			t.Errorf("%s: %+v", name, byName[name])
		}
	}
	if c := Run(context.Background(), Options{WorkerBin: "/nonexistent/reasonix", StateDir: t.TempDir()}); c[2].Name != "reasonix_binary" || c[2].Status != CheckFail {
		t.Errorf("missing binary: %+v", c[2])
	}
}
