package core

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestCodexConfigCheck(t *testing.T) {
	cases := []struct {
		config string
		want   string
	}{
		{"", CheckWarn},
		{"[mcp_servers.other]\ntool_timeout_sec = 900\n", CheckWarn},
		{"[mcp_servers.reasonix-worker]\ncommand = \"reasonixctl\"\n", CheckFail},
		{"[mcp_servers.reasonix-worker]\ntool_timeout_sec = 300\nrequired = true\n", CheckFail},
		{"[mcp_servers.reasonix-worker]\ntool_timeout_sec = 900 # long waits\n", CheckWarn},
		{"[mcp_servers.\"reasonix-worker\"]\ntool_timeout_sec = 900\nrequired = true\n[other]\ntool_timeout_sec = 1\n", CheckOK},
	}
	for _, c := range cases {
		home := t.TempDir()
		if c.config != "" {
			if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(c.config), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if got := codexCheck(home); got.Status != c.want {
			t.Errorf("%q: %s (%s), want %s", c.config, got.Status, got.Detail, c.want)
		}
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
}

func TestDoctorFindsTheWorkerAndItsExtensions(t *testing.T) {
	bin := os.Getenv("REASONIX_BIN")
	if bin == "" {
		t.Skip("REASONIX_BIN is not set (CI sets it through .ci/setup)")
	}
	checks := Doctor(context.Background(), DoctorOptions{WorkerBin: bin, StateDir: filepath.Join(t.TempDir(), "state"), CodexHome: t.TempDir()})
	byName := map[string]Check{}
	for _, c := range checks {
		byName[c.Name] = c
	}
	for _, name := range []string{"platform", "git", "reasonix_binary", "supervisor_flags", "worker_protocol", "sandbox", "state_directory"} {
		if byName[name].Status != CheckOK {
			t.Errorf("%s: %+v", name, byName[name])
		}
	}
	if c := Doctor(context.Background(), DoctorOptions{WorkerBin: "/nonexistent/reasonix", StateDir: t.TempDir()}); c[2].Name != "reasonix_binary" || c[2].Status != CheckFail {
		t.Errorf("missing binary: %+v", c[2])
	}
}
