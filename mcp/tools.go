package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"reasonixctl/assets"
	"reasonixctl/core"
	"reasonixctl/mcp/internal/jsonrpc"
)

// Tool names Codex calls.
const (
	ToolDelegate = "reasonix_delegate"
	ToolControl  = "reasonix_control"
	ToolInspect  = "reasonix_inspect"
)

// toolRun is the call into the service behind one tool.
type toolRun func(s *Server, ctx context.Context, svc core.Service, call toolCall) (any, error)

// toolRuns dispatches tools/call; tools/list comes from toolSpecs.
var toolRuns = map[string]toolRun{
	ToolDelegate: (*Server).delegate,
	ToolControl:  (*Server).control,
	ToolInspect:  (*Server).inspect,
}

// toolCall is a validated request: its raw arguments and its _meta.
type toolCall struct {
	args []byte
	meta map[string]any
	// client is the caller's name and version (clientFor), recorded with a respond's answer.
	client string
}

// toolSpec is what tools/list advertises for one tool.
type toolSpec struct {
	name, title string
	in, out     object
	ann         mcp.ToolAnnotation
}

func toolSpecs() []toolSpec {
	mutating := mcp.ToolAnnotation{
		ReadOnlyHint: mcp.ToBoolPtr(false), DestructiveHint: mcp.ToBoolPtr(true),
		IdempotentHint: mcp.ToBoolPtr(false), OpenWorldHint: mcp.ToBoolPtr(true),
	}
	reading := mcp.ToolAnnotation{
		ReadOnlyHint: mcp.ToBoolPtr(true), DestructiveHint: mcp.ToBoolPtr(false),
		IdempotentHint: mcp.ToBoolPtr(true), OpenWorldHint: mcp.ToBoolPtr(false),
	}
	return []toolSpec{
		{ToolDelegate, "Delegate a contract to Reasonix", delegateInput(), delegateOutput(), mutating},
		{ToolControl, "Control a Reasonix task", controlInput(), controlOutput(), mutating},
		{ToolInspect, "Inspect a Reasonix task", inspectInput(), inspectOutput(), reading},
	}
}

// toolsListResult is the tools/list result, encoded once per process.
var toolsListResult = sync.OnceValue(func() []byte {
	raw, err := encodeToolsList(toolSpecs())
	if err != nil {
		// The tools are constants of this package; tests encode them on every run.
		panic(fmt.Sprintf("mcp: encoding tools/list: %v", err))
	}
	return raw
})

// encodeToolsList writes the tools/list result in one pass, byte for byte as encoding
// []mcp.Tool in a mcp.ListToolsResult does (keys in name order, tools by name; a test compares
// the two). The general encoding re-parses every schema three times, which showed at start-up.
func encodeToolsList(specs []toolSpec) ([]byte, error) {
	specs = slices.Clone(specs)
	slices.SortFunc(specs, func(a, b toolSpec) int { return strings.Compare(a.name, b.name) })
	var b bytes.Buffer
	b.Grow(40 << 10)
	b.WriteString(`{"tools":[`)
	for i, sp := range specs {
		if i > 0 {
			b.WriteByte(',')
		}
		ann, err := json.Marshal(sp.ann)
		if err != nil {
			return nil, err
		}
		b.WriteString(`{"annotations":`)
		b.Write(ann)
		b.WriteString(`,"description":`)
		writeString(&b, assets.MCPToolDescription(sp.name))
		b.WriteString(`,"inputSchema":`)
		if err := sp.in.encode(&b); err != nil {
			return nil, fmt.Errorf("%s input schema: %w", sp.name, err)
		}
		b.WriteString(`,"name":`)
		writeString(&b, sp.name)
		b.WriteString(`,"outputSchema":`)
		if err := sp.out.encode(&b); err != nil {
			return nil, fmt.Errorf("%s output schema: %w", sp.name, err)
		}
		b.WriteString(`,"title":`)
		writeString(&b, sp.title)
		b.WriteByte('}')
	}
	b.WriteString(`]}`)
	return b.Bytes(), nil
}

// callTool runs one call: input validation, waiting for the service, progress while the call
// runs and the error envelope. Everything task-specific lives in the service.
func (s *Server) callTool(ctx context.Context, conn *jsonrpc.Conn, run toolRun, p callParams) (res *mcp.CallToolResult) {
	name := p.Name
	start := time.Now()
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("mcp: tool call panicked", "tool", name, "panic", r)
			res = errorResult(core.Errorf(core.CodeInternalError, nil, "%s failed unexpectedly", name))
		}
	}()
	raw, err := s.call(ctx, conn, run, p)
	took := time.Since(start).Round(time.Millisecond)
	if err != nil && ctx.Err() != nil {
		// The call's context ends only when the client cancels it (then no answer is sent at
		// all) or when serving ends: the session is ending under the call. Say so, retryably,
		// rather than what the interrupted wait happened to report. Work already done is stored.
		err = core.Errorf(core.CodeReasonixUnavailable, &core.ServerShutdown{Shutdown: true},
			"reasonixctl is shutting down; the task is kept as it was; call again once the server is back")
	}
	if err != nil {
		e := core.AsError(err)
		s.log.Info("mcp: call failed", "tool", name, "duration", took, "code", e.Code, "err", e.Message)
		return errorResult(e)
	}
	s.log.Info("mcp: call", "tool", name, "duration", took)
	return successResult(raw)
}

// call runs one tool call and returns its result as JSON. The result is not checked against the
// advertised output schema here: the tests check every result the tools produce.
func (s *Server) call(ctx context.Context, conn *jsonrpc.Conn, run toolRun, p callParams) ([]byte, error) {
	name := p.Name
	rules, err := inputRules()
	if err != nil {
		return nil, core.Errorf(core.CodeInternalError, nil, "%v", err)
	}
	args := []byte(p.Arguments)
	if len(args) == 0 || string(args) == "null" {
		args = []byte("{}")
	}
	if issues := validateInput(rules[name], args); len(issues) > 0 {
		return nil, invalidRequest(name, issues)
	}
	call := toolCall{args: args, client: p.Client}
	var meta struct {
		ProgressToken json.RawMessage `json:"progressToken"`
	}
	if len(p.Meta) > 0 && string(p.Meta) != "null" {
		if json.Unmarshal(p.Meta, &call.meta) != nil || json.Unmarshal(p.Meta, &meta) != nil {
			return nil, invalidRequest(name, []core.Issue{{Path: "_meta", Message: "got a non-object, want object"}})
		}
	}
	stop := s.progress(ctx, conn, meta.ProgressToken, name)
	defer stop()

	svc, err := s.service.get(ctx)
	if err != nil {
		return nil, err
	}
	res, err := run(s, ctx, svc, call)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, core.Errorf(core.CodeInternalError, nil, "encoding %s result: %v", name, err)
	}
	return raw, nil
}

func (s *Server) delegate(ctx context.Context, svc core.Service, call toolCall) (any, error) {
	auth, err := ParseAuthority(call.meta, s.opts.Network)
	if err != nil {
		return nil, err
	}
	var req core.DelegateRequest
	if err := decodeStrict(ToolDelegate, call.args, &req); err != nil {
		return nil, err
	}
	req.Authority = auth
	req.PermissionMode = s.opts.PermissionMode
	return svc.Delegate(ctx, req)
}

func (s *Server) control(ctx context.Context, svc core.Service, call toolCall) (any, error) {
	cmd, err := parseControl(call.args)
	if err != nil {
		return nil, err
	}
	switch c := cmd.(type) {
	case core.Finalize:
		c.ReviewSummary = strings.TrimSpace(c.ReviewSummary)
		auth, err := ParseAuthority(call.meta, s.opts.Network)
		if err != nil {
			return nil, err
		}
		c.Authority = auth
		cmd = c
	case core.Respond:
		c.AnsweredBy, c.Client = core.ByCodex, call.client // recorded as the client's answer, not a dashboard's
		cmd = c
	}
	return svc.Control(ctx, cmd)
}

func (s *Server) inspect(ctx context.Context, svc core.Service, call toolCall) (any, error) {
	var req core.InspectRequest
	if err := decodeStrict(ToolInspect, call.args, &req); err != nil {
		return nil, err
	}
	return svc.Inspect(ctx, req)
}
