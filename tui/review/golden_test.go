package review

import (
	"fmt"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"reasonixctl/core"
)

// TestGoldenTab pins the tab's view in a few states, in the pane an 80×24 terminal gives it and
// on a 200-column terminal (wide enough for side by side). Regenerate with
// `go test ./tui/review -run TestGoldenTab -update` and read the diff before committing.
func TestGoldenTab(t *testing.T) {
	conflicting := core.CherryPickPreview{Source: "/src/app", Head: "89abcdef0123", Of: "review_tree", Conflicts: []string{"internal/auth/login.go"}}
	scenes := []struct {
		name  string
		setup func(h *harness)
	}{
		{"first_hunk", func(h *harness) { h.press("]") }},
		{"second_file_reviewed", func(h *harness) { h.press("v", "}") }},
		{"comment_selected", func(h *harness) {
			h.load(wideDetail())
			h.press("J", "J", "J")
		}},
		{"wrapped", func(h *harness) {
			h.load(wideDetail())
			h.press("W", "J")
		}},
		{"scrolled_files_hidden", func(h *harness) {
			h.load(wideDetail())
			h.press("z", "J", "l", "l")
		}},
		{"searching", func(h *harness) {
			h.press("/")
			h.typeText("user")
		}},
		{"side_by_side", func(h *harness) {
			h.load(loginFix(reviewDiff))
			h.press("w", "]")
		}},
		{"collapsed_generated", func(h *harness) {
			h.load(loginFix(reviewDiff))
			h.press("}", "}", "}", "}", "}")
		}},
		{"risk_and_conflict", func(h *harness) {
			h.svc.preview = conflicting
			d := loginFix(sampleDiff)
			h.svc.detail = d
			h.send(Loaded{TaskID: "login-fix", Detail: d, Risks: map[string]string{"internal/auth/login.go": "hidden or look-alike characters: 12"}},
				RefreshPreview{TaskID: "login-fix", Force: true})
		}},
		{"nothing_changed", func(h *harness) {
			d := loginFix("")
			d.ChangedFiles = nil
			h.load(d)
		}},
	}
	for _, size := range []struct{ screen, w, h int }{{80, 80, 16}, {200, 200, 43}} {
		for _, sc := range scenes {
			t.Run(fmt.Sprintf("%s_%dx%d", sc.name, size.w, size.h), func(t *testing.T) {
				h := newHarness(t, loginFix(sampleDiff), size.screen, size.h)
				h.place.Width = size.w
				sc.setup(h)
				golden.RequireEqual(t, []byte(h.view()))
			})
		}
	}
	// In colour: syntax, word emphasis and the selection on a dark background.
	t.Run("side_by_side_dark_200x43", func(t *testing.T) {
		lipgloss.SetColorProfile(termenv.ANSI256)
		t.Cleanup(func() { lipgloss.SetColorProfile(termenv.Ascii) })
		h := newHarness(t, loginFix(reviewDiff), 200, 43)
		h.press("w", "]", "J")
		golden.RequireEqual(t, []byte(h.view()))
	})
}
