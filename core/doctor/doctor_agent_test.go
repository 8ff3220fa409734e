package doctor

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func findCheck(checks []Check, name string) (Check, bool) {
	for _, c := range checks {
		if c.Name == name {
			return c, true
		}
	}
	return Check{}, false
}

// The chosen worker is checked: a missing command names its install line, one that does not
// speak ACP fails, and an agent that answers initialize has its supervision and endpoint shown.
func TestDoctorChecksTheChosenWorker(t *testing.T) {
	path := os.Getenv("PATH")
	t.Setenv("HOME", t.TempDir())
	t.Setenv("REASONIXCTL_WORKER_CLAUDE", "/nonexistent/claude-agent-acp")
	checks := agentChecks(context.Background(), "claude", nil)
	if c, ok := findCheck(checks, "worker_binary"); !ok || c.Status != CheckFail || !strings.Contains(c.Detail, "REASONIXCTL_WORKER_CLAUDE") {
		t.Errorf("missing override: %+v", checks)
	}
	t.Setenv("REASONIXCTL_WORKER_CLAUDE", "")
	t.Setenv("PATH", t.TempDir())
	checks = agentChecks(context.Background(), "claude", nil)
	if c, ok := findCheck(checks, "worker_binary"); !ok || c.Status != CheckFail || !strings.Contains(c.Detail, "@zed-industries/claude-agent-acp@0.23.1") {
		t.Errorf("missing binary: %+v", checks)
	}
	if c, _ := findCheck(agentChecks(context.Background(), "vim", nil), "worker"); c.Status != CheckFail {
		t.Errorf("unknown worker: %+v", c)
	}
	if bin, err := exec.LookPath("/bin/true"); err == nil {
		t.Setenv("REASONIXCTL_WORKER_CODEX", bin)
		c, _ := findCheck(agentChecks(context.Background(), "codex", nil), "worker_binary")
		if c.Status != CheckFail || !strings.Contains(c.Detail, "did not answer ACP initialize") {
			t.Errorf("a program that only exits: %+v", c)
		}
	}
	if testing.Short() {
		return
	}
	t.Setenv("PATH", path)
	dir := t.TempDir()
	bin := filepath.Join(dir, "fake-agent")
	if out, err := exec.Command("go", "build", "-o", bin, "reasonixctl/cmd/fake-reasonix").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	t.Setenv("REASONIXCTL_WORKER_GEMINI", bin+" acp")
	t.Setenv("GOOGLE_GEMINI_BASE_URL", "http://127.0.0.1:4567")
	checks = agentChecks(context.Background(), "gemini", nil)
	for name, want := range map[string]string{"worker_binary": "ACP v1", "worker_supervision": "session mode default",
		"worker_endpoint": "127.0.0.1:4567", "worker_env": "GOOGLE_GEMINI_BASE_URL"} {
		if c, ok := findCheck(checks, name); !ok || c.Status != CheckOK || !strings.Contains(c.Detail, want) {
			t.Errorf("%s: %+v (want %q)", name, c, want)
		}
	}
}
