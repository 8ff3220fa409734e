package tui

import (
	"strings"
	"testing"

	"reasonixctl/core"
)

// Every task action key is one table entry: in each state it either runs (and is in the footer
// when it has a footer word) or says core's reason when pressed and stays out of the footer.
func TestActionKeysRunOrSayWhyNot(t *testing.T) {
	for _, state := range core.States {
		f := scenario()
		f.tasks = f.tasks[:1]
		f.tasks[0].State = state
		h := newHarness(t, f, 200, 40)
		if h.m.list.selectedTask() == nil {
			h.press("A") // an ended task is listed under all tasks
		}
		tv := h.m.list.selectedTask()
		if tv == nil {
			t.Fatalf("%s: no task selected", state)
		}
		footer := lastLine(h.view())
		for _, b := range h.m.actionKeys() {
			why := b.Reason()
			key := b.Key.Keys()[0]
			word := b.Key.Help().Key + " " + b.Short
			if b.Short != "" && why == "" && !strings.Contains(footer, word) {
				t.Errorf("%s: %q runs now but the footer lacks it: %q", state, word, footer)
			}
			if why != "" && b.Short != "" && strings.Contains(footer, word) {
				t.Errorf("%s: %q cannot run (%s) but the footer offers it", state, word, why)
			}
			if why == "" {
				continue
			}
			h.press(key)
			if got, _ := h.m.status.current(h.m.now(), &h.m.list, h.m.width, h.m.height); got != why {
				t.Errorf("%s: pressing %s says %q; want core's reason %q", state, key, got, why)
			}
			for h.m.dialogs.Top() != nil {
				h.press("esc")
			}
		}
	}
}

// M is offered in the footer when the change conflicts with its checkout's HEAD, and only then.
func TestRebaseIsOfferedWhenTheChangeConflicts(t *testing.T) {
	clean := newReviewHarness(t, &reviewFake{fakeService: scenario(), preview: core.CherryPickPreview{Source: "/src/app", Head: "89abcdef0123", Of: "review_tree", Clean: true}}, 220, 40, nil)
	clean.press("2")
	if strings.Contains(lastLine(clean.view()), "M rebase") {
		t.Fatalf("rebase offered without a conflict: %q", lastLine(clean.view()))
	}
	h := newReviewHarness(t, &reviewFake{fakeService: scenario(), preview: core.CherryPickPreview{Source: "/src/app", Head: "89abcdef0123", Of: "review_tree", Conflicts: []string{"internal/auth/login.go"}}}, 220, 40, nil)
	h.press("2")
	h.requireView("conflicts with HEAD")
	if !strings.Contains(lastLine(h.view()), "M rebase") {
		t.Fatalf("a conflicting change does not offer the rebase: %q", lastLine(h.view()))
	}
}
