package tui

import (
	"context"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"reasonixctl/core"
)

// trojanDiff adds the CVE-2021-42574 "stretched string" example: the line renders as a
// comparison followed by a comment, while its bytes compare against a longer string; and an
// identifier whose "а" is Cyrillic.
const trojanDiff = "diff --git a/internal/auth/access.go b/internal/auth/access.go\n" +
	"new file mode 100644\n" +
	"index 0000000..4444444\n" +
	"--- /dev/null\n" +
	"+++ b/internal/auth/access.go\n" +
	"@@ -0,0 +1,8 @@\n" +
	"+package auth\n" +
	"+\n" +
	"+func isAdmin(accessLevel string) bool {\n" +
	"+\tif accessLevel != \"user\u202e \u2066// Check if admin\u2069 \u2066\" {\n" +
	"+\t\treturn true\n" +
	"+\t}\n" +
	"+\treturn isAdmіn(accessLevel) // \u200b\n" +
	"+}\n"

// trojanScenario is the review scenario with that file added, its risks as the engine computes
// them.
func trojanScenario() *fakeService {
	f := scenario()
	d := f.details["login-fix"]
	d.Diff = trojanDiff + sampleDiff
	d.SourceRisks = core.SourceRisks([]byte(d.Diff))
	for _, r := range d.SourceRisks {
		d.Risks = append(d.Risks, r.Text)
	}
	f.details["login-fix"] = d
	return f
}

// TestGoldenTrojanSource pins the diff view of a Trojan Source file: every hidden character is
// a marker, the position line and the file list warn, plain and in colour (where the markers
// take the warning colour).
func TestGoldenTrojanSource(t *testing.T) {
	if n := len(trojanScenario().details["login-fix"].SourceRisks); n != 1 {
		t.Fatalf("%d risks, want the one file", n)
	}
	for _, sc := range []struct {
		name    string
		profile termenv.Profile
	}{{"plain_200x30", termenv.Ascii}, {"dark_200x30", termenv.ANSI256}} {
		t.Run(sc.name, func(t *testing.T) {
			lipgloss.SetColorProfile(sc.profile)
			t.Cleanup(func() { lipgloss.SetColorProfile(termenv.Ascii) })
			clk := &clock{t: epoch}
			m := newModel(context.Background(), trojanScenario(), Options{StateDir: "/state", WorkerVersion: "1.38.11", Now: clk.Now, Dir: "/src/app"})
			h := &harness{t: t, m: m, clk: clk}
			h.send(tea.WindowSizeMsg{Width: 200, Height: 30})
			h.run(m.Init())
			h.press("2")
			v := h.view()
			for _, want := range []string{"⟨U+202E⟩", "⟨U+2066⟩", "⟨U+2069⟩", "⟨U+200B⟩",
				"⚠ hidden or look-alike characters: 4, 7 (F asks you to acknowledge)"} {
				if !strings.Contains(v, want) {
					t.Fatalf("the diff view lacks %q:\n%s", want, v)
				}
			}
			if strings.ContainsAny(v, "\u202e\u2066\u2069\u200b") {
				t.Fatal("a hidden character reaches the screen")
			}
			golden.RequireEqual(t, []byte(v))
		})
	}
}

// The summary names the risky file and the finalize form will not send until the person
// acknowledges the risks with the key it states; then the request lists each risk's id.
func TestFinalizeAsksToAcknowledgeRisks(t *testing.T) {
	f := trojanScenario()
	h := newHarness(t, f, 120, 40)
	h.requireView("⚠ 1 file(s) hold hidden characters, look-alikes or binary content: internal/auth/access.go")
	h.press("F")
	h.requireView("⚠ Risks: the change holds what a plain reading may miss", "[ ] ctrl+o: I read these lines",
		"internal/auth/access.go: hidden or look-alike characters: 4, 7", "ctrl+o acknowledge risks")
	h.typeText("Read access.go line by line.")
	h.press("tab", "space", "tab", "space", "ctrl+s", "ctrl+s")
	h.requireView("read them in the diff, then ctrl+o acknowledges them")
	h.requireControls()
	h.send(tea.KeyMsg{Type: tea.KeyCtrlO})
	h.requireView("[x] ctrl+o: I read these lines")
	h.press("ctrl+s")
	h.requireView("3 file(s) not marked reviewed") // the form's other question, then it sends
	h.press("ctrl+s")
	if got := f.controlLog(); len(got) != 1 || strings.Join(got[0].(core.Finalize).AcknowledgedRisks, ",") != "trojan_source:internal/auth/access.go" {
		t.Fatalf("finalize requests: %+v", got)
	}
}
