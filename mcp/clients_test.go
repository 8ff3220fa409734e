package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgotransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"reasonixctl/core"
	"reasonixctl/core/engine"
)

// The form as each client library hands it over, and the answer its user gives.
type formAnswer struct {
	name    string
	action  string // accept | decline | cancel
	content map[string]any
	// what the journal must say: the decision of asked_user and its outcome
	decision, outcome string
}

var formAnswers = []formAnswer{
	{"allow", "accept", map[string]any{"decision": "allow_once"}, core.DecisionAllow, core.OutcomeAnswered},
	{"deny", "accept", map[string]any{"decision": "deny"}, core.DecisionDeny, core.OutcomeAnswered},
	{"decline", "decline", nil, core.DecisionDeny, core.OutcomeDeclined},
	{"cancel", "cancel", nil, core.DecisionDeny, core.OutcomeCancelled},
}

// pipeServer serves srv over in-process pipes and returns the client's ends.
func pipeServer(t *testing.T, srv *Server) (fromServer io.ReadCloser, toServer io.WriteCloser) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.ServeStdio(ctx, inR, outW)
		outW.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("the server did not end")
		}
	})
	return outR, inW
}

// journalToReview is the task's journal up to its review.
func journalToReview(t *testing.T, e *engine.Engine, taskID string) []core.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sub, err := e.Subscribe(ctx, core.SubscribeOptions{TaskID: taskID, FromSeq: 1})
	if err != nil {
		t.Fatal(err)
	}
	var evs []core.Event
	for {
		select {
		case ev, ok := <-sub.C:
			if !ok {
				t.Fatalf("subscription ended: %v", sub.Err())
			}
			evs = append(evs, ev)
			var d core.StateChangedData
			if ev.Type == core.EventStateChanged && json.Unmarshal(ev.Data, &d) == nil && d.To == core.StateReviewRequired {
				return evs
			}
		case <-ctx.Done():
			t.Fatalf("the task did not reach its review: %d events", len(evs))
		}
	}
}

// waitResolved waits until interaction id of the task is no longer pending in the journal.
func waitResolved(t *testing.T, e *engine.Engine, taskID string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sub, err := e.Subscribe(ctx, core.SubscribeOptions{TaskID: taskID, FromSeq: 1})
	if err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case ev, ok := <-sub.C:
			if !ok {
				t.Fatalf("subscription ended: %v", sub.Err())
			}
			var ia core.Interaction
			if ev.Type == core.EventInteractionResolved && json.Unmarshal(ev.Data, &ia) == nil && ia.Kind == core.InteractionPermission {
				return
			}
		case <-ctx.Done():
			t.Fatal("the interaction was never resolved")
		}
	}
}

// checkAnswerRecorded checks what the journal and the record say about the person's answer.
func checkAnswerRecorded(t *testing.T, e *engine.Engine, taskID string, a formAnswer) {
	t.Helper()
	evs := journalToReview(t, e, taskID)
	var decided []string
	var steers []string
	for _, ev := range evs {
		switch ev.Type {
		case core.EventPermissionDecided:
			var d core.PermissionData
			if err := json.Unmarshal(ev.Data, &d); err != nil {
				t.Fatal(err)
			}
			if slices.Equal(d.Argv, []string{"make", "lint"}) {
				decided = append(decided, d.By+":"+d.Decision+":"+d.Outcome)
			}
		case core.EventSteered:
			steers = append(steers, string(ev.Data))
		}
	}
	want := []string{"policy:interaction:", core.ByAskedUser + ":" + a.decision + ":" + a.outcome}
	if !slices.Equal(decided, want) {
		t.Fatalf("permission_decided %v, want %v", decided, want)
	}
	d, err := e.Get(context.Background(), taskID)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Interactions) != 1 {
		t.Fatalf("interactions %+v", d.Interactions)
	}
	ia := d.Interactions[0]
	if ia.Status != core.InteractionResolved || ia.Response == nil || ia.Response.By != core.ByAskedUser ||
		ia.Response.Decision != a.decision || ia.Response.Outcome != a.outcome {
		t.Fatalf("interaction %+v response %+v", ia, ia.Response)
	}
	// Only a denial is explained to the worker, in words that say how it came about.
	// Worded by the client that carried the answer, as its clientInfo names it: nothing in MCP
	// says whether a person saw the form.
	if !strings.HasSuffix(ia.Response.Client, "-conformance 1.2.1") && !strings.HasSuffix(ia.Response.Client, "-conformance 1.8.0") {
		t.Errorf("the answer is recorded as through %q, want the client's clientInfo", ia.Response.Client)
	}
	words := map[string]string{core.OutcomeAnswered: "denied by the form shown through " + ia.Response.Client,
		core.OutcomeDeclined: "declined through " + ia.Response.Client, core.OutcomeCancelled: "dismissed through " + ia.Response.Client}[a.outcome]
	switch {
	case a.decision == core.DecisionAllow && len(steers) != 0:
		t.Fatalf("steered after an allow: %v", steers)
	case a.decision == core.DecisionDeny && (len(steers) != 1 || !strings.Contains(steers[0], words)):
		t.Fatalf("steers %v, want one saying %q", steers, words)
	}
}

// checkForm checks the choice the form offers: titled oneOf from 2025-11-25, enumNames before.
func checkForm(t *testing.T, version string, schema any) {
	t.Helper()
	raw, _ := json.Marshal(schema)
	var s struct {
		Properties map[string]map[string]json.RawMessage `json:"properties"`
		Required   []string                              `json:"required"`
	}
	if err := json.Unmarshal(raw, &s); err != nil || !slices.Equal(s.Required, []string{"decision"}) {
		t.Fatalf("schema %s", raw)
	}
	d := s.Properties["decision"]
	if version == mcp.ProtocolVersion20250618 {
		if string(d["enum"]) != `["allow_once","deny"]` || string(d["enumNames"]) != `["Allow once","Deny"]` || d["oneOf"] != nil {
			t.Fatalf("%s: decision %s", version, raw)
		}
		return
	}
	if string(d["oneOf"]) != `[{"const":"allow_once","title":"Allow once"},{"const":"deny","title":"Deny"}]` || d["enumNames"] != nil {
		t.Fatalf("%s: decision %s", version, raw)
	}
}

// connector connects one client library to srv at version; its user answers forms with answer.
type connector func(t *testing.T, srv *Server, version, repo string, answer func(schema any) (string, map[string]any)) clientRun

// clientRun is one client library's session: delegate calls the tool and returns the task's state.
type clientRun struct {
	delegate func(ctx context.Context) (state string, pending string)
	close    func()
}

// askedClient plays one form answer through a client library at one revision: the first
// delegate returns when the task waits (earlier revisions) or after the form was answered
// inline (2026-07-28); a resume after the answer is recorded never sees it pending.
func askedClient(t *testing.T, version string, a formAnswer, connect connector) {
	repo := elicitRepo(t)
	e := askEngine(t, time.Hour) // an answer must not wait for the timeout
	srv := NewServer(func(context.Context) (core.Service, error) { return e, nil }, Options{AskUser: true})
	var mu sync.Mutex
	var forms int
	asked := make(chan struct{}, 1)
	c := connect(t, srv, version, repo, func(schema any) (string, map[string]any) {
		checkForm(t, version, schema)
		mu.Lock()
		forms++
		mu.Unlock()
		select {
		case asked <- struct{}{}:
		default:
		}
		return a.action, a.content
	})
	defer c.close()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	state, _ := c.delegate(ctx)
	if version == mcp.ProtocolVersion20260728 {
		if state != string(core.StateReviewRequired) {
			t.Fatalf("state %s after the inline form, want review_required", state)
		}
	} else if state != string(core.StateReviewRequired) {
		select {
		case <-asked:
		case <-ctx.Done():
			t.Fatal("the form never came")
		}
		waitResolved(t, e, "asked")
		state, pending := c.delegate(ctx)
		if pending != "" {
			t.Fatalf("a resume after the answer returned the interaction %s as pending", pending)
		}
		if state != string(core.StateReviewRequired) {
			t.Fatalf("state %s after the answer", state)
		}
	}
	checkAnswerRecorded(t, e, "asked", a)
	mu.Lock()
	defer mu.Unlock()
	if forms != 1 {
		t.Fatalf("%d forms, want 1", forms)
	}
}

func askedDelegateArgs() map[string]any {
	return map[string]any{"task_id": "asked", "contract": sampleContract(), "wait_timeout_seconds": 60}
}

// viewOf reads the state and a pending interaction's id from a delegate result's JSON.
func viewOf(t *testing.T, raw []byte) (string, string) {
	t.Helper()
	var v struct {
		State             string            `json:"state"`
		ActiveInteraction *core.Interaction `json:"active_interaction"`
	}
	if err := json.Unmarshal(raw, &v); err != nil || v.State == "" {
		t.Fatalf("delegate result %s (%v)", raw, err)
	}
	if v.ActiveInteraction != nil && v.ActiveInteraction.Status == core.InteractionPending {
		return v.State, v.ActiveInteraction.ID
	}
	return v.State, ""
}

type mcpGoElicitor func(ctx context.Context, r mcp.ElicitationRequest) (*mcp.ElicitationResult, error)

func (f mcpGoElicitor) Elicit(ctx context.Context, r mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	return f(ctx, r)
}

func connectMCPGo(t *testing.T, srv *Server, version, repo string, answer func(schema any) (string, map[string]any)) clientRun {
	fromServer, toServer := pipeServer(t, srv)
	c := mcpgoclient.NewClient(mcpgotransport.NewIO(fromServer, toServer, nil),
		mcpgoclient.WithProtocolVersion(version),
		mcpgoclient.WithElicitationHandler(mcpGoElicitor(func(ctx context.Context, r mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
			action, content := answer(r.Params.RequestedSchema)
			return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseAction(action), Content: content}}, nil
		})))
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = version
	init.Params.ClientInfo = mcp.Implementation{Name: "mcp-go-conformance", Version: "1.2.1"}
	res, err := c.Initialize(ctx, init)
	if err != nil {
		t.Fatal(err)
	}
	if res.ProtocolVersion != version {
		t.Fatalf("negotiated %s, want %s", res.ProtocolVersion, version)
	}
	return clientRun{
		delegate: func(ctx context.Context) (string, string) {
			req := mcp.CallToolRequest{}
			req.Params.Name = ToolDelegate
			req.Params.Arguments = askedDelegateArgs()
			req.Params.Meta = &mcp.Meta{AdditionalFields: writableMeta(repo)}
			r, err := c.CallTool(ctx, req)
			if err != nil || r.IsError {
				t.Fatalf("delegate: %v %+v", err, r)
			}
			raw, _ := json.Marshal(r.StructuredContent)
			return viewOf(t, raw)
		},
		close: func() { c.Close() },
	}
}

func connectGoSDK(t *testing.T, srv *Server, version, repo string, answer func(schema any) (string, map[string]any)) clientRun {
	fromServer, toServer := pipeServer(t, srv)
	client := gosdk.NewClient(&gosdk.Implementation{Name: "go-sdk-conformance", Version: "1.8.0"}, &gosdk.ClientOptions{
		ElicitationHandler: func(ctx context.Context, r *gosdk.ElicitRequest) (*gosdk.ElicitResult, error) {
			action, content := answer(r.Params.RequestedSchema)
			return &gosdk.ElicitResult{Action: action, Content: content}, nil
		},
	})
	ctx := context.Background()
	cs, err := client.Connect(ctx, &gosdk.IOTransport{Reader: fromServer, Writer: toServer}, &gosdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	return clientRun{
		delegate: func(ctx context.Context) (string, string) {
			r, err := cs.CallTool(ctx, &gosdk.CallToolParams{Meta: writableMeta(repo), Name: ToolDelegate, Arguments: askedDelegateArgs()})
			if err != nil || r.IsError {
				t.Fatalf("delegate: %v %+v", err, r)
			}
			raw, _ := json.Marshal(r.StructuredContent)
			return viewOf(t, raw)
		},
		close: func() { cs.Close() },
	}
}

// clientVersions are the revisions both client libraries are tried at.
var clientVersions = []string{mcp.ProtocolVersion20250618, mcp.ProtocolVersion20251125, mcp.ProtocolVersion20260728}

func runClientMatrix(t *testing.T, connect connector) {
	if testing.Short() {
		t.Skip("runs a real engine per case")
	}
	for _, version := range clientVersions {
		for _, a := range formAnswers {
			t.Run(fmt.Sprintf("%s/%s", version, a.name), func(t *testing.T) {
				askedClient(t, version, a, connect)
			})
		}
	}
}

// mcp-go's client answers the form at every revision it speaks, and the journal records what
// its user answered.
func TestClientMCPGoAnswersTheForm(t *testing.T) { runClientMatrix(t, connectMCPGo) }

// The official Go SDK's client, likewise.
func TestClientGoSDKAnswersTheForm(t *testing.T) { runClientMatrix(t, connectGoSDK) }

// A client that answers the form and at once resumes the task (the two lines written back to
// back) never gets the answered interaction back as pending: the resume is served only once
// the answer is recorded. Run many times, as the race it guards against was intermittent.
func TestResumeRightAfterTheAnswerSeesItRecorded(t *testing.T) {
	runs := 20
	if testing.Short() {
		runs = 3
	}
	answers := map[string]string{
		"allow":   `{"action":"accept","content":{"decision":"allow_once"}}`,
		"deny":    `{"action":"accept","content":{"decision":"deny"}}`,
		"decline": `{"action":"decline"}`,
	}
	for _, name := range []string{"allow", "deny", "decline"} {
		t.Run(name, func(t *testing.T) {
			for i := range runs {
				repo := elicitRepo(t)
				e := askEngine(t, time.Hour)
				srv := NewServer(func(context.Context) (core.Service, error) { return e, nil }, Options{AskUser: true})
				p := startStdio(t, context.Background(), srv)
				p.initializeWith(capsCodex)
				p.send(delegateCall(2, "el-1", repo))
				var formID string
				resumed := false
				for !resumed {
					m := p.nextMessage()
					switch {
					case m.method == string(mcp.MethodElicitationCreate):
						formID, _ = checkElicitation(t, m)
						p.send(`{"jsonrpc":"2.0","id":"` + formID + `","result":` + answers[name] + `}`)
						p.send(delegateCall(3, "el-1", repo))
						resumed = true
					case m.method == "" && m.id == 2.0:
						if s := stateOf(t, m.result); s == string(core.StateReviewRequired) {
							t.Fatalf("run %d: reviewed without asking", i)
						}
					}
				}
				for {
					m := p.nextMessage()
					if m.method != "" || m.id != 3.0 {
						continue // the first delegate's answer, progress
					}
					raw, _ := json.Marshal(m.result["structuredContent"])
					state, pending := viewOf(t, raw)
					if pending != "" {
						t.Fatalf("run %d: the resume returned %s with interaction %s pending after it was answered", i, state, pending)
					}
					if state != string(core.StateReviewRequired) {
						t.Fatalf("run %d: state %s", i, state)
					}
					break
				}
				p.close()
			}
		})
	}
}
