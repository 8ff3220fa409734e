package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"reasonixctl/core"
	"reasonixctl/tui/bind"
	"reasonixctl/tui/term"
)

// searchPane is a pane of 30 one-line entries; "needle" is in entries 5, 15 and 25.
func searchPane(t *testing.T) *eventsPane {
	t.Helper()
	p := newEventsPane()
	p.setSize(60, 8)
	for i := 1; i <= 30; i++ {
		text := fmt.Sprintf("entry %d", i)
		if i%10 == 5 {
			text = fmt.Sprintf("entry %d has a Needle in it", i)
		}
		p.add(core.Event{TaskID: "t", Seq: uint64(i), Type: core.EventError, Data: mustJSON(core.TextData{Text: text})})
	}
	return p
}

func paneKeys(t *testing.T, p *eventsPane, keys ...string) {
	t.Helper()
	for _, k := range keys {
		p.update(keyMsg(k), eventKeys(bind.DefaultKeyMap()))
	}
}

func paneType(p *eventsPane, s string) {
	for _, r := range s {
		p.update(keyMsg(string(r)), eventKeys(bind.DefaultKeyMap()))
	}
}

func requirePane(t *testing.T, p *eventsPane, want ...string) {
	t.Helper()
	v := p.view(term.DefaultTheme())
	for _, w := range want {
		if !strings.Contains(v, w) {
			t.Fatalf("pane lacks %q:\n%s", w, v)
		}
	}
}

// topLine is the first event line the pane shows.
func topLine(p *eventsPane) string {
	return strings.TrimSpace(strings.Split(p.view(term.DefaultTheme()), "\n")[0])
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
	if p.search.shown() || p.update(keyMsg("n"), eventKeys(bind.DefaultKeyMap())) {
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
	v := p.view(th)
	if cur := th.MatchCurrent.Render("Needle"); !strings.Contains(v, cur) {
		t.Fatalf("the current match is not marked %q:\n%q", cur, v)
	}
	paneKeys(t, p, "enter", "n")
	v = p.view(th)
	if other := th.Match.Render("Needle"); !strings.Contains(v, other) {
		t.Fatalf("the other matches are not marked %q:\n%q", other, v)
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
