package mcp

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"reasonixctl/core"
)

// fakeService records what the MCP layer hands the core and answers with whatever a test sets.
type fakeService struct {
	mu        sync.Mutex
	delegates []core.DelegateRequest
	controls  []core.Command
	inspects  []core.InspectRequest

	delegate func(context.Context, core.DelegateRequest) (core.DelegateResult, error)
	control  func(context.Context, core.Command) (core.TaskView, error)
	inspect  func(context.Context, core.InspectRequest) (core.InspectResult, error)
}

func (f *fakeService) Delegate(ctx context.Context, req core.DelegateRequest) (core.DelegateResult, error) {
	f.mu.Lock()
	f.delegates = append(f.delegates, req)
	fn := f.delegate
	f.mu.Unlock()
	if fn == nil {
		return core.DelegateResult{TaskView: sampleView(req.TaskID)}, nil
	}
	return fn(ctx, req)
}

func (f *fakeService) Control(ctx context.Context, req core.Command) (core.TaskView, error) {
	f.mu.Lock()
	f.controls = append(f.controls, req)
	fn := f.control
	f.mu.Unlock()
	if fn == nil {
		return sampleView(req.Task()), nil
	}
	return fn(ctx, req)
}

func (f *fakeService) Inspect(ctx context.Context, req core.InspectRequest) (core.InspectResult, error) {
	f.mu.Lock()
	f.inspects = append(f.inspects, req)
	fn := f.inspect
	f.mu.Unlock()
	if fn == nil {
		return core.InspectResult{}, core.Errorf(core.CodeTaskNotFound, nil, "Unknown task: %s", req.TaskID)
	}
	return fn(ctx, req)
}

func (f *fakeService) List(context.Context, core.ListFilter) ([]core.TaskView, error) {
	return nil, core.Errorf(core.CodeInternalError, nil, "not used over MCP")
}

func (f *fakeService) Get(context.Context, string) (core.TaskDetail, error) {
	return core.TaskDetail{}, core.Errorf(core.CodeInternalError, nil, "not used over MCP")
}

func (f *fakeService) Subscribe(context.Context, core.SubscribeOptions) (*core.Subscription, error) {
	return nil, core.Errorf(core.CodeInternalError, nil, "not used over MCP")
}

func (f *fakeService) Comment(context.Context, core.CommentRequest) (core.ReviewComment, error) {
	return core.ReviewComment{}, core.Errorf(core.CodeInternalError, nil, "not used over MCP")
}

func (f *fakeService) SendComments(context.Context, string) (core.TaskView, error) {
	return core.TaskView{}, core.Errorf(core.CodeInternalError, nil, "not used over MCP")
}

func (f *fakeService) ReviewFile(context.Context, string, string) ([]byte, error) {
	return nil, core.Errorf(core.CodeInternalError, nil, "not used over MCP")
}

func (f *fakeService) CherryPickPreview(context.Context, string) (core.CherryPickPreview, error) {
	return core.CherryPickPreview{}, core.Errorf(core.CodeInternalError, nil, "not used over MCP")
}

func (f *fakeService) ApplyToCheckout(context.Context, string, bool) (core.ApplyResult, error) {
	return core.ApplyResult{}, core.Errorf(core.CodeInternalError, nil, "not used over MCP")
}

func (f *fakeService) DraftContract(context.Context, core.DraftRequest) (core.DraftResult, error) {
	return core.DraftResult{}, core.Errorf(core.CodeInternalError, nil, "not used over MCP")
}

func (f *fakeService) VerificationLog(context.Context, string, string, int64, int64) (core.LogPage, error) {
	return core.LogPage{}, core.Errorf(core.CodeInternalError, nil, "not used over MCP")
}

func (f *fakeService) Grants(context.Context) ([]core.Grant, error) {
	return nil, core.Errorf(core.CodeInternalError, nil, "not used over MCP")
}

func (f *fakeService) RevokeGrant(context.Context, string) (core.Grant, error) {
	return core.Grant{}, core.Errorf(core.CodeInternalError, nil, "not used over MCP")
}

// SetAsker takes the asker and forgets it; askerService records it.
func (f *fakeService) SetAsker(core.Asker) {}

var _ core.Service = (*fakeService)(nil)

func (f *fakeService) calls() (d []core.DelegateRequest, c []core.Command, i []core.InspectRequest) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append(d, f.delegates...), append(c, f.controls...), append(i, f.inspects...)
}

func sampleView(id string) core.TaskView {
	return core.TaskView{
		TaskID:                   id,
		State:                    core.StateReviewRequired,
		Phase:                    "codex_review",
		ContractHash:             "76d4e6c36bea9b707ce2089691844e95a31612ec09b016c1e8a979064dea70a4",
		RepositoryID:             "3ce0f10f2857c45380998703",
		Branch:                   "reasonix/" + id,
		Worktree:                 "/state/worktrees/3ce0f10f2857c45380998703/" + id,
		WorkerLane:               core.LaneFast,
		RequestedReasoningEffort: "medium",
		EffectiveReasoningEffort: "medium",
		ExecutionTimeoutSeconds:  600,
		SessionID:                "fake-1",
		ReviewRevision:           1,
		ReviewTreeHash:           "4a7748752d0e678809fc033f586028da8e82c3c6",
		ReasonixWorkMode:         "standard",
		ReasonixSessionMode:      "normal",
		UpdatedAt:                "2026-11-30T05:51:10.813Z",
	}
}

// writableMeta is the sandbox metadata Codex sends in its default workspace-write mode.
func writableMeta(cwd string) map[string]any {
	return map[string]any{sandboxMetaKey: map[string]any{
		"sandboxCwd": "file://" + cwd,
		"permissionProfile": map[string]any{
			"type": "managed",
			"file_system": map[string]any{"type": "restricted", "entries": []any{
				map[string]any{"path": map[string]any{"type": "special", "value": map[string]any{"kind": "root"}}, "access": "read"},
				map[string]any{"path": map[string]any{"type": "special", "value": map[string]any{"kind": "project_roots"}}, "access": "write"},
			}},
			"network": "restricted",
		},
	}}
}

func sampleContract() map[string]any {
	return map[string]any{
		"schema_version": 1,
		"objective":      "Create result.txt",
		"user_outcome":   "result.txt exists",
		"write_scope":    []any{"result.txt"},
		"acceptance_criteria": []any{
			map[string]any{"id": "a1", "requirement": "file exists", "evidence": "review"},
		},
		"verification": []any{},
	}
}

// harness is a server with a fake service, served by ServeStdio over pipes to the mcp-go
// client. Every structuredContent a call returns is checked against the advertised output schema.
type harness struct {
	t      testing.TB
	fake   *fakeService
	srv    *Server
	client *client.Client

	mu            sync.Mutex
	notifications []mcp.JSONRPCNotification
	notified      chan struct{}
}

func newHarness(t testing.TB, opts Options) *harness {
	t.Helper()
	fake := &fakeService{}
	return newHarnessWith(t, opts, fake, func(context.Context) (core.Service, error) { return fake, nil })
}

func newHarnessWith(t testing.TB, opts Options, fake *fakeService, open func(context.Context) (core.Service, error)) *harness {
	t.Helper()
	h := &harness{t: t, fake: fake, notified: make(chan struct{}, 1000)}
	h.srv = NewServer(open, opts)
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- h.srv.ServeStdio(context.Background(), serverIn, serverOut)
		serverOut.Close()
	}()
	c := client.NewClient(transport.NewIO(clientIn, clientOut, nil))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		h.mu.Lock()
		h.notifications = append(h.notifications, n)
		h.mu.Unlock()
		h.notified <- struct{}{}
	})
	initReq := mcp.InitializeRequest{}
	initReq.Params.ProtocolVersion = "2025-06-18"
	initReq.Params.ClientInfo = mcp.Implementation{Name: "codex-test", Version: "0"}
	if _, err := c.Initialize(ctx, initReq); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close() // closes the server's stdin
		select {
		case err := <-served:
			if err != nil {
				t.Errorf("ServeStdio: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("ServeStdio did not return after stdin closed")
		}
	})
	h.client = c
	return h
}

// call invokes a tool with arguments and _meta and returns the result, after checking any
// structuredContent against the tool's advertised output schema.
func (h *harness) call(name string, args any, meta map[string]any) *mcp.CallToolResult {
	h.t.Helper()
	res := h.callUnchecked(name, args, meta)
	if issues := outputIssues(h.t, name, res); len(issues) > 0 {
		h.t.Fatalf("%s result violates its output schema: %+v", name, issues)
	}
	return res
}

func (h *harness) callUnchecked(name string, args any, meta map[string]any) *mcp.CallToolResult {
	h.t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	if meta != nil {
		req.Params.Meta = mcp.NewMetaFromMap(meta)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := h.client.CallTool(ctx, req)
	if err != nil {
		h.t.Fatalf("%s: %v", name, err)
	}
	return res
}

// envelopeOf decodes the error envelope of a failed call.
func envelopeOf(t *testing.T, res *mcp.CallToolResult) core.Error {
	t.Helper()
	if !res.IsError {
		t.Fatalf("expected an error result, got %s", textOf(t, res))
	}
	if res.StructuredContent != nil {
		t.Fatalf("error results carry no structuredContent, got %v", res.StructuredContent)
	}
	var env struct {
		Error *core.Error `json:"error"`
	}
	dec := json.NewDecoder(strings.NewReader(textOf(t, res)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&env); err != nil || env.Error == nil {
		t.Fatalf("not an error envelope: %s (%v)", textOf(t, res), err)
	}
	return *env.Error
}

func textOf(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("want exactly one content block, got %d", len(res.Content))
	}
	tc, ok := res.Content[0].(mcp.TextContent)
	if !ok {
		t.Fatalf("want text content, got %T", res.Content[0])
	}
	return tc.Text
}

// structuredOf checks that a success carries the same JSON as text and as structuredContent and
// returns it decoded.
func structuredOf(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	if res.IsError {
		t.Fatalf("unexpected error result: %s", textOf(t, res))
	}
	var fromText, fromStructured map[string]any
	if err := json.Unmarshal([]byte(textOf(t, res)), &fromText); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &fromStructured); err != nil {
		t.Fatal(err)
	}
	tj, _ := json.Marshal(fromText)
	sj, _ := json.Marshal(fromStructured)
	if string(tj) != string(sj) {
		t.Fatalf("text and structuredContent differ:\n%s\n%s", tj, sj)
	}
	return fromStructured
}
