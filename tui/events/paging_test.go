package events

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"reasonixctl/core"
)

// stepJournal is a journal of n finished tool calls, one line each: "step 000001" …
func stepJournal(task string, n int) []core.Event {
	evs := make([]core.Event, 0, n)
	for i := 1; i <= n; i++ {
		evs = append(evs, ev(task, uint64(i), core.EventToolCall,
			core.ToolCallData{ToolCallID: fmt.Sprintf("c%d", i), Title: fmt.Sprintf("step %06d", i), Kind: "execute", Status: "completed"}))
	}
	return evs
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
		evs = append(evs, ev(task, seq, core.EventAgentMessage, core.TextData{Text: b.String()}))
	}
	return evs
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

func checkBound(t *testing.T, p *Pane) {
	t.Helper()
	if p.cost > p.limit || len(p.entries)-p.head > p.limit {
		t.Fatalf("pane over its bound: %d lines, %d entries (limit %d)", p.cost, len(p.entries)-p.head, p.limit)
	}
}

func TestAShownTaskReadsOnlyItsNewestEvents(t *testing.T) {
	j := &fakeJournal{events: stepJournal("flood", 20000)}
	h := newHost(t, j, narrowW, narrowH)
	// The newest events first, then pages before them until the pane is three quarters full.
	if len(j.reads) == 0 || j.reads[0] != 20000-replayFirst+1 || len(j.reads) > 6 {
		t.Fatalf("journal read from %v", j.reads)
	}
	p := h.p
	if !p.hasOlder() || p.lo > 20000-MaxLines*3/4+1 || p.lo <= 20000-MaxLines || p.lastSeq != 20000 || p.detached {
		t.Fatalf("pane holds %d..%d (older: %v, detached %v)", p.lo, p.lastSeq, p.hasOlder(), p.detached)
	}
	h.requireView("step 020000")
}

func TestScrollingUpPagesOlderEventsInAndBackDown(t *testing.T) {
	const n = 12000
	j := &fakeJournal{events: stepJournal("flood", n)}
	h := newHost(t, j, narrowW, narrowH)
	p := func() *Pane { return h.p }

	// Page up from the live tail to the first event: every step shows once, in order.
	next := n
	for range 4 * n {
		steps := shownSteps(h.view())
		for i := len(steps) - 1; i >= 0; i-- {
			if steps[i] > next {
				continue // seen on the previous screen
			}
			if steps[i] != next {
				t.Fatalf("paging up: step %d after %d (screen %v)", steps[i], next+1, steps)
			}
			next--
		}
		checkBound(t, p())
		if next == 0 {
			break
		}
		h.press("pgup")
	}
	if next != 0 {
		t.Fatalf("paging up stopped at step %d", next)
	}
	if p().hasOlder() || !p().detached {
		t.Fatalf("at the first event: older %v, detached %v", p().hasOlder(), p().detached)
	}
	if v := h.view(); strings.Contains(v, "older events load") {
		t.Fatalf("the first event still offers older ones:\n%s", v)
	}

	// A live event while the pane shows old ones is not lost: it shows once the reader is back.
	live := ev("flood", n+1, core.EventToolCall, core.ToolCallData{ToolCallID: "live", Title: fmt.Sprintf("step %06d", n+1), Status: "completed"})
	j.append(live)
	h.live(live)

	// Page down again to the live tail.
	next = 1
	for range 4 * n {
		for _, s := range shownSteps(h.view()) {
			if s < next {
				continue
			}
			if s != next {
				t.Fatalf("paging down: step %d after %d", s, next-1)
			}
			next++
		}
		checkBound(t, p())
		if p().following() {
			break
		}
		h.press("pgdown")
	}
	if !p().following() || p().detached || next != n+2 {
		t.Fatalf("paging down ended at step %d, following %v, detached %v", next-1, p().following(), p().detached)
	}
}

func TestGoingBackToTheTailReadsTheNewestWindowAgain(t *testing.T) {
	j := &fakeJournal{events: stepJournal("flood", 20000)}
	h := newHost(t, j, narrowW, narrowH)
	// g goes to the task's first event, read from the journal, not to the oldest one loaded.
	h.press("g")
	p := h.p
	if !p.detached || p.lo != 1 {
		t.Fatalf("after g the pane holds %d..%d, detached %v", p.lo, p.lastSeq, p.detached)
	}
	if steps := shownSteps(h.view()); len(steps) == 0 || steps[0] != 1 {
		t.Fatalf("after g the screen shows steps %v", steps)
	}
	checkBound(t, p)
	// Reading on downwards from there pages newer events in, in order.
	h.press("pgdown", "pgdown")
	if steps := shownSteps(h.view()); len(steps) == 0 || steps[0] <= 1 || steps[len(steps)-1] > 200 {
		t.Fatalf("paging down from the first event shows steps %v", steps)
	}
	h.press("G")
	p = h.p
	if p.detached || !p.following() || p.lastSeq != 20000 {
		t.Fatalf("G: pane holds %d..%d, detached %v, following %v", p.lo, p.lastSeq, p.detached, p.following())
	}
	h.requireView("step 020000")
	h.live(ev("flood", 20001, core.EventToolCall, core.ToolCallData{ToolCallID: "x", Title: "step 020001", Status: "completed"}))
	h.requireView("step 020001")
}

var wordRE = regexp.MustCompile(`w(\d{7})`)

func TestScrollingBackThroughAMonologueShowsEveryWord(t *testing.T) {
	journal := monologueJournal("flood", 1<<20, 4<<10)
	h := newHost(t, &fakeJournal{events: journal}, narrowW, narrowH)
	last := -1
	for _, m := range wordRE.FindAllStringSubmatch(string(journal[len(journal)-1].Data), -1) {
		last, _ = strconv.Atoi(m[1])
	}
	// Words wrap whole at 80 columns; a page's seam may show a few lines twice.
	next := last
	for range 100000 {
		words := wordRE.FindAllStringSubmatch(h.view(), -1)
		for i := len(words) - 1; i >= 0; i-- {
			w, _ := strconv.Atoi(words[i][1])
			if w > next {
				continue
			}
			if w != next {
				t.Fatalf("paging up: word %d after %d", w, next+1)
			}
			next--
		}
		checkBound(t, h.p)
		if next < 0 {
			break
		}
		h.press("pgup")
	}
	if next >= 0 {
		t.Fatalf("paging up stopped at word %d", next)
	}
}

// paneBytes is the text the pane holds.
func paneBytes(p *Pane) int {
	n := 0
	for _, e := range p.entries[p.head:] {
		for _, q := range e.paras {
			n += len(q.text)
			for _, l := range q.lines {
				n += len(l.text)
			}
		}
		n += len(e.marks) * 24
	}
	return n
}

// 10 MB of agent text streamed live, then paged back to its first word: the pane holds about
// what it shows, never the stream.
func TestStreaming10MBKeepsThePaneBounded(t *testing.T) {
	journal := monologueJournal("flood", 10<<20, 4<<10)
	j := &fakeJournal{}
	h := newHost(t, j, narrowW, narrowH)
	j.append(journal...)  // later reads find the whole journal
	const bound = 1 << 20 // 5,000 lines of 80 columns, their text kept twice (source and wrapped)
	for i, e := range journal {
		h.live(e)
		if i%256 == 0 {
			if n := paneBytes(h.p); n > bound {
				t.Fatalf("after %d events the pane holds %d bytes", i+1, n)
			}
		}
	}
	for range 1000 {
		p := h.p
		if n := paneBytes(p); n > bound {
			t.Fatalf("paging back the pane holds %d bytes", n)
		}
		checkBound(t, p)
		if !p.hasOlder() {
			break
		}
		h.press("g")
	}
	if h.p.hasOlder() {
		t.Fatal("paging back did not reach the first event")
	}
	h.press("g")
	h.requireView("w0000000 w0000001")
}

var floodRE = regexp.MustCompile(`flood (\d+)`)

// Paging up through text of short lines (the fake worker's flood, in 4 KiB events) shows each
// line once: where a page meets what was shown, the event both hold is not shown twice.
func TestPageSeamsShowEachLineOnce(t *testing.T) {
	var journal []core.Event
	var b strings.Builder
	line := 0
	for seq := uint64(1); line < 40000; seq++ {
		b.Reset()
		for b.Len() < 4<<10 {
			fmt.Fprintf(&b, "flood %d\n", line)
			line++
		}
		journal = append(journal, ev("flood", seq, core.EventAgentMessage, core.TextData{Text: b.String()}))
	}
	h := newHost(t, &fakeJournal{events: journal}, narrowW, narrowH)
	next := line - 1
	for range 10000 {
		var shown []int
		for _, m := range floodRE.FindAllStringSubmatch(h.view(), -1) {
			n, _ := strconv.Atoi(m[1])
			shown = append(shown, n)
		}
		for i := 1; i < len(shown); i++ {
			if shown[i] != shown[i-1]+1 {
				t.Fatalf("lines out of order on one screen: %v", shown)
			}
		}
		if len(shown) > 0 && shown[len(shown)-1] < next {
			t.Fatalf("line %d skipped: screen %v", next, shown)
		}
		if len(shown) > 0 {
			next = min(next, shown[0]-1)
		}
		if next < 0 {
			break
		}
		h.press("pgup")
	}
	if next >= 0 {
		t.Fatalf("paging up stopped at line %d", next)
	}
	// And down again to the tail: no line skipped, none shown twice on a screen.
	next = 0
	for range 10000 {
		var shown []int
		for _, m := range floodRE.FindAllStringSubmatch(h.view(), -1) {
			n, _ := strconv.Atoi(m[1])
			shown = append(shown, n)
		}
		for i := 1; i < len(shown); i++ {
			if shown[i] != shown[i-1]+1 {
				t.Fatalf("paging down, lines out of order on one screen: %v", shown)
			}
		}
		if len(shown) > 0 && shown[0] > next {
			p := h.p
			for _, e := range p.entries[p.head:] {
				t.Logf("entry %d seq %d cost %d n %d cut %v marks %d", e.id, e.seq, e.cost, e.n, e.cut, len(e.marks))
			}
			t.Logf("anchor %+v lo %d last %d live %d detached %v", *p.anchor, p.lo, p.lastSeq, p.liveSeq, p.detached)
			t.Fatalf("paging down, line %d skipped: screen %v", next, shown)
		}
		if len(shown) > 0 {
			next = max(next, shown[len(shown)-1]+1)
		}
		checkBound(t, h.p)
		if h.p.following() {
			break
		}
		h.press("pgdown")
	}
	if next != line || h.p.detached {
		t.Fatalf("paging down ended at line %d of %d", next, line)
	}
}
