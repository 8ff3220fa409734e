package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestConnectChecksCapabilities(t *testing.T) {
	full := testInitResult
	cases := []struct {
		name    string
		result  string
		missing []string
	}{
		{"reasonix 1.38", full, nil},
		{"no status", strings.Replace(full, `"_reasonix.io/session/status":{"schemaVersion":1},`, "", 1), []string{methodStatus + " "}},
		{"status v2", strings.Replace(full, `"_reasonix.io/session/status_update":{"schemaVersion":1}`, `"_reasonix.io/session/status_update":{"schemaVersion":2}`, 1), []string{methodStatusUpdate}},
		{"no steer", strings.Replace(full, `"sessionSteer":{"method":"_reasonix.io/session/steer"}`, `"other":{}`, 1), []string{"sessionSteer"}},
		{"protocol 2", strings.Replace(full, `"protocolVersion":1`, `"protocolVersion":2`, 1), []string{"protocolVersion 1"}},
		{"no meta", `{"protocolVersion":1,"agentCapabilities":{},"authMethods":[]}`, []string{methodStatus + " ", methodStatusUpdate, "sessionSteer"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, r, w := newRawAgent(t, "s1")
			a.on("initialize", func(m rpcMsg) { a.reply(m, json.RawMessage(c.result)) })
			wk, err := Connect(testCtx(t), r, w, ConnectConfig{})
			if c.missing == nil {
				if err != nil {
					t.Fatal(err)
				}
				info := wk.Info()
				if info.SteerMethod != methodSteer || !info.ResumeSession || !info.LoadSession || info.AgentVersion != "v1.38.11" {
					t.Errorf("info = %+v", info)
				}
				_ = wk.Close()
				return
			}
			var ie *IncompatibleError
			if !errors.As(err, &ie) {
				t.Fatalf("err = %v, want IncompatibleError", err)
			}
			got := strings.Join(ie.Missing, "; ")
			if len(ie.Missing) != len(c.missing) {
				t.Errorf("missing %q, want %d items like %q", got, len(c.missing), c.missing)
			}
			for _, m := range c.missing {
				if !strings.Contains(got, m) {
					t.Errorf("missing %q does not name %q", got, m)
				}
			}
		})
	}
}

func TestConnectFailsWhenAgentDiesBeforeInitialize(t *testing.T) {
	a, r, w := newRawAgent(t, "s1")
	a.on("initialize", func(rpcMsg) { _ = a.out.Close() })
	_, err := Connect(testCtx(t), r, w, ConnectConfig{})
	if !errors.Is(err, ErrUnavailable) || !errors.Is(err, ErrWorkerExited) {
		t.Fatalf("err = %v, want ErrUnavailable and ErrWorkerExited", err)
	}
}

func TestConnectGivesUpOnSilentAgent(t *testing.T) {
	a, r, w := newRawAgent(t, "s1")
	a.on("initialize", func(rpcMsg) {})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := Connect(ctx, r, w, ConnectConfig{}); !errors.Is(err, ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want ErrUnavailable and DeadlineExceeded", err)
	}
}

func TestNewSessionAppliesOfferedConfig(t *testing.T) {
	a, wk := connectRaw(t, "s1")
	s, err := wk.NewSession(testCtx(t), SessionConfig{Cwd: "/w", Model: "mock-model", Effort: "high", Mode: ModeGoal})
	if err != nil {
		t.Fatal(err)
	}
	sets := a.calls("session/set_config_option")
	if len(sets) != 1 || string(sets[0].Params) != `{"configId":"tool_approval","sessionId":"s1","value":"read-only"}` {
		t.Errorf("set_config_option calls = %v", sets)
	}
	if modes := a.calls("session/set_mode"); len(modes) != 1 || !strings.Contains(string(modes[0].Params), `"modeId":"goal"`) {
		t.Errorf("set_mode calls = %v", modes)
	}
	want := Effective{Model: "mock/mock-model", ToolApproval: "read-only", Mode: ModeGoal}
	if got := s.Effective(); got != want {
		t.Errorf("effective = %+v, want %+v", got, want)
	}

	a.sid = "s2"
	_, err = wk.NewSession(testCtx(t), SessionConfig{Cwd: "/w", Model: "gpt-9"})
	var oe *OptionError
	if !errors.As(err, &oe) || oe.Option != "model" || len(oe.Offered) != 2 {
		t.Errorf("unknown model: err = %v", err)
	}
	for _, bad := range []SessionConfig{{Cwd: "rel"}, {Cwd: "/w", Effort: "extreme"}, {Cwd: "/w", Mode: "plan"}} {
		if _, err := wk.NewSession(testCtx(t), bad); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%+v: err = %v, want ErrInvalidConfig", bad, err)
		}
	}
}

// A thinking model on 1.38 offers effort auto|disabled|high|max once chosen; a legacy worker
// offered low..max, ask and work_mode.
func TestEffortAndLegacyOptions(t *testing.T) {
	thinker := `[{"id":"model","category":"model","type":"select","name":"Model","currentValue":"mockr/mock-thinker","options":[{"value":"mockr/mock-thinker","name":"t"}]},` +
		`{"id":"effort","category":"thought_level","type":"select","name":"Effort","currentValue":"auto","options":[{"value":"auto","name":"a"},{"value":"disabled","name":"d"},{"value":"high","name":"h"},{"value":"max","name":"m"}]},` +
		`{"id":"tool_approval","category":"tool_approval","type":"select","name":"P","currentValue":"workspace-write","options":[{"value":"read-only","name":"r"},{"value":"workspace-write","name":"w"}]}]`
	legacy := `[{"id":"effort","type":"select","name":"Effort","currentValue":"medium","options":[{"group":"g","name":"G","options":[{"value":"low","name":"l"},{"value":"medium","name":"m"},{"value":"high","name":"h"},{"value":"max","name":"x"}]}]},` +
		`{"id":"work_mode","type":"select","name":"W","currentValue":"balanced","options":[{"value":"economy","name":"e"},{"value":"balanced","name":"b"},{"value":"delivery","name":"d"}]},` +
		`{"id":"tool_approval","category":"tool_approval","type":"select","name":"P","currentValue":"workspace-write","options":[{"value":"ask","name":"a"},{"value":"read-only","name":"r"}]}]`
	cases := []struct {
		config, effort, mode string
		want                 Effective
		wantSets             []string
	}{
		{thinker, "medium", "", Effective{Model: "mockr/mock-thinker", Effort: "auto", ToolApproval: "read-only", Mode: "normal"}, []string{"tool_approval=read-only"}},
		{thinker, "low", "", Effective{Model: "mockr/mock-thinker", Effort: "disabled", ToolApproval: "read-only", Mode: "normal"}, []string{"effort=disabled", "tool_approval=read-only"}},
		{thinker, "max", "", Effective{Model: "mockr/mock-thinker", Effort: "max", ToolApproval: "read-only", Mode: "normal"}, []string{"effort=max", "tool_approval=read-only"}},
		{legacy, "low", ModeGoal, Effective{Effort: "low", ToolApproval: "ask", Mode: ModeGoal, WorkMode: "delivery"}, []string{"effort=low", "work_mode=delivery", "tool_approval=ask"}},
		{legacy, "medium", "", Effective{Effort: "medium", ToolApproval: "ask", Mode: "normal", WorkMode: "economy"}, []string{"work_mode=economy", "tool_approval=ask"}},
	}
	for i, c := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			a, wk := connectRaw(t, "s1")
			a.on("session/new", func(m rpcMsg) {
				a.reply(m, json.RawMessage(fmt.Sprintf(`{"sessionId":"s1","modes":%s,"configOptions":%s}`, testModes, c.config)))
			})
			a.on("session/set_config_option", func(m rpcMsg) { a.reply(m, json.RawMessage(`{"configOptions":`+c.config+`}`)) })
			s, err := wk.NewSession(testCtx(t), SessionConfig{Cwd: "/w", Effort: c.effort, Mode: c.mode})
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Effective(); got != c.want {
				t.Errorf("effective = %+v, want %+v", got, c.want)
			}
			var sets []string
			for _, m := range a.calls("session/set_config_option") {
				var p struct{ ConfigID, Value string }
				_ = json.Unmarshal(m.Params, &p)
				sets = append(sets, p.ConfigID+"="+p.Value)
			}
			if strings.Join(sets, ",") != strings.Join(c.wantSets, ",") {
				t.Errorf("sets = %v, want %v", sets, c.wantSets)
			}
		})
	}
}

func TestNearestEffort(t *testing.T) {
	v138 := []string{"auto", "disabled", "high", "max"}
	exact := []string{"low", "medium", "high", "max"}
	for _, c := range []struct {
		want    string
		offered []string
		got     string
	}{
		{"max", v138, "max"}, {"high", v138, "high"}, {"medium", v138, "auto"}, {"low", v138, "disabled"},
		{"low", exact, "low"}, {"medium", exact, "medium"}, {"max", []string{"auto", "high"}, "high"},
		{"medium", []string{"high"}, ""},
	} {
		if got := nearestEffort(c.want, c.offered); got != c.got {
			t.Errorf("nearestEffort(%s, %v) = %q, want %q", c.want, c.offered, got, c.got)
		}
	}
}

// The permission request arrives right behind its tool_call: the callback must see the
// tool call correlated and the parsed argv metadata, and the agent the chosen option.
func TestPermissionRoundTrip(t *testing.T) {
	a, wk := connectRaw(t, "s1")
	asked := make(chan PermissionRequest, 1)
	s, err := wk.NewSession(testCtx(t), SessionConfig{Cwd: "/w", OnPermission: func(ctx context.Context, r PermissionRequest) PermissionOutcome {
		asked <- r
		return r.Choose("allow_once")
	}})
	if err != nil {
		t.Fatal(err)
	}
	answer := make(chan rpcMsg, 1)
	a.on("session/prompt", func(m rpcMsg) {
		a.update(`{"sessionUpdate":"tool_call","toolCallId":"call_1","title":"bash","kind":"execute","status":"pending","rawInput":{"command":"touch marker"}}`)
		answer <- a.request("session/request_permission", json.RawMessage(`{"sessionId":"s1","toolCall":{"toolCallId":"gate-1","title":"bash touch marker","kind":"execute","status":"pending","rawInput":{"command":"touch marker"},"_meta":{"reasonix.io":{"approvalId":"1","argv":["touch","marker"],"commandSchemaVersion":1,"cwd":"/w","fresh":false,"subject":"touch marker","tool":"bash"}}},"options":[{"optionId":"allow_once","name":"Allow","kind":"allow_once"},{"optionId":"reject_once","name":"Reject","kind":"reject_once"}]}`))
		a.update(`{"sessionUpdate":"tool_call_update","toolCallId":"call_1","status":"completed","content":[{"type":"content","content":{"type":"text","text":"ok"}}]}`)
		a.reply(m, map[string]string{"stopReason": "end_turn"})
	})
	stop, err := s.Prompt(testCtx(t), "go")
	if err != nil || stop != StopEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	r := <-asked
	if r.ToolCallID != "gate-1" || r.CallID != "call_1" || r.ToolKind != "execute" || r.Meta == nil ||
		strings.Join(r.Meta.Argv, " ") != "touch marker" || r.Meta.CommandSchemaVersion != 1 || r.Meta.Cwd != "/w" || len(r.Options) != 2 {
		t.Errorf("request = %+v meta %+v", r, r.Meta)
	}
	if got := string((<-answer).Result); got != `{"outcome":{"optionId":"allow_once","outcome":"selected"}}` {
		t.Errorf("answer = %s", got)
	}
	ch := s.Events()
	if tc := nextEvent(t, ch, KindToolCall).(ToolCall); tc.ID != "call_1" {
		t.Errorf("tool call = %+v", tc)
	}
	if pe := nextEvent(t, ch, KindPermission).(PermissionEvent); pe.Outcome.OptionID != "allow_once" {
		t.Errorf("permission event = %+v", pe)
	}
	if u := nextEvent(t, ch, KindToolCallUpdate).(ToolCallUpdate); u.Text != "ok" || u.Status != "completed" {
		t.Errorf("update = %+v", u)
	}
}

// Cancel answers an open permission request `cancelled` (the callback's ctx ends) and the
// worker gets session/cancel.
func TestCancelAnswersOpenPermission(t *testing.T) {
	a, wk := connectRaw(t, "s1")
	waiting := make(chan struct{})
	s, err := wk.NewSession(testCtx(t), SessionConfig{Cwd: "/w", OnPermission: func(ctx context.Context, r PermissionRequest) PermissionOutcome {
		close(waiting)
		<-ctx.Done()
		return r.Choose("allow_once") // too late: must be replaced by cancelled
	}})
	if err != nil {
		t.Fatal(err)
	}
	answer := make(chan rpcMsg, 1)
	a.on("session/prompt", func(m rpcMsg) {
		answer <- a.request("session/request_permission", json.RawMessage(`{"sessionId":"s1","toolCall":{"toolCallId":"gate-1","kind":"edit","rawInput":{"path":"x"}},"options":[{"optionId":"allow_once","name":"Allow","kind":"allow_once"}]}`))
		a.waitCall("session/cancel")
		a.reply(m, map[string]string{"stopReason": "cancelled"})
	})
	stopCh := make(chan StopReason, 1)
	go func() {
		stop, err := s.Prompt(testCtx(t), "go")
		if err != nil {
			t.Errorf("prompt: %v", err)
		}
		stopCh <- stop
	}()
	select {
	case <-waiting:
	case <-time.After(10 * time.Second):
		t.Fatal("permission callback never ran")
	}
	if err := s.Cancel(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if got := string((<-answer).Result); got != `{"outcome":{"outcome":"cancelled"}}` {
		t.Errorf("answer = %s", got)
	}
	if stop := <-stopCh; stop != StopCancelled {
		t.Errorf("stop = %q", stop)
	}
}

// A Prompt whose context ends cancels the turn and waits for the worker's answer.
func TestPromptContextEndCancelsTurn(t *testing.T) {
	a, wk := connectRaw(t, "s1")
	s, err := wk.NewSession(testCtx(t), SessionConfig{Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	a.on("session/prompt", func(m rpcMsg) {
		a.waitCall("session/cancel")
		a.reply(m, map[string]string{"stopReason": "cancelled"})
	})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	stop, err := s.Prompt(ctx, "go")
	if !errors.Is(err, context.DeadlineExceeded) || stop != StopCancelled {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	// The turn is over: a new prompt is accepted.
	a.on("session/prompt", func(m rpcMsg) { a.reply(m, map[string]string{"stopReason": "end_turn"}) })
	if stop, err := s.Prompt(testCtx(t), "again"); err != nil || stop != StopEndTurn {
		t.Fatalf("second prompt = %q, %v", stop, err)
	}
}

func TestSteerAndStatus(t *testing.T) {
	a, wk := connectRaw(t, "s1")
	s, err := wk.NewSession(testCtx(t), SessionConfig{Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	a.on(methodSteer, func(m rpcMsg) {
		a.replyErr(m, CodeInvalidRequest, "_reasonix.io/session/steer: session has no active prompt")
	})
	if _, err := s.Steer(testCtx(t), "hurry"); !errors.Is(err, ErrNoActiveTurn) {
		t.Errorf("idle steer err = %v", err)
	}
	a.on(methodSteer, func(m rpcMsg) { a.reply(m, map[string]string{"disposition": "steer_accepted"}) })
	if d, err := s.Steer(testCtx(t), "hurry"); err != nil || d != "steer_accepted" {
		t.Errorf("steer = %q, %v", d, err)
	}
	if p := string(a.calls(methodSteer)[1].Params); p != `{"prompt":[{"text":"hurry","type":"text"}],"sessionId":"s1"}` {
		t.Errorf("steer params = %s", p)
	}
	st, err := s.Status(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if st.State != "idle" || st.Sandbox.Engine != "bubblewrap" || st.Usage.Cumulative.TotalTokens != 7 || !strings.Contains(string(st.Raw), "futureField") {
		t.Errorf("status = %+v", st)
	}
	a.on(methodStatus, func(m rpcMsg) { a.replyErr(m, CodeInvalidParams, "unknown session") })
	var re *RPCError
	if _, err := s.Status(testCtx(t)); !errors.As(err, &re) || re.Code != CodeInvalidParams {
		t.Errorf("status err = %v", err)
	}
}

// Notifications that race ahead of session/new's answer still reach the session.
func TestEventsBeforeSessionRegistered(t *testing.T) {
	a, wk := connectRaw(t, "s1")
	a.on("session/new", func(m rpcMsg) {
		a.update(`{"sessionUpdate":"available_commands_update","availableCommands":[{"name":"review"}]}`)
		a.reply(m, json.RawMessage(fmt.Sprintf(`{"sessionId":"s1","modes":%s,"configOptions":%s}`, testModes, testConfig)))
	})
	s, err := wk.NewSession(testCtx(t), SessionConfig{Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	if c := nextEvent(t, s.Events(), KindCommands).(CommandsUpdate); strings.Join(c.Commands, ",") != "review" {
		t.Errorf("commands = %+v", c)
	}
}

// Two workers handing out the same session id never see each other's events.
func TestSameSessionIDOnTwoWorkers(t *testing.T) {
	var sessions []*Session
	var agents []*rawAgent
	for range 2 {
		a, wk := connectRaw(t, "same")
		s, err := wk.NewSession(testCtx(t), SessionConfig{Cwd: "/w"})
		if err != nil {
			t.Fatal(err)
		}
		sessions, agents = append(sessions, s), append(agents, a)
	}
	for i, a := range agents {
		a.update(fmt.Sprintf(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"from %d"}}`, i))
		a.update(`{"sessionUpdate":"current_mode_update","currentModeId":"goal"}`)
	}
	for i, s := range sessions {
		c := nextEvent(t, s.Events(), KindAgentMessage).(Chunk)
		if c.Text != fmt.Sprintf("from %d", i) {
			t.Errorf("session of worker %d got %q", i, c.Text)
		}
		nextEvent(t, s.Events(), KindMode)
	}
}

func TestWorkerDeathEndsSessionsAndCalls(t *testing.T) {
	a, wk := connectRaw(t, "s1")
	s, err := wk.NewSession(testCtx(t), SessionConfig{Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	a.on("session/prompt", func(rpcMsg) {
		a.update(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"bye"}}`)
		_ = a.out.Close()
	})
	if _, err := s.Prompt(testCtx(t), "go"); !errors.Is(err, ErrWorkerExited) {
		t.Errorf("prompt err = %v", err)
	}
	var kinds []EventKind
	var last Event
	for e := range timeoutEvents(t, s.Events(), 10*time.Second) {
		kinds = append(kinds, e.Kind())
		last = e
	}
	if ee, ok := last.(ErrorEvent); !ok || !errors.Is(ee.Err, ErrWorkerExited) || kinds[0] != KindAgentMessage {
		t.Errorf("events %v ending %#v", kinds, last)
	}
	select {
	case <-wk.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("worker not done")
	}
	if _, err := s.Status(testCtx(t)); !errors.Is(err, ErrWorkerExited) {
		t.Errorf("status after death err = %v", err)
	}
	if _, err := wk.NewSession(testCtx(t), SessionConfig{Cwd: "/w"}); !errors.Is(err, ErrWorkerExited) {
		t.Errorf("new session after death err = %v", err)
	}
}

func TestGarbageFailsWorker(t *testing.T) {
	a, wk := connectRaw(t, "s1")
	s, err := wk.NewSession(testCtx(t), SessionConfig{Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	a.on(methodStatus, func(rpcMsg) { a.writeLine("Loading config… done") })
	if _, err := s.Status(testCtx(t)); !errors.Is(err, ErrProtocol) {
		t.Errorf("status err = %v", err)
	}
	ee := nextEvent(t, s.Events(), KindError).(ErrorEvent)
	if !errors.Is(ee.Err, ErrProtocol) || !strings.Contains(ee.Err.Error(), "Loading config") {
		t.Errorf("error event = %v", ee.Err)
	}
	<-wk.Done()
}

// A consumer that stops reading while the worker floods one session fails that session only;
// the reader never blocks and the worker keeps serving the others.
func TestFloodFailsOnlyThatSession(t *testing.T) {
	a, wk := connectRaw(t, "s1")
	flooded, err := wk.NewSession(testCtx(t), SessionConfig{Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	a.sid = "s2"
	other, err := wk.NewSession(testCtx(t), SessionConfig{Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	a.sid = "s1"
	title := strings.Repeat("t", 32<<10)
	for i := range maxQueuedBytes/len(title) + 10 {
		a.update(fmt.Sprintf(`{"sessionUpdate":"tool_call","toolCallId":"call_%d","title":%q,"kind":"read","status":"completed"}`, i, title))
	}
	a.waitCall("session/cancel")
	a.sid = "s2"
	a.update(`{"sessionUpdate":"current_mode_update","currentModeId":"goal"}`)
	nextEvent(t, other.Events(), KindMode)
	if st, err := other.Status(testCtx(t)); err != nil || st.SessionID != "s2" {
		t.Errorf("other session status = %+v, %v", st, err)
	}
	ee := nextEvent(t, flooded.Events(), KindError).(ErrorEvent)
	if !errors.Is(ee.Err, ErrFlood) {
		t.Errorf("error = %v", ee.Err)
	}
	if wk.Err() != nil {
		t.Errorf("worker failed: %v", wk.Err())
	}
}

func TestChunksMergeWhileQueued(t *testing.T) {
	q := newEventQueue(4 << 10)
	for _, s := range []string{"a", "b", "c"} {
		q.push(Chunk{SessionID: "s", Stream: KindAgentMessage, Text: s})
	}
	q.push(Chunk{SessionID: "s", Stream: KindAgentThought, Text: "t"})
	q.push(Chunk{SessionID: "s", Stream: KindAgentMessage, Text: "d"})
	q.end(nil)
	var got []string
	for e := range q.out {
		c := e.(Chunk)
		got = append(got, string(c.Stream[6:9])+":"+c.Text)
	}
	// The pump may already hold the first chunk; after it, merging is deterministic.
	joined := strings.Join(got, " ")
	if joined != "mes:abc tho:t mes:d" && joined != "mes:a mes:bc tho:t mes:d" {
		t.Errorf("delivered %q", joined)
	}
}

func TestCloseSession(t *testing.T) {
	a, wk := connectRaw(t, "s1")
	s, err := wk.NewSession(testCtx(t), SessionConfig{Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if len(a.calls("session/close")) != 1 {
		t.Error("no session/close sent")
	}
	for e := range timeoutEvents(t, s.Events(), 5*time.Second) {
		t.Errorf("event after close: %#v", e)
	}
	if _, err := s.Prompt(testCtx(t), "x"); !errors.Is(err, ErrSessionClosed) {
		t.Errorf("prompt after close err = %v", err)
	}
	// The id is free again on this worker (resume).
	if _, err := wk.ResumeSession(testCtx(t), "s1", SessionConfig{Cwd: "/w"}); err == nil || !strings.Contains(err.Error(), "session/resume") {
		t.Errorf("resume without handler err = %v", err)
	}
	a.on("session/resume", func(m rpcMsg) {
		a.reply(m, json.RawMessage(fmt.Sprintf(`{"modes":%s,"configOptions":%s}`, testModes, testConfig)))
	})
	if _, err := wk.ResumeSession(testCtx(t), "s1", SessionConfig{Cwd: "/w"}); err != nil {
		t.Errorf("resume err = %v", err)
	}
}

func TestLoadReplaysIntoSession(t *testing.T) {
	a, wk := connectRaw(t, "old")
	a.on("session/load", func(m rpcMsg) {
		a.update(`{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"earlier prompt"}}`)
		a.reply(m, json.RawMessage(fmt.Sprintf(`{"modes":%s,"configOptions":%s}`, testModes, testConfig)))
	})
	s, err := wk.LoadSession(testCtx(t), "old", SessionConfig{Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	if c := nextEvent(t, s.Events(), KindUserMessage).(Chunk); c.Text != "earlier prompt" {
		t.Errorf("replayed %q", c.Text)
	}
}

// OnDone runs once the worker has ended, after Done is closed, and at once for a worker that
// has ended already.
func TestOnDoneRunsOnceTheWorkerEnded(t *testing.T) {
	_, wk := connectRaw(t, "s1")
	called := make(chan bool, 2)
	wk.OnDone(func() {
		select {
		case <-wk.Done():
			called <- true
		default:
			called <- false
		}
	})
	select {
	case <-called:
		t.Fatal("OnDone ran while the worker was running")
	default:
	}
	if err := wk.Close(); err != nil {
		t.Fatal(err)
	}
	if closed := <-called; !closed {
		t.Fatal("OnDone ran before Done was closed")
	}
	late := false
	wk.OnDone(func() { late = true })
	if !late {
		t.Fatal("OnDone of an ended worker did not run at once")
	}
}
