package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"reasonixctl/acp/acptest"
	"reasonixctl/acp/agents"
)

// script builds a transcript of a plain ACP agent: a2c entries are sent, c2a entries expected.
func script(lines ...string) []acptest.ReplayEntry {
	var out []acptest.ReplayEntry
	for _, l := range lines {
		dir, msg, _ := strings.Cut(l, " ")
		out = append(out, acptest.ReplayEntry{Dir: dir, Msg: json.RawMessage(msg)})
	}
	return out
}

const sid = "s-1"

func plainHandshake(fsOffered bool) []string {
	return []string{
		`c2a {"id":1,"method":"initialize"}`,
		`a2c {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{},"agentInfo":{"name":"plain","version":"1"}}}`,
		`c2a {"id":2,"method":"session/new"}`,
		`a2c {"jsonrpc":"2.0","id":2,"result":{"sessionId":"` + sid + `","modes":{"currentModeId":"default","availableModes":[{"id":"default","name":"Default"}]}}}`,
	}
}

func connectScript(t *testing.T, entries []acptest.ReplayEntry, cfg ConnectConfig, onPerm PermissionFunc, cwd string) (*Session, *acptest.Replay, chan error) {
	t.Helper()
	agent := &acptest.Replay{Entries: entries}
	fromAgent, agentOut := io.Pipe()
	agentIn, toAgent := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- agent.Run(agentIn, agentOut) }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	w, err := Connect(ctx, fromAgent, toAgent, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	s, err := w.NewSession(ctx, SessionConfig{Cwd: cwd, OnPermission: onPerm})
	if err != nil {
		t.Fatal(err)
	}
	return s, agent, done
}

// A plain agent is steered its own way: the running turn is cancelled and the steer is the
// next prompt of the same turn, which Prompt reports as one.
func TestSteerWithoutExtension(t *testing.T) {
	lines := append(plainHandshake(false),
		`c2a {"id":3,"method":"session/prompt"}`,
		`a2c {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"`+sid+`","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"working"}}}}`,
		`c2a {"method":"session/cancel"}`,
		`a2c {"jsonrpc":"2.0","id":3,"result":{"stopReason":"cancelled","usage":{"inputTokens":10,"outputTokens":2,"totalTokens":12}}}`,
		`c2a {"id":4,"method":"session/prompt"}`,
		`a2c {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"`+sid+`","update":{"sessionUpdate":"usage_update","used":5,"size":100,"cost":{"amount":0.5,"currency":"USD"}}}}`,
		`a2c {"jsonrpc":"2.0","id":4,"result":{"stopReason":"end_turn","usage":{"inputTokens":20,"outputTokens":3,"totalTokens":23}}}`,
	)
	s, agent, done := connectScript(t, script(lines...), ConnectConfig{Agent: agents.MustLookup(agents.Gemini)}, nil, t.TempDir())
	if _, err := s.Steer(context.Background(), "too early"); !errors.Is(err, ErrNoActiveTurn) {
		t.Fatalf("steer of an idle session: %v", err)
	}
	ctx := context.Background()
	type res struct {
		stop StopReason
		err  error
	}
	out := make(chan res, 1)
	s.PromptThen(ctx, "first", func(stop StopReason, err error) { out <- res{stop, err} })
	for e := range s.Events() {
		if c, ok := e.(Chunk); ok && c.Text == "working" {
			break
		}
	}
	disp, err := s.Steer(ctx, "PELICAN")
	if err != nil || disp != agents.SteerCancelPrompt {
		t.Fatalf("steer: %q %v", disp, err)
	}
	r := <-out
	if r.err != nil || r.stop != StopEndTurn {
		t.Fatalf("turn ended %q %v, want end_turn", r.stop, r.err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	seen := agent.Seen()
	last := seen[len(seen)-1]
	if !strings.Contains(string(last.Params), "PELICAN") {
		t.Errorf("the steer was not the next prompt: %s", last.Params)
	}
	st, err := s.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.TurnOutcome.Kind != "completed" || st.Usage.Cumulative.TotalTokens != 35 || st.Usage.Cumulative.EstimatedCost == nil ||
		*st.Usage.Cumulative.EstimatedCost != 0.5 || st.State != "idle" {
		t.Errorf("status %+v", st)
	}
	if eff := s.Effective(); eff.Steer != agents.SteerCancelPrompt || eff.Mode != "default" {
		t.Errorf("effective %+v", eff)
	}
}

// Reasonix still needs its extensions; a plain agent does not.
func TestCapabilitiesPerProfile(t *testing.T) {
	resp := sdk.InitializeResponse{ProtocolVersion: 1}
	var inc *IncompatibleError
	if _, err := checkCapabilities(resp, true); !errors.As(err, &inc) {
		t.Errorf("reasonix without extensions: %v", err)
	}
	info, err := checkCapabilities(resp, false)
	if err != nil || info.StatusExtension || info.SteerMethod != "" || info.Steer != agents.SteerCancelPrompt {
		t.Errorf("plain agent: %+v %v", info, err)
	}
	if _, err := checkCapabilities(sdk.InitializeResponse{ProtocolVersion: 2}, false); !errors.As(err, &inc) {
		t.Errorf("protocol 2: %v", err)
	}
}

// fs/* is served inside the worktree only, a missing file reads as "", and a write goes
// through the permission gate: covered by a permission of the turn, or asked.
func TestFSInsideWorktree(t *testing.T) {
	ws := t.TempDir()
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one\ntwo\nthree\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	read := func(id int, p string, extra string) string {
		return fmt.Sprintf(`a2c {"jsonrpc":"2.0","id":%d,"method":"fs/read_text_file","params":{"sessionId":"%s","path":%q%s}}`, id, sid, p, extra)
	}
	write := func(id int, p, content string) string {
		return fmt.Sprintf(`a2c {"jsonrpc":"2.0","id":%d,"method":"fs/write_text_file","params":{"sessionId":"%s","path":%q,"content":%q}}`, id, sid, p, content)
	}
	answer := func(id int) string { return fmt.Sprintf(`c2a {"id":%d}`, id) }
	lines := append(plainHandshake(true),
		`c2a {"id":3,"method":"session/prompt"}`,
		read(10, filepath.Join(ws, "missing.txt"), ""), answer(10),
		read(11, filepath.Join(ws, "a.txt"), `,"line":2,"limit":1`), answer(11),
		read(12, filepath.Join(ws, "link", "secret"), ""), answer(12),
		read(13, filepath.Join(ws, "..", filepath.Base(outside), "secret"), ""), answer(13),
		// a permission for new.txt, then the write it covers
		`a2c {"jsonrpc":"2.0","id":14,"method":"session/request_permission","params":{"sessionId":"`+sid+`","toolCall":{"toolCallId":"w1","kind":"edit","locations":[{"path":"`+filepath.Join(ws, "new.txt")+`"}]},"options":[{"optionId":"proceed_once","name":"Allow","kind":"allow_once"},{"optionId":"cancel","name":"Reject","kind":"reject_once"}]}}`, answer(14),
		write(15, filepath.Join(ws, "sub", "new.txt"), "not covered: asked and rejected\n"), answer(15),
		write(16, filepath.Join(ws, "new.txt"), "covered\n"), answer(16),
		write(17, filepath.Join(ws, "link", "secret"), "escape\n"), answer(17),
		write(18, filepath.Join(ws, ".git", "config"), "x\n"), answer(18),
		`a2c {"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`,
	)
	var asked []PermissionRequest
	onPerm := func(ctx context.Context, req PermissionRequest) PermissionOutcome {
		asked = append(asked, req)
		if req.FSWrite {
			return req.Choose("reject_once")
		}
		return req.Choose("allow_once")
	}
	entries := script(lines...)
	s, agent, done := connectScript(t, entries, ConnectConfig{Agent: agents.MustLookup(agents.Gemini), FSRoot: ws}, onPerm, ws)
	go func() {
		for range s.Events() {
		}
	}()
	if stop, err := s.Prompt(context.Background(), "go"); err != nil || stop != StopEndTurn {
		t.Fatalf("prompt %q %v", stop, err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	seen := agent.Seen()
	byID := map[string]acptest.ReplayMsg{}
	for _, m := range seen {
		if m.Method == "" {
			byID[string(m.ID)] = m
		}
	}
	wantResult := map[string]string{"10": `{"content":""}`, "11": `{"content":"two\n"}`, "16": `{}`}
	for id, want := range wantResult {
		if got := string(byID[id].Result); got != want || len(byID[id].Error) > 0 {
			t.Errorf("answer %s = %s %s, want %s", id, got, byID[id].Error, want)
		}
	}
	for _, id := range []string{"12", "13", "15", "17", "18"} {
		if len(byID[id].Error) == 0 {
			t.Errorf("answer %s = %s, want an error", id, byID[id].Result)
		}
	}
	if b, err := os.ReadFile(filepath.Join(ws, "new.txt")); err != nil || string(b) != "covered\n" {
		t.Errorf("new.txt = %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(ws, "sub", "new.txt")); err == nil {
		t.Error("a rejected write was written")
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret")); string(b) != "s3cret" {
		t.Errorf("the file outside the worktree was changed: %q", b)
	}
	// The uncovered write was asked (as an edit of its path), the covered one not.
	var fsAsks []string
	for _, r := range asked {
		if r.FSWrite {
			fsAsks = append(fsAsks, r.Locations[0])
		}
	}
	// The write through a link out of the worktree is refused before anyone is asked.
	if len(fsAsks) != 1 || fsAsks[0] != filepath.Join(ws, "sub", "new.txt") {
		t.Errorf("fs writes asked: %v", fsAsks)
	}
}

// A steer made while a plain agent waits on a permission is queued for the turn's end. The
// caller was told it reaches the agent, so it does: as the next prompt, even when the agent
// ends the turn by itself after the refusal (as Codex does).
func TestQueuedSteerIsTheNextPrompt(t *testing.T) {
	perm := `a2c {"jsonrpc":"2.0","id":14,"method":"session/request_permission","params":{"sessionId":"` + sid + `","toolCall":{"toolCallId":"c1","kind":"execute","title":"make -v"},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"},{"optionId":"reject","name":"Reject","kind":"reject_once"}]}}`
	lines := append(plainHandshake(false),
		`c2a {"id":3,"method":"session/prompt"}`,
		perm, `c2a {"id":14}`,
		`a2c {"jsonrpc":"2.0","id":3,"result":{"stopReason":"cancelled"}}`,
		`c2a {"id":4,"method":"session/prompt"}`,
		`a2c {"jsonrpc":"2.0","id":4,"result":{"stopReason":"end_turn"}}`,
	)
	var s *Session
	var disp string
	var steerErr error
	onPerm := func(ctx context.Context, req PermissionRequest) PermissionOutcome {
		disp, steerErr = s.Steer(ctx, "PELICAN: stay in scope")
		return req.Choose("reject")
	}
	s, agent, done := connectScript(t, script(lines...), ConnectConfig{Agent: agents.MustLookup(agents.Gemini)}, onPerm, t.TempDir())
	stop, err := s.Prompt(context.Background(), "first")
	if steerErr != nil || disp != agents.SteerQueue {
		t.Fatalf("steer while deciding: %q %v, want it queued", disp, steerErr)
	}
	if err != nil || stop != StopEndTurn {
		t.Fatalf("turn ended %q %v, want end_turn after the steer's prompt", stop, err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	seen := agent.Seen()
	if last := seen[len(seen)-1]; last.Method != "session/prompt" || !strings.Contains(string(last.Params), "PELICAN") {
		t.Errorf("the queued steer was not the next prompt: %s %s", last.Method, last.Params)
	}
}

// A queued steer that a cancel by the supervisor keeps from the agent is reported as dropped.
func TestQueuedSteerDroppedByCancelIsReported(t *testing.T) {
	perm := `a2c {"jsonrpc":"2.0","id":14,"method":"session/request_permission","params":{"sessionId":"` + sid + `","toolCall":{"toolCallId":"c1","kind":"execute","title":"make -v"},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"},{"optionId":"reject","name":"Reject","kind":"reject_once"}]}}`
	lines := append(plainHandshake(false),
		`c2a {"id":3,"method":"session/prompt"}`,
		perm,
		`c2a {"method":"session/cancel"}`,
		`c2a {"id":14}`,
		`a2c {"jsonrpc":"2.0","id":3,"result":{"stopReason":"cancelled"}}`,
	)
	var s *Session
	onPerm := func(ctx context.Context, req PermissionRequest) PermissionOutcome {
		if d, err := s.Steer(ctx, "PELICAN"); err != nil || d != agents.SteerQueue {
			t.Errorf("steer while deciding: %q %v", d, err)
		}
		if err := s.Cancel(ctx); err != nil {
			t.Errorf("cancel: %v", err)
		}
		return req.Choose("reject")
	}
	s, _, done := connectScript(t, script(lines...), ConnectConfig{Agent: agents.MustLookup(agents.Gemini)}, onPerm, t.TempDir())
	stop, err := s.Prompt(context.Background(), "first")
	if err != nil || stop != StopCancelled {
		t.Fatalf("turn ended %q %v, want cancelled", stop, err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	deadline := time.After(10 * time.Second)
	for {
		select {
		case e := <-s.Events():
			if d, ok := e.(SteerDropped); ok {
				if len(d.Texts) != 1 || d.Texts[0] != "PELICAN" || !strings.Contains(d.Reason, "cancelled") {
					t.Errorf("dropped %+v", d)
				}
				return
			}
		case <-deadline:
			t.Fatal("no SteerDropped event for the steer the cancel kept from the agent")
		}
	}
}
