package acp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fixtureDir holds the agent→client messages of the real worker's recorded transcripts.
const fixtureDir = "testdata/reasonix-1.38.11"

// fixtureDirOrSkip finds the recorded transcripts (REASONIX_FIXTURES overrides the location).
func fixtureDirOrSkip(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("REASONIX_FIXTURES")
	if dir == "" {
		dir = fixtureDir
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no transcripts at %s (set REASONIX_FIXTURES)", dir)
	}
	return dir
}

// agentLines returns the agent→client messages of a transcript, one JSON line each.
func agentLines(t testing.TB, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var rec struct {
			Dir string          `json:"dir"`
			Msg json.RawMessage `json:"msg"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if rec.Dir == "a2c" {
			out = append(out, rec.Msg)
		}
	}
	return out
}

// transcriptCounts is, per transcript, how many of each event kind (and how many requests and
// responses) the worker sent, counted independently of this package from the recordings.
var transcriptCounts = []struct {
	name string
	want map[string]int
}{
	{"allow_always", map[string]int{"agent_message_chunk": 2, "available_commands_update": 1, "config_option_update": 1, "request": 1, "response": 7, "status_update": 6, "tool_call": 2, "tool_call_update": 2}},
	{"cancel_permission", map[string]int{"available_commands_update": 1, "config_option_update": 1, "request": 1, "response": 7, "status_update": 4, "tool_call": 1, "tool_call_update": 1}},
	{"cancel_stream", map[string]int{"agent_message_chunk": 3, "available_commands_update": 1, "response": 6, "status_update": 3}},
	{"config_probe", map[string]int{"agent_message_chunk": 2, "available_commands_update": 3, "config_option_update": 3, "response": 12, "status_update": 3}},
	{"edit_allow", map[string]int{"agent_message_chunk": 4, "available_commands_update": 1, "response": 6, "status_update": 6, "tool_call": 3, "tool_call_update": 3}},
	{"edit_clientfs", map[string]int{"agent_message_chunk": 4, "available_commands_update": 1, "request": 11, "response": 6, "status_update": 6, "tool_call": 3, "tool_call_update": 3}},
	{"edit_readonly_allow", map[string]int{"agent_message_chunk": 4, "available_commands_update": 1, "config_option_update": 1, "request": 2, "response": 7, "status_update": 8, "tool_call": 3, "tool_call_update": 3}},
	{"edit_readonly_reject", map[string]int{"agent_message_chunk": 4, "available_commands_update": 1, "config_option_update": 1, "request": 2, "response": 7, "status_update": 8, "tool_call": 3, "tool_call_update": 3}},
	{"envprobe_full", map[string]int{"agent_message_chunk": 2, "available_commands_update": 1, "config_option_update": 1, "response": 7, "status_update": 4, "tool_call": 1, "tool_call_update": 1}},
	{"envprobe_ws", map[string]int{"agent_message_chunk": 2, "available_commands_update": 1, "response": 6, "status_update": 4, "tool_call": 1, "tool_call_update": 1}},
	{"load_replay", map[string]int{"agent_message_chunk": 6, "available_commands_update": 2, "plan": 1, "response": 10, "status_update": 5, "tool_call": 4, "tool_call_update": 4, "user_message_chunk": 2}},
	{"modes_probe", map[string]int{"agent_message_chunk": 4, "available_commands_update": 2, "config_option_update": 1, "current_mode_update": 4, "request": 1, "response": 19, "status_update": 5}},
	{"plan", map[string]int{"agent_message_chunk": 2, "available_commands_update": 1, "plan": 1, "response": 6, "status_update": 4, "tool_call": 1, "tool_call_update": 1}},
	{"qshell_allow", map[string]int{"agent_message_chunk": 4, "available_commands_update": 1, "response": 6, "status_update": 5, "tool_call": 2, "tool_call_update": 2}},
	{"qshell_fullaccess", map[string]int{"agent_message_chunk": 4, "available_commands_update": 1, "config_option_update": 1, "response": 7, "status_update": 5, "tool_call": 2, "tool_call_update": 2}},
	{"qshell_readonly_allow", map[string]int{"agent_message_chunk": 4, "available_commands_update": 1, "config_option_update": 1, "request": 1, "response": 7, "status_update": 6, "tool_call": 2, "tool_call_update": 2}},
	{"qshell_readonly_reject", map[string]int{"agent_message_chunk": 4, "available_commands_update": 1, "config_option_update": 1, "request": 1, "response": 7, "status_update": 6, "tool_call": 2, "tool_call_update": 2}},
	{"shell_allow", map[string]int{"agent_message_chunk": 4, "available_commands_update": 1, "response": 6, "status_update": 5, "tool_call": 2, "tool_call_update": 2}},
	{"shell_clientterm", map[string]int{"agent_message_chunk": 4, "available_commands_update": 1, "config_option_update": 1, "request": 1, "response": 7, "status_update": 6, "tool_call": 2, "tool_call_update": 2}},
	{"shell_clientterm_full", map[string]int{"agent_message_chunk": 4, "available_commands_update": 1, "config_option_update": 1, "response": 7, "status_update": 5, "tool_call": 2, "tool_call_update": 2}},
	{"shell_clientterm_nobwrap", map[string]int{"agent_message_chunk": 4, "available_commands_update": 1, "response": 6, "status_update": 5, "tool_call": 2, "tool_call_update": 2}},
	{"shell_fullaccess", map[string]int{"agent_message_chunk": 4, "available_commands_update": 1, "config_option_update": 1, "response": 7, "status_update": 5, "tool_call": 2, "tool_call_update": 2}},
	{"shell_nobwrap", map[string]int{"agent_message_chunk": 4, "available_commands_update": 1, "response": 6, "status_update": 5, "tool_call": 2, "tool_call_update": 2}},
	{"shell_readonly_allow", map[string]int{"agent_message_chunk": 4, "available_commands_update": 1, "config_option_update": 1, "request": 1, "response": 7, "status_update": 6, "tool_call": 2, "tool_call_update": 2}},
	{"shell_readonly_reject", map[string]int{"agent_message_chunk": 4, "available_commands_update": 1, "config_option_update": 1, "request": 1, "response": 7, "status_update": 6, "tool_call": 2, "tool_call_update": 2}},
	{"steer_stream", map[string]int{"agent_message_chunk": 13, "available_commands_update": 1, "response": 9, "status_update": 4}},
	{"steer_tool", map[string]int{"agent_message_chunk": 4, "available_commands_update": 1, "response": 9, "status_update": 4, "tool_call": 1, "tool_call_update": 1}},
	{"text", map[string]int{"agent_message_chunk": 2, "available_commands_update": 1, "response": 6, "status_update": 3}},
	{"think", map[string]int{"agent_message_chunk": 1, "agent_thought_chunk": 2, "available_commands_update": 2, "config_option_update": 1, "response": 7, "status_update": 3}},
}

func decodeTranscript(t *testing.T, lines [][]byte) (counts map[string]int, events []Event) {
	t.Helper()
	counts = map[string]int{}
	for _, line := range lines {
		in, err := decodeLine(line)
		if err != nil {
			t.Fatalf("decode %s: %v", line, err)
		}
		switch in.class {
		case classRequest:
			counts["request"]++
		case classResponse:
			counts["response"]++
		case classNotification:
			if u, ok := in.event.(Unknown); ok {
				t.Errorf("unknown event %s/%s: %s", u.Method, u.UpdateKind, u.Reason)
			}
			if in.event.Session() == "" {
				t.Errorf("event %s without session", in.event.Kind())
			}
			counts[string(in.event.Kind())]++
			events = append(events, in.event)
		}
	}
	return counts, events
}

func TestDecodeTranscripts(t *testing.T) {
	dir := fixtureDirOrSkip(t)
	files, _ := filepath.Glob(filepath.Join(dir, "*.ndjson"))
	covered := map[string]bool{}
	for _, tc := range transcriptCounts {
		covered[tc.name] = true
		t.Run(tc.name, func(t *testing.T) {
			counts, events := decodeTranscript(t, agentLines(t, filepath.Join(dir, tc.name+".ndjson")))
			if !equalCounts(counts, tc.want) {
				t.Errorf("counts\n got %v\nwant %v", counts, tc.want)
			}
			lastSeq := map[string]int64{}
			for _, e := range events {
				switch e := e.(type) {
				case StatusUpdate:
					if e.Sequence <= lastSeq[e.SessionID] || e.Status.Sequence != e.Sequence {
						t.Errorf("status_update sequence %d after %d (snapshot %d)", e.Sequence, lastSeq[e.SessionID], e.Status.Sequence)
					}
					lastSeq[e.SessionID] = e.Sequence
					if e.Status.Sandbox.WorkspaceRoot == "" || e.Status.Phase == "" || len(e.Status.Raw) == 0 {
						t.Errorf("status_update lacks sandbox/phase/raw: %+v", e.Status)
					}
				case ToolCall:
					if !strings.HasPrefix(e.ID, "call_") || e.ToolKind == "" || len(e.RawInput) == 0 {
						t.Errorf("tool_call decoded as %+v", e)
					}
				case ToolCallUpdate:
					if e.Status != "completed" && e.Status != "failed" {
						t.Errorf("tool_call_update status %q", e.Status)
					}
				case ConfigUpdate:
					if findOption(e.Options, "tool_approval", "tool_approval") == nil {
						t.Errorf("config update without tool_approval: %+v", e.Options)
					}
				}
			}
		})
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".ndjson")
		if strings.HasSuffix(name, ".provider") || name == "mock-requests" {
			continue
		}
		if !covered[name] {
			t.Errorf("transcript %s has no row in transcriptCounts", name)
		}
	}
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestDecodeTranscriptDetails pins the values the supervisor acts on.
func TestDecodeTranscriptDetails(t *testing.T) {
	dir := fixtureDirOrSkip(t)
	find := func(name string, pick func(Event) bool) Event {
		t.Helper()
		_, events := decodeTranscript(t, agentLines(t, filepath.Join(dir, name+".ndjson")))
		for _, e := range events {
			if pick(e) {
				return e
			}
		}
		t.Fatalf("%s: no matching event", name)
		return nil
	}
	rejected := find("shell_readonly_reject", func(e Event) bool { u, ok := e.(ToolCallUpdate); return ok && u.Status == "failed" }).(ToolCallUpdate)
	if rejected.Text != "blocked by permission policy" || rejected.ID != "call_mock_25_0" {
		t.Errorf("rejected update = %+v", rejected)
	}
	thought := find("think", func(e Event) bool { return e.Kind() == KindAgentThought }).(Chunk)
	if thought.Text != "Let me think about th" {
		t.Errorf("thought = %q", thought.Text)
	}
	plan := find("plan", func(e Event) bool { return e.Kind() == KindPlan }).(Plan)
	if len(plan.Entries) == 0 || plan.Entries[0].Content != "Read the code" {
		t.Errorf("plan = %+v", plan)
	}
	mode := find("modes_probe", func(e Event) bool { return e.Kind() == KindMode }).(ModeUpdate)
	if mode.ModeID != "plan" {
		t.Errorf("mode = %+v", mode)
	}
	effort := find("config_probe", func(e Event) bool {
		c, ok := e.(ConfigUpdate)
		return ok && findOption(c.Options, "effort", "thought_level") != nil
	}).(ConfigUpdate)
	if o := findOption(effort.Options, "effort", "thought_level"); strings.Join(o.Values, ",") != "auto,disabled,high,max" {
		t.Errorf("effort values = %v", o.Values)
	}
	completion := find("text", func(e Event) bool { s, ok := e.(StatusUpdate); return ok && s.Event == "completion" }).(StatusUpdate)
	if !completion.Status.FinalReadiness.ReadyForReview || completion.Status.TurnOutcome.Kind != "completed" ||
		completion.Status.Usage.Cumulative.TotalTokens == 0 {
		t.Errorf("completion = %+v", completion.Status)
	}
}

// TestReplayThroughWorker feeds each transcript's agent messages through a Worker's reader and
// a registered session, as the live client would see them, including permission requests.
func TestReplayThroughWorker(t *testing.T) {
	dir := fixtureDirOrSkip(t)
	for _, tc := range transcriptCounts {
		t.Run(tc.name, func(t *testing.T) {
			lines := agentLines(t, filepath.Join(dir, tc.name+".ndjson"))
			_, decoded := decodeTranscript(t, lines)
			var buf bytes.Buffer
			for _, l := range lines {
				buf.Write(l)
				buf.WriteByte('\n')
			}
			pr, pw := io.Pipe()
			w := newWorker(pr, io.Discard, nil, nil, nil)
			asked := make(chan PermissionRequest, 16)
			s := w.newSession(decoded[0].Session(), SessionConfig{OnPermission: func(_ context.Context, r PermissionRequest) PermissionOutcome {
				asked <- r
				return r.Choose("allow_once")
			}})
			if err := w.register(s); err != nil {
				t.Fatal(err)
			}
			go func() { _, _ = pw.Write(buf.Bytes()); _ = pw.Close() }()

			var text, wantText strings.Builder
			kinds := map[EventKind]int{}
			var last Event
			for e := range timeoutEvents(t, s.Events(), 10*time.Second) {
				kinds[e.Kind()]++
				if c, ok := e.(Chunk); ok && c.Stream == KindAgentMessage {
					text.WriteString(c.Text)
				}
				last = e
			}
			for _, e := range decoded {
				if c, ok := e.(Chunk); ok && c.Stream == KindAgentMessage {
					wantText.WriteString(c.Text)
				}
			}
			if text.String() != wantText.String() {
				t.Errorf("agent text %q, want %q", text.String(), wantText.String())
			}
			for _, k := range []EventKind{KindToolCall, KindToolCallUpdate, KindStatus, KindPlan, KindMode, KindConfig} {
				if kinds[k] != tc.want[string(k)] {
					t.Errorf("%s: %d events, want %d", k, kinds[k], tc.want[string(k)])
				}
			}
			// Permission requests are answered asynchronously; those answered before the end
			// of the stream are journaled as events.
			if kinds[KindPermission] > tc.want["request"] {
				t.Errorf("%d permission events for %d requests", kinds[KindPermission], tc.want["request"])
			}
			ee, ok := last.(ErrorEvent)
			if !ok || !errors.Is(ee.Err, ErrWorkerExited) {
				t.Errorf("last event %#v, want ErrorEvent(ErrWorkerExited)", last)
			}
			<-w.Done()
		})
	}
}

// timeoutEvents relays ch until it closes, failing the test if that takes longer than d.
func timeoutEvents(t testing.TB, ch <-chan Event, d time.Duration) <-chan Event {
	t.Helper()
	out := make(chan Event)
	go func() {
		defer close(out)
		timer := time.NewTimer(d)
		defer timer.Stop()
		for {
			select {
			case e, ok := <-ch:
				if !ok {
					return
				}
				out <- e
			case <-timer.C:
				t.Errorf("event stream still open after %s", d)
				return
			}
		}
	}()
	return out
}

func TestDecodeLineRejectsGarbage(t *testing.T) {
	for _, line := range []string{
		"hello", "[1,2]", `"x"`, "{", `{"jsonrpc":"2.0"}`, `{"id":1}`, "\x00\x01",
		`{"method":1}`, `{"id":1,"method":"x","params":` + "\n",
	} {
		if _, err := decodeLine([]byte(line)); !errors.Is(err, ErrProtocol) {
			t.Errorf("decodeLine(%q) = %v, want ErrProtocol", line, err)
		}
	}
}

func TestDecodeLineUnknownAndMalformedUpdates(t *testing.T) {
	cases := []struct {
		line       string
		wantKind   EventKind
		wantReason string
	}{
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"usage_update","used":1,"size":2}}}`, KindUnknown, "unknown session update kind"},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":"text"}}}`, KindUnknown, "content"},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","title":"x"}}}`, KindUnknown, "toolCallId"},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":7}}`, KindUnknown, "cannot unmarshal"},
		{`{"jsonrpc":"2.0","method":"_reasonix.io/session/status_update","params":{"schemaVersion":2,"sessionId":"s","sequence":1,"status":{}}}`, KindUnknown, "schemaVersion 2"},
		{`{"jsonrpc":"2.0","method":"_reasonix.io/session/status_update","params":{"schemaVersion":1,"sessionId":"s","sequence":1,"status":{"schemaVersion":1,"sessionId":"s"}}}`, KindUnknown, "missing state, phase"},
		{`{"jsonrpc":"2.0","method":"_reasonix.io/future","params":{"sessionId":"s"}}`, KindUnknown, "unknown method"},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"image","data":"x"}}}}`, KindAgentMessage, ""},
	}
	for _, c := range cases {
		in, err := decodeLine([]byte(c.line))
		if err != nil || in.class != classNotification {
			t.Fatalf("%s: %v %v", c.line, in.class, err)
		}
		if in.event.Kind() != c.wantKind || in.event.Session() != "s" {
			t.Errorf("%s: got %#v", c.line, in.event)
			continue
		}
		if u, ok := in.event.(Unknown); ok && (!strings.Contains(u.Reason, c.wantReason) || len(u.Raw) == 0) {
			t.Errorf("%s: reason %q, want %q", c.line, u.Reason, c.wantReason)
		}
	}
}

func FuzzDecodeLine(f *testing.F) {
	if dir := os.Getenv("REASONIX_FIXTURES"); dir != "" || fileExists(fixtureDir) {
		if dir == "" {
			dir = fixtureDir
		}
		for _, name := range []string{"load_replay", "modes_probe", "edit_readonly_allow", "think"} {
			for _, l := range agentLines(f, filepath.Join(dir, name+".ndjson")) {
				f.Add(l)
			}
		}
	}
	f.Add([]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan","entries":[{"content":"a"}]}}}`))
	f.Add([]byte(`{"id":null,"error":{"code":1}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		in, err := decodeLine(line)
		if err != nil {
			if !errors.Is(err, ErrProtocol) {
				t.Fatalf("error %v does not wrap ErrProtocol", err)
			}
			if len(err.Error()) > 1024 {
				t.Fatalf("protocol error of %d bytes: the excerpt is not bounded", len(err.Error()))
			}
			return
		}
		trimmed := bytes.TrimSpace(line)
		if !json.Valid(trimmed) || trimmed[0] != '{' {
			t.Fatalf("accepted %q, which is not a JSON object", line)
		}
		var env envelope
		if err := json.Unmarshal(trimmed, &env); err != nil {
			t.Fatal(err)
		}
		switch in.class {
		case classRequest, classResponse:
			if in.event != nil {
				t.Fatalf("request/response with event %#v", in.event)
			}
			if len(env.ID) == 0 || (in.class == classRequest) != (env.Method != "") {
				t.Fatalf("%q classed as %d", line, in.class)
			}
		case classNotification:
			if in.event == nil || in.event.Kind() == "" {
				t.Fatalf("notification without event: %#v", in)
			}
			if len(env.ID) != 0 || in.method == "" || in.method != env.Method {
				t.Fatalf("%q classed as a notification of %q", line, in.method)
			}
			if sid := in.event.Session(); sid != "" && sid != sessionIDOf(env.Params) {
				t.Fatalf("event routed to session %q, the line names %q", sid, sessionIDOf(env.Params))
			}
			checkEvent(t, in.method, in.event)
			if _, err := json.Marshal(in.event); err != nil {
				t.Fatalf("event %#v does not encode for the journal: %v", in.event, err)
			}
		default:
			t.Fatalf("no class for %q", line)
		}
	})
}

// checkEvent asserts what consumers of each event type rely on without checking again.
func checkEvent(t *testing.T, method string, e Event) {
	t.Helper()
	if u, ok := e.(Unknown); ok {
		if u.Method != method || u.Reason == "" {
			t.Fatalf("unknown event %#v for method %q", u, method)
		}
		return
	}
	if e.Session() == "" {
		t.Fatalf("typed event without session: %#v", e)
	}
	switch x := e.(type) {
	case Chunk:
		if method != methodSessionUpdate || (x.Stream != KindAgentMessage && x.Stream != KindAgentThought && x.Stream != KindUserMessage) {
			t.Fatalf("chunk %#v from %q", x, method)
		}
	case ToolCall:
		if x.ID == "" {
			t.Fatalf("tool call without id: %#v", x)
		}
	case ToolCallUpdate:
		if x.ID == "" {
			t.Fatalf("tool call update without id: %#v", x)
		}
	case ModeUpdate:
		if x.ModeID == "" {
			t.Fatalf("mode update without mode: %#v", x)
		}
	case StatusUpdate:
		if method != methodStatusUpdate || x.Status.SessionID != x.SessionID || x.Status.State == "" || x.Status.Phase == "" || !json.Valid(x.Status.Raw) {
			t.Fatalf("status update %#v from %q", x, method)
		}
	case Plan, CommandsUpdate, ConfigUpdate:
		if method != methodSessionUpdate {
			t.Fatalf("%T from %q", x, method)
		}
	default:
		t.Fatalf("decodeLine produced %T", e)
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// BenchmarkDecodeUpdates measures decoded session updates per second over the mix of a real
// turn (chunks, tool calls, status updates with full snapshots).
func BenchmarkDecodeUpdates(b *testing.B) {
	dir := fixtureDirOrSkip(b)
	var lines [][]byte
	for _, name := range []string{"shell_readonly_allow", "steer_stream", "edit_allow"} {
		for _, l := range agentLines(b, filepath.Join(dir, name+".ndjson")) {
			if in, err := decodeLine(l); err == nil && in.class == classNotification {
				lines = append(lines, l)
			}
		}
	}
	var bytesPer int
	for _, l := range lines {
		bytesPer += len(l)
	}
	b.SetBytes(int64(bytesPer / len(lines)))
	b.ResetTimer()
	n := 0
	for i := 0; i < b.N; i++ {
		if _, err := decodeLine(lines[i%len(lines)]); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "updates/s")
}

// BenchmarkRouteChunks measures message chunks decoded, routed and delivered to a consumer per
// second through a Worker, the hot path of a streaming answer.
func BenchmarkRouteChunks(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Running the tests now."}}}}` + "\n")
	pr, pw := io.Pipe()
	w := newWorker(pr, io.Discard, nil, nil, nil)
	s := w.newSession("s1", SessionConfig{})
	if err := w.register(s); err != nil {
		b.Fatal(err)
	}
	drained := make(chan int)
	go func() {
		n := 0
		for e := range s.Events() {
			if c, ok := e.(Chunk); ok {
				n += len(c.Text)
			}
		}
		drained <- n
	}()
	b.ResetTimer()
	go func() {
		const batch = 64
		buf := bytes.Repeat(line, batch)
		for i := 0; i < b.N; i += batch {
			k := min(batch, b.N-i)
			_, _ = pw.Write(buf[:k*len(line)])
		}
		_ = pw.Close()
	}()
	total := <-drained
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "updates/s")
	if total != b.N*len("Running the tests now.") {
		b.Fatalf("delivered %d letters, want %d", total, b.N*len("Running the tests now."))
	}
}
