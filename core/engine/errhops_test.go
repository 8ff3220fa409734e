package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"reasonixctl/acp"
	"reasonixctl/core"
	"reasonixctl/core/engine"
	"reasonixctl/core/gitx"
	"reasonixctl/core/remote"
	"reasonixctl/mcp"
)

// allCodes is every Code constant core/errors.go declares, read from its source so that a code
// added later is walked too.
func allCodes(t *testing.T) []core.Code {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("..", "errors.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []core.Code
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Code" {
				continue
			}
			for _, v := range vs.Values {
				lit, ok := v.(*ast.BasicLit)
				if !ok {
					t.Fatalf("a Code constant that is not a literal: %#v", v)
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, core.Code(s))
			}
		}
	}
	if len(out) < 20 {
		t.Fatalf("found only %d codes in core/errors.go", len(out))
	}
	return out
}

// detailsFor are details as the engine makes them for code: the typed ones front ends read
// (issues, a stale snapshot, a failed check) where those codes carry them, one with a task view
// in it for invalid_state, and a git refusal for the others.
func detailsFor(code core.Code, logPath string) core.Detail {
	switch code {
	case core.CodeInvalidContract:
		return &core.IssueList{Issues: []core.Issue{{Path: "verification[0].argv", Message: "must not be empty"}}}
	case core.CodeInvalidRequest:
		return &core.StaleSnapshot{Checkpoint: "finalize_start",
			Expected: core.ReviewSnapshot{ReviewRevision: 1, ReviewTreeHash: strings.Repeat("a", 40)},
			Current:  core.ReviewSnapshot{ReviewRevision: 2, ReviewTreeHash: strings.Repeat("b", 40)}}
	case core.CodeVerificationFailed:
		exit := 1
		return &core.FailedCheck{Verification: "unit", Argv: []string{"go", "test", "./..."}, ExitCode: &exit,
			LogPath: logPath, LogTail: "FAIL: TestX"}
	case core.CodeInvalidState:
		return &core.FinalizeRunning{Task: core.TaskView{TaskID: "t1", State: core.StateVerifying, Phase: "checks"}, TimedOut: true, Recoverable: true}
	}
	return &core.GitRefusal{Reason: "wrong_branch", Paths: []string{"a.txt", "dir/b.txt"}}
}

// normal is the JSON form of details with keys sorted; no details and empty ones are the same
// (the envelope leaves both out).
func normal(t *testing.T, d map[string]any) string {
	t.Helper()
	if len(d) == 0 {
		return "null"
	}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(v)
	return string(b)
}

// sameTyped reports what of want's code, details, next action and retryability got lost in got.
// An error decoded from the MCP envelope has its details as JSON only: the envelope does not name
// their type, so untyped compares no more than that.
func sameTyped(t *testing.T, want, got *core.Error, untyped ...bool) string {
	t.Helper()
	var diffs []string
	if got.Code != want.Code {
		diffs = append(diffs, "code "+string(got.Code)+", want "+string(want.Code))
	}
	if got.NextAction != want.NextAction {
		diffs = append(diffs, "next_action "+string(got.NextAction)+", want "+string(want.NextAction))
	}
	if got.Retryable != want.Retryable {
		diffs = append(diffs, "retryable "+strconv.FormatBool(got.Retryable))
	}
	if g, w := normal(t, got.Details), normal(t, want.Details); g != w {
		diffs = append(diffs, "details "+g+", want "+w)
	}
	if len(untyped) == 0 && (!reflect.DeepEqual(got.Detail, want.Detail) || !reflect.DeepEqual(got.Details, want.Details)) {
		diffs = append(diffs, "typed details differ")
	}
	return strings.Join(diffs, "; ")
}

func git(t testing.TB, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

const hopContract = `{
  "schema_version": 1,
  "objective": "Create result.txt",
  "user_outcome": "result.txt holds ok",
  "write_scope": ["result.txt"],
  "acceptance_criteria": [{"id": "looks-right", "requirement": "the change looks right", "evidence": "review"}],
  "verification": []
}`

// hops is an owner engine whose worker launcher fails with a chosen error — the error the engine
// passes on from Delegate — serving its socket, a client attached to it, and an MCP server whose
// service is that client, driven by an MCP client over pipes.
type hops struct {
	repo   string
	fail   atomic.Pointer[error]
	e      *engine.Engine
	client *remote.Client
	mcp    *client.Client
}

func newHops(t *testing.T) *hops {
	t.Helper()
	h := &hops{}
	dir, err := os.MkdirTemp("", "rx") // short enough for the socket's path
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	h.repo = t.TempDir()
	git(t, h.repo, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(h.repo, "README"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, h.repo, "add", "README")
	git(t, h.repo, "commit", "-q", "-m", "initial")
	if h.repo, err = filepath.EvalSymlinks(h.repo); err != nil {
		t.Fatal(err)
	}
	h.e, err = engine.Open(engine.Config{StateDir: dir, Mode: "mcp", Worker: func(context.Context, engine.WorkerSpec) (*acp.Worker, error) {
		return nil, *h.fail.Load()
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.e.Close() })
	srv, err := remote.Serve(context.Background(), h.e, dir, remote.Info{Mode: "mcp", Version: "test", StartedAt: time.Now().UTC()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if h.client, err = remote.Dial(ctx, dir, remote.RoleMCP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.client.Close() })

	server := mcp.NewServer(func(context.Context) (core.Service, error) { return h.client, nil }, mcp.Options{})
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- server.ServeStdio(context.Background(), serverIn, serverOut)
		serverOut.Close()
	}()
	h.mcp = client.NewClient(transport.NewIO(clientIn, clientOut, nil))
	if err := h.mcp.Start(ctx); err != nil {
		t.Fatal(err)
	}
	initReq := mcpgo.InitializeRequest{}
	initReq.Params.ProtocolVersion = "2025-06-18"
	initReq.Params.ClientInfo = mcpgo.Implementation{Name: "codex-test", Version: "0"}
	if _, err := h.mcp.Initialize(ctx, initReq); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		h.mcp.Close()
		select {
		case err := <-served:
			if err != nil {
				t.Errorf("ServeStdio: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("ServeStdio did not return after stdin closed")
		}
	})
	return h
}

// viaSocket is the error a delegate whose worker fails with err returns to a client attached
// to the owner's socket.
func (h *hops) viaSocket(t *testing.T, id string, err error) *core.Error {
	t.Helper()
	h.fail.Store(&err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, got := h.client.Delegate(ctx, core.DelegateRequest{TaskID: id, Contract: json.RawMessage(hopContract),
		Authority: core.Authority{Cwd: h.repo, Writable: true}})
	if got == nil {
		t.Fatal("the delegate succeeded")
	}
	var ce *core.Error
	if !errors.As(got, &ce) {
		t.Fatalf("the client returned %T, not a *core.Error: %v", got, got)
	}
	return ce
}

// viaMCP is the error envelope of a reasonix_delegate call whose worker fails with err, served
// by an MCP server attached to the owner's socket.
func (h *hops) viaMCP(t *testing.T, id string, err error) *core.Error {
	t.Helper()
	h.fail.Store(&err)
	var contract map[string]any
	if err := json.Unmarshal([]byte(hopContract), &contract); err != nil {
		t.Fatal(err)
	}
	req := mcpgo.CallToolRequest{}
	req.Params.Name = mcp.ToolDelegate
	req.Params.Arguments = map[string]any{"task_id": id, "contract": contract}
	req.Params.Meta = mcpgo.NewMetaFromMap(map[string]any{"codex/sandbox-state-meta": map[string]any{
		"sandboxCwd": "file://" + h.repo,
		"permissionProfile": map[string]any{
			"type": "managed",
			"file_system": map[string]any{"type": "restricted", "entries": []any{
				map[string]any{"path": map[string]any{"type": "special", "value": map[string]any{"kind": "root"}}, "access": "read"},
				map[string]any{"path": map[string]any{"type": "special", "value": map[string]any{"kind": "project_roots"}}, "access": "write"},
			}},
			"network": "restricted",
		},
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, cerr := h.mcp.CallTool(ctx, req)
	if cerr != nil {
		t.Fatal(cerr)
	}
	if !res.IsError || len(res.Content) != 1 {
		t.Fatalf("not an error result: %+v", res)
	}
	text, ok := res.Content[0].(mcpgo.TextContent)
	if !ok {
		t.Fatalf("content %T", res.Content[0])
	}
	var env struct {
		Error *core.Error `json:"error"`
	}
	dec := json.NewDecoder(strings.NewReader(text.Text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&env); err != nil || env.Error == nil {
		t.Fatalf("not an error envelope: %s (%v)", text.Text, err)
	}
	return env.Error
}

// Issue 37: every core.Error code, with its details, passes through each wrapping the engine
// does, out of the engine's Delegate, across the owner's socket to an attached client and out of
// MCP's error envelope with its code, details, next action and retryability unchanged; a gitx
// error wrapped by the engine arrives with the code of its own.
func TestTypedErrorsSurviveEveryHop(t *testing.T) {
	h := newHops(t)
	logPath := filepath.Join(t.TempDir(), "unit.log")
	wrappings := engine.ErrorWrappings(h.e)
	n := 0
	walk := func(t *testing.T, want *core.Error, in error) {
		t.Helper()
		// Each wrapping alone, then all of them one over the other.
		chained := in
		for _, w := range wrappings {
			got := core.AsError(w.Wrap(in))
			if diff := sameTyped(t, want, got); diff != "" {
				t.Errorf("%s: %s (%s)", w.Name, diff, got.Message)
			}
			chained = w.Wrap(chained)
		}
		if diff := sameTyped(t, want, core.AsError(chained)); diff != "" {
			t.Errorf("all wrappings: %s", diff)
		}
		n++
		if diff := sameTyped(t, want, h.viaSocket(t, "hop-socket-"+strconv.Itoa(n), chained)); diff != "" {
			t.Errorf("the owner's socket: %s", diff)
		}
		if diff := sameTyped(t, want, h.viaMCP(t, "hop-mcp-"+strconv.Itoa(n), chained), true); diff != "" {
			t.Errorf("the socket, then MCP: %s", diff)
		}
	}
	for _, code := range allCodes(t) {
		t.Run(string(code), func(t *testing.T) {
			orig := core.Errorf(code, detailsFor(code, logPath), "the original error of %s", code)
			if orig.Code != code {
				t.Fatalf("core.Errorf(%s) made %s: the code has no next action", code, orig.Code)
			}
			walk(t, orig, orig)
			bare := core.Errorf(code, nil, "no details")
			walk(t, bare, bare)
		})
	}
	// A gitx error has a code of its own wherever the engine wraps it: the ones that say what
	// to act on keep it, with their reason and paths as details; the others take the step's.
	for _, tc := range []struct {
		code   string
		reason string
		want   core.Code
	}{
		{gitx.CodeOwnershipAmbiguous, gitx.ReasonWrongBranch, core.CodeOwnershipAmbiguous},
		{gitx.CodeOwnershipAmbiguous, gitx.ReasonHeadMoved, core.CodeOwnershipAmbiguous},
		{gitx.CodeOwnershipAmbiguous, gitx.ReasonTreeMoved, core.CodeOwnershipAmbiguous},
		{gitx.CodeNotGitRepository, gitx.ReasonBadRef, core.CodeNotGitRepository},
		{gitx.CodeDirtyRepository, gitx.ReasonPathExists, core.CodeDirtyRepository},
		{gitx.CodeCommitFailed, gitx.ReasonHookFailed, core.CodeCommitFailed},
		{gitx.CodeInvalidRequest, gitx.ReasonBadInput, core.CodeInternalError},
		{gitx.CodeInternal, gitx.ReasonGitFailed, core.CodeInternalError},
	} {
		t.Run("gitx/"+tc.code+"/"+tc.reason, func(t *testing.T) {
			ge := &gitx.Error{Code: tc.code, Reason: tc.reason, Message: "what git found", Paths: []string{"result.txt"}}
			got := engine.WrapError(core.CodeInternalError, ge, "comparing the worktree with the review")
			want := core.Errorf(tc.want, &core.GitRefusal{Reason: tc.reason, Paths: []string{"result.txt"}}, "x")
			if diff := sameTyped(t, want, got); diff != "" {
				t.Fatalf("%s (%s)", diff, got.Message)
			}
			var back *gitx.Error
			if !errors.As(got, &back) || back != ge {
				t.Fatal("the gitx error is not the cause")
			}
			if hint := core.RefusalHint(tc.reason); tc.want == core.CodeOwnershipAmbiguous && hint != "" && !strings.Contains(got.Message, hint) {
				t.Fatalf("message %q without the hint %q", got.Message, hint)
			}
			walk(t, want, got)
		})
	}
}
