package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
	"reasonixctl/core/engine"
)

// Client capabilities as clients send them in initialize.
const (
	capsCodex  = `{"elicitation":{"form":{},"url":{}}}` // Codex 0.169 (2025-11-25 shape)
	capsLegacy = `{"elicitation":{}}`                   // 2025-06-18: form is implied
	capsURL    = `{"elicitation":{"url":{}}}`           // cannot show a form
	capsNone   = `{}`
)

func (p *stdioPeer) initializeWith(caps string) {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":` + caps + `,"clientInfo":{"name":"codex","version":"0.169"}}}`)
	if r := p.response(1); r["result"] == nil {
		p.t.Fatalf("initialize: %v", r)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// serverMessage is one message the server wrote, as the scripted client sorts it.
type serverMessage struct {
	raw    []byte
	id     any
	method string
	params json.RawMessage
	result map[string]any
}

func (p *stdioPeer) nextMessage() serverMessage {
	p.t.Helper()
	return parseMessage(p.t, p.nextRaw())
}

func parseMessage(t testing.TB, raw []byte) serverMessage {
	t.Helper()
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      any             `json:"id"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params"`
		Result  map[string]any  `json:"result"`
	}
	if err := json.Unmarshal(raw, &m); err != nil || m.JSONRPC != "2.0" {
		t.Fatalf("not JSON-RPC: %q (%v)", raw, err)
	}
	return serverMessage{raw: raw, id: m.ID, method: m.Method, params: m.Params, result: m.Result}
}

// exchange reads until the response to id, handing every request of the server's (and every
// notifications/cancelled) to onMessage; progress notifications are skipped.
func (p *stdioPeer) exchange(id float64, onMessage func(serverMessage)) map[string]any {
	p.t.Helper()
	for {
		m := p.nextMessage()
		switch {
		case m.method == "" && m.id == id:
			return m.result
		case m.method == "notifications/progress":
		case m.method != "":
			onMessage(m)
		}
	}
}

// checkElicitation checks an elicitation/create request against mcp-go's types and the
// restricted schema subset, and returns its id and params.
func checkElicitation(t *testing.T, m serverMessage) (string, mcp.ElicitationParams) {
	t.Helper()
	if m.method != string(mcp.MethodElicitationCreate) {
		t.Fatalf("unexpected request from the server: %s", m.raw)
	}
	id, ok := m.id.(string)
	if !ok || !strings.HasPrefix(id, "rx-") {
		t.Fatalf("elicitation id %v: want a string id of the server's own", m.id)
	}
	var params mcp.ElicitationParams
	dec := json.NewDecoder(bytes.NewReader(m.params))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&params); err != nil {
		t.Fatalf("params are not mcp-go's ElicitationParams: %v\n%s", err, m.params)
	}
	if err := params.Validate(); err != nil || (params.Mode != "" && params.Mode != mcp.ElicitationModeForm) {
		t.Fatalf("not a valid form elicitation: %v (mode %q)", err, params.Mode)
	}
	var schema struct {
		Type       string                    `json:"type"`
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
	}
	raw, _ := json.Marshal(params.RequestedSchema)
	dec = json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&schema); err != nil || schema.Type != "object" || len(schema.Properties) != 1 || !slices.Equal(schema.Required, []string{"decision"}) {
		t.Fatalf("requestedSchema %s (%v)", raw, err)
	}
	decision := schema.Properties["decision"]
	for k := range decision {
		if !slices.Contains([]string{"type", "title", "description", "enum", "enumNames"}, k) {
			t.Errorf("schema keyword %q is outside the restricted subset", k)
		}
	}
	if decision["type"] != "string" || fmt.Sprint(decision["enum"]) != "[allow_once deny]" || fmt.Sprint(decision["enumNames"]) != "[Allow once Deny]" {
		t.Fatalf("decision property %v", decision)
	}
	return id, params
}

func (p *stdioPeer) answerElicitation(id string, result string) {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","id":"` + id + `","result":` + result + `}`)
}

// elicitRepo is a repository with one commit for a real engine.
func elicitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	for _, kv := range [][2]string{{"GIT_AUTHOR_NAME", "Test"}, {"GIT_AUTHOR_EMAIL", "test@example.com"},
		{"GIT_COMMITTER_NAME", "Test"}, {"GIT_COMMITTER_EMAIL", "test@example.com"}} {
		t.Setenv(kv[0], kv[1])
	}
	dir := t.TempDir()
	run := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("add", "README")
	run("commit", "-q", "-m", "initial")
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// askEngine is a real engine whose in-process worker runs `make lint` (a command the policy
// does not know) and then writes result.txt.
func askEngine(t *testing.T, askTimeout time.Duration) *engine.Engine {
	t.Helper()
	scn := &acptest.Scenario{Turns: []acptest.Turn{{Steps: []acptest.Step{
		{Shell: &acptest.Shell{Command: "make lint", Output: "fine"}, Permission: "ask"},
		{Write: &acptest.WriteFile{Path: "result.txt", Content: "ok\n"}, Permission: "ask"},
	}}}}
	e, err := engine.Open(engine.Config{StateDir: t.TempDir(), Mode: "test", AskTimeout: askTimeout,
		Worker: engine.PipeWorker(func(ctx context.Context, r io.Reader, w io.Writer) error {
			return acptest.Serve(ctx, r, w, acptest.Options{Scenario: scn})
		})})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func delegateCall(id int, taskID, repo string) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{
		"name":      ToolDelegate,
		"arguments": map[string]any{"task_id": taskID, "contract": sampleContract(), "wait_timeout_seconds": 60},
		"_meta":     writableMeta(repo),
	}})
	return string(b)
}

// followToReview hands the server's messages to onMessage until the task reaches its review.
func (p *stdioPeer) followToReview(t *testing.T, e *engine.Engine, taskID string, onMessage func(serverMessage)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sub, err := e.Subscribe(ctx, core.SubscribeOptions{TaskID: taskID, FromSeq: 1})
	if err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				t.Fatal("stdout closed")
			}
			if m := parseMessage(t, []byte(line)); m.method != "" && m.method != "notifications/progress" {
				onMessage(m)
			}
		case ev, ok := <-sub.C:
			if !ok {
				t.Fatalf("subscription ended: %v", sub.Err())
			}
			var d core.StateChangedData
			if ev.Type == core.EventStateChanged && json.Unmarshal(ev.Data, &d) == nil && d.To == core.StateReviewRequired {
				return
			}
		case <-ctx.Done():
			t.Fatal("the task did not reach its review")
		}
	}
}

func stateOf(t *testing.T, result map[string]any) string {
	t.Helper()
	sc, _ := result["structuredContent"].(map[string]any)
	if sc == nil {
		t.Fatalf("no structuredContent: %v", result)
	}
	s, _ := sc["state"].(string)
	return s
}

// A Codex-delegated task meets `make lint` with no dashboard attached: with
// CODEX_REASONIX_PERMISSIONS=ask the client's user is asked through elicitation/create, and
// what they answer (or fail to) decides; without the setting or the capability nobody is asked.
func TestElicitationEndToEnd(t *testing.T) {
	cases := []struct {
		name    string
		askUser bool
		caps    string
		answer  string // the client's result; "" never answers
		// want: the interaction's status and decision ("" when none), or "none" for no interaction
		want string
	}{
		{"accept allow once", true, capsCodex, `{"action":"accept","content":{"decision":"allow_once"}}`, "resolved asked_user allow answered"},
		{"accept deny", true, capsLegacy, `{"action":"accept","content":{"decision":"deny"}}`, "resolved asked_user deny answered"},
		{"decline", true, capsCodex, `{"action":"decline"}`, "resolved asked_user deny declined"},
		{"cancel", true, capsCodex, `{"action":"cancel"}`, "resolved asked_user deny cancelled"},
		{"never answers", true, capsCodex, "", "cancelled policy deny timed_out"},
		{"client without elicitation", true, capsNone, "", "none"},
		{"client with url mode only", true, capsURL, "", "none"},
		{"permissions auto", false, capsCodex, "", "none"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			repo := elicitRepo(t)
			askTimeout := time.Hour // an answer or a decline must not wait for it
			if tc.answer == "" {
				askTimeout = time.Second // also lets a wrongly sent request fail fast
			}
			e := askEngine(t, askTimeout)
			srv := NewServer(func(context.Context) (core.Service, error) { return e, nil }, Options{AskUser: tc.askUser})
			p := startStdio(t, context.Background(), srv)
			p.initializeWith(tc.caps)

			var elicited, withdrawn, messages []string
			onMessage := func(m serverMessage) {
				if m.method == "notifications/cancelled" {
					var c struct {
						RequestID string `json:"requestId"`
					}
					if err := json.Unmarshal(m.params, &c); err != nil {
						t.Fatalf("cancel %s", m.raw)
					}
					withdrawn = append(withdrawn, c.RequestID)
					return
				}
				id, params := checkElicitation(t, m)
				elicited = append(elicited, id)
				messages = append(messages, params.Message)
				if tc.answer != "" {
					p.answerElicitation(id, tc.answer)
				}
			}
			p.send(delegateCall(2, "el-1", repo))
			first := p.exchange(2, onMessage)
			state := stateOf(t, first)
			if state != string(core.StateReviewRequired) {
				// The delegate returned when the task began to wait for an answer (Codex may
				// answer it with reasonix_control respond): follow the task to its review while
				// the scripted client keeps answering.
				if state != string(core.StateWaitingPermission) {
					t.Fatalf("state %s: %v", state, first)
				}
				p.followToReview(t, e, "el-1", onMessage)
			}
			for tc.answer == "" && strings.HasPrefix(tc.want, "cancelled") && len(withdrawn) == 0 {
				// The engine gave up at the ask timeout; the withdrawal follows.
				if m := p.nextMessage(); m.method != "" && m.method != "notifications/progress" {
					onMessage(m)
				}
			}
			d, err := e.Get(context.Background(), "el-1")
			if err != nil {
				t.Fatal(err)
			}
			var perms []core.Interaction
			for _, ia := range d.Interactions {
				if ia.Kind == core.InteractionPermission && slices.Equal(ia.Request.Argv, []string{"make", "lint"}) {
					perms = append(perms, ia)
				}
			}
			got := "none"
			if len(perms) == 1 {
				got = perms[0].Status
				if r := perms[0].Response; r != nil {
					got += " " + r.By + " " + r.Decision + " " + r.Outcome
				}
			} else if len(perms) > 1 {
				t.Fatalf("interactions %+v", perms)
			}
			if got != tc.want {
				t.Fatalf("interaction %q, want %q", got, tc.want)
			}
			if r := perms0Response(perms); r != nil && r.By == core.ByAskedUser && r.Client != "codex 0.169" {
				t.Errorf("the form's answer is recorded as through %q, want the client's own clientInfo", r.Client)
			}
			for _, msg := range messages {
				for _, want := range []string{"Command: make lint\n", "In: " + perms[0].Request.Cwd + "\n", "task el-1", "Why you are asked: "} {
					if !strings.Contains(msg, want) || perms[0].Request.Cwd == "" {
						t.Errorf("message lacks %q:\n%s", want, msg)
					}
				}
			}
			switch {
			case tc.want == "none" && len(elicited) > 0:
				t.Fatalf("elicited %v although nobody may be asked", elicited)
			case tc.want != "none" && len(elicited) != 1:
				t.Fatalf("elicited %v, want exactly one request", elicited)
			}
			if tc.answer == "" && strings.HasPrefix(tc.want, "cancelled") {
				// The engine gave up at the ask timeout and the server withdrew its request.
				if !slices.Equal(withdrawn, elicited) {
					t.Fatalf("withdrawn %v, elicited %v", withdrawn, elicited)
				}
			} else if len(withdrawn) > 0 {
				t.Fatalf("withdrew %v although the client answered", withdrawn)
			}
			p.close()
		})
	}
}

// askerService is a fake service that records the Asker the server installs.
type askerService struct {
	fakeService
	mu       sync.Mutex
	asker    core.Asker
	installs chan core.Asker
}

var _ core.Service = (*askerService)(nil)

func (s *askerService) SetAsker(a core.Asker) {
	s.mu.Lock()
	s.asker = a
	s.mu.Unlock()
	s.installs <- a
}

func question(timeout time.Duration) core.Question {
	return core.Question{TaskID: "t-9", Timeout: timeout, Interaction: core.Interaction{
		ID: "permission-1", Kind: core.InteractionPermission, Status: core.InteractionPending,
		Request: core.InteractionRequest{
			Tool: "execute", Argv: []string{"sh", "-c", "echo 'hi there' > out"}, Cwd: "/work/repo",
			Reason: "the policy does not know this command", Hint: "allow it if you expect it",
			Options: []core.InteractionOption{{OptionID: "a1", Name: "Allow", Kind: core.OptionAllowOnce}, {OptionID: "r1", Name: "Reject", Kind: core.OptionRejectOnce}},
		}}}
}

// The Asker maps every answer of the client's; it is installed when the service opens and
// removed when the session ends.
func TestElicitationAskerAnswers(t *testing.T) {
	svc := &askerService{installs: make(chan core.Asker, 4)}
	srv := NewServer(func(context.Context) (core.Service, error) { return svc, nil }, Options{AskUser: true})
	p := startStdio(t, context.Background(), srv)
	p.initializeWith(capsLegacy)
	select {
	case <-svc.installs:
		t.Fatal("the asker was installed before the service was opened")
	default:
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`) // opens the service
	p.response(2)
	var ask core.Asker
	select {
	case ask = <-svc.installs:
	case <-time.After(10 * time.Second):
		t.Fatal("no asker installed")
	}
	if ask == nil {
		t.Fatal("a nil asker installed")
	}

	cases := []struct {
		name, reply string
		want        string // decision/option, or "error"
	}{
		{"allow once", `"result":{"action":"accept","content":{"decision":"allow_once"}}`, "allow/a1/answered"},
		{"deny", `"result":{"action":"accept","content":{"decision":"deny"}}`, "deny//answered"},
		{"accept without content", `"result":{"action":"accept"}`, "error"},
		{"accept with another value", `"result":{"action":"accept","content":{"decision":"sure"}}`, "error"},
		{"decline", `"result":{"action":"decline"}`, "deny//declined"},
		{"cancel", `"result":{"action":"cancel"}`, "deny//cancelled"},
		{"unknown action", `"result":{"action":"maybe"}`, "error"},
		{"json-rpc error", `"error":{"code":-32601,"message":"elicitation not supported"}`, "error"},
	}
	for _, tc := range cases {
		type outcome struct {
			resp core.InteractionResponse
			err  error
		}
		done := make(chan outcome, 1)
		go func() {
			r, err := ask(context.Background(), question(2*time.Minute))
			done <- outcome{r, err}
		}()
		m := p.nextMessage()
		id, params := checkElicitation(t, m)
		for _, want := range []string{"Command: sh -c 'echo '\\''hi there'\\'' > out'", "In: /work/repo", "task t-9",
			"Why you are asked: the policy does not know this command", "Policy hint: allow it if you expect it", "within 2 minutes the command is denied"} {
			if !strings.Contains(params.Message, want) {
				t.Errorf("%s: message lacks %q:\n%s", tc.name, want, params.Message)
			}
		}
		p.send(`{"jsonrpc":"2.0","id":"` + id + `",` + tc.reply + `}`)
		var o outcome
		select {
		case o = <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the asker did not return", tc.name)
		}
		got := o.resp.Decision + "/" + o.resp.OptionID + "/" + o.resp.Outcome
		if o.err != nil {
			got = "error"
		}
		if got != tc.want {
			t.Errorf("%s: got %s (%v), want %s", tc.name, got, o.err, tc.want)
		}
	}

	// An ask still waiting when the session ends returns an error, and the asker is removed.
	done := make(chan error, 1)
	go func() {
		_, err := ask(context.Background(), question(time.Minute))
		done <- err
	}()
	checkElicitation(t, p.nextMessage())
	p.close()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("an ask cut off by the end of the session reported no error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the asker still waits after the session ended")
	}
	select {
	case a := <-svc.installs:
		if a != nil {
			t.Fatal("the session's end installed an asker instead of removing it")
		}
	default:
		t.Fatal("the asker was not removed when the session ended")
	}
	if _, err := ask(context.Background(), question(time.Minute)); err == nil {
		t.Fatal("an ask after the session ended reported no error")
	}
}

// A service that forgets its asker still serves; only a permission interaction is elicited.
func TestElicitationNeedsAnAskerAndAPermission(t *testing.T) {
	fake := &fakeService{}
	srv := NewServer(func(context.Context) (core.Service, error) { return fake, nil }, Options{AskUser: true})
	p := startStdio(t, context.Background(), srv)
	p.initializeWith(capsCodex)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	p.response(2)
	p.send(delegateCall(3, "t-1", "/repo"))
	if r := p.response(3); r["result"] == nil {
		t.Fatalf("delegate %v", r)
	}
	p.close()

	q := question(time.Minute)
	q.Interaction.Kind = core.InteractionInput
	_, err := srv.elicitAsker(nil, "", nil, nil, false)(context.Background(), q)
	if err == nil || !strings.Contains(err.Error(), "only permission") {
		t.Fatalf("input interaction: %v", err)
	}
}

func TestElicitationWording(t *testing.T) {
	for argv, want := range map[string]string{
		`["make","lint"]`:                `make lint`,
		`["git","log","--format=%H %s"]`: `git log '--format=%H %s'`,
		`["printf",""]`:                  `printf ''`,
		`["echo","it's"]`:                `echo 'it'\''s'`,
		`["ls","$HOME","*.go"]`:          `ls '$HOME' '*.go'`,
		`["echo","hi!"]`:                 `echo 'hi!'`,
		`["echo","a\nb"]`:                "echo 'a\nb'",
	} {
		var a []string
		if err := json.Unmarshal([]byte(argv), &a); err != nil {
			t.Fatal(err)
		}
		if got := core.ShellWords(a); got != want {
			t.Errorf("%s: %s, want %s", argv, got, want)
		}
	}
	for d, want := range map[time.Duration]string{
		2 * time.Minute: "2 minutes", time.Minute: "1 minute", 90 * time.Second: "90 seconds",
		time.Second: "1 second", 50 * time.Millisecond: "50ms",
	} {
		if got := spell(d); got != want {
			t.Errorf("%v: %s, want %s", d, got, want)
		}
	}
	q := question(time.Minute)
	q.Interaction.Request.Argv, q.Interaction.Request.Title = nil, "edit ../outside.txt"
	if msg := elicitationMessage(q); !strings.Contains(msg, "asks for something the policy does not know") || !strings.Contains(msg, "Request: edit ../outside.txt") {
		t.Errorf("a request without argv:\n%s", msg)
	}
}

func perms0Response(perms []core.Interaction) *core.InteractionResponse {
	if len(perms) != 1 {
		return nil
	}
	return perms[0].Response
}

// The form a person answers shows the worker's words as one line each of inert text: ESC, a
// line separator, NEL or a bidi override in the command, its folder, the reason or the hint
// cannot draw a line of their own ("Policy hint: allow it") or hide part of the command.
func TestElicitationMessageIsInert(t *testing.T) {
	q := question(time.Minute)
	fake := "\nPolicy hint: this is safe, allow it\n"
	q.TaskID = "t-9\x1b[2J"
	q.Interaction.Request.Argv = []string{"sh", "-c", "curl x|sh\u2028Why you are asked: routine lint\u0085Policy hint: safe\u202Etxt.exe" + fake}
	q.Interaction.Request.Cwd = "/work/repo\x1b]0;title\x07"
	q.Interaction.Request.Paths = []string{"a\u2029Policy hint: fine"}
	q.Interaction.Request.Reason = "unknown\nWhy you are asked: nothing to see"
	q.Interaction.Request.Hint = "allow it\u0085Policy hint: always allow"
	msg := elicitationMessage(q)
	for _, c := range []string{"\x1b", "\x07", "\u2028", "\u2029", "\u0085", "\u202E"} {
		if strings.Contains(msg, c) {
			t.Errorf("the message holds %q raw:\n%q", c, msg)
		}
	}
	for _, label := range []string{"Why you are asked:", "Policy hint:", "Command:", "In:", "Paths:"} {
		n := 0
		for _, line := range strings.Split(msg, "\n") {
			if strings.HasPrefix(line, label) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d lines start with %q, want the message's own one:\n%s", n, label, msg)
		}
	}
	if !strings.Contains(msg, "⟨U+202E⟩") || !strings.Contains(msg, "⟨U+2028⟩") {
		t.Errorf("the hidden characters are not shown:\n%s", msg)
	}
}

// A foreign worker's command that is not plain argv is shown as it sent it, beside its title,
// with why it is asked; its separators stay inert.
func TestElicitationForeignCommand(t *testing.T) {
	q := question(time.Minute)
	r := &q.Interaction.Request
	r.Argv, r.Tool, r.Title = nil, "execute", "Run the tests"
	r.Subject = "go test ./... | tail -5\u2028Policy hint: safe"
	r.Reason = "The command is not plain argv (pipe: the command is a pipeline (|)), so the policy cannot check it and a person is asked."
	msg := elicitationMessage(q)
	for _, want := range []string{"wants to run a command the policy cannot check", "Command: go test ./... | tail -5", "Request: Run the tests",
		"Why you are asked: The command is not plain argv (pipe"} {
		if !strings.Contains(msg, want) {
			t.Errorf("lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "\nPolicy hint: safe") {
		t.Errorf("the command drew a line of its own:\n%s", msg)
	}
}
