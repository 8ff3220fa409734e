package engine

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"reasonixctl/acp"
	"reasonixctl/acp/acptest/mockllm"
	"reasonixctl/core"
)

// realWorker starts the real Reasonix binary against the scripted mock model, in the worker's
// sandbox as BinaryWorker does.
func realWorker(t *testing.T, script mockllm.Script) WorkerLauncher {
	t.Helper()
	bin := os.Getenv("REASONIX_BIN")
	if bin == "" {
		t.Skip("REASONIX_BIN is not set (CI sets it through .ci/setup)")
	}
	srv, err := mockllm.Start(script, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	env, err := mockllm.WriteReasonixHome(t.TempDir(), srv.BaseURL())
	if err != nil {
		t.Fatal(err)
	}
	return func(ctx context.Context, spec WorkerSpec) (*acp.Worker, error) {
		confine, err := workerSandbox(spec, nil)
		if err != nil {
			return nil, err
		}
		return acp.Start(ctx, acp.LaunchConfig{Bin: bin, Dir: spec.Worktree, Network: spec.Network, Env: env, Confine: confine})
	}
}

// The real Reasonix 1.38.11 supervised end to end: it asks to write the file and to run a
// command, the policy answers, the task reaches review, and finalize makes one commit.
func TestRealReasonixHappyPath(t *testing.T) {
	script := mockllm.Script{Scenarios: []mockllm.Scenario{{
		Match: "result.txt",
		Steps: []mockllm.Step{
			{Text: "Writing the file.", ToolCalls: []mockllm.ToolCall{{Name: "write_file", Arguments: map[string]any{"path": "result.txt", "content": "ok\n"}}}},
			{ToolCalls: []mockllm.ToolCall{{Name: "bash", Arguments: map[string]any{"command": "make --version"}}}},
			{Text: "Created result.txt containing ok."},
		},
	}}}
	contract := strings.Replace(happyContract, `"verification"`, `"allowed_commands": [{"id": "toolchain", "argv": ["make", "--version"]}],
  "verification"`, 1)
	h := newHarness(t, nil, func(c *Config) {
		c.Worker = realWorker(t, script)
		c.Model = "mock/mock-model"
	})
	before := sourceFingerprint(t, h.repo)
	base := git(t, h.repo, "rev-parse", "HEAD")
	res, err := h.delegate("real-1", func(r *core.DelegateRequest) { r.Contract = json.RawMessage(contract) })
	if err != nil {
		t.Fatal(err)
	}
	if res.State != core.StateReviewRequired {
		for _, ev := range journal(t, h, "real-1") {
			t.Logf("%d %s %s", ev.Seq, ev.Type, ev.Data)
		}
		t.Fatalf("state %s phase %s reason %q", res.State, res.Phase, res.Reason)
	}
	var writes, commands int
	for _, ev := range journal(t, h, "real-1") {
		if ev.Type == core.EventPermissionDecided {
			switch {
			case strings.Contains(string(ev.Data), `"kind":"edit"`) && strings.Contains(string(ev.Data), `"decision":"allow"`):
				writes++
			case strings.Contains(string(ev.Data), `"argv":["make","--version"]`) && strings.Contains(string(ev.Data), `"decision":"allow"`):
				commands++
			}
		}
	}
	if writes != 1 || commands != 1 {
		for _, ev := range journal(t, h, "real-1") {
			t.Logf("%d %s %s", ev.Seq, ev.Type, ev.Data)
		}
		t.Fatalf("policy decisions: %d writes, %d commands; want one of each", writes, commands)
	}
	v, err := h.finalize(res.TaskView, "looks-right")
	if err != nil {
		t.Fatal(err)
	}
	if v.State != core.StateCompleted || git(t, h.repo, "rev-parse", v.CommitHash+"^") != base {
		t.Fatalf("finalized: %+v", v)
	}
	if got := git(t, h.repo, "show", v.CommitHash+":result.txt"); got != "ok" {
		t.Fatalf("committed %q", got)
	}
	if after := sourceFingerprint(t, h.repo); after != before {
		t.Fatal("source checkout changed")
	}
}
