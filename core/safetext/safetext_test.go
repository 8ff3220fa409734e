package safetext

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// emojiSequences draw one picture each; their joiners, selectors and tags are part of it.
var emojiSequences = []string{
	"❤️",         // U+2764 U+FE0F
	"☺︎",         // text presentation
	"👨‍👩‍👧",      // ZWJ sequence
	"👩🏽‍💻",       // skin tone, then ZWJ
	"🏳️‍🌈",       // presentation selector, then ZWJ
	"🏳️‍⚧️",      // and a selector after the second pictograph
	"👁️‍🗨️",      // both pictographs with selectors
	"🧑‍🤝‍🧑",      // three pictographs
	"🏃‍➡️",       // a pictograph and an arrow
	"#️⃣", "1️⃣", // keycaps
	"🏴\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F", // flag of Scotland
	"🏴\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F", // England
	"🇯🇵", "👍🏿",
}

// hostilePieces are what an attacker plants: every C0 control, DEL, every C1 control (as
// UTF-8 and as raw bytes), escape sequences, hidden characters of each class, emoji sequences
// cut short or run on, and invalid UTF-8.
func hostilePieces() []string {
	var out []string
	for c := range 0x20 {
		out = append(out, string(rune(c)))
	}
	out = append(out, "\x7f")
	for c := 0x80; c < 0xa0; c++ {
		out = append(out, string(rune(c)), string([]byte{byte(c)}))
	}
	out = append(out,
		"\x1b[2J\x1b[H", "\x1b]52;c;cGxhbnRlZA==\x07", "\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\",
		"\u009b2J", "\u009d0;t\u009c",
		"\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069",
		"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u200e", "\u200f", "\u061c", "\u2028", "\u2029",
		"\u3164", "\u115f", "\uffa0", "\u00ad", "\ufe0f", "\ufe0e", "\ufe00", "\U000E0100", "\u180b",
		"\U000E0001", "\U000E0041", "\U000E007F", "\ufff9", "\u0600", "\U00013430",
		"🏴", "\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074", "👨", "\u200d👩", "\u20e3", "🏽",
		"\xff", "\xfe\xfe", "\xc0\x80", "\xed\xa0\x80", "\xe2\x80", "\x80",
		"\r", "\b\b\b", "\t", "\n",
	)
	return append(out, emojiSequences...)
}

// TestSanitizeShowsWhatItReplaces pins the visible forms.
func TestSanitizeShowsWhatItReplaces(t *testing.T) {
	for in, want := range map[string]string{
		"plain\ntext":                     "plain\ntext",
		"a\tb":                            "a    b",
		"crlf\r\nline":                    "crlf\nline",
		"over\rwrite":                     "over␍write",
		"\x1b]52;c;aGk=\x07":              "␛]52;c;aGk=␇",
		"\x1b[2J":                         "␛[2J",
		"\u009b2J":                        "⟨U+009B⟩2J",
		"del\x7f":                         "del␡",
		"bad\xff":                         "bad\ufffd",
		"if a != \"user\u202e \u2066//\"": "if a != \"user⟨U+202E⟩ ⟨U+2066⟩//\"",
		"zero\u200bwidth\ufeff":           "zero⟨U+200B⟩width⟨U+FEFF⟩",
		"tag\U000E0041":                   "tag⟨U+E0041⟩",
		"日本 🙂 ünï":                        "日本 🙂 ünï",
		"run(\u3164)":                     "run(⟨U+3164⟩)",
		"ad\u00admin":                     "ad⟨U+00AD⟩min",
		"isAdmin\ufe01 x\ufe0f 1\ufe0f":   "isAdmin⟨U+FE01⟩ x⟨U+FE0F⟩ 1⟨U+FE0F⟩",
		"token\u200d = 1":                 "token⟨U+200D⟩ = 1",
		"❤️ 👨‍👩‍👧 #️⃣":                    "❤️ 👨‍👩‍👧 #️⃣",
		// Tags that spell anything but a flag the standard recommends are text no one sees.
		"🏴\U000E0068\U000E0069\U000E007F": "🏴⟨U+E0068⟩⟨U+E0069⟩⟨U+E007F⟩",
		"a\u2028b\u2029c":                 "a⟨U+2028⟩b⟨U+2029⟩c",
		"\ufff9note\ufffb":                "⟨U+FFF9⟩note⟨U+FFFB⟩",
	} {
		if got := Sanitize(in); got != want {
			t.Errorf("Sanitize(%+q) = %+q, want %+q", in, got, want)
		}
	}
	for _, seq := range emojiSequences {
		if got := Sanitize(seq); got != seq {
			t.Errorf("Sanitize(%+q) = %+q: an emoji sequence shows markers", seq, got)
		}
	}
	if got := Line("a\nb"); got != "a b" {
		t.Errorf("Line = %q", got)
	}
	// Every character Sanitize keeps when it stands alone is visible or a plain space or
	// newline: nothing Go's own tables call a control or format character, nothing
	// default-ignorable, nothing Marked.
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r == 0x30000 {
			r = 0xE0000 // the planes between hold no control, format or ignorable character
		}
		for _, o := range Sanitize(string(r)) {
			if o != '\n' && o != ' ' && (unicode.IsControl(o) || unicode.Is(unicode.Cf, o) ||
				unicode.Is(unicode.Other_Default_Ignorable_Code_Point, o) || unicode.Is(unicode.Variation_Selector, o) || Marked(o)) {
				t.Fatalf("Sanitize(U+%04X) keeps U+%04X", r, o)
			}
		}
	}
}

// checkSanitized fails unless out is what Sanitize may return: valid UTF-8 with no control
// character but the newline, and nothing Sanitize marks where it stands.
func checkSanitized(t *testing.T, in, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("Sanitize(%+q) = %+q is not valid UTF-8", in, out)
	}
	for i, r := range out {
		if (r < 0x20 && r != '\n') || r == 0x7f || MarkedAt(out, i) {
			t.Fatalf("Sanitize(%+q) = %+q keeps U+%04X at %d", in, out, r, i)
		}
	}
}

// The pieces alone and run together: Sanitize leaves nothing it would mark, and what it
// returns it returns again unchanged (so a text sanitized twice, as the dashboard's frame
// guard does, shows the same).
func TestSanitizeIsIdempotent(t *testing.T) {
	pieces := hostilePieces()
	inputs := append([]string{"x" + strings.Join(pieces, "y") + "z", strings.Join(pieces, "")}, pieces...)
	for i := range pieces {
		for j := range pieces {
			inputs = append(inputs, pieces[i]+pieces[j])
		}
	}
	for _, in := range inputs {
		out := Sanitize(in)
		checkSanitized(t, in, out)
		if again := Sanitize(out); again != out {
			t.Fatalf("Sanitize is not idempotent on %+q: %+q then %+q", in, out, again)
		}
	}
}

// FuzzSanitize: whatever the bytes, Sanitize's output is valid UTF-8 with nothing a terminal
// would act on or draw as nothing (outside an emoji sequence), and sanitizing it again changes
// nothing.
func FuzzSanitize(f *testing.F) {
	for _, p := range hostilePieces() {
		f.Add(p)
	}
	f.Add("x" + strings.Join(hostilePieces(), "y"))
	f.Fuzz(func(t *testing.T, s string) {
		out := Sanitize(s)
		checkSanitized(t, s, out)
		if again := Sanitize(out); again != out {
			t.Fatalf("Sanitize is not idempotent on %+q: %+q then %+q", s, out, again)
		}
	})
}
