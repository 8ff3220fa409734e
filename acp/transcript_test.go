package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"reasonixctl/acp/acptest"
	"reasonixctl/acp/agents"
)

// The recorded sessions of five real ACP agents (testdata/agents) are replayed: a scripted
// agent sends the agent's side of a transcript verbatim and checks what our client sends
// against the client's side (the methods in order, the permission answers), while the test
// checks what the client made of it (the requests matched to their tool calls, the stop reason).

func loadTranscript(t *testing.T, name, workspace string) []acptest.ReplayEntry {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "agents", name, "transcript.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := acptest.ParseTranscript(b, "/WORKSPACE", workspace)
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

type transcriptCase struct {
	fixture string
	worker  string
	answer  string // allow, reject or cancel: what OnPermission does
	fs      bool
	stop    StopReason
}

var transcriptCases = []transcriptCase{
	{"final-claude", agents.Claude, "allow", false, StopEndTurn},
	{"final-codex", agents.Codex, "allow", false, StopEndTurn},
	{"final-gemini", agents.Gemini, "allow", false, StopEndTurn},
	{"final-qwen", agents.Qwen, "allow", false, StopEndTurn},
	{"final-opencode", agents.Opencode, "allow", false, StopEndTurn},
	{"claude-projsettings", agents.Claude, "allow", false, StopEndTurn},
	{"claude-reject", agents.Claude, "reject", false, StopEndTurn},
	{"gemini-reject", agents.Gemini, "reject", false, StopEndTurn},
	// Codex ends the whole turn on a rejection, as cancelled: a refusal, not a cancellation.
	{"codex-reject", agents.Codex, "reject", false, StopRefused},
	{"claude-cancel", agents.Claude, "cancel", false, StopCancelled},
	{"codex-cancel", agents.Codex, "cancel", false, StopCancelled},
	{"gemini-cancel", agents.Gemini, "cancel", false, StopCancelled},
	{"gemini-fs", agents.Gemini, "allow", true, StopEndTurn},
	{"codex-untrusted", agents.Codex, "allow", false, StopEndTurn},
}

func TestAgentTranscripts(t *testing.T) {
	for _, c := range transcriptCases {
		t.Run(c.fixture, func(t *testing.T) {
			t.Parallel()
			ws := t.TempDir()
			got := replayTranscript(t, c, ws)
			if got.stop != c.stop {
				t.Errorf("stop %q, want %q", got.stop, c.stop)
			}
			if len(got.perms) == 0 && c.fixture != "gemini-fs" {
				t.Fatal("no permission request reached OnPermission")
			}
			for _, p := range got.perms {
				r := p.Request
				// Matched by id: the request's own tool call, announced before, after or never.
				if r.CallID != r.ToolCallID || r.CallID == "" {
					t.Errorf("request %s matched to call %q", r.ToolCallID, r.CallID)
				}
				switch r.ToolKind {
				case "edit":
					want := filepath.Join(ws, "hello.txt")
					if !slices.Contains(r.Locations, want) && !slices.ContainsFunc(r.Diffs, func(d Diff) bool { return d.Path == want }) {
						t.Errorf("edit request %s names neither location nor diff of %s: %+v", r.ToolCallID, want, r)
					}
					if len(r.Diffs) > 0 && r.Diffs[0].NewText != "hello from the mock model\n" {
						t.Errorf("diff %+v", r.Diffs)
					}
				case "execute":
					// Claude, Codex and opencode send the command; Gemini and Qwen only a title.
					if c.worker != agents.Gemini && c.worker != agents.Qwen && !bytes.Contains(r.RawInput, []byte("touch shell-ran.txt")) {
						t.Errorf("execute request %s without its command: %s", r.ToolCallID, r.RawInput)
					}
				}
				if hasInput(r.RawInput) == false && r.RawInput != nil {
					t.Errorf("request %s keeps an empty input %s", r.ToolCallID, r.RawInput)
				}
			}
			if c.worker == agents.Claude && c.fixture != "claude-projsettings" {
				// Claude's first announcement has rawInput {}; the request carries the real one.
				if p := got.perms[0].Request; !bytes.Contains(p.RawInput, []byte(`"file_path"`)) {
					t.Errorf("claude's write request input %s", p.RawInput)
				}
			}
			if c.worker == agents.Qwen && !slices.Contains(got.extra, "session/set_mode") {
				t.Errorf("qwen's mode was not set to default: extra requests %v", got.extra)
			}
			if c.worker == agents.Codex && slices.ContainsFunc(got.extra, func(m string) bool { return strings.HasPrefix(m, "session/set_") }) {
				t.Errorf("codex already runs read-only, yet the client sent %v", got.extra)
			}
			if st := got.status; st.TurnOutcome.Kind == "" && c.stop == StopEndTurn {
				t.Errorf("status without the turn's outcome: %+v", st)
			}
		})
	}
}

type replayResult struct {
	stop   StopReason
	perms  []PermissionEvent
	extra  []string
	status Status
}

func replayTranscript(t *testing.T, c transcriptCase, ws string) replayResult {
	t.Helper()
	entries := loadTranscript(t, c.fixture, ws)
	var prompt string
	for _, e := range entries {
		var m acptest.ReplayMsg
		_ = json.Unmarshal(e.Msg, &m)
		if m.Method == "session/prompt" {
			var p struct {
				Prompt []struct{ Text string } `json:"prompt"`
			}
			_ = json.Unmarshal(m.Params, &p)
			prompt = p.Prompt[0].Text
		}
	}
	agent := &acptest.Replay{Entries: entries, Check: func(req, got, rec acptest.ReplayMsg) error {
		switch req.Method {
		case "fs/read_text_file":
			// A missing file reads as "" (the recording's client answered an error, which
			// broke Gemini's write).
			var r struct {
				Content *string `json:"content"`
			}
			if err := json.Unmarshal(got.Result, &r); err != nil || r.Content == nil || *r.Content != "" || len(got.Error) > 0 {
				return fmt.Errorf("fs read of a missing file answered %s %s, want content \"\"", got.Result, got.Error)
			}
		case "fs/write_text_file":
			if len(got.Error) == 0 {
				return fmt.Errorf("fs write answered %s without fs offered", got.Result)
			}
		case "session/request_permission":
			if g, w := acptest.PermissionAnswer(got), acptest.PermissionAnswer(rec); g != w {
				return fmt.Errorf("permission answered %q, recorded %q", g, w)
			}
		default:
			// Other requests of the agent's own (qwen's craft/…) are answered method-not-found.
			if !bytes.Contains(got.Error, []byte(fmt.Sprint(CodeMethodNotFound))) {
				return fmt.Errorf("%s answered %s %s", req.Method, got.Result, got.Error)
			}
		}
		return nil
	}}
	fromAgent, agentOut := io.Pipe()
	agentIn, toAgent := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- agent.Run(agentIn, agentOut)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cfg := ConnectConfig{Agent: agents.MustLookup(c.worker)}
	if c.fs {
		cfg.FSRoot = ws
	}
	w, err := Connect(ctx, fromAgent, toAgent, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if info := w.Info(); info.StatusExtension || info.Steer != agents.SteerCancelPrompt || info.Worker != c.worker || info.FS != c.fs {
		t.Errorf("info %+v", info)
	}
	var sess *Session
	var sessMu sync.Mutex
	decide := func(ctx context.Context, req PermissionRequest) PermissionOutcome {
		switch c.answer {
		case "reject":
			return req.Choose("reject_once")
		case "cancel":
			sessMu.Lock()
			s := sess
			sessMu.Unlock()
			go func() { _ = s.Cancel(context.Background()) }()
			<-ctx.Done()
			return PermissionOutcome{}
		}
		return req.Choose("allow_once")
	}
	sessMu.Lock()
	sess, err = w.NewSession(ctx, SessionConfig{Cwd: ws, OnPermission: decide})
	sessMu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	events := sess.Events()
	var res replayResult
	collected := make(chan struct{})
	go func() {
		defer close(collected)
		for e := range events {
			if p, ok := e.(PermissionEvent); ok {
				res.perms = append(res.perms, p)
			}
		}
	}()
	res.stop, err = sess.Prompt(ctx, prompt)
	if err != nil {
		t.Fatalf("prompt: %v", err)
	}
	res.status, err = sess.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("replay: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("the replay did not reach its end")
	}
	_ = sess.Close(ctx)
	<-collected
	res.extra = agent.Extra()
	return res
}
