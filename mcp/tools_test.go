package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"reasonixctl/core"
)

func delegateArgs(id string) map[string]any {
	return map[string]any{"task_id": id, "contract": sampleContract()}
}

func TestDelegateReviewBundleAndAuthority(t *testing.T) {
	h := newHarness(t, Options{})
	h.fake.delegate = func(_ context.Context, req core.DelegateRequest) (core.DelegateResult, error) {
		return core.DelegateResult{
			TaskView: sampleView(req.TaskID),
			ReviewBundle: &core.ReviewBundle{
				Summary:                "Created result.txt",
				ChangedFiles:           []string{"result.txt"},
				DiffStat:               " result.txt | 1 +\n",
				Diff:                   "diff --git a/result.txt b/result.txt\n",
				Usage:                  &core.Usage{PromptTokens: 10, UsageSource: "executor"},
				RequiredReviewCriteria: []string{"a1"},
				ReviewDiffSHA256:       "da9141196c092b500d8ae43129c8f80cfa4905c70b4f6ed3c21733332a7e9a07",
			},
		}, nil
	}
	args := delegateArgs("cap-1")
	args["wait_timeout_seconds"] = 30
	got := structuredOf(t, h.call(ToolDelegate, args, writableMeta("/repo/sub")))
	if got["state"] != "review_required" || got["timed_out"] != false || got["summary"] != "Created result.txt" {
		t.Fatalf("unexpected delegate result: %v", got)
	}
	if got["review_diff_sha256"] == nil || got["usage"] == nil {
		t.Fatalf("review bundle fields missing: %v", got)
	}

	d, _, _ := h.fake.calls()
	if len(d) != 1 {
		t.Fatalf("want one delegate call, got %d", len(d))
	}
	req := d[0]
	if req.Authority != (core.Authority{Cwd: "/repo/sub", Writable: true}) {
		t.Fatalf("authority = %+v", req.Authority)
	}
	if req.PermissionMode != core.PermissionAutomatic {
		t.Fatalf("permission mode = %q, want automatic by default over MCP", req.PermissionMode)
	}
	if req.WaitTimeoutSeconds == nil || *req.WaitTimeoutSeconds != 30 {
		t.Fatalf("wait timeout not passed through: %v", req.WaitTimeoutSeconds)
	}
	var contract map[string]any
	if err := json.Unmarshal(req.Contract, &contract); err != nil || contract["objective"] != "Create result.txt" {
		t.Fatalf("contract not passed through verbatim: %s", req.Contract)
	}
}

func TestDelegateNetworkNeedsBothConsents(t *testing.T) {
	withNetwork := func(m map[string]any) map[string]any {
		m[sandboxMetaKey].(map[string]any)["permissionProfile"].(map[string]any)["network"] = "enabled"
		return m
	}
	for _, tc := range []struct {
		name          string
		configNetwork bool
		meta          map[string]any
		want          bool
	}{
		{"both", true, withNetwork(writableMeta("/r")), true},
		{"config only", true, writableMeta("/r"), false},
		{"sandbox only", false, withNetwork(writableMeta("/r")), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Options{Network: tc.configNetwork})
			structuredOf(t, h.call(ToolDelegate, delegateArgs("n1"), tc.meta))
			d, _, _ := h.fake.calls()
			if d[0].Authority.Network != tc.want {
				t.Fatalf("network = %v, want %v", d[0].Authority.Network, tc.want)
			}
		})
	}
}

func TestDelegateWithoutSandboxMetadata(t *testing.T) {
	h := newHarness(t, Options{})
	for _, meta := range []map[string]any{nil, {"progressToken": nil}, {"other": 1}} {
		e := envelopeOf(t, h.call(ToolDelegate, delegateArgs("t1"), meta))
		if e.Code != core.CodeMissingSandboxMetadata || e.NextAction != core.NextInstallOrUpgrade || e.Retryable {
			t.Fatalf("got %+v", e)
		}
	}
	if d, _, _ := h.fake.calls(); len(d) != 0 {
		t.Fatalf("the service must not be called without authority, got %d calls", len(d))
	}
}

func TestDelegateReadOnlySandbox(t *testing.T) {
	h := newHarness(t, Options{})
	meta := map[string]any{sandboxMetaKey: map[string]any{
		"sandboxCwd": "/repo",
		"permissionProfile": map[string]any{
			"type": "managed", "network": "restricted",
			"file_system": map[string]any{"type": "restricted", "entries": []any{
				map[string]any{"path": map[string]any{"type": "special", "value": map[string]any{"kind": "root"}}, "access": "read"},
			}},
		},
	}}
	e := envelopeOf(t, h.call(ToolDelegate, delegateArgs("t1"), meta))
	if e.Code != core.CodeReadOnlySandbox || e.NextAction != core.NextFixRequest {
		t.Fatalf("got %+v", e)
	}
	if d, _, _ := h.fake.calls(); len(d) != 0 {
		t.Fatal("the service must not be called from a read-only sandbox")
	}
}

func TestControlUnionMatchesReference(t *testing.T) {
	h := newHarness(t, Options{})
	res := h.call(ToolControl, map[string]any{"task_id": "cap-1", "action": "steer"}, nil)
	ref, err := os.ReadFile("testdata/reference_control_steer_without_message.json")
	if err != nil {
		t.Fatal(err)
	}
	var wantRaw struct {
		Content []struct{ Text string } `json:"content"`
		IsError bool                    `json:"isError"`
	}
	if err := json.Unmarshal(ref, &wantRaw); err != nil {
		t.Fatal(err)
	}
	if !res.IsError || textOf(t, res) != wantRaw.Content[0].Text {
		t.Fatalf("steer without message:\n got %s\nwant %s", textOf(t, res), wantRaw.Content[0].Text)
	}
}

func TestControlUnion(t *testing.T) {
	hash := "4a7748752d0e678809fc033f586028da8e82c3c6"
	for _, tc := range []struct {
		name string
		args map[string]any
		want []core.Issue
	}{
		{"respond needs id and decision", map[string]any{"task_id": "t", "action": "respond"},
			[]core.Issue{{Path: "interaction_id", Message: "Required"}, {Path: "decision", Message: "Required"}}},
		{"cancel takes nothing else", map[string]any{"task_id": "t", "action": "cancel", "message": "x", "decision": "allow"},
			[]core.Issue{{Path: "decision", Message: "Not allowed for action cancel"}, {Path: "message", Message: "Not allowed for action cancel"}}},
		{"close takes nothing else", map[string]any{"task_id": "t", "action": "close", "wait_timeout_seconds": 5},
			[]core.Issue{{Path: "wait_timeout_seconds", Message: "Not allowed for action close"}}},
		{"rebase takes nothing else", map[string]any{"task_id": "t", "action": "rebase", "wait_timeout_seconds": 5},
			[]core.Issue{{Path: "wait_timeout_seconds", Message: "Not allowed for action rebase"}}},
		{"steer takes no finalize fields", map[string]any{"task_id": "t", "action": "steer", "message": "m", "commit_message": "c"},
			[]core.Issue{{Path: "commit_message", Message: "Not allowed for action steer"}}},
		{"finalize needs the snapshot", map[string]any{"task_id": "t", "action": "finalize", "review_summary": "ok"},
			[]core.Issue{{Path: "approved_review_criteria", Message: "Required"}, {Path: "expected_review_revision", Message: "Required"},
				{Path: "expected_review_tree_hash", Message: "Required"}}},
		{"finalize summary must not be blank", map[string]any{"task_id": "t", "action": "finalize", "review_summary": "  \n",
			"approved_review_criteria": []any{}, "expected_review_revision": 1, "expected_review_tree_hash": hash},
			[]core.Issue{{Path: "review_summary", Message: "Must not be blank"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Options{})
			e := envelopeOf(t, h.call(ToolControl, tc.args, writableMeta("/r")))
			if e.Code != core.CodeInvalidRequest || e.NextAction != core.NextFixRequest {
				t.Fatalf("got %+v", e)
			}
			if got := issuesOf(t, e); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("issues = %+v, want %+v", got, tc.want)
			}
			if _, c, _ := h.fake.calls(); len(c) != 0 {
				t.Fatal("an invalid control request reached the service")
			}
		})
	}
}

func TestControlFinalize(t *testing.T) {
	args := map[string]any{
		"task_id": "cap-1", "action": "finalize", "review_summary": "  looks right ",
		"approved_review_criteria": []any{"a1"}, "expected_review_revision": 1,
		"expected_review_tree_hash": "4a7748752d0e678809fc033f586028da8e82c3c6",
	}
	t.Run("without metadata", func(t *testing.T) {
		h := newHarness(t, Options{})
		if e := envelopeOf(t, h.call(ToolControl, args, nil)); e.Code != core.CodeMissingSandboxMetadata {
			t.Fatalf("got %+v", e)
		}
	})
	t.Run("with metadata", func(t *testing.T) {
		h := newHarness(t, Options{})
		h.fake.control = func(_ context.Context, req core.Command) (core.TaskView, error) {
			v := sampleView(req.Task())
			v.State, v.CommitHash = core.StateCompleted, "0123456789abcdef0123456789abcdef01234567"
			v.IntegrationCommand = "git cherry-pick " + v.CommitHash
			return v, nil
		}
		got := structuredOf(t, h.call(ToolControl, args, writableMeta("/repo")))
		if got["state"] != "completed" || got["commit_hash"] == nil {
			t.Fatalf("got %v", got)
		}
		_, c, _ := h.fake.calls()
		f, ok := c[0].(core.Finalize)
		if !ok || f.Authority.Cwd != "/repo" || !f.Authority.Writable || f.ReviewSummary != "looks right" {
			t.Fatalf("finalize request = %#v", c[0])
		}
		if f.ExpectedReviewRevision == nil || *f.ExpectedReviewRevision != 1 {
			t.Fatalf("expected_review_revision not passed: %v", f.ExpectedReviewRevision)
		}
	})
	t.Run("steer needs no metadata", func(t *testing.T) {
		h := newHarness(t, Options{})
		structuredOf(t, h.call(ToolControl, map[string]any{"task_id": "t", "action": "steer", "message": "fix it"}, nil))
		_, c, _ := h.fake.calls()
		if s, ok := c[0].(core.Steer); !ok || s != (core.Steer{TaskID: "t", Message: "fix it"}) {
			t.Fatalf("steer request = %#v", c[0])
		}
	})
}

func TestInspectUnknownTask(t *testing.T) {
	h := newHarness(t, Options{})
	res := h.call(ToolInspect, map[string]any{"task_id": "no-such-task"}, nil)
	e := envelopeOf(t, res)
	if e.Code != core.CodeTaskNotFound || e.NextAction != core.NextCreateNewTask || e.Message != "Unknown task: no-such-task" {
		t.Fatalf("got %+v", e)
	}
	if e.Details != nil {
		t.Fatalf("no details expected, got %v", e.Details)
	}
}

func TestInspectSections(t *testing.T) {
	h := newHarness(t, Options{})
	h.fake.inspect = func(_ context.Context, req core.InspectRequest) (core.InspectResult, error) {
		status, _ := json.Marshal(sampleView(req.TaskID))
		return core.InspectResult{
			TaskID: req.TaskID,
			Sections: map[string]json.RawMessage{
				"status":        status,
				"changed_files": json.RawMessage(`["result.txt"]`),
				"events":        json.RawMessage(`"[{\"seq\":1,"`),
			},
			Truncated:  true,
			NextCursor: "abc.def",
			UpdatedAt:  "2026-11-30T05:51:10.813Z",
		}, nil
	}
	got := structuredOf(t, h.call(ToolInspect, map[string]any{
		"task_id": "cap-1", "include": []any{"status", "changed_files", "events"}, "max_bytes": 1024, "wait_ms": 0,
	}, nil))
	if got["truncated"] != true || got["next_cursor"] != "abc.def" {
		t.Fatalf("got %v", got)
	}
	_, _, i := h.fake.calls()
	if !reflect.DeepEqual(i[0].Include, []string{"status", "changed_files", "events"}) || i[0].MaxBytes != 1024 {
		t.Fatalf("inspect request = %+v", i[0])
	}
}

func TestWireViolations(t *testing.T) {
	for _, tc := range []struct {
		name string
		tool string
		args map[string]any
		want []core.Issue
	}{
		{"wrong type", ToolDelegate, map[string]any{"task_id": "t", "contract": sampleContract(), "wait_timeout_seconds": "abc"},
			[]core.Issue{{Path: "wait_timeout_seconds", Message: "got string, want integer"}}},
		{"out of range", ToolDelegate, map[string]any{"task_id": "t", "contract": sampleContract(), "wait_timeout_seconds": 601},
			[]core.Issue{{Path: "wait_timeout_seconds", Message: "maximum: got 601, want 600"}}},
		{"unknown key", ToolInspect, map[string]any{"task_id": "t", "repository": "/etc"},
			[]core.Issue{{Path: "repository", Message: "Unrecognized key"}}},
		{"bad task id", ToolInspect, map[string]any{"task_id": "../x"},
			[]core.Issue{{Path: "task_id", Message: "'../x' does not match pattern '" + core.TaskIDPattern + "'"}}},
		{"contract incomplete", ToolDelegate, map[string]any{"task_id": "t", "contract": map[string]any{"schema_version": 1}},
			[]core.Issue{{Path: "contract.acceptance_criteria", Message: "Required"}, {Path: "contract.objective", Message: "Required"},
				{Path: "contract.user_outcome", Message: "Required"}, {Path: "contract.verification", Message: "Required"},
				{Path: "contract.write_scope", Message: "Required"}}},
		{"missing everything", ToolControl, map[string]any{},
			[]core.Issue{{Path: "action", Message: "Required"}, {Path: "task_id", Message: "Required"}}},
		{"bad enum", ToolInspect, map[string]any{"task_id": "t", "include": []any{"secrets"}},
			[]core.Issue{{Path: "include.0", Message: "value must be one of 'status', 'summary', 'changed_files', 'diff_stat', 'diff', 'verification', 'acceptance_evidence', 'risks', 'usage', 'interactions', 'events'"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Options{})
			e := envelopeOf(t, h.call(tc.tool, tc.args, writableMeta("/r")))
			if e.Code != core.CodeInvalidRequest || e.Message != tc.tool+" input validation failed" {
				t.Fatalf("got %+v", e)
			}
			if got := issuesOf(t, e); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("issues = %#v\nwant %#v", got, tc.want)
			}
			d, c, i := h.fake.calls()
			if len(d)+len(c)+len(i) != 0 {
				t.Fatal("an invalid request reached the service")
			}
		})
	}
}

func TestServiceErrorsBecomeEnvelopes(t *testing.T) {
	h := newHarness(t, Options{})
	h.fake.inspect = func(context.Context, core.InspectRequest) (core.InspectResult, error) {
		return core.InspectResult{}, errors.New("disk on fire; auth Bearer abcdefghijklmnop and sk-abcdefghijklmnopqrstuv")
	}
	e := envelopeOf(t, h.call(ToolInspect, map[string]any{"task_id": "t"}, nil))
	if e.Code != core.CodeInternalError || e.NextAction != core.NextNone {
		t.Fatalf("got %+v", e)
	}
	if strings.Contains(e.Message, "abcdefghijklmnop") || !strings.Contains(e.Message, "[REDACTED]") {
		t.Fatalf("message not redacted: %q", e.Message)
	}

	h.fake.control = func(context.Context, core.Command) (core.TaskView, error) {
		return core.TaskView{}, core.Errorf(core.CodeLeaseConflict,
			&core.GitRefusal{Reason: "ghp_abcdefghijklmnopqrstuvwxyz", Paths: []string{"AKIAABCDEFGHIJKLMNOP"}},
			"task is busy")
	}
	e = envelopeOf(t, h.call(ToolControl, map[string]any{"task_id": "t", "action": "cancel"}, nil))
	if e.Code != core.CodeLeaseConflict || !e.Retryable || e.NextAction != core.NextRetry {
		t.Fatalf("got %+v", e)
	}
	b, _ := json.Marshal(e.Details)
	if want := `{"paths":["[REDACTED]"],"reason":"[REDACTED]"}`; string(b) != want {
		t.Fatalf("details = %s, want %s", b, want)
	}
	// No detail type has a key that names a secret; should one, its value goes whole.
	b, _ = json.Marshal(redactDetails(map[string]any{"api_token": "plain", "note": "ghp_abcdefghijklmnopqrstuvwxyz", "nested": []any{"AKIAABCDEFGHIJKLMNOP"}}))
	if want := `{"api_token":"[REDACTED]","nested":["[REDACTED]"],"note":"[REDACTED]"}`; string(b) != want {
		t.Fatalf("details = %s, want %s", b, want)
	}
}

func TestProgressWhileWaiting(t *testing.T) {
	h := newHarness(t, Options{ProgressInterval: 5 * time.Millisecond})
	release := make(chan struct{})
	h.fake.delegate = func(ctx context.Context, req core.DelegateRequest) (core.DelegateResult, error) {
		select {
		case <-release:
		case <-ctx.Done():
			return core.DelegateResult{}, ctx.Err()
		}
		return core.DelegateResult{TaskView: sampleView(req.TaskID), TimedOut: true}, nil
	}
	meta := writableMeta("/r")
	meta["progressToken"] = "tok-7"
	done := make(chan *mcp.CallToolResult, 1)
	go func() { done <- h.call(ToolDelegate, delegateArgs("p1"), meta) }()

	deadline := time.After(10 * time.Second)
	for seen := 0; seen < 3; {
		select {
		case <-h.notified:
			seen++
		case <-deadline:
			t.Fatal("no progress notifications while the delegate waited")
		}
	}
	close(release)
	select {
	case res := <-done:
		if got := structuredOf(t, res); got["timed_out"] != true {
			t.Fatalf("got %v", got)
		}
	case <-deadline:
		t.Fatal("delegate did not return")
	}

	h.mu.Lock()
	defer h.mu.Unlock()
	last := -1.0
	for _, n := range h.notifications {
		if n.Method != "notifications/progress" {
			t.Fatalf("unexpected notification %s", n.Method)
		}
		p := n.Params.AdditionalFields
		if p["progressToken"] != "tok-7" {
			t.Fatalf("progress token = %v", p["progressToken"])
		}
		v, ok := p["progress"].(float64)
		if !ok || v <= last {
			t.Fatalf("progress must be an increasing number: %v after %v", p["progress"], last)
		}
		last = v
	}
}

func TestNoProgressWithoutToken(t *testing.T) {
	h := newHarness(t, Options{ProgressInterval: time.Millisecond})
	structuredOf(t, h.call(ToolDelegate, delegateArgs("p1"), writableMeta("/r")))
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.notifications) != 0 {
		t.Fatalf("no token, yet %d notifications", len(h.notifications))
	}
}

func TestToolsAnswerBeforeServiceOpens(t *testing.T) {
	fake := &fakeService{}
	release := make(chan struct{})
	var locked atomic.Bool
	locked.Store(true)
	open := func(ctx context.Context) (core.Service, error) {
		if locked.Load() {
			return nil, core.Errorf(core.CodeReasonixUnavailable, nil, "store locked")
		}
		<-release
		return fake, nil
	}
	h := newHarnessWith(t, Options{}, fake, open)

	// Opening fails (at start-up, and again for the call); the call reports it, not hanging.
	if e := envelopeOf(t, h.call(ToolInspect, map[string]any{"task_id": "t"}, nil)); e.Code != core.CodeReasonixUnavailable {
		t.Fatalf("got %+v", e)
	}
	locked.Store(false)

	// tools/list does not wait for the second attempt, which blocks until released.
	done := make(chan *mcp.CallToolResult, 1)
	go func() { done <- h.call(ToolControl, map[string]any{"task_id": "t", "action": "cancel"}, nil) }()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	list, err := h.client.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil || len(list.Tools) != 3 {
		t.Fatalf("tools/list while opening: %v, %v", list, err)
	}
	select {
	case <-done:
		t.Fatal("a tool call finished before the service was open")
	default:
	}
	close(release)
	select {
	case res := <-done:
		structuredOf(t, res)
	case <-ctx.Done():
		t.Fatal("tool call did not finish after the service opened")
	}
}

func issuesOf(t *testing.T, e core.Error) []core.Issue {
	t.Helper()
	b, _ := json.Marshal(e.Details["issues"])
	var issues []core.Issue
	if err := json.Unmarshal(b, &issues); err != nil {
		t.Fatalf("details.issues: %v (%s)", err, b)
	}
	return issues
}
