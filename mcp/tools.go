package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"reasonixctl/assets"
	"reasonixctl/core"
)

// Tool names Codex calls.
const (
	ToolDelegate = "reasonix_delegate"
	ToolControl  = "reasonix_control"
	ToolInspect  = "reasonix_inspect"
)

var toolOrder = []string{ToolDelegate, ToolControl, ToolInspect}

// toolDef is one tool: what tools/list advertises and the call into the service.
type toolDef struct {
	tool mcp.Tool
	run  func(s *Server, ctx context.Context, svc core.Service, call toolCall) (any, error)
}

// toolCall is a validated request: its raw arguments and its _meta.
type toolCall struct {
	args []byte
	meta map[string]any
}

type toolSpec struct {
	name, title string
	in, out     object
	ann         mcp.ToolAnnotation
	run         func(s *Server, ctx context.Context, svc core.Service, call toolCall) (any, error)
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
		{ToolDelegate, "Delegate a contract to Reasonix", delegateInput(), delegateOutput(), mutating, (*Server).delegate},
		{ToolControl, "Control a Reasonix task", controlInput(), controlOutput(), mutating, (*Server).control},
		{ToolInspect, "Inspect a Reasonix task", inspectInput(), inspectOutput(), reading, (*Server).inspect},
	}
}

// toolDefs builds the tool list once per process: it is constant.
var toolDefs = sync.OnceValue(buildTools)

func buildTools() map[string]*toolDef {
	tools := map[string]*toolDef{}
	for _, sp := range toolSpecs() {
		inRaw, err1 := sp.in.MarshalJSON()
		outRaw, err2 := sp.out.MarshalJSON()
		if err := errors.Join(err1, err2); err != nil {
			// The schemas are constants of this package; tests encode them on every run.
			panic(fmt.Sprintf("mcp: schema of %s: %v", sp.name, err))
		}
		tools[sp.name] = &toolDef{
			tool: mcp.Tool{
				Name:            sp.name,
				Title:           sp.title,
				Description:     assets.MCPToolDescription(sp.name),
				RawInputSchema:  inRaw,
				RawOutputSchema: outRaw,
				Annotations:     sp.ann,
			},
			run: sp.run,
		}
	}
	return tools
}

// validators compiles every tool's input and output schema once per process. Compiling is slow
// (the first use loads the draft-07 metaschema), so it stays off the initialize/tools/list path:
// ServeStdio starts it in the background and the first tool call waits for it.
var validators = sync.OnceValues(func() (map[string][2]*jsonschema.Schema, error) {
	out := map[string][2]*jsonschema.Schema{}
	for _, sp := range toolSpecs() {
		in, err := compileSchema(sp.name+".input", sp.in)
		if err != nil {
			return nil, fmt.Errorf("%s input schema: %w", sp.name, err)
		}
		res, err := compileSchema(sp.name+".output", sp.out)
		if err != nil {
			return nil, fmt.Errorf("%s output schema: %w", sp.name, err)
		}
		out[sp.name] = [2]*jsonschema.Schema{in, res}
	}
	return out, nil
})

// handler wraps a tool: input validation, waiting for the service, progress while the call runs,
// output validation and the error envelope. Everything task-specific lives in the service.
func (s *Server) handler(t *toolDef) func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	name := t.tool.Name
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		raw, err := s.call(ctx, t, req)
		took := time.Since(start).Round(time.Millisecond)
		if err != nil {
			e := core.AsError(err)
			s.log.Info("mcp: call failed", "tool", name, "duration", took, "code", e.Code, "err", e.Message)
			return errorResult(e), nil
		}
		s.log.Info("mcp: call", "tool", name, "duration", took)
		return successResult(raw), nil
	}
}

// call runs one tool call and returns its result as JSON that satisfies the output schema.
func (s *Server) call(ctx context.Context, t *toolDef, req mcp.CallToolRequest) ([]byte, error) {
	name := t.tool.Name
	schemas, err := validators()
	if err != nil {
		return nil, core.Errorf(core.CodeInternalError, nil, "%v", err)
	}
	in, out := schemas[name][0], schemas[name][1]
	args, err := rawArguments(req)
	if err != nil {
		return nil, invalidRequest(name, []core.Issue{{Path: "arguments", Message: err.Error()}})
	}
	if issues := validateJSON(in, args); len(issues) > 0 {
		return nil, invalidRequest(name, issues)
	}
	call := toolCall{args: args}
	var token mcp.ProgressToken
	if req.Params.Meta != nil {
		call.meta = req.Params.Meta.AdditionalFields
		token = req.Params.Meta.ProgressToken
	}
	stop := s.progress(ctx, token, name)
	defer stop()

	svc, err := s.service.get(ctx)
	if err != nil {
		return nil, err
	}
	res, err := t.run(s, ctx, svc, call)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, core.Errorf(core.CodeInternalError, nil, "encoding %s result: %v", name, err)
	}
	if issues := validateJSON(out, raw); len(issues) > 0 {
		// A result outside the advertised schema is a bug on our side; report it rather than
		// hand Codex something it may misread.
		s.log.Error("mcp: result violates the output schema", "tool", name, "issues", issues)
		return nil, core.Errorf(core.CodeInternalError, map[string]any{"issues": issues},
			"%s produced a result outside its output schema", name)
	}
	return raw, nil
}

// rawArguments returns the call's arguments as JSON, absent arguments as {}.
func rawArguments(req mcp.CallToolRequest) ([]byte, error) {
	if raw := req.Params.RawArguments; len(raw) > 0 {
		return raw, nil
	}
	if req.Params.Arguments == nil {
		return []byte("{}"), nil
	}
	return json.Marshal(req.Params.Arguments)
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
	var req core.ControlRequest
	if err := decodeStrict(ToolControl, call.args, &req); err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(call.args, &fields); err != nil {
		return nil, invalidRequest(ToolControl, []core.Issue{{Path: "arguments", Message: err.Error()}})
	}
	if issues := controlUnionIssues(req, fields); len(issues) > 0 {
		return nil, invalidRequest(ToolControl, issues)
	}
	if req.Action == core.ActionFinalize {
		req.ReviewSummary = strings.TrimSpace(req.ReviewSummary)
		auth, err := ParseAuthority(call.meta, s.opts.Network)
		if err != nil {
			return nil, err
		}
		req.Authority = auth
	}
	return svc.Control(ctx, req)
}

func (s *Server) inspect(ctx context.Context, svc core.Service, call toolCall) (any, error) {
	var req core.InspectRequest
	if err := decodeStrict(ToolInspect, call.args, &req); err != nil {
		return nil, err
	}
	return svc.Inspect(ctx, req)
}

// controlFields says which optional fields each control action takes and which it requires;
// task_id and action are always there.
var controlFields = map[string]struct{ required, optional []string }{
	core.ActionSteer:   {required: []string{"message"}},
	core.ActionRespond: {required: []string{"interaction_id", "decision"}, optional: []string{"option_id", "answer"}},
	core.ActionCancel:  {},
	core.ActionClose:   {},
	core.ActionFinalize: {
		required: []string{"review_summary", "approved_review_criteria", "expected_review_revision", "expected_review_tree_hash"},
		optional: []string{"commit_message", "wait_timeout_seconds"},
	},
}

// controlUnionIssues applies the strict per-action union on top of the flat wire schema.
func controlUnionIssues(req core.ControlRequest, fields map[string]json.RawMessage) []core.Issue {
	spec := controlFields[req.Action]
	var issues []core.Issue
	for _, f := range spec.required {
		if _, ok := fields[f]; !ok {
			issues = append(issues, core.Issue{Path: f, Message: "Required"})
		}
	}
	allowed := map[string]bool{"task_id": true, "action": true}
	for _, f := range append(spec.required, spec.optional...) {
		allowed[f] = true
	}
	for _, f := range slices.Sorted(maps.Keys(fields)) {
		if !allowed[f] {
			issues = append(issues, core.Issue{Path: f, Message: fmt.Sprintf("Not allowed for action %s", req.Action)})
		}
	}
	if _, ok := fields["review_summary"]; ok && req.Action == core.ActionFinalize && strings.TrimSpace(req.ReviewSummary) == "" {
		issues = append(issues, core.Issue{Path: "review_summary", Message: "Must not be blank"})
	}
	return issues
}
