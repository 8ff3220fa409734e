package events

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"reasonixctl/core"
	"reasonixctl/tui/term"
)

// searchPane is a pane of 30 one-line entries; "needle" is in entries 5, 15 and 25.
func searchPane(t *testing.T) *Pane {
	t.Helper()
	p := newTestPane(60, 8)
	for i := 1; i <= 30; i++ {
		text := fmt.Sprintf("entry %d", i)
		if i%10 == 5 {
			text = fmt.Sprintf("entry %d has a Needle in it", i)
		}
		p.add(core.Event{TaskID: "t", Seq: uint64(i), Type: core.EventError, Data: mustJSON(core.TextData{Text: text})})
	}
	return p
}

func paneKeys(t *testing.T, p *Pane, keys ...string) {
	t.Helper()
	press(p, keys...)
}

func paneType(p *Pane, s string) { typeText(p, s) }

func requirePane(t *testing.T, p *Pane, want ...string) {
	t.Helper()
	v := p.view()
	for _, w := range want {
		if !strings.Contains(v, w) {
			t.Fatalf("pane lacks %q:\n%s", w, v)
		}
	}
}

// topLine is the first event line the pane shows.
func topLine(p *Pane) string {
	return strings.TrimSpace(strings.Split(p.view(), "\n")[0])
}

func TestEventSearchMovesAsYouTypeAndWraps(t *testing.T) {
	p := searchPane(t)
	paneKeys(t, p, "g")
	paneKeys(t, p, "/")
	paneType(p, "nee")
	requirePane(t, p, "/nee", "match 1 of 3", "entry 5 has a Needle")
	paneType(p, "dle")
	paneKeys(t, p, "enter")
	requirePane(t, p, "/needle  match 1 of 3 · n/N next/previous")
	paneKeys(t, p, "n")
	requirePane(t, p, "match 2 of 3", "entry 15 has a Needle")
	paneKeys(t, p, "n")
	requirePane(t, p, "match 3 of 3", "entry 25 has a Needle")
	paneKeys(t, p, "n")
	requirePane(t, p, "match 1 of 3 (wrapped)", "entry 5 has a Needle")
	paneKeys(t, p, "N")
	requirePane(t, p, "match 3 of 3 (wrapped)", "entry 25 has a Needle")
	paneKeys(t, p, "N")
	requirePane(t, p, "match 2 of 3 · n/N")
	if p.following() {
		t.Fatal("a match did not pin the window")
	}
	// esc clears the kept search; n is no longer the pane's.
	paneKeys(t, p, "esc")
	if _, _, res := p.Update(keyMsg("n")); p.search.shown() || !res.Pass {
		t.Fatal("the search stays after esc")
	}
}

func TestEventSearchStartsWhereTheReaderIsAndEscGoesBack(t *testing.T) {
	p := searchPane(t)
	paneKeys(t, p, "g", "pgdown") // the window starts at entry 7
	before := topLine(p)
	if !strings.Contains(before, "entry 7") {
		t.Fatalf("top line %q", before)
	}
	paneKeys(t, p, "/")
	paneType(p, "needle")
	requirePane(t, p, "match 2 of 3", "entry 15 has a Needle") // the first at or after entry 7
	paneType(p, "x")
	requirePane(t, p, "/needlex", "no match")
	if got := topLine(p); got != before {
		t.Fatalf("without a match the window should be back at %q, is at %q", before, got)
	}
	paneKeys(t, p, "backspace")
	requirePane(t, p, "match 2 of 3")
	paneKeys(t, p, "esc")
	if got := topLine(p); got != before || p.search.shown() {
		t.Fatalf("esc did not go back: top %q, search %+v", got, p.search)
	}
	// From the live tail the first match is the one in view; the next goes round to the oldest.
	p = searchPane(t)
	paneKeys(t, p, "/")
	paneType(p, "needle")
	requirePane(t, p, "match 3 of 3")
	paneKeys(t, p, "enter", "n")
	requirePane(t, p, "match 1 of 3 (wrapped)", "entry 5 has")
	p = searchPane(t)
	paneKeys(t, p, "/")
	paneType(p, "needle")
	if p.following() {
		t.Fatal("the match did not pin the window")
	}
	paneKeys(t, p, "esc")
	if !p.following() {
		t.Fatal("esc did not return to the live tail")
	}
}

func TestEventSearchHighlightsMatches(t *testing.T) {
	lipgloss.SetColorProfile(termenv.ANSI)
	t.Cleanup(func() { lipgloss.SetColorProfile(termenv.Ascii) })
	p := searchPane(t)
	p.setSize(60, 30)
	paneKeys(t, p, "g", "/")
	paneType(p, "needle")
	th := term.MonochromeTheme()
	p.env.Theme = th
	v := p.view()
	if cur := th.MatchCurrent.Render("Needle"); !strings.Contains(v, cur) {
		t.Fatalf("the current match is not marked %q:\n%q", cur, v)
	}
	paneKeys(t, p, "enter", "n")
	v = p.view()
	if other := th.Match.Render("Needle"); !strings.Contains(v, other) {
		t.Fatalf("the other matches are not marked %q:\n%q", other, v)
	}
}
