package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"reasonixctl/core"
)

// A status message speaks of the screen it was shown on: the side-by-side refusal at 120
// columns is gone once the terminal is wider and `w` worked.
func TestStatusExpiresOnResize(t *testing.T) {
	h := newHarness(t, reviewScenario(), 120, 40)
	h.press("2", "w")
	h.requireView("side by side needs a terminal at least 160 columns wide; this one is 120")
	h.send(tea.WindowSizeMsg{Width: 170, Height: 40})
	h.press("w")
	if v := h.view(); strings.Contains(v, "this one is 120") {
		t.Fatalf("the message about 120 columns stayed at 170:\n%s", v)
	}
	// A resize to the same size (terminals resend it) keeps a message.
	h.m.setStatus("still here", false, "")
	h.send(tea.WindowSizeMsg{Width: 170, Height: 40})
	h.requireView("still here")
	h.send(tea.WindowSizeMsg{Width: 171, Height: 40})
	if strings.Contains(h.view(), "still here") {
		t.Fatal("a message stayed after a resize")
	}
}

// The too-small message is wrapped to the terminal, never cut, and fits its height.
func TestTooSmallMessageWraps(t *testing.T) {
	for _, size := range [][2]int{{40, 10}, {30, 6}, {20, 4}, {12, 3}, {5, 2}, {1, 1}} {
		w, hh := size[0], size[1]
		h := newHarness(t, scenario(), w, hh)
		v := h.view()
		lines := strings.Split(v, "\n")
		if len(lines) != hh {
			t.Fatalf("%d×%d: %d lines:\n%s", w, hh, len(lines), v)
		}
		for _, l := range lines {
			if lipgloss.Width(l) > w {
				t.Fatalf("%d×%d: a line is %d wide:\n%s", w, hh, lipgloss.Width(l), v)
			}
		}
		if w >= 40 {
			h.requireView("reasonixctl needs a terminal of at least 60×16; this one is 40×10. Enlarge it or press q to quit.")
		} else if w >= 20 {
			h.requireView("60×16")
		}
	}
}

// A dialog's rows show nothing of the screen behind beside its border: the golden prompt showed
// "│ ecutable" and "╯ ged", the ends of the words under the box.
func TestDialogClearsBesideItsBorder(t *testing.T) {
	h := newHarness(t, scenario(), 120, 40)
	h.press("j")
	h.send(ev("docs-typo", 7, core.EventInteractionWaiting, permissionIA("ia-1")))
	h.requireView("Permission requested")
	lines := strings.Split(h.view(), "\n")
	top, bottom := -1, -1
	for i, l := range lines {
		if strings.Contains(l, "╭") && top < 0 {
			top = i
		}
		if strings.Contains(l, "╰") {
			bottom = i
		}
	}
	if top < 0 || bottom < top {
		t.Fatalf("no dialog box:\n%s", strings.Join(lines, "\n"))
	}
	for _, l := range lines[top : bottom+1] {
		r := []rune(l)
		first := strings.IndexAny(string(r), "│╭╰")
		left := []rune(l[:first])
		right := r[len(left):]
		last := len(right) - 1
		for last >= 0 && right[last] == ' ' {
			last--
		}
		if strings.TrimSpace(string(left)) != "" || !strings.ContainsRune("│╮╯", right[last]) {
			t.Fatalf("the screen behind shows beside the dialog: %q", l)
		}
	}
}
