package acptest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
)

const waitLimit = 10 * time.Second

// testClient is an ACP client that records everything and hands permission requests to the test.
type testClient struct {
	mu       sync.Mutex
	updates  []acp.SessionNotification
	statuses []map[string]any
	changed  chan struct{}
	perms    chan permAsk
}

type permAsk struct {
	req   acp.RequestPermissionRequest
	reply chan acp.RequestPermissionOutcome
}

func (c *testClient) note() {
	close(c.changed)
	c.changed = make(chan struct{})
}

func (c *testClient) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updates = append(c.updates, n)
	c.note()
	return nil
}

func (c *testClient) HandleExtensionMethod(_ context.Context, method string, params json.RawMessage) (any, error) {
	if method != "_reasonix.io/session/status_update" {
		return nil, acp.NewMethodNotFound(method)
	}
	var m map[string]any
	if err := json.Unmarshal(params, &m); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.statuses = append(c.statuses, m)
	c.note()
	return nil, nil
}

func (c *testClient) RequestPermission(ctx context.Context, p acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	ask := permAsk{req: p, reply: make(chan acp.RequestPermissionOutcome, 1)}
	select {
	case c.perms <- ask:
	case <-ctx.Done():
		return acp.RequestPermissionResponse{}, ctx.Err()
	}
	select {
	case o := <-ask.reply:
		return acp.RequestPermissionResponse{Outcome: o}, nil
	case <-ctx.Done():
		return acp.RequestPermissionResponse{}, ctx.Err()
	}
}

var errNoFS = errors.New("no client fs in these tests")

func (c *testClient) ReadTextFile(context.Context, acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	return acp.ReadTextFileResponse{}, errNoFS
}
func (c *testClient) WriteTextFile(context.Context, acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	return acp.WriteTextFileResponse{}, errNoFS
}
func (c *testClient) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, errNoFS
}
func (c *testClient) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, errNoFS
}
func (c *testClient) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, errNoFS
}
func (c *testClient) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, errNoFS
}
func (c *testClient) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, errNoFS
}

// waitFor blocks until cond holds over the recorded updates and statuses.
func (c *testClient) waitFor(t *testing.T, what string, cond func(updates []acp.SessionNotification, statuses []map[string]any) bool) {
	t.Helper()
	deadline := time.After(waitLimit)
	for {
		c.mu.Lock()
		ok, ch := cond(c.updates, c.statuses), c.changed
		c.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func (c *testClient) snapshot() ([]acp.SessionNotification, []map[string]any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]acp.SessionNotification(nil), c.updates...), append([]map[string]any(nil), c.statuses...)
}

// nextPerm waits for the next permission request.
func (c *testClient) nextPerm(t *testing.T) permAsk {
	t.Helper()
	select {
	case p := <-c.perms:
		return p
	case <-time.After(waitLimit):
		t.Fatal("timed out waiting for a permission request")
	}
	return permAsk{}
}

func (p permAsk) choose(id string) {
	p.reply <- acp.NewRequestPermissionOutcomeSelected(acp.PermissionOptionId(id))
}

// fake is one in-process fake worker with an SDK client connected to it.
type fake struct {
	conn   *acp.ClientSideConnection
	client *testClient
	done   chan error
	wire   *lineLog
	cwd    string
	sid    acp.SessionId
	ctx    context.Context
}

// lineLog records the raw agent-to-client lines.
type lineLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *lineLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

func startFake(t *testing.T, opts Options) *fake {
	t.Helper()
	c2aR, c2aW := io.Pipe()
	a2cR, a2cW := io.Pipe()
	tapR, tapW := io.Pipe()
	f := &fake{client: &testClient{changed: make(chan struct{}), perms: make(chan permAsk, 16)}, done: make(chan error, 1),
		wire: &lineLog{}, cwd: t.TempDir()}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	f.ctx = ctx
	go func() { f.done <- Serve(ctx, c2aR, a2cW, opts) }()
	// Copy the agent's output line by line to the SDK, keeping a transcript.
	go func() {
		defer tapW.Close()
		sc := bufio.NewScanner(a2cR)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			f.wire.mu.Lock()
			f.wire.lines = append(f.wire.lines, sc.Text())
			f.wire.mu.Unlock()
			if _, err := tapW.Write(append(sc.Bytes(), '\n')); err != nil {
				return
			}
		}
	}()
	f.conn = acp.NewClientSideConnection(f.client, c2aW, tapR)
	f.conn.SetLogger(slog.New(slog.DiscardHandler))
	t.Cleanup(func() {
		_ = c2aW.Close()
		select {
		case <-f.done:
		case <-time.After(waitLimit):
			t.Error("Serve did not return after its input closed")
		}
		cancel()
	})
	return f
}

// open initializes the connection and creates a session in f.cwd.
func (f *fake) open(t *testing.T) {
	t.Helper()
	if _, err := f.conn.Initialize(f.ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	res, err := f.conn.NewSession(f.ctx, acp.NewSessionRequest{Cwd: f.cwd, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	f.sid = res.SessionId
}

func (f *fake) set(t *testing.T, id, value string) acp.SetSessionConfigOptionResponse {
	t.Helper()
	res, err := f.conn.SetSessionConfigOption(f.ctx, acp.SetSessionConfigOptionRequest{
		ValueId: &acp.SetSessionConfigOptionValueId{SessionId: f.sid, ConfigId: acp.SessionConfigId(id), Value: acp.SessionConfigValueId(value)}})
	if err != nil {
		t.Fatalf("set %s=%s: %v", id, value, err)
	}
	return res
}

type promptResult struct {
	res acp.PromptResponse
	err error
}

// prompt starts a turn and returns a channel with its outcome.
func (f *fake) prompt(text string) chan promptResult {
	ch := make(chan promptResult, 1)
	go func() {
		res, err := f.conn.Prompt(f.ctx, acp.PromptRequest{SessionId: f.sid, Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
		ch <- promptResult{res, err}
	}()
	return ch
}

func waitPrompt(t *testing.T, ch chan promptResult) promptResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(waitLimit):
		t.Fatal("timed out waiting for the prompt to end")
	}
	return promptResult{}
}

func (f *fake) status(t *testing.T) map[string]any {
	t.Helper()
	raw, err := f.conn.CallExtension(f.ctx, "_reasonix.io/session/status", map[string]any{"sessionId": f.sid})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// kindOf is the wire name of an update's kind.
func kindOf(u acp.SessionUpdate) string {
	switch {
	case u.AgentMessageChunk != nil:
		return "agent_message_chunk"
	case u.AgentThoughtChunk != nil:
		return "agent_thought_chunk"
	case u.ToolCall != nil:
		return "tool_call"
	case u.ToolCallUpdate != nil:
		return "tool_call_update"
	case u.Plan != nil:
		return "plan"
	case u.CurrentModeUpdate != nil:
		return "current_mode_update"
	case u.ConfigOptionUpdate != nil:
		return "config_option_update"
	case u.AvailableCommandsUpdate != nil:
		return "available_commands_update"
	}
	return "other"
}

func messageText(updates []acp.SessionNotification, kind string) string {
	var b strings.Builder
	for _, n := range updates {
		u := n.Update
		switch {
		case kind == "agent_message_chunk" && u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil:
			b.WriteString(u.AgentMessageChunk.Content.Text.Text)
		case kind == "agent_thought_chunk" && u.AgentThoughtChunk != nil && u.AgentThoughtChunk.Content.Text != nil:
			b.WriteString(u.AgentThoughtChunk.Content.Text.Text)
		}
	}
	return b.String()
}

// toolUpdates returns the final tool_call_update of every tool call, by id.
func toolUpdates(updates []acp.SessionNotification) map[string]*acp.SessionToolCallUpdate {
	out := map[string]*acp.SessionToolCallUpdate{}
	for _, n := range updates {
		if u := n.Update.ToolCallUpdate; u != nil {
			out[string(u.ToolCallId)] = u
		}
	}
	return out
}

func updateText(u *acp.SessionToolCallUpdate) string {
	var b strings.Builder
	for _, c := range u.Content {
		if c.Content != nil && c.Content.Content.Text != nil {
			b.WriteString(c.Content.Content.Text.Text)
		}
	}
	return b.String()
}

func statusPath(m map[string]any, path ...string) any {
	var v any = m
	for _, p := range path {
		mm, _ := v.(map[string]any)
		v = mm[p]
	}
	return v
}
