package safetext

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestHiddenNamesEachClass(t *testing.T) {
	for r, want := range map[rune]string{
		0x202E: "bidi control", 0x2066: "bidi control", 0x200F: "bidi control", 0x061C: "bidi control",
		0x200C: "join control", 0x200D: "join control",
		0xFE0F: "variation selector", 0xFE00: "variation selector", 0xE0100: "variation selector", 0x180B: "variation selector",
		0xE0001: "tag character", 0xE0041: "tag character", 0xE007F: "tag character",
		0x00AD: "soft hyphen",
		0x3164: "invisible letter", 0x115F: "invisible letter", 0xFFA0: "invisible letter",
		0x200B: "zero-width", 0x2060: "zero-width", 0xFEFF: "zero-width", 0x034F: "zero-width", 0x2065: "zero-width",
		0xFFF9: "format control", 0x0600: "format control", 0x13430: "format control",
	} {
		if got, ok := Hidden(r); !ok || got != want {
			t.Errorf("Hidden(U+%04X) = %q, %v, want %q", r, got, ok, want)
		}
	}
	for _, r := range "aZ09_ \t\n~é日ъ🙂\u00a0\u2028\u20e3🏽" {
		if kind, ok := Hidden(r); ok {
			t.Errorf("Hidden(U+%04X) = %q", r, kind)
		}
	}
	// Every format character and default-ignorable one Go's own (older) tables know is hidden.
	for _, tab := range []*unicode.RangeTable{unicode.Cf, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector, unicode.Bidi_Control, unicode.Join_Control} {
		for r := rune(0x80); r <= unicode.MaxRune; r++ {
			if unicode.Is(tab, r) {
				if _, ok := Hidden(r); !ok {
					t.Fatalf("U+%04X is not hidden", r)
				}
			}
		}
	}
}

func hiddenList(s string) []string {
	var out []string
	HiddenIn(s, func(i int, r rune, kind string) { out = append(out, fmt.Sprintf("%d U+%04X %s", i, r, kind)) })
	return out
}

// Inside an emoji sequence the selectors, joiners and tags are part of the picture; just
// outside one, or in one cut short, they are hidden.
func TestHiddenInKeepsEmojiSequences(t *testing.T) {
	for _, seq := range emojiSequences {
		for _, s := range []string{seq, "a" + seq + "b", seq + seq, "«" + seq + "»"} {
			if got := hiddenList(s); got != nil {
				t.Errorf("HiddenIn(%+q) = %q", s, got)
			}
		}
	}
	scotland := "\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074"
	for s, want := range map[string][]string{
		"a\ufe0f":                         {"1 U+FE0F variation selector"},
		"1\ufe0f":                         {"1 U+FE0F variation selector"}, // a digit takes one only in a keycap
		"x1\ufe0f = 2":                    {"2 U+FE0F variation selector"},
		"😀\ufe0f":                         {"4 U+FE0F variation selector"}, // no text presentation to choose from
		"\ufe0f❤":                         {"0 U+FE0F variation selector"},
		"❤\ufe01":                         {"3 U+FE01 variation selector"},
		"x\u200dy":                        {"1 U+200D join control"},
		"👨\u200d":                         {"4 U+200D join control"},
		"\u200d👩":                         {"0 U+200D join control"},
		"👨\u200d\u200d👩":                  {"4 U+200D join control", "7 U+200D join control"},
		"👨\u200da":                        {"4 U+200D join control"},
		"a🏽\u200d👩":                       {"5 U+200D join control"},
		"😀\ufe0f\u200d👩":                  {"4 U+FE0F variation selector", "7 U+200D join control"},
		"🏴" + scotland:                    {"4 U+E0067 tag character", "8 U+E0062 tag character", "12 U+E0073 tag character", "16 U+E0063 tag character", "20 U+E0074 tag character"},
		scotland[4:] + "\U000E007F":       {"0 U+E0062 tag character", "4 U+E0073 tag character", "8 U+E0063 tag character", "12 U+E0074 tag character", "16 U+E007F tag character"},
		"🏴\U000E0068\U000E0069\U000E007F": {"4 U+E0068 tag character", "8 U+E0069 tag character", "12 U+E007F tag character"},
		"🏴" + scotland + "\U000E007F\U000E007F": {"28 U+E007F tag character"},
		"😀" + scotland + "\U000E007F":           {"4 U+E0067 tag character", "8 U+E0062 tag character", "12 U+E0073 tag character", "16 U+E0063 tag character", "20 U+E0074 tag character", "24 U+E007F tag character"},
		"🏴\U000E0001":                           {"4 U+E0001 tag character"},
	} {
		if got := hiddenList(s); !reflect.DeepEqual(got, want) {
			t.Errorf("HiddenIn(%+q) = %q, want %q", s, got, want)
		}
	}
	// Text spelt in tags after a flag is hidden whatever its length, at a bounded cost.
	long := "🏴" + strings.Repeat("\U000E0061", 10000) + "\U000E007F"
	if got := hiddenList(long); len(got) != 10001 {
		t.Fatalf("%d hidden characters in a run of 10001 tags", len(got))
	}
}

// MarkedAt agrees with Sanitize: a character is marked where it stands exactly when Sanitize
// shows it as a marker.
func TestMarkedAtAgreesWithSanitize(t *testing.T) {
	for _, s := range append(hostilePieces(), "x\ufe0f❤️a\u200d👨‍👩‍👧\u202e") {
		if !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			continue // Sanitize's own cases, pinned in TestSanitizeShowsWhatItReplaces
		}
		var want strings.Builder
		for i, r := range s {
			switch {
			case MarkedAt(s, i):
				want.WriteString(Marker(r))
			default:
				want.WriteRune(r)
			}
		}
		if got := Sanitize(s); got != want.String() {
			t.Errorf("Sanitize(%+q) = %+q, MarkedAt says %+q", s, got, want.String())
		}
	}
}
