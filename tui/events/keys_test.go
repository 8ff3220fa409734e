package events

import (
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"

	"reasonixctl/core"
	"reasonixctl/tui/bind"
)

func footerText(bs []key.Binding) string {
	var out []string
	for _, b := range bs {
		out = append(out, b.Help().Key+" "+b.Help().Desc)
	}
	return strings.Join(out, " · ")
}

// The footer names the keys that do something now, from the pane's one table: the matches
// only while a search is kept and not already reading the journal.
func TestFooterFollowsTheSearch(t *testing.T) {
	p := searchPane(t)
	if got, want := footerText(p.Footer()), "/ search · f filter · ] item · enter expand"; got != want {
		t.Fatalf("footer %q, want %q", got, want)
	}
	press(p, "/")
	typeText(p, "needle")
	press(p, "enter")
	if got, want := footerText(p.Footer()), "n/N next/prev match · / search · f filter · ] item · enter expand"; got != want {
		t.Fatalf("footer with a kept search %q, want %q", got, want)
	}
	p.search.seeking = true
	if got := footerText(p.Footer()); strings.Contains(got, "n/N") {
		t.Fatalf("footer while reading the journal offers n/N: %q", got)
	}
	if _, _, res := p.Update(keyMsg("N")); res.Pass || !strings.Contains(res.Status, "already looking") {
		t.Fatalf("N while reading the journal: %+v", res)
	}
	// The help lists every key, the matches and esc too.
	var help []string
	for _, b := range New(testEnv(), "t").Help().Bindings {
		help = append(help, b.Help().Key)
	}
	if got, want := strings.Join(help, " "), "n/N esc / f [ ] enter pgup/b pgdn/space g/home G/end"; got != want {
		t.Fatalf("help keys %q, want %q", got, want)
	}
}

// A key that is not the pane's is handed on; one that does nothing says why.
func TestKeysPassOrSayWhy(t *testing.T) {
	p := newTestPane(60, 10)
	for _, c := range []struct {
		key, status string
		pass        bool
	}{
		{"n", "", true}, // a new task: no search is kept
		{"N", "", true},
		{"esc", "", true},
		{"j", "", true},
		{"pgup", "no events yet", false},
		{"]", "no events yet", false},
		{"enter", "nothing selected: [ and ] select a tool call, decision or reasoning", false},
	} {
		if _, _, res := p.Update(keyMsg(c.key)); res.Pass != c.pass || res.Status != c.status || (c.status != "") != res.IsErr {
			t.Errorf("%q in an empty pane: %+v", c.key, res)
		}
	}
	p.Live(ev("t", 1, core.EventToolCall, core.ToolCallData{ToolCallID: "c", Title: "go test", Status: "completed"}))
	if _, _, res := p.Update(keyMsg("]")); res.Pass || res.Status != "" || p.sel == 0 {
		t.Errorf("] with a tool call: %+v, selection %d", res, p.sel)
	}
	// While a search is typed every key is text, but ctrl+c.
	press(p, "/")
	for _, k := range []string{"n", "q", "j", "esc"} {
		if _, _, res := p.Update(keyMsg(k)); res.Pass {
			t.Errorf("%q while typing a search went to the dashboard", k)
		}
		if k != "esc" && !p.Capturing() {
			t.Fatalf("%q ended the typing", k)
		}
	}
	press(p, "/")
	if _, _, res := p.Update(keyMsg("ctrl+c")); !res.Pass {
		t.Error("ctrl+c while typing a search stayed in the pane")
	}
}

// Every key the full help lists under Events and Find, and the detail's paging keys, is one of
// the pane's table.
func TestPaneTableHasEveryEventsKey(t *testing.T) {
	k := bind.DefaultKeyMap()
	taken := map[string]bool{}
	for _, b := range New(testEnv(), "t").Help().Bindings {
		for _, key := range b.Keys() {
			taken[key] = true
		}
	}
	want := []key.Binding{k.PageUp, k.PageDown, k.Top, k.Bottom, k.PrevItem, k.NextItem, k.Expand,
		k.Search, k.NextMatch, k.PrevMatch, k.Filter}
	for _, b := range want {
		for _, key := range b.Keys() {
			if !taken[key] {
				t.Errorf("%q (%s) is not in the pane's table", key, b.Help().Desc)
			}
		}
	}
}
