package acp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"reasonixctl/acp/agents"
)

// The recorded sessions of five real ACP agents (testdata/agents) are replayed: a scripted
// agent sends the agent's side of a transcript verbatim and checks what our client sends
// against the client's side (the methods in order, the permission answers), while the test
// checks what the client made of it (the requests matched to their tool calls, the stop reason).

type wireEntry struct {
	Dir string          `json:"dir"`
	Msg json.RawMessage `json:"msg"`
}

type wireMsg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

func loadTranscript(t *testing.T, name, workspace string) []wireEntry {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "agents", name, "transcript.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.ReplaceAll(b, []byte("/WORKSPACE"), []byte(workspace))
	var out []wireEntry
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var e wireEntry
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, e)
	}
	return out
}

// replayAgent plays the agent's side of entries on w and checks the client's side read from r.
// A client request the recording does not have (a mode or option the client sets) is answered
// with an empty result and otherwise ignored. check looks at each of the client's answers to
// the agent's requests, with the recorded answer.
type replayAgent struct {
	entries []wireEntry
	check   func(req wireMsg, got, recorded wireMsg) error
	// extra are the methods of the client's requests the recording lacks.
	mu    sync.Mutex
	extra []string
	seen  []wireMsg // the client's messages the recording has, in order
}

func (a *replayAgent) run(r io.Reader, w io.Writer) error {
	dec := bufio.NewReader(r)
	ids := map[string]json.RawMessage{} // recorded id of a client request → the client's id
	agentReqs := map[string]wireMsg{}   // the agent's requests by id
	send := func(m json.RawMessage) error {
		_, err := w.Write(append(append([]byte(nil), m...), '\n'))
		return err
	}
	next := func() (wireMsg, error) {
		for {
			line, err := dec.ReadBytes('\n')
			if err != nil {
				return wireMsg{}, err
			}
			var m wireMsg
			if err := json.Unmarshal(line, &m); err != nil {
				return wireMsg{}, fmt.Errorf("client wrote %q: %w", line, err)
			}
			if m.Method == "session/set_mode" || m.Method == "session/set_config_option" {
				a.mu.Lock()
				a.extra = append(a.extra, m.Method)
				a.mu.Unlock()
				if err := send(json.RawMessage(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID))); err != nil {
					return wireMsg{}, err
				}
				continue
			}
			return m, nil
		}
	}
	for i, e := range a.entries {
		var rec wireMsg
		if err := json.Unmarshal(e.Msg, &rec); err != nil {
			return err
		}
		if e.Dir == "a2c" {
			msg := e.Msg
			if rec.Method == "" && len(rec.ID) > 0 {
				// The answer to a client request: under the id the client used.
				cid, ok := ids[string(rec.ID)]
				if !ok {
					return fmt.Errorf("entry %d answers id %s the client never used", i, rec.ID)
				}
				var m map[string]json.RawMessage
				_ = json.Unmarshal(msg, &m)
				m["id"] = cid
				msg, _ = json.Marshal(m)
			} else if rec.Method != "" && len(rec.ID) > 0 {
				agentReqs[string(rec.ID)] = rec
			}
			if err := send(msg); err != nil {
				return fmt.Errorf("entry %d: %w", i, err)
			}
			continue
		}
		got, err := next()
		if err != nil {
			return fmt.Errorf("entry %d: waiting for the client's %s: %w", i, describe(rec), err)
		}
		a.mu.Lock()
		a.seen = append(a.seen, got)
		a.mu.Unlock()
		switch {
		case rec.Method != "":
			if got.Method != rec.Method {
				return fmt.Errorf("entry %d: client sent %s, recorded %s", i, describe(got), describe(rec))
			}
			if len(rec.ID) > 0 {
				ids[string(rec.ID)] = got.ID
			}
		default:
			if got.Method != "" || string(got.ID) != string(rec.ID) {
				return fmt.Errorf("entry %d: client sent %s, recorded the answer to %s", i, describe(got), rec.ID)
			}
			if err := a.check(agentReqs[string(rec.ID)], got, rec); err != nil {
				return fmt.Errorf("entry %d: %w", i, err)
			}
		}
	}
	// Past the recording: session/close and the like are answered with an empty result.
	go func() {
		for {
			m, err := next()
			if err != nil {
				return
			}
			if m.Method != "" && len(m.ID) > 0 {
				_ = send(json.RawMessage(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)))
			}
		}
	}()
	return nil
}

func describe(m wireMsg) string {
	if m.Method != "" {
		return m.Method
	}
	return "answer " + string(m.ID)
}

// outcomeOf is the optionId of a permission answer, "cancelled" for a cancelled one.
func outcomeOf(m wireMsg) string {
	var r struct {
		Outcome struct {
			Outcome  string `json:"outcome"`
			OptionID string `json:"optionId"`
		} `json:"outcome"`
	}
	_ = json.Unmarshal(m.Result, &r)
	if r.Outcome.Outcome == "cancelled" {
		return "cancelled"
	}
	return r.Outcome.OptionID
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
			if c.worker == agents.Codex && len(got.extra) != 0 {
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
		var m wireMsg
		_ = json.Unmarshal(e.Msg, &m)
		if m.Method == "session/prompt" {
			var p struct {
				Prompt []struct{ Text string } `json:"prompt"`
			}
			_ = json.Unmarshal(m.Params, &p)
			prompt = p.Prompt[0].Text
		}
	}
	agent := &replayAgent{entries: entries, check: func(req, got, rec wireMsg) error {
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
			if g, w := outcomeOf(got), outcomeOf(rec); g != w {
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
		done <- agent.run(agentIn, agentOut)
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
	agent.mu.Lock()
	res.extra = agent.extra
	agent.mu.Unlock()
	return res
}
