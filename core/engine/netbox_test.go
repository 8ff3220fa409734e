package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"reasonixctl/acp"
	"reasonixctl/acp/acptest/mockllm"
	"reasonixctl/core"
)

// Reasonix's endpoints are its providers' base URLs, the DeepSeek default without providers, and
// a known kind's default without a base URL; a broken file gives the default only.
func TestReasonixEndpointsComeFromItsProviders(t *testing.T) {
	for name, c := range map[string]struct {
		config string
		want   []string
	}{
		"mock": {`[[providers]]
name = "mock"
base_url = "http://127.0.0.1:4567/v1"
[[providers]]
name = "mockr"
base_url = "http://127.0.0.1:4567/v1"
`, []string{"127.0.0.1:4567"}},
		"https and kinds": {`[[providers]]
name = "gw"
base_url = "https://Gateway.Example.com/v1"
[[providers]]
name = "x"
kind = "anthropic"
[[providers]]
name = "openai"
`, []string{"gateway.example.com:443", "api.anthropic.com:443", "api.openai.com:443"}},
		"no providers": {`default_model = "deepseek-chat"`, []string{"api.deepseek.com:443"}},
		"broken":       {`[[providers]`, []string{"api.deepseek.com:443"}},
		"not a URL":    {"[[providers]]\nname = \"p\"\nbase_url = \"unix:/run/x.sock\"\n", []string{"api.deepseek.com:443"}},
	} {
		if got := reasonixEndpoints([]byte(c.config)); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", name, got, c.want)
		}
	}
	// The person's configuration counts, never the worker's copy in its home.
	rx := filepath.Join(t.TempDir(), ".reasonix")
	if err := os.MkdirAll(rx, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(rx, "config.toml"), []byte("[[providers]]\nname = \"p\"\nbase_url = \"http://localhost:9/v1\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := workerEndpoints(WorkerSpec{Home: t.TempDir()}, []string{"REASONIX_HOME=" + rx}); !slices.Equal(got, []string{"localhost:9"}) {
		t.Errorf("from REASONIX_HOME: %q", got)
	}
}

// netProbe is a program the real Reasonix writes and runs as an allowed command, in a task
// delegated with the network (so the command shares the worker's network): it records whether it
// reaches the model's port, a second loopback port of the host directly and through the proxy,
// the proxy's socket, and a folder outside the worktree. The model's address is in the worktree.
func netProbe(otherAddr, outside string) string {
	return fmt.Sprintf(`import json, os, socket

MODEL = open("model-addr.txt").read().strip()
OTHER = %q
OUTSIDE = %q
r = {}


def attempt(name, fn):
    try:
        r[name] = {"ok": fn()}
    except Exception as e:
        r[name] = {"error": repr(e)}


def tcp(addr):
    host, port = addr.rsplit(":", 1)
    s = socket.create_connection((host, int(port)), timeout=5)
    s.close()
    return "connected"


def via_proxy(addr):
    proxy = os.environ.get("HTTPS_PROXY", "")
    if not proxy:
        raise LookupError("no HTTPS_PROXY")
    host, port = proxy.split("//", 1)[1].rsplit(":", 1)
    s = socket.create_connection((host, int(port)), timeout=5)
    s.sendall(("CONNECT %%s HTTP/1.1\r\nHost: %%s\r\n\r\n" %% (addr, addr)).encode())
    line = s.recv(200).split(b"\r\n")[0].decode()
    s.close()
    if " 200 " in line:
        return line
    raise PermissionError(line)


def unix(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(path)
    s.close()
    return "connected"


def write(path):
    with open(path, "w") as f:
        f.write("escaped\n")
    return path


attempt("model", lambda: tcp(MODEL))
attempt("other", lambda: tcp(OTHER))
attempt("other_via_proxy", lambda: via_proxy(OTHER))
attempt("proxy_socket", lambda: unix("/.sandbox-net/proxy.sock"))
attempt("write_outside", lambda: write(os.path.join(OUTSIDE, "marker")))
with open("probe-report.json", "w") as f:
    json.dump(r, f)
print(json.dumps(r))
`, otherAddr, outside)
}

// The real Reasonix in its sandbox, and a command it runs with the network, reach the model's
// endpoint and nothing else: not a second loopback port of the host, directly or through the
// proxy, not the proxy's socket, and no folder outside the worktree.
func TestRealReasonixReachesOnlyItsModel(t *testing.T) {
	bin := os.Getenv("REASONIX_BIN")
	if bin == "" {
		t.Skip("REASONIX_BIN is not set (CI sets it through .ci/setup)")
	}
	var otherHits atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { otherHits.Add(1) }))
	t.Cleanup(other.Close)
	otherAddr := strings.TrimPrefix(other.URL, "http://")
	outside := t.TempDir()

	srv, err := mockllm.Start(mockllm.Script{Scenarios: []mockllm.Scenario{{
		Match: "netprobe",
		Steps: []mockllm.Step{
			{Text: "Writing the probe.", ToolCalls: []mockllm.ToolCall{{Name: "write_file", Arguments: map[string]any{"path": "probe.py", "content": netProbe(otherAddr, outside)}}}},
			{ToolCalls: []mockllm.ToolCall{{Name: "bash", Arguments: map[string]any{"command": "python3 probe.py"}}}},
			{Text: "Ran the probe."},
		},
	}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	env, err := mockllm.WriteReasonixHome(t.TempDir(), srv.BaseURL())
	if err != nil {
		t.Fatal(err)
	}

	contract := `{
  "schema_version": 1,
  "objective": "Run netprobe and report",
  "user_outcome": "probe-report.json holds the probe's findings",
  "write_scope": ["probe.py", "probe-report.json"],
  "acceptance_criteria": [{"id": "ran", "requirement": "the probe ran", "evidence": "automated"}],
  "allowed_commands": [{"id": "probe", "argv": ["python3", "probe.py"]}],
  "verification": [{"id": "check", "argv": ["test", "-f", "probe.py"], "proves": ["ran"]}]
}`
	h := newHarness(t, nil, func(c *Config) {
		c.Worker = func(ctx context.Context, spec WorkerSpec) (*acp.Worker, error) {
			confine, err := workerSandbox(spec, nil)
			if err != nil {
				return nil, err
			}
			return acp.Start(ctx, acp.LaunchConfig{Bin: bin, Dir: spec.Worktree, Network: spec.Network, Env: env, Confine: confine})
		}
		c.Model = "mock/mock-model"
	})
	// The probe finds the model's address in the worktree, committed on the base.
	u, _ := url.Parse(srv.BaseURL())
	if err := os.WriteFile(filepath.Join(h.repo, "model-addr.txt"), []byte(u.Host), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, h.repo, "add", "model-addr.txt")
	git(t, h.repo, "-c", "user.name=Test", "-c", "user.email=test@example.com", "commit", "-qm", "model address")
	res, err := h.delegate("net-1", func(r *core.DelegateRequest) {
		r.Contract = json.RawMessage(contract)
		r.Authority.Network = true
	})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(res.Worktree, "probe-report.json"))
	if err != nil {
		for _, ev := range journal(t, h, "net-1") {
			t.Logf("%d %s %.600s", ev.Seq, ev.Type, ev.Data)
		}
		t.Fatalf("the probe left no report (%v): task %s %s %q", err, res.State, res.Phase, res.Reason)
	}
	var report map[string]struct {
		OK    json.RawMessage `json:"ok"`
		Error string          `json:"error"`
	}
	if err := json.Unmarshal(raw, &report); err != nil {
		t.Fatalf("%v\n%s", err, raw)
	}
	t.Logf("probe report: %s", raw)
	if report["model"].OK == nil {
		t.Errorf("the command did not reach the model's endpoint: %s", report["model"].Error)
	}
	for _, name := range []string{"other", "other_via_proxy", "proxy_socket", "write_outside"} {
		if a, ok := report[name]; !ok || a.OK != nil {
			t.Errorf("%s: %s", name, raw)
		}
	}
	if n := otherHits.Load(); n != 0 {
		t.Errorf("the second loopback service was reached %d times", n)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("written outside the worktree: %v", entries)
	}
}
