package review

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// bigDiff is a Go diff of about n lines in files of 2,000 lines: hunks of context around
// pairs of changed lines, so every page has syntax, word emphasis and both line numbers.
func bigDiff(n int) string {
	var b strings.Builder
	lines := 0
	for file := 0; lines < n; file++ {
		fmt.Fprintf(&b, "diff --git a/pkg/f%d.go b/pkg/f%d.go\n--- a/pkg/f%d.go\n+++ b/pkg/f%d.go\n", file, file, file, file)
		lines += 3
		for h := 0; h < 200 && lines < n; h++ {
			start := h*20 + 1
			fmt.Fprintf(&b, "@@ -%d,7 +%d,7 @@ func handler%d(w http.ResponseWriter) {\n", start, start, h)
			b.WriteString(" \t// look the user up before the check\n")
			b.WriteString(" \tu, err := store.Find(ctx, user) /* cached */\n")
			b.WriteString(" \tif err != nil {\n")
			fmt.Fprintf(&b, "-\t\treturn fmt.Errorf(\"find %%s: %%w\", user, err) // %d\n", h)
			fmt.Fprintf(&b, "+\t\treturn fmt.Errorf(\"lookup %%q: %%w\", user, err) // %d\n", h)
			b.WriteString(" \t}\n")
			b.WriteString("-\tlog.Printf(\"found %s\", u.Name)\n")
			b.WriteString("+\tslog.Info(\"found\", \"user\", u.Name)\n")
			b.WriteString(" \treturn nil\n")
			lines += 10
		}
	}
	return b.String()
}

// BenchmarkDiffPage50k draws one page of a 50,000-line diff, a different page each time, so
// every op tokenises and emphasises the page afresh (nothing comes from the cache). One op is
// the tab's whole view, in the pane the dashboard gives it on a terminal of the case's size.
// The wrapped cases draw longDiff, whose code lines run to 170–230 columns, with wrapping on.
func BenchmarkDiffPage50k(b *testing.B) {
	text := bigDiff(50100)
	long := longDiff(50100)
	for _, sc := range []struct {
		name         string
		screen, w, h int
		keys         []string
	}{{"unified_120x40", 120, 120, 27, nil}, {"side_by_side_200x50", 200, 200, 43, []string{"w"}},
		{"unified_wrapped_100x30", 100, 100, 23, []string{"W"}}, {"unified_wrapped_120x40", 120, 120, 27, []string{"W"}},
		{"side_by_side_wrapped_200x50", 200, 200, 43, []string{"w", "W"}}} {
		b.Run(sc.name, func(b *testing.B) {
			lipgloss.SetColorProfile(termenv.ANSI256)
			defer lipgloss.SetColorProfile(termenv.Ascii)
			d := loginFix(text)
			if strings.Contains(sc.name, "wrapped") {
				d.Diff = long
			}
			h := newHarness(b, d, sc.screen, sc.h)
			h.place.Width = sc.w
			h.press(sc.keys...)
			rv := h.rv()
			doc := rv.diff
			if n := countLines(doc); n < 50000 {
				b.Fatalf("diff has %d lines", n)
			}
			if strings.Contains(sc.name, "wrapped") {
				if v := h.view(); !h.r.wrap || !strings.Contains(v, "↪") {
					b.Fatalf("no wrapped line on the page:\n%s", v)
				}
			}
			r := h.r.In(h.place)
			bodyH := r.diffBodyHeight(rv)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				file := i % len(doc.files)
				top := (i * 7 * bodyH) % max(len(doc.files[file].lines)-bodyH, 1)
				rv.diffCur = diffCursor{file, top}
				_ = r.View(sc.w, sc.h)
			}
		})
	}
}

// longDiff is bigDiff with code lines long enough to wrap at every ordinary width.
func longDiff(n int) string {
	text := bigDiff(n)
	text = strings.ReplaceAll(text, "/* cached */", "/* cached: the store keeps the last thousand users it found for a minute, so a burst of logins for one user reads it once */")
	return strings.ReplaceAll(text, ", user, err) //", ", user, err) // the error names the user so that the log line of a failed login says whose login failed, with the cause after it //")
}

// BenchmarkDiffSearch50k is one keystroke of the diff's search over a 50,000-line diff: the
// query changes (a letter typed, then taken back), every line is searched again, the selection
// moves to the first match and the tab is drawn. "l" matches most lines: the worst case.
func BenchmarkDiffSearch50k(b *testing.B) {
	lipgloss.SetColorProfile(termenv.ANSI256)
	defer lipgloss.SetColorProfile(termenv.Ascii)
	h := newHarness(b, loginFix(bigDiff(50100)), 120, 27)
	h.press("/", "l")
	if countLines(h.rv().diff) < 50000 {
		b.Fatal("diff too small")
	}
	keys := []tea.KeyMsg{keyMsg("o"), keyMsg("backspace")}
	r := h.r.In(h.place)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, _, _ = r.Update(keys[i%2])
		_ = r.View(120, 27)
	}
	b.StopTimer()
	if s := h.rv().search; !s.typing || len(s.matches) == 0 {
		b.Fatalf("search %q found nothing", s.query)
	}
}

func countLines(d *diffDoc) int {
	n := 0
	for _, f := range d.files {
		n += len(f.lines)
	}
	return n
}
