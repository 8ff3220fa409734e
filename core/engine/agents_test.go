package engine

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"reasonixctl/acp"
	"reasonixctl/acp/acptest"
	"reasonixctl/acp/agents"
	"reasonixctl/core"
)

// replayWorker connects each task to a replay of a real agent's recorded session (acp's
// testdata/agents), with the session's cwd recorded as /WORKSPACE set to the task's worktree,
// and then the entries of then; each replay is sent to played once it has run.
func replayWorker(t *testing.T, fixture, worker string, played chan<- *acptest.Replay, then ...acptest.ReplayEntry) WorkerLauncher {
	b, err := os.ReadFile(filepath.Join("..", "..", "acp", "testdata", "agents", fixture, "transcript.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	return func(ctx context.Context, spec WorkerSpec) (*acp.Worker, error) {
		entries, err := acptest.ParseTranscript(b, "/WORKSPACE", spec.Worktree)
		if err != nil {
			return nil, err
		}
		rp := &acptest.Replay{Entries: append(entries, then...)}
		fromAgent, agentOut := io.Pipe()
		agentIn, toAgent := io.Pipe()
		go func() {
			if err := rp.Run(agentIn, agentOut); err != nil {
				agentOut.CloseWithError(err)
			}
			if played != nil {
				played <- rp
			}
		}()
		return acp.Connect(ctx, fromAgent, toAgent, acp.ConnectConfig{Agent: agents.MustLookup(worker)})
	}
}

// Codex ends its whole turn, as cancelled, when a permission is refused: the task records a
// refusal, not a cancelled turn, and the policy's recovery steer, queued while Codex waited on
// the answer, is its next prompt (the journal's steered event says what reached it).
func TestCodexRefusalIsNotACancellation(t *testing.T) {
	played := make(chan *acptest.Replay, 1)
	then := []acptest.ReplayEntry{
		{Dir: "c2a", Msg: json.RawMessage(`{"id":90,"method":"session/prompt"}`)},
		{Dir: "a2c", Msg: json.RawMessage(`{"jsonrpc":"2.0","id":90,"result":{"stopReason":"end_turn"}}`)},
	}
	h := newHarness(t, nil, func(c *Config) { c.Worker = replayWorker(t, "codex-reject", agents.Codex, played, then...) })
	bg := 0
	if _, err := h.delegate("refused", func(r *core.DelegateRequest) { r.WaitTimeoutSeconds = &bg }); err != nil {
		t.Fatal(err)
	}
	r, timedOut, err := h.e.waitFor(context.Background(), "refused", 30*time.Second, func(r *taskRecord) bool {
		return r.State != core.StateRunning && r.State != core.StateProvisioning
	})
	if err != nil || timedOut {
		t.Fatalf("the task did not settle: %v, timed out %v", err, timedOut)
	}
	if r.State == core.StateCancelled || r.Phase == "turn_cancelled" {
		t.Fatalf("state %s phase %s (%s): a refusal recorded as a cancellation", r.State, r.Phase, r.Reason)
	}
	var steered []string
	for _, ev := range journal(t, h, "refused") {
		var d core.TextData
		switch ev.Type {
		case core.EventSteered:
			if json.Unmarshal(ev.Data, &d) == nil {
				steered = append(steered, d.Text)
			}
		case core.EventError:
			t.Errorf("error event: %s", ev.Data)
		}
	}
	if len(steered) != 1 {
		t.Fatalf("steered %q, want the policy's recovery steer", steered)
	}
	var rp *acptest.Replay
	select {
	case rp = <-played:
	case <-time.After(30 * time.Second):
		t.Fatal("the replay did not finish")
	}
	seen := rp.Seen()
	last := seen[len(seen)-1]
	var p struct {
		Prompt []struct{ Text string } `json:"prompt"`
	}
	if err := json.Unmarshal(last.Params, &p); err != nil || last.Method != "session/prompt" || len(p.Prompt) != 1 ||
		!strings.Contains(p.Prompt[0].Text, steered[0]) {
		t.Errorf("Codex's next prompt %s %s, want the steer %q", last.Method, last.Params, steered[0])
	}
}

// An agent's private home is the agent's to write: links it left where the profile's folders
// and files go are replaced, never followed, and the user's own configuration stays untouched.
func TestAgentHomeNeverFollowsLinks(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	outside := t.TempDir()
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	// .codex is a link to a folder outside; .config/opencode/opencode.json a link to a file.
	if err := os.Symlink(outside, filepath.Join(home, ".codex")); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(outside, "victim.json")
	if err := os.WriteFile(victim, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, ".config", "opencode"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(home, ".config", "opencode", "opencode.json")); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + t.TempDir()}
	for _, name := range []string{agents.Codex, agents.Opencode, agents.Claude, agents.Gemini, agents.Qwen} {
		setup, err := agents.MustLookup(name).Home(env, "/home/reasonix-worker")
		if err != nil {
			t.Fatal(err)
		}
		if err := prepareAgentHome(home, setup); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, f := range setup.Files {
			p := filepath.Join(home, filepath.FromSlash(f.Path))
			st, err := os.Lstat(p)
			if err != nil || !st.Mode().IsRegular() {
				t.Errorf("%s: %s is not a regular file: %v", name, f.Path, err)
			}
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("a file outside the home was written: %q", b)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Errorf("the folder outside the home got %d entries", len(entries))
	}
	if err := prepareAgentHome(home, agents.HomeSetup{Files: []agents.HomeFile{{Path: "../escape", Data: []byte("x")}}}); err == nil {
		t.Error("a home file outside the home was accepted")
	}
}

// A foreign agent's sandbox reaches that agent's model endpoint, read from the person's
// environment, never Reasonix's; Reasonix keeps its own.
func TestAgentSandboxReachesItsOwnEndpoint(t *testing.T) {
	user := t.TempDir()
	if err := os.MkdirAll(filepath.Join(user, ".codex"), 0o700); err != nil {
		t.Fatal(err)
	}
	codex := "model_provider = \"mock\"\n[model_providers.mock]\nbase_url = \"http://127.0.0.1:5555/v1\"\n"
	if err := os.WriteFile(filepath.Join(user, ".codex", "config.toml"), []byte(codex), 0o600); err != nil {
		t.Fatal(err)
	}
	userEnv := []string{"HOME=" + user, "ANTHROPIC_BASE_URL=http://127.0.0.1:4567"}
	// What the launch hands the sandbox: the agent pointed at its private home.
	workerEnv := []string{"HOME=/home/reasonix-worker", "CODEX_HOME=/home/reasonix-worker/.codex", "ANTHROPIC_BASE_URL=http://127.0.0.1:4567"}
	for name, want := range map[string]string{agents.Claude: "127.0.0.1:4567", agents.Codex: "127.0.0.1:5555"} {
		got := sandboxEndpoints(agents.MustLookup(name), workerEnv, userEnv)
		if len(got) != 1 || got[0] != want {
			t.Errorf("%s reaches %q, want %s", name, got, want)
		}
	}
	if got := sandboxEndpoints(agents.MustLookup(agents.Reasonix), []string{"HOME=" + user}, userEnv); len(got) != 1 || got[0] != "api.deepseek.com:443" {
		t.Errorf("reasonix reaches %q, want its default", got)
	}
}
