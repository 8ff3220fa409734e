package term

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// TestFrameGuardPaintsMarkersAndRestoresTheStyle: a marker takes the warning colour and the
// text after it gets its own style back.
func TestFrameGuardPaintsMarkersAndRestoresTheStyle(t *testing.T) {
	in := "\x1b[1m\x1b[38;5;4mab⟨U+202E⟩cd\x1b[0m ␛x"
	got := GuardFrame(in, "\x1b[33m", "\x1b[0m")
	want := "\x1b[1m\x1b[38;5;4mab\x1b[0m\x1b[33m⟨U+202E⟩\x1b[0m\x1b[1m\x1b[38;5;4mcd\x1b[0m \x1b[0m\x1b[33m␛\x1b[0mx"
	if got != want {
		t.Fatalf("GuardFrame:\n got %q\nwant %q", got, want)
	}
	// What reached the frame unsanitized is shown, not sent.
	if got := GuardFrame("a\x1b]0;t\x07\u202eb\x9b", "", ""); got != "a␛]0;t␇⟨U+202E⟩b\ufffd" {
		t.Fatalf("GuardFrame = %q", got)
	}
	// It marks what sanitize marks, by the same rule: an emoji sequence's selector, joiners and
	// tags stay, the same characters elsewhere do not.
	emoji := "\x1b[1m❤️ 👨‍👩‍👧 🏴\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F #️⃣\x1b[0m"
	if got := GuardFrame(emoji, "\x1b[33m", "\x1b[0m"); got != emoji {
		t.Fatalf("GuardFrame(%+q) = %+q", emoji, got)
	}
	// A style between the parts of a sequence does not part them for the terminal.
	keycap := "\x1b[31m#\x1b[0m\x1b[32m\ufe0f\u20e3\x1b[0m ❤\x1b[1m\ufe0f"
	if got := GuardFrame(keycap, "\x1b[33m", "\x1b[0m"); got != keycap {
		t.Fatalf("GuardFrame(%+q) = %+q", keycap, got)
	}
	if got := GuardFrame("x\ufe0fy\u200dz\u3164", "", ""); got != "x⟨U+FE0F⟩y⟨U+200D⟩z⟨U+3164⟩" {
		t.Fatalf("GuardFrame = %+q", got)
	}
}

// Whatever reaches the guard, what leaves it holds only SGR sequences besides newlines and
// visible text: no other escape sequence and no control character, C0 or C1, and valid UTF-8.
func TestFrameGuardLeavesOnlyStyles(t *testing.T) {
	frames := []string{
		"\x1b[2J\x1b[H", "\x1b[1;1H ALLOWED ", "\x1b[?1049h", "\x1b[6n", "\x1b]52;c;cGxhbnRlZA==\x07",
		"\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\", "\x1bP+q544e\x1b\\", "\x1b_apc\x1b\\", "\x1bc", "\x1b",
		"\u009b2J", "\x9b2J", "\x9d0;t\x9c", "\r", "\b\b\b", "\t", "\x7f", "\xff\xfe", "\xc0\x80", "\xed\xa0\x80",
		"\x1b[31mred\x1b[0m\x00\x01\x1f", "\x1b[38;5;4m\u202eabc\u2066\x1b[0m",
	}
	for _, f := range frames {
		for _, in := range []string{f, "a" + f + "b\nc" + f} {
			out := WithoutSGR(GuardFrame(in, "\x1b[33m", "\x1b[0m"))
			if !utf8.ValidString(out) {
				t.Errorf("GuardFrame(%q) leaves invalid UTF-8: %q", in, out)
			}
			for _, r := range out {
				if (r < 0x20 && r != '\n') || (r >= 0x7f && r < 0xa0) {
					t.Errorf("GuardFrame(%q) leaves U+%04X: %q", in, r, out)
				}
			}
		}
	}
	// Plain text and newlines pass as they are, without a copy's cost mattering.
	if plain := "abc\ndef "; GuardFrame(plain, "\x1b[33m", "\x1b[0m") != plain {
		t.Fatal("the guard changed plain text")
	}
}

// WithoutSGR drops the SGR sequences and keeps every other byte where it was, escape
// sequences of other kinds included, for the guard and the tests to judge.
func TestWithoutSGR(t *testing.T) {
	for in, want := range map[string]string{
		"":      "",
		"plain": "plain",
		"\x1b[1mab\x1b[0m\x1b[38;5;4;48:2::1:2:3mc\x1b[m": "abc",
		"a\x1b]0;t\x07b":          "a\x1b]0;t\x07b",
		"a\x1b[2Jb\x1b[":          "a\x1b[2Jb\x1b[",
		"\x1b[31m⟨U+202E⟩\x1b[0m": "⟨U+202E⟩",
	} {
		if got := WithoutSGR(in); got != want {
			t.Errorf("WithoutSGR(%q) = %q, want %q", in, got, want)
		}
	}
}

// StyleCodes gives the codes a style wraps text in, and nothing for a render that changes the
// text or a terminal without colour.
func TestStyleCodes(t *testing.T) {
	lipgloss.SetColorProfile(termenv.ANSI256)
	t.Cleanup(func() { lipgloss.SetColorProfile(termenv.Ascii) })
	open, close := StyleCodes(lipgloss.NewStyle().Bold(true).Render)
	if open != "\x1b[1m" || close != "\x1b[0m" {
		t.Fatalf("bold: %q %q", open, close)
	}
	if open, close := StyleCodes(func(s ...string) string { return "[" + strings.Join(s, "") + "]" }); open != "" || close != "" {
		t.Fatalf("a render that adds text: %q %q", open, close)
	}
	lipgloss.SetColorProfile(termenv.Ascii)
	if open, close := StyleCodes(lipgloss.NewStyle().Bold(true).Render); open != "" || close != "" {
		t.Fatalf("no colour: %q %q", open, close)
	}
}
