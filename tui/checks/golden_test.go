package checks

import (
	"fmt"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"reasonixctl/core"
)

// baselineResults is an attempt whose failed check fails on the base commit too, with one
// failure the change causes and more than the tab lists.
func baselineResults() []core.VerificationResult {
	rs := results()
	rs[0].Baseline = &core.BaselineResult{Status: core.BaselineFailed, Base: "0123456789abcdef0123"}
	rs[0].Failures = []core.CheckFailure{{ID: "TestLogin/case_042", Message: `Login("") = nil`}}
	for i := range 9 {
		rs[0].Failures = append(rs[0].Failures, core.CheckFailure{ID: fmt.Sprintf("TestOld/case_%d", i), PreExisting: true})
	}
	return rs
}

// TestGoldenView pins the tab's view in a few states at 80 columns and wider. Regenerate with
// `go test ./tui/checks -run TestGoldenView -update` and read the diff before committing.
func TestGoldenView(t *testing.T) {
	scenes := []struct {
		name  string
		setup func(t *testing.T, w, h int) *tab
	}{
		{"loading", func(t *testing.T, w, h int) *tab { return newTab(t, sampleLogs(), core.TaskView{}, nil, w, h) }},
		{"none_yet", func(t *testing.T, w, h int) *tab {
			return newTab(t, sampleLogs(), inReview, []core.VerificationResult{}, w, h)
		}},
		{"reading", func(t *testing.T, w, h int) *tab {
			tb := newTab(t, sampleLogs(), inReview, results(), w, h)
			tb.m.logs[logKey(results()[0])] = &checkLog{loading: true}
			return tb
		}},
		{"list", func(t *testing.T, w, h int) *tab { return newTab(t, sampleLogs(), inReview, results(), w, h) }},
		{"paged", func(t *testing.T, w, h int) *tab {
			tb := newTab(t, sampleLogs(), inReview, results(), w, h)
			tb.press("pgdown", "pgdown")
			return tb
		}},
		{"bottom", func(t *testing.T, w, h int) *tab {
			tb := newTab(t, sampleLogs(), inReview, results(), w, h)
			tb.press("G")
			return tb
		}},
		{"typing", func(t *testing.T, w, h int) *tab {
			tb := newTab(t, sampleLogs(), inReview, results(), w, h)
			tb.press("/")
			tb.typeText("case_04")
			return tb
		}},
		{"kept_search", func(t *testing.T, w, h int) *tab {
			tb := newTab(t, sampleLogs(), inReview, results(), w, h)
			tb.press("/")
			tb.typeText("case_04")
			tb.press("enter", "n")
			return tb
		}},
		{"passed", func(t *testing.T, w, h int) *tab {
			tb := newTab(t, sampleLogs(), inReview, results(), w, h)
			tb.press("]")
			return tb
		}},
		{"baseline", func(t *testing.T, w, h int) *tab { return newTab(t, sampleLogs(), inReview, baselineResults(), w, h) }},
		{"unreadable", func(t *testing.T, w, h int) *tab {
			logs := sampleLogs()
			delete(logs.logs, "login-fix/unit")
			return newTab(t, logs, inReview, results(), w, h)
		}},
	}
	for _, size := range [][2]int{{80, 20}, {120, 36}} {
		for _, sc := range scenes {
			t.Run(fmt.Sprintf("%s_%dx%d", sc.name, size[0], size[1]), func(t *testing.T) {
				tb := sc.setup(t, size[0], size[1])
				golden.RequireEqual(t, []byte(tb.view()))
			})
		}
	}
	// With colour: the failed check, the selection and the search's marks.
	t.Run("search_dark_80x20", func(t *testing.T) {
		lipgloss.SetColorProfile(termenv.ANSI256)
		t.Cleanup(func() { lipgloss.SetColorProfile(termenv.Ascii) })
		tb := newTab(t, sampleLogs(), inReview, results(), 80, 20)
		tb.press("/")
		tb.typeText("fail")
		golden.RequireEqual(t, []byte(tb.view()))
	})
}

// The view is drawn at the size View is given, whatever size the tab was last given: the
// dashboard draws a frame before the next key gives the tab its size.
func TestViewAtItsOwnSize(t *testing.T) {
	tb := newTab(t, sampleLogs(), inReview, results(), 120, 36)
	tb.press("G")
	narrow := tb.m.View(80, 20)
	fresh := newTab(t, sampleLogs(), inReview, results(), 80, 20)
	if narrow != fresh.view() {
		t.Fatalf("at 80×20 after 120×36:\n%s\nfresh at 80×20:\n%s", narrow, fresh.view())
	}
	// Drawing at another size changes nothing the tab keeps.
	tb.requireView("--- FAIL: TestLogin/case_042")
}

// Once on screen, a log that arrived is laid out in the tab, not again in each frame.
func TestLaidOutOnceOnScreen(t *testing.T) {
	tb := newTab(t, sampleLogs(), inReview, results(), 120, 36)
	if want := shownKey(results()[0], 120); tb.m.shown != want {
		t.Fatalf("the tab holds the log laid out as %q, want %q", tb.m.shown, want)
	}
	before := tb.m.vp
	_ = tb.view()
	if tb.m.vp.YOffset != before.YOffset || tb.m.shown == "" {
		t.Fatal("drawing changed the tab")
	}
}
