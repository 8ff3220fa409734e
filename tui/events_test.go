package tui

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"reasonixctl/core"
)

// The events tab in the dashboard: the root reads a task's newest events when it is shown,
// routes the pane's keys and pages, and reads the tail again when the pane asks. The pane's own
// behaviour is tested in tui/events.

// stepJournal is a journal of n finished tool calls, one line each: "step 000001" …
func stepJournal(task string, n int) []core.Event {
	evs := make([]core.Event, 0, n)
	for i := 1; i <= n; i++ {
		evs = append(evs, ev(task, uint64(i), core.EventToolCall,
			core.ToolCallData{ToolCallID: fmt.Sprintf("c%d", i), Title: fmt.Sprintf("step %06d", i), Kind: "execute", Status: "completed"})[0])
	}
	return evs
}

func journalFake(task string, journal []core.Event) *fakeService {
	f := newFake()
	v := core.TaskView{TaskID: task, State: core.StateRunning, Phase: "implementing", WorkerLane: core.LaneFast, RepositoryID: "3ce0f10f"}
	f.tasks = []core.TaskView{v}
	f.details[task] = core.TaskDetail{View: v, Repository: "/src/app", Objective: "Stream a lot.", CreatedAt: epoch}
	f.journals[task] = journal
	return f
}

var stepRE = regexp.MustCompile(`step (\d{6})`)

// shownSteps are the step numbers on screen, top to bottom.
func shownSteps(view string) []int {
	var out []int
	for _, m := range stepRE.FindAllStringSubmatch(view, -1) {
		n, _ := strconv.Atoi(m[1])
		out = append(out, n)
	}
	return out
}

func TestSelectingATaskReadsOnlyItsNewestEvents(t *testing.T) {
	f := journalFake("flood", stepJournal("flood", 20000))
	h := newHarness(t, f, 80, 24)
	// The newest events first (the newest 256), then pages before them.
	if len(f.reads) == 0 || f.reads[0] != 20000-256+1 || len(f.reads) > 6 {
		t.Fatalf("journal read from %v", f.reads)
	}
	h.requireView("step 020000")
	// Usage today cannot be exact from a window that does not start at the first event.
	if h.task("flood").fromStart {
		t.Fatal("a window from seq 15001 counted as the whole journal")
	}
	// Scrolling up past the window reads older events; a live event shows at the tail.
	before := len(f.reads)
	h.press("g")
	if len(f.reads) != before+1 || f.reads[before] != 1 {
		t.Fatalf("g read the journal from %v", f.reads[before:])
	}
	if steps := shownSteps(h.view()); len(steps) == 0 || steps[0] != 1 {
		t.Fatalf("after g the screen shows steps %v", steps)
	}
}

// G in a pane that holds old events reads the newest window again, and it follows the live
// stream from there.
func TestGoingBackToTheTailReadsTheNewestWindowAgain(t *testing.T) {
	f := journalFake("flood", stepJournal("flood", 20000))
	h := newHarness(t, f, 80, 24)
	h.press("g", "pgdown", "pgdown")
	if steps := shownSteps(h.view()); len(steps) == 0 || steps[0] <= 1 || steps[len(steps)-1] > 200 {
		t.Fatalf("paging down from the first event shows steps %v", steps)
	}
	before := len(f.reads)
	h.press("G")
	if len(f.reads) == before || f.reads[before] != 20000-256+1 {
		t.Fatalf("G read the journal from %v", f.reads[before:])
	}
	h.requireView("step 020000")
	if strings.Contains(h.view(), "G follows the live tail") {
		t.Fatalf("after G the pane does not follow the tail:\n%s", h.view())
	}
	h.send(ev("flood", 20001, core.EventToolCall, core.ToolCallData{ToolCallID: "x", Title: "step 020001", Status: "completed"}))
	h.requireView("step 020001")
}

func TestSearchSaysItCoversTheLoadedEvents(t *testing.T) {
	f := journalFake("flood", stepJournal("flood", 20000))
	h := newHarness(t, f, 120, 24)
	h.press("/")
	h.typeText("step 01")
	h.press("enter")
	h.requireView("in the loaded events")
}

// N past the oldest loaded match reads the journal before the window through the dashboard:
// the pages come back to the pane, which moves to the match they hold.
func TestSearchReadsOlderEventsThroughTheDashboard(t *testing.T) {
	j := stepJournal("flood", 20000)
	j[14999] = ev("flood", 15000, core.EventToolCall, core.ToolCallData{ToolCallID: "needle", Title: "needle at step 015000", Status: "completed"})[0]
	f := journalFake("flood", j)
	h := newHarness(t, f, 140, 24)
	h.press("/")
	h.typeText("needle")
	h.press("enter")
	h.requireView("no match in the loaded events · N searches older ones")
	h.press("N")
	h.requireView("needle at step 015000", "/needle  match 1 of 1")
}

func TestDashboardSendsEventKeysToThePane(t *testing.T) {
	h := newHarness(t, scenario(), 120, 40)
	h.press("[", "enter")
	h.requireView("policy ▾ deny execute: curl example.com", "reason network_tool: network tools are denied")
	h.press("[", "[", "enter")
	h.requireView("tool   ▾ read internal/auth/login.go", "output")
	h.press("G")
	if !h.task("login-fix").events.Following() {
		t.Fatal("G does not follow the live tail again")
	}
	// A key that does nothing says why.
	h.press("enter")
	h.requireView("nothing selected: [ and ] select a tool call, decision or reasoning")
	// In the diff view the same keys page through hunks.
	h.press("2", "]")
	if file, top := h.m.review.Position("login-fix"); file != 0 || top != 1 {
		t.Fatalf("] in the diff view: file %d, top %d", file, top)
	}
}

func TestEventFilterShowsOneKind(t *testing.T) {
	h := newHarness(t, scenario(), 120, 40)
	h.press("f")
	h.requireView("1 Events: agent text", "I will read the login code first")
	v := h.view()
	for _, hidden := range []string{"curl example.com", "provisioning → running", "read internal/auth/login.go"} {
		if strings.Contains(v, hidden) {
			t.Fatalf("the agent text filter shows %q:\n%s", hidden, v)
		}
	}
	h.press("f")
	h.requireView("1 Events: tool calls", "read internal/auth/login.go")
	h.press("f")
	h.requireView("1 Events: policy decisions", "curl example.com", "go test ./internal/auth")
	if strings.Contains(h.view(), "I will read") {
		t.Fatal("the decisions filter shows agent text")
	}
	// A search looks only at what the filter shows.
	h.press("/")
	h.typeText("login")
	h.requireView("/login", "no match")
	h.press("esc", "f")
	h.requireView("1 Events: state changes", "provisioning → running", "review ready")
	h.press("f")
	h.requireView("1 Events: interactions", "no interactions yet · f shows the others")
	h.press("f")
	h.requireView("1 Events ", "I will read the login code first", "curl example.com")
}

// In the dashboard, n and N move between matches only while a search is kept; otherwise n
// starts a new task as always.
func TestSearchKeysInTheDashboard(t *testing.T) {
	h := newHarness(t, scenario(), 120, 40)
	h.press("/")
	h.typeText("nq") // typed text, not the new-task or quit keys
	h.requireView("/nq", "no match")
	h.press("backspace", "backspace")
	h.typeText("policy")
	h.requireView("/policy", "match 1 of 2", "n/N next/prev match")
	h.press("enter", "n")
	h.requireView("match 2 of 2")
	if h.stack().top() != nil {
		t.Fatal("n opened a dialog while a search was kept")
	}
	h.press("esc", "n")
	h.requireView("New task")
}

// monologueJournal streams words "w0000000 w0000001 …" in agent-text events of about size
// bytes each, adding up to total bytes.
func monologueJournal(task string, total, size int) []core.Event {
	var evs []core.Event
	word := 0
	for seq := uint64(1); total > 0; seq++ {
		var b strings.Builder
		for b.Len() < size {
			fmt.Fprintf(&b, "w%07d ", word)
			word++
		}
		total -= b.Len()
		evs = append(evs, ev(task, seq, core.EventAgentMessage, core.TextData{Text: b.String()})[0])
	}
	return evs
}
