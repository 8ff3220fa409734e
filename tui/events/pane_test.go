package events

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"reasonixctl/core"
)

// paneFeed adds events with consecutive seqs.
type paneFeed struct {
	t   *testing.T
	p   *Pane
	seq uint64
}

func newPaneFeed(t *testing.T, w, h int) *paneFeed {
	return &paneFeed{t: t, p: newTestPane(w, h)}
}

func (f *paneFeed) add(typ string, data any) {
	f.seq++
	f.p.add(core.Event{TaskID: "t", Seq: f.seq, Type: typ, Data: mustJSON(data)})
}

func (f *paneFeed) text(typ, s string) { f.add(typ, core.TextData{Text: s}) }

func (f *paneFeed) press(keys ...string) { press(f.p, keys...) }

// lines is the pane's view, checked for its size, without trailing blanks.
func (f *paneFeed) lines() []string {
	f.t.Helper()
	v := f.p.view()
	lines := strings.Split(v, "\n")
	if len(lines) != f.p.h {
		f.t.Fatalf("view has %d lines, want %d:\n%s", len(lines), f.p.h, v)
	}
	for _, l := range lines {
		if w := ansi.StringWidth(l); w > f.p.w {
			f.t.Fatalf("line %q is %d wide, pane is %d", l, w, f.p.w)
		}
	}
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func (f *paneFeed) view() string { return strings.Join(f.lines(), "\n") }

func (f *paneFeed) require(subs ...string) {
	f.t.Helper()
	v := f.view()
	for _, s := range subs {
		if !strings.Contains(v, s) {
			f.t.Fatalf("view lacks %q:\n%s", s, v)
		}
	}
}

func (f *paneFeed) forbid(subs ...string) {
	f.t.Helper()
	v := f.view()
	for _, s := range subs {
		if strings.Contains(v, s) {
			f.t.Fatalf("view shows %q:\n%s", s, v)
		}
	}
}

// prose joins the text of the view's lines, labels and indentation removed, one space per
// line break: a word cut across lines shows as two words.
func prose(lines []string) string {
	var words []string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		l = strings.TrimPrefix(l, "agent")
		words = append(words, strings.Fields(l)...)
	}
	return strings.Join(words, " ")
}

func TestStreamedCharactersReadAsOneParagraph(t *testing.T) {
	const sentence = "Let me think about this. The handler returns early when the user is empty, so the check belongs before the lookup."
	for w := 20; w <= 80; w++ {
		f := newPaneFeed(t, w, 40)
		for _, r := range sentence {
			f.text(core.EventAgentMessage, string(r))
		}
		lines := f.lines()
		if got := prose(lines); got != sentence {
			t.Fatalf("width %d: the paragraph reads\n%q\nwant\n%q\n%s", w, got, sentence, strings.Join(lines, "\n"))
		}
		if n := strings.Count(f.view(), "agent"); n != 1 {
			t.Fatalf("width %d: %d agent labels for one message:\n%s", w, n, f.view())
		}
		// Streamed one character at a time, it wraps exactly as when it arrives whole.
		whole := newPaneFeed(t, w, 40)
		whole.text(core.EventAgentMessage, sentence)
		if f.view() != whole.view() {
			t.Fatalf("width %d: streamed\n%s\nwhole\n%s", w, f.view(), whole.view())
		}
	}
}

func TestBlankLineInStreamedTextStartsAParagraph(t *testing.T) {
	f := newPaneFeed(t, 60, 20)
	// The blank line arrives split across two chunks.
	for _, c := range []string{"First para", "graph ends here.\n", "\nSecond ", "paragraph", " follows."} {
		f.text(core.EventAgentMessage, c)
	}
	want := []string{" agent  First paragraph ends here.", "", "   Second paragraph follows."}
	if got := f.lines(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("view\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestOtherEventsEndAMessageButUsageDoesNot(t *testing.T) {
	f := newPaneFeed(t, 60, 20)
	f.text(core.EventAgentMessage, "Reading the ")
	f.add(core.EventUsage, core.Usage{PromptTokens: 100, CompletionTokens: 10})
	f.text(core.EventAgentMessage, "handler now.")
	f.add(core.EventUsage, core.Usage{PromptTokens: 200, CompletionTokens: 20})
	f.require("agent  Reading the handler now.")
	if n := strings.Count(f.view(), "usage"); n != 1 {
		t.Fatalf("%d usage lines:\n%s", n, f.view())
	}
	f.require("prompt 200")
	f.add(core.EventStateChanged, core.StateChangedData{From: "running", To: "paused"})
	f.text(core.EventAgentMessage, "Resumed.")
	if n := strings.Count(f.view(), "agent"); n != 2 {
		t.Fatalf("a message after a state change continues the old one:\n%s", f.view())
	}
}

func TestToolCallIsOneLineUpdatedInPlaceAndExpands(t *testing.T) {
	f := newPaneFeed(t, 80, 20)
	f.text(core.EventAgentMessage, "Running the tests.")
	f.add(core.EventToolCall, core.ToolCallData{ToolCallID: "c1", Title: "go test ./internal/auth", Kind: "execute", Status: "pending",
		Input: map[string]any{"command": "go test ./internal/auth"}})
	f.require("tool   ▸ go test ./internal/auth · ○ pending")
	f.add(core.EventToolCall, core.ToolCallData{ToolCallID: "c1", Status: "in_progress"})
	f.add(core.EventToolCall, core.ToolCallData{ToolCallID: "c1", Status: "completed", Output: "ok  \tapp/internal/auth\t0.012s\nPASS"})
	f.require("tool   ▸ go test ./internal/auth · ✓ completed")
	f.forbid("pending", "in_progress", "PASS")
	if n := strings.Count(f.view(), "go test ./internal/auth"); n != 1 {
		t.Fatalf("the tool call shows on %d lines:\n%s", n, f.view())
	}
	f.press("[")
	if f.p.following() {
		t.Fatal("a selection still follows the tail")
	}
	f.press("enter")
	f.require("tool   ▾ go test ./internal/auth", `input  {"command":"go test ./internal/auth"}`, "ok      app/internal/auth", "PASS")
	f.press("enter")
	f.forbid("PASS", "input")
	f.press("G")
	if !f.p.following() || f.p.sel != 0 {
		t.Fatal("G does not clear the selection and follow")
	}
}

func TestDecisionExpandsToItsReasonAndHint(t *testing.T) {
	f := newPaneFeed(t, 60, 20)
	f.add(core.EventPermissionDecided, core.PermissionData{Kind: "execute", Argv: []string{"curl", "example.com"}, Decision: "deny",
		Code: "network_tool", Reason: "network tools are denied because the contract grants no network access to this task",
		Hint: "ask the supervisor for network access or use the vendored copy", By: "policy"})
	lines := f.lines()
	if len(lines) != 1 || !strings.HasPrefix(lines[0], " policy ▸ deny execute: curl example.com") {
		t.Fatalf("a decision is not one line:\n%s", strings.Join(lines, "\n"))
	}
	f.press("[", "enter")
	got := prose(f.lines())
	for _, want := range []string{
		"reason network_tool: network tools are denied because the contract grants no network access to this task",
		"hint ask the supervisor for network access or use the vendored copy",
	} {
		if !strings.Contains(got, want) {
			t.Fatalf("expanded decision lacks %q:\n%s", want, f.view())
		}
	}
}

func TestReasoningFoldsOnceTheMessageStarts(t *testing.T) {
	f := newPaneFeed(t, 100, 20)
	for _, c := range []string{"The empty user ", "slips through because ", "the lookup runs first."} {
		f.text(core.EventAgentThought, c)
	}
	f.require("▾ thinking (10 words)", "The empty user slips through because the lookup runs first.")
	f.text(core.EventAgentMessage, "I will add the check.")
	f.require("▸ thinking (10 words)", "agent  I will add the check.")
	f.forbid("slips through")
	// It unfolds on request, and folds again.
	f.press("[")
	f.press("enter")
	f.require("▾ thinking (10 words)", "slips through")
	f.press("enter")
	f.forbid("slips through")
	// A block older than the newest entry folds too.
	f.press("G")
	f.text(core.EventAgentThought, "Now the test.")
	f.require("Now the test.")
	f.add(core.EventToolCall, core.ToolCallData{ToolCallID: "c9", Title: "edit login_test.go", Status: "in_progress"})
	f.forbid("Now the test.")
	f.require("▸ thinking (3 words)")
}

func TestScrolledBackStaysPutWhileEventsArrive(t *testing.T) {
	f := newPaneFeed(t, 60, 12)
	for i := 1; i <= 100; i++ {
		f.text(core.EventAgentMessage, "message number "+strconv.Itoa(i))
		f.add(core.EventToolCall, core.ToolCallData{ToolCallID: "c" + strconv.Itoa(i), Title: "read file " + strconv.Itoa(i), Status: "completed"})
	}
	f.press("pgup", "pgup")
	before := f.lines()
	if f.p.following() || !strings.Contains(before[len(before)-1], "lines back · G follows the live tail") {
		t.Fatalf("no scroll-back note:\n%s", strings.Join(before, "\n"))
	}
	for i := 101; i <= 160; i++ {
		f.text(core.EventAgentThought, "thinking "+strconv.Itoa(i))
		f.text(core.EventAgentMessage, "message number "+strconv.Itoa(i))
		f.add(core.EventToolCall, core.ToolCallData{ToolCallID: "c" + strconv.Itoa(i), Title: "read file " + strconv.Itoa(i), Status: "in_progress"})
		f.add(core.EventToolCall, core.ToolCallData{ToolCallID: "c" + strconv.Itoa(i), Status: "failed"})
	}
	after := f.lines()
	if strings.Join(before[:len(before)-1], "\n") != strings.Join(after[:len(after)-1], "\n") {
		t.Fatalf("the view moved under the reader:\nbefore\n%s\nafter\n%s", strings.Join(before, "\n"), strings.Join(after, "\n"))
	}
	if before[len(before)-1] == after[len(after)-1] {
		t.Fatalf("the note does not count the new lines: %q", after[len(after)-1])
	}
	f.press("G")
	f.require("message number 160", "read file 160")
	f.forbid("lines back")
	// Paging down all the way follows again.
	f.press("pgup", "pgdown", "pgdown", "pgdown")
	if !f.p.following() {
		t.Fatal("paging down to the end does not follow")
	}
	f.press("g")
	f.require("message number 1", "read file 1 ")
}

func TestSelectionMovesAndStaysInView(t *testing.T) {
	f := newPaneFeed(t, 60, 6)
	for i := 1; i <= 30; i++ {
		f.text(core.EventAgentMessage, "step "+strconv.Itoa(i))
		f.add(core.EventToolCall, core.ToolCallData{ToolCallID: "c" + strconv.Itoa(i), Title: "tool " + strconv.Itoa(i), Status: "completed", Output: strings.Repeat("out\n", 20)})
	}
	f.press("[")
	f.require("tool 30")
	for range 10 {
		f.press("[")
	}
	f.require("tool 20 ")
	f.press("]")
	f.require("tool 21 ")
	// Expanding shows the output without losing the selected line.
	f.press("enter")
	f.require("tool 21 ", "out")
	if f.p.sel == 0 {
		t.Fatal("selection lost")
	}
	f.press("]")
	f.require("tool 22 ")
}

func TestPaneBufferStaysBounded(t *testing.T) {
	f := newPaneFeed(t, 40, 10)
	// An unbroken monologue streams into one entry, which must still be trimmed.
	for i := range 12000 {
		f.text(core.EventAgentMessage, "line "+strconv.Itoa(i)+"\n")
	}
	if f.p.cost > MaxLines || f.p.msg == nil || f.p.msg.cost < MaxLines-10 {
		t.Fatalf("a monologue keeps %d lines, bound is %d", f.p.cost, MaxLines)
	}
	f.require("line 11999")
	for i := range 6000 {
		f.text(core.EventAgentThought, "thought "+strconv.Itoa(i)+"\n\n")
	}
	if f.p.cost > MaxLines || f.p.thought == nil {
		t.Fatalf("reasoning keeps %d lines, bound is %d", f.p.cost, MaxLines)
	}
	big := strings.Repeat("i", 100000)
	for i := range 6000 {
		d := core.ToolCallData{ToolCallID: "c" + strconv.Itoa(i%7000), Title: "x", Status: "completed"}
		if i > 5990 {
			// An edit's input can be a whole file.
			d.Input, d.Output = big, big
		}
		f.add(core.EventToolCall, d)
		f.add(core.EventWorkerStatus, core.WorkerStatusData{Phase: "p" + strconv.Itoa(i)})
	}
	if f.p.cost > MaxLines || len(f.p.entries)-f.p.head > MaxLines || len(f.p.tools) > MaxLines || len(f.p.entries) > 2*MaxLines+64 {
		t.Fatalf("pane keeps %d lines, %d entries (%d slots), %d tool ids; bound is %d",
			f.p.cost, len(f.p.entries)-f.p.head, len(f.p.entries), len(f.p.tools), MaxLines)
	}
	f.require("worker p5999")
	for _, e := range f.p.tools {
		in, _ := e.tool.Input.(string)
		if len(in) > 2*maxDetailBytes || len(e.tool.Output) > 2*maxDetailBytes {
			t.Fatalf("a tool call keeps %d bytes of input and %d of output", len(in), len(e.tool.Output))
		}
	}
}

func TestPaneIgnoresDuplicateSeqs(t *testing.T) {
	p := newTestPane(60, 10)
	add := func(seq uint64, s string) {
		p.add(core.Event{TaskID: "t", Seq: seq, Type: core.EventSteered, Data: mustJSON(core.TextData{Text: s})})
	}
	add(1, "one")
	add(2, "two")
	add(2, "two")
	add(1, "one")
	add(3, "three")
	v := p.view()
	for _, s := range []string{"one", "two", "three"} {
		if n := strings.Count(v, "steer  "+s); n != 1 {
			t.Fatalf("%q shows %d times:\n%s", s, n, v)
		}
	}
}

func TestWorkerTextCannotDrawOutsideThePane(t *testing.T) {
	f := newPaneFeed(t, 60, 8)
	f.text(core.EventAgentMessage, "red \x1b[31malert\x1b[0m\tdone\r\nnext\rover")
	f.add(core.EventToolCall, core.ToolCallData{ToolCallID: "c", Title: "\x1b[2Jwipe", Status: "completed"})
	v := f.view()
	if strings.ContainsRune(v, '\x1b') || strings.ContainsRune(v, '\r') || strings.ContainsRune(v, '\t') {
		t.Fatalf("control characters reach the screen: %q", v)
	}
	// The escape sequences show as inert text; a CRLF ends a line, a bare CR shows.
	f.require("red ␛[31malert␛[0m    done", "next␍over", "␛[2Jwipe")
}

func TestStreamOfBlanksStaysCheap(t *testing.T) {
	f := newPaneFeed(t, 40, 5)
	f.text(core.EventAgentMessage, "start")
	for range 20000 {
		f.text(core.EventAgentMessage, " ")
	}
	f.text(core.EventAgentMessage, "end")
	if n := len(f.p.msg.paras[0].text); n > 2*maxBlankRun {
		t.Fatalf("a run of blanks keeps %d bytes", n)
	}
	f.require("agent  start", "  end")
}

// BenchmarkStreamIntoOneMessage adds 8-byte chunks to one ever-growing message (trimmed at the
// buffer bound): the cost of a chunk must not grow with the message. One op is one chunk.
func BenchmarkStreamIntoOneMessage(b *testing.B) {
	p := newTestPane(100, 40)
	words := strings.Fields("the handler returns early when the user is empty so the check belongs before the lookup")
	evs := make([]core.Event, 0, 4096)
	for i := range cap(evs) {
		text := words[i%len(words)] + " "
		if i%97 == 96 {
			text += "\n\n"
		}
		evs = append(evs, core.Event{TaskID: "t", Type: core.EventAgentMessage, Data: mustJSON(core.TextData{Text: text})})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ev := evs[i%len(evs)]
		ev.Seq = uint64(i + 1)
		p.add(ev)
		if i%320 == 319 {
			_ = p.view()
		}
	}
}

// A state change that only moves the phase says so, not "provisioning → provisioning".
func TestPhaseOnlyStateChangeReadsAsAPhase(t *testing.T) {
	data, _ := json.Marshal(core.StateChangedData{From: "provisioning", To: "provisioning", Phase: "starting_reasonix"})
	if _, got := formatEvent(core.Event{Type: core.EventStateChanged, Data: data}); got != "state  provisioning · phase starting_reasonix" {
		t.Fatalf("got %q", got)
	}
	data, _ = json.Marshal(core.StateChangedData{From: "running", To: "paused", Phase: "turn_ended"})
	if _, got := formatEvent(core.Event{Type: core.EventStateChanged, Data: data}); got != "state  running → paused (turn_ended)" {
		t.Fatalf("got %q", got)
	}
}

// A tool call titled by its tool alone shows what it runs or reads; a title that already says
// it is left as it is.
func TestToolLineNamesItsCommandOrPath(t *testing.T) {
	cases := []struct {
		d    core.ToolCallData
		want string
	}{
		{core.ToolCallData{Title: "bash", Status: "pending", Input: `{"command":"go test ./...\nsecond line"}`}, "bash go test ./... · ○ pending"},
		{core.ToolCallData{Title: "read_file", Status: "completed", Input: `{"path":"internal/auth/login.go"}`}, "read_file internal/auth/login.go · ✓ completed"},
		{core.ToolCallData{Title: "bash go test ./...", Input: `{"command":"go test ./..."}`}, "bash go test ./..."},
		{core.ToolCallData{Title: "todo_write", Input: `{"todos":[]}`}, "todo_write"},
		{core.ToolCallData{Title: "bash", Input: `{"command":"` + strings.Repeat("x", 200)}, "bash"}, // cut JSON
	}
	for _, c := range cases {
		if got := toolHeader(&c.d); got != c.want {
			t.Errorf("%+v: got %q, want %q", c.d, got, c.want)
		}
	}
}

// The events of landing, rebasing and amending read as sentences, not raw JSON.
func TestLaterEventsReadAsSentences(t *testing.T) {
	for _, c := range []struct {
		ev   core.Event
		want string
	}{
		{core.Event{Type: core.EventAppliedToCheckout, Data: mustJSON(core.AppliedData{Checkout: "/src/app", Branch: "main",
			Commit: "1111111111111111", Before: "2222222222222222", Applied: "3333333333333333"})},
			"apply  111111111111 cherry-picked onto main of /src/app: 222222222222 → 333333333333 (nothing pushed)"},
		{core.Event{Type: core.EventRebased, Data: mustJSON(core.RebasedData{From: "aaaaaaaaaaaaaaaa", To: "bbbbbbbbbbbbbbbb", ReviewRevision: 2, Conflicts: []string{"a.go"}})},
			"rebase review 2 moved from aaaaaaaaaaaa onto bbbbbbbbbbbb; 1 file(s) with conflict markers for the worker: a.go"},
		{core.Event{Type: core.EventContractAmended, Data: mustJSON(core.ContractAmendedData{Revision: 1, Dropped: []string{"vet"}, ToReview: []string{"clean"}})},
			"checks revision 1: dropped vet; now approved at review: clean"},
	} {
		if _, got := formatEvent(c.ev); got != c.want {
			t.Errorf("%s: %q, want %q", c.ev.Type, got, c.want)
		}
	}
}
