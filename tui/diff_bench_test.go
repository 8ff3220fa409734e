package tui

import (
	"context"
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
// one whole frame of the dashboard.
// The wrapped cases draw longDiff, whose code lines run to 170–230 columns, with wrapping on.
func BenchmarkDiffPage50k(b *testing.B) {
	text := bigDiff(50100)
	long := longDiff(50100)
	for _, sc := range []struct {
		name string
		w, h int
		keys []string
	}{{"unified_120x40", 120, 40, []string{"2"}}, {"side_by_side_200x50", 200, 50, []string{"2", "w"}},
		{"unified_wrapped_100x30", 100, 30, []string{"2", "W"}}, {"unified_wrapped_120x40", 120, 40, []string{"2", "W"}},
		{"side_by_side_wrapped_200x50", 200, 50, []string{"2", "w", "W"}}} {
		b.Run(sc.name, func(b *testing.B) {
			lipgloss.SetColorProfile(termenv.ANSI256)
			defer lipgloss.SetColorProfile(termenv.Ascii)
			f := scenario()
			d := f.details["login-fix"]
			d.Diff = text
			if strings.Contains(sc.name, "wrapped") {
				d.Diff = long
			}
			f.details["login-fix"] = d
			m := benchDiffModel(b, f, sc.w, sc.h, sc.keys)
			doc := m.task("login-fix").rv.diff
			if n := countLines(doc); n < 50000 {
				b.Fatalf("diff has %d lines", n)
			}
			if strings.Contains(sc.name, "wrapped") {
				if v := m.View(); !m.review.wrap || !strings.Contains(v, "↪") {
					b.Fatalf("no wrapped line on the page:\n%s", v)
				}
			}
			bodyH := m.diffBodyHeight()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				file := i % len(doc.files)
				top := (i * 7 * bodyH) % max(len(doc.files[file].lines)-bodyH, 1)
				m.task("login-fix").rv.diffCur = diffCursor{file, top}
				_ = m.View()
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

func benchDiffModel(b *testing.B, f *fakeService, w, h int, keys []string) *Model {
	clk := &clock{t: epoch}
	m := newModel(context.Background(), f, Options{StateDir: "/state", WorkerVersion: "1.38.11", Now: clk.Now, Dir: "/src/app"})
	queue := append([]tea.Msg{tea.WindowSizeMsg{Width: w, Height: h}}, runCmd(m.Init())...)
	drain := func() {
		for len(queue) > 0 {
			_, cmd := m.Update(queue[0])
			queue = append(queue[1:], runCmd(cmd)...)
		}
	}
	drain()
	for _, k := range keys {
		queue = append(queue, keyMsg(k))
		drain()
	}
	return m
}

// BenchmarkDiffSearch50k is one keystroke of the diff's search over a 50,000-line diff: the
// query changes (a letter typed, then taken back), every line is searched again, the selection
// moves to the first match and the frame is drawn. "l" matches most lines: the worst case.
func BenchmarkDiffSearch50k(b *testing.B) {
	lipgloss.SetColorProfile(termenv.ANSI256)
	defer lipgloss.SetColorProfile(termenv.Ascii)
	f := scenario()
	d := f.details["login-fix"]
	d.Diff = bigDiff(50100)
	f.details["login-fix"] = d
	m := benchDiffModel(b, f, 120, 40, []string{"2", "/", "l"})
	if countLines(m.task("login-fix").rv.diff) < 50000 {
		b.Fatal("diff too small")
	}
	keys := []tea.KeyMsg{keyMsg("o"), keyMsg("backspace")}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Update(keys[i%2])
		_ = m.View()
	}
	b.StopTimer()
	if s := m.task("login-fix").rv.search; !s.typing || len(s.matches) == 0 {
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
