package engine

import (
	"context"
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

	"reasonixctl/acp"
	"reasonixctl/core"
	"reasonixctl/store"
)

const (
	// textFlushBytes and textFlushDelay bound how much agent text is coalesced into one journal
	// event: readable paragraphs for the dashboard, few store commits per turn.
	textFlushBytes = 4 << 10
	textFlushDelay = 250 * time.Millisecond
	toolOutputMax  = 2 << 10
)

// textBuffer coalesces streamed text of one stream: the agent's message or its reasoning. A
// chunk of the other stream flushes it first, so the journal keeps the order they came in.
type textBuffer struct {
	b      strings.Builder
	stream acp.EventKind
}

// callBatch holds tool-call events, encoded, not yet journaled: while the worker's events arrive
// faster than one store commit each, consecutive tool calls share a commit.
type callBatch struct {
	events []store.NewEvent
	bytes  int
}

const (
	// A batch is journaled once it holds this many events or bytes (one commit must stay well
	// under badger's transaction limit), or as soon as no further event is waiting.
	callBatchEvents = 256
	callBatchBytes  = 128 << 10
)

// pump journals the session's events until its stream ends. It never blocks the worker: acp
// queues events without bound up to its flood limit, and this goroutine drains that queue,
// taking the events itself (Session.Next) rather than through a channel that would cost a
// goroutine per task.
func (t *liveTask) pump(s *acp.Session) {
	defer close(t.pumpDone)
	flush := time.NewTimer(time.Hour)
	flush.Stop()
	for {
		ev, ok, closed := s.Next()
		switch {
		case closed:
			t.flushText()
			return
		case ok:
			t.handleNow(ev, flush)
			if s.Backlog() == 0 {
				// Caught up: what was batched while behind is journaled now.
				t.flushCalls()
			}
			// Text waits no longer than its delay however fast the events come.
			select {
			case <-flush.C:
				t.flushText()
			default:
			}
		default:
			select {
			case <-s.Ready():
			case <-flush.C:
				t.flushText()
			}
		}
	}
}

func (t *liveTask) handleNow(ev acp.Event, flush *time.Timer) {
	t.handling.Lock()
	defer t.handling.Unlock()
	t.handle(ev, flush)
}

// queueCall adds a tool-call event to the batch, journaling the batch when it is full.
func (t *liveTask) queueCall(ev newEvent) {
	enc := encodeEvents([]newEvent{ev})[0]
	t.mu.Lock()
	t.calls.events = append(t.calls.events, enc)
	t.calls.bytes += len(enc.Data)
	full := len(t.calls.events) >= callBatchEvents || t.calls.bytes >= callBatchBytes
	t.mu.Unlock()
	if full {
		t.flushCalls()
	}
}

// flushCalls journals the batched tool-call events.
func (t *liveTask) flushCalls() {
	t.flushing.Lock()
	defer t.flushing.Unlock()
	t.flushCallsLocked()
}

func (t *liveTask) flushCallsLocked() {
	t.mu.Lock()
	evs := t.calls.events
	t.calls = callBatch{}
	t.mu.Unlock()
	if len(evs) == 0 {
		return
	}
	if _, err := t.e.store.Append(t.id, evs...); err != nil {
		t.e.log.Warn("journal append failed", "task", t.id, "err", err)
	}
}

func (t *liveTask) handle(ev acp.Event, flush *time.Timer) {
	e := t.e
	if e.liveTask(t.id) != t {
		// A worker the task has replaced (or let go) says nothing about the task any more.
		return
	}
	switch ev := ev.(type) {
	case acp.Chunk:
		if (ev.Stream != acp.KindAgentMessage && ev.Stream != acp.KindAgentThought) || ev.Text == "" {
			return
		}
		t.mu.Lock()
		switched := t.text.b.Len() > 0 && t.text.stream != ev.Stream
		t.mu.Unlock()
		if switched {
			// Journaled before any of the new stream's text can be, whoever flushes next.
			t.flushText()
		}
		t.mu.Lock()
		if t.text.b.Len() == 0 {
			t.text.stream = ev.Stream
			flush.Reset(textFlushDelay)
		}
		t.text.b.WriteString(ev.Text)
		full := t.text.b.Len() >= textFlushBytes
		t.mu.Unlock()
		if full {
			t.flushText()
		}
		return
	}
	switch ev.(type) {
	case acp.ToolCall, acp.ToolCallUpdate:
		// Joins the batch of tool calls, unless text streamed since must be journaled first.
		t.mu.Lock()
		held := t.text.b.Len() > 0
		t.mu.Unlock()
		if held {
			t.flushText()
		}
	default:
		t.flushText()
	}
	switch ev := ev.(type) {
	case acp.ToolCall:
		t.queueCall(event(core.EventToolCall, core.ToolCallData{
			ToolCallID: ev.ID, Title: ev.Title, Kind: ev.ToolKind, Status: ev.Status, Input: rawValue(ev.RawInput),
		}))
		return
	case acp.ToolCallUpdate:
		t.queueCall(event(core.EventToolCall, core.ToolCallData{
			ToolCallID: ev.ID, Title: ev.Title, Status: ev.Status, Output: core.TruncateText(ev.Text, toolOutputMax),
		}))
		if ev.Status == "completed" || ev.Status == "failed" {
			t.commandFinished(ev)
			t.mutationFinished(ev.ID)
		}
	case acp.Plan:
		entries := make([]core.PlanEntry, len(ev.Entries))
		for i, p := range ev.Entries {
			entries[i] = core.PlanEntry{Content: p.Content, Status: p.Status}
		}
		e.appendEvents(t.id, event(core.EventPlan, core.PlanData{Entries: entries}))
	case acp.StatusUpdate:
		e.applyStatus(t.id, ev.Status)
		t.checkLane(ev.Status)
	case acp.ModeUpdate:
		e.appendEvents(t.id, event(core.EventWorkerStatus, core.WorkerStatusData{Phase: "mode " + ev.ModeID}))
		t.checkLane(acp.Status{Mode: ev.ModeID})
	case acp.Unknown:
		// Kept verbatim (bounded) so that a newer worker's messages are on record.
		e.appendEvents(t.id, event(core.EventWorkerUnknown, map[string]any{
			"method": ev.Method, "kind": ev.UpdateKind, "reason": ev.Reason, "raw": core.TruncateText(string(ev.Raw), toolOutputMax),
		}))
	case acp.SteerDropped:
		// The steered event said the text went to the worker; this says it never got there.
		var evs []newEvent
		for _, text := range ev.Texts {
			evs = append(evs, event(core.EventError, core.ErrorData{
				Text: core.TruncateText("a steer did not reach the worker ("+ev.Reason+"): "+text, toolOutputMax)}))
		}
		e.appendEvents(t.id, evs...)
	case acp.ErrorEvent:
		if e.shuttingDown() || e.liveTask(t.id) != t {
			return
		}
		e.pause(t.id, core.PhaseWorkerCrashed, "the worker stopped: "+ev.Err.Error())
	}
}

// flushText journals the batched tool calls and then the coalesced text, as one agent_message
// or agent_thought: everything the pump holds, in the order it came.
func (t *liveTask) flushText() {
	t.flushing.Lock()
	defer t.flushing.Unlock()
	t.flushCallsLocked()
	t.mu.Lock()
	text := t.text.b.String()
	thought := t.text.stream == acp.KindAgentThought
	t.text.b.Reset()
	t.mu.Unlock()
	if text == "" {
		return
	}
	if len(text) <= maxEventText {
		if thought {
			t.e.appendEvents(t.id, event(core.EventAgentThought, core.AgentThoughtData{Text: text}))
		} else {
			t.e.appendEvents(t.id, event(core.EventAgentMessage, core.AgentMessageData{Text: text}))
		}
		return
	}
	var evs []newEvent
	for _, piece := range splitText(text, maxEventText) {
		if thought {
			evs = append(evs, event(core.EventAgentThought, core.AgentThoughtData{Text: piece}))
		} else {
			evs = append(evs, event(core.EventAgentMessage, core.AgentMessageData{Text: piece}))
		}
	}
	t.e.appendEvents(t.id, evs...)
}

// maxEventText bounds the text of one agent_message or agent_thought. Redaction cuts any
// string longer than redact.MaxStringLen characters, so a longer event would lose its end; the
// worker's queue merges chunks up to 64 KiB, so one flush can be far longer than
// textFlushBytes.
const maxEventText = 6 << 10

// splitText cuts s into pieces of at most max bytes, after a newline or else a space where one
// falls in the second half of a piece (a secret spans no whitespace, so redaction still sees it
// whole), else at a character boundary.
func splitText(s string, max int) []string {
	var out []string
	for len(s) > max {
		cut := strings.LastIndexByte(s[:max], '\n') + 1
		if cut <= max/2 {
			cut = strings.LastIndexByte(s[:max], ' ') + 1
		}
		if cut <= max/2 {
			cut = max
			for cut > 0 && !utf8.RuneStart(s[cut]) {
				cut--
			}
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return append(out, s)
}

// checkLane fails a fast-lane task whose session drifted into goal mode or started a goal: the
// supervisor chose a direct-edit worker and did not approve long-horizon autonomy. (A goal
// status such as cancelled, reported after a cancel, is no drift.)
func (t *liveTask) checkLane(st acp.Status) {
	r, err := t.e.load(t.id)
	if err != nil || r.Lane != core.LaneFast || r.State.Terminal() {
		return
	}
	if st.Mode == "goal" || st.Goal.Status == "running" {
		t.e.fail(t.id, "lane_policy_violation", "the fast-lane session entered goal mode")
	}
}

func rawValue(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	return v
}

// cancelTurn cancels the running turn, if any, without waiting for it to settle.
func (t *liveTask) cancelTurn() {
	t.mu.Lock()
	s := t.session
	running := t.turnEnd != nil
	t.cancelled = true
	t.mu.Unlock()
	if s == nil || !running {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = s.Cancel(ctx)
}
