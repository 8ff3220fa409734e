package events

import (
	"fmt"
	"strings"
	"testing"

	"reasonixctl/core"
)

// needleJournal is stepJournal with "needle" in the titles of the given steps.
func needleJournal(n int, at ...int) []core.Event {
	j := stepJournal("flood", n)
	for _, i := range at {
		j[i-1] = ev("flood", uint64(i), core.EventToolCall,
			core.ToolCallData{ToolCallID: fmt.Sprintf("needle%d", i), Title: "needle at step " + stepTitle(i), Kind: "execute", Status: "completed"})
	}
	return j
}

func stepTitle(i int) string { return fmt.Sprintf("%06d", i) }

func (h *host) reads() int { return h.j.readCount() }

func TestSearchFindsOlderMatchesInTheJournal(t *testing.T) {
	const n = 20000
	h := newHost(t, &fakeJournal{events: needleJournal(n, 1, 15500, 19990)}, wideW, wideH)
	p := func() *Pane { return h.p }
	if lo := p().lo; lo <= 15500 || lo > 16400 {
		t.Fatalf("the window starts at %d: the test wants step 15500 just before it", lo)
	}
	h.press("/")
	h.typeText("needle")
	h.press("enter")
	h.requireView("needle at step 019990", "match 1 of 1 in the loaded events · N searches older ones")

	// The page before the window holds the next older match: it is put in front.
	lo := p().lo
	h.press("N")
	h.requireView("needle at step 015500", "/needle  match 1 of 1 in the loaded events")
	if p().lo >= lo || p().lo > 15500 {
		t.Fatalf("the window now starts at %d (was %d)", p().lo, lo)
	}
	checkBound(t, p())
	if p().following() {
		t.Fatal("the match did not pin the window")
	}

	// The oldest match is in the journal's first page, far before the window.
	h.press("N")
	h.requireView("needle at step 000001")
	if p().lo != 1 || !p().detached {
		t.Fatalf("after the oldest match the pane holds %d..%d, detached %v", p().lo, p().lastSeq, p().detached)
	}
	checkBound(t, p())
	if steps := shownSteps(h.view()); len(steps) == 0 || steps[0] > 3 {
		t.Fatalf("the window shows steps %v", steps)
	}

	// Nothing is older: the search goes round, without reading the journal.
	before := h.reads()
	h.press("N")
	h.requireView("needle at step", "(wrapped)")
	if h.reads() != before {
		t.Fatalf("going round read the journal %d times", h.reads()-before)
	}
	// G goes back to the live tail.
	h.press("G")
	h.requireView("step 020000")
}

func TestSearchWithNoMatchInTheJournalStaysPut(t *testing.T) {
	h := newHost(t, &fakeJournal{events: stepJournal("flood", 20000)}, wideW, wideH)
	p := func() *Pane { return h.p }
	h.press("pgup", "pgup")
	top := topLine(p())
	lo, last := p().lo, p().lastSeq
	h.press("/")
	h.typeText("no such thing")
	h.press("enter")
	h.requireView("no match in the loaded events · N searches older ones")
	before := h.reads()
	h.press("N")
	h.requireView("/no such thing  no match in the whole journal")
	if h.reads()-before < 15 {
		t.Fatalf("the search read %d pages of the journal before seq %d", h.reads()-before, lo)
	}
	if got := topLine(p()); got != top || p().lo != lo || p().lastSeq != last {
		t.Fatalf("the window moved: top %q (was %q), pane %d..%d (was %d..%d)", got, top, p().lo, p().lastSeq, lo, last)
	}
	// The journal is known to hold none: N again does not read it again.
	before = h.reads()
	h.press("N", "n")
	if h.reads() != before {
		t.Fatal("a second N read the journal again")
	}
	h.requireView("no match in the whole journal")
}

func TestEscStopsASearchOfTheJournal(t *testing.T) {
	h := newHost(t, &fakeJournal{events: needleJournal(20000, 5)}, wideW, wideH)
	p := h.p
	h.press("/")
	h.typeText("needle")
	h.press("enter")
	top, lo := topLine(p), p.lo
	before := h.reads()
	// N starts reading a page; it has not arrived when esc is pressed.
	cmd := h.update(keyMsg("N"))
	if cmd == nil {
		t.Fatal("N read nothing")
	}
	h.requireView("/needle  searching older events… (before event", "esc stops")
	h.press("esc")
	if strings.Contains(h.view(), "searching older events") {
		t.Fatalf("esc did not stop the search:\n%s", h.view())
	}
	h.requireView("/needle  no match in the loaded events")
	h.run(cmd) // the page arrives late: it is ignored
	if h.reads()-before != 1 {
		t.Fatalf("after esc the search read %d pages", h.reads()-before)
	}
	if h.p != p || p.lo != lo || topLine(p) != top || strings.Contains(h.view(), "needle at") {
		t.Fatalf("a stopped search moved the window to %d:\n%s", p.lo, h.view())
	}
	// A second esc clears the search.
	h.press("esc")
	if p.search.shown() {
		t.Fatal("esc did not clear the search")
	}
	// G while a search reads the journal stops it and goes back to the live tail.
	h.press("/")
	h.typeText("needle")
	h.press("enter")
	cmd = h.update(keyMsg("N"))
	h.press("G")
	h.run(cmd)
	if p := h.p; !p.following() || p.detached || p.search.seeking {
		t.Fatalf("G during a search: following %v, detached %v, seeking %v", p.following(), p.detached, p.search.seeking)
	}
	h.requireView("step 020000")
}
