package safetext

import (
	"slices"
	"unicode"
	"unicode/utf8"
)

// The tables come from the Unicode data files of one version, which the repository does not
// keep: UNICODE_DATA=dir go generate ./core/safetext (see internal/gen).
//go:generate go run ./internal/gen -o tables_gen.go

// A hiddenClass is one kind of character that changes or hides text without being seen.
type hiddenClass struct {
	kind  string
	table *unicode.RangeTable
}

const (
	zwj       = '\u200D'
	vs15      = '\uFE0E' // text presentation
	vs16      = '\uFE0F' // emoji presentation
	keycap    = '\u20E3'
	tagSpace  = '\U000E0020'
	cancelTag = '\U000E007F'
)

// Hidden reports whether r, wherever it stands, is a character that changes how the text
// around it renders or takes part in it without being seen, and which kind: "bidi control"
// (U+202E, U+2066, U+200F, …: Bidi_Control), "join control" (U+200C, U+200D), "variation
// selector" (U+FE0F, U+E0100, …), "tag character" (U+E0001, U+E0020–U+E007F), "soft hyphen"
// (U+00AD), "invisible letter" (the Hangul fillers U+3164, U+115F, U+1160, U+FFA0),
// "zero-width" (U+200B, U+2060, U+FEFF and every other Default_Ignorable_Code_Point) or
// "format control" (the other General_Category Cf characters, such as U+FFF9 or U+0600).
// The classes come from the Unicode data (UnicodeVersion); see tables_gen.go.
//
// Some of them are part of an emoji sequence where they stand; HiddenIn judges a character in
// its text.
func Hidden(r rune) (kind string, hidden bool) {
	if r < utf8.RuneSelf || !unicode.Is(hiddenAny, r) {
		return "", false
	}
	for _, c := range hiddenClasses {
		if unicode.Is(c.table, r) {
			return c.kind, true
		}
	}
	return "", false
}

// HiddenIn calls yield, in order, with the byte offset, the character and the kind (see
// Hidden) of each hidden character of s, except those that belong to an emoji sequence:
//   - U+FE0F or U+FE0E after a character that emoji-variation-sequences.txt gives an emoji and
//     a text presentation (❤️, ☺︎), after an ASCII one (#, *, 0–9) only in a keycap (#️⃣);
//   - U+200D between two pictographs (Extended_Pictographic), the first perhaps with its skin
//     tone or presentation selector: 👨‍👩‍👧, 👩🏽‍💻, 🏳️‍🌈;
//   - the tag characters of an emoji tag sequence the standard recommends (RGI), such as the
//     flag of Scotland, U+1F3F4 U+E0067 U+E0062 U+E0073 U+E0063 U+E0074 U+E007F.
//
// Tags outside those few flags are hidden: they can spell any ASCII text, which no one sees.
// HiddenIn, Sanitize and MarkedAt judge by this one rule (hiddenAt), so what the review lists
// as a risk is what the dashboard marks.
func HiddenIn(s string, yield func(i int, r rune, kind string)) {
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if kind, ok := hiddenAt(s, i, r, n); ok {
			yield(i, r, kind)
		}
		i += n
	}
}

// hiddenAt is Hidden for the character r, n bytes at offset i of s, where it stands.
func hiddenAt(s string, i int, r rune, n int) (string, bool) {
	kind, ok := Hidden(r)
	if !ok {
		return "", false
	}
	switch {
	case r == vs15 || r == vs16:
		ok = !presentationSelector(s, i, n)
	case r == zwj:
		ok = !emojiJoiner(s, i, n)
	case r >= tagSpace && r <= cancelTag:
		ok = !inTagSequence(s, i, r, n)
	}
	return kind, ok
}

// presentationSelector reports whether the U+FE0E or U+FE0F at i selects the presentation of
// the emoji before it. An ASCII digit, # or * takes one only in a keycap: elsewhere it would
// be an invisible difference between two identifiers that read the same.
func presentationSelector(s string, i, n int) bool {
	base, _ := utf8.DecodeLastRuneInString(s[:i])
	if !unicode.Is(variationBase, base) {
		return false
	}
	if base >= utf8.RuneSelf {
		return true
	}
	next, _ := utf8.DecodeRuneInString(s[i+n:])
	return next == keycap
}

// emojiJoiner reports whether the U+200D at i joins two pictographs of an emoji ZWJ
// sequence.
func emojiJoiner(s string, i, n int) bool {
	next, _ := utf8.DecodeRuneInString(s[i+n:])
	if !unicode.Is(extendedPictographic, next) {
		return false
	}
	// Before it: a pictograph, perhaps followed by its skin tone and its presentation selector.
	j := i
	for range 3 {
		p, m := utf8.DecodeLastRuneInString(s[:j])
		switch {
		case unicode.Is(emojiModifier, p):
		case (p == vs16 || p == vs15) && presentationSelector(s, j-m, m):
		default:
			return unicode.Is(extendedPictographic, p)
		}
		j -= m
	}
	return false
}

// inTagSequence reports whether the tag character r at i is part of one of tagSequences. The
// search either way stops after the longest of them, so a long run of tags costs no more per
// character than a flag.
func inTagSequence(s string, i int, r rune, n int) bool {
	start := i
	for k := 0; ; k++ {
		p, m := utf8.DecodeLastRuneInString(s[:start])
		start -= m
		if m == 0 || p < tagSpace || p >= cancelTag || k >= maxTagSequence {
			break // p is the sequence's base, or the text holds no sequence here
		}
	}
	end := i + n
	for k := 0; r != cancelTag; k++ {
		q, m := utf8.DecodeRuneInString(s[end:])
		if m == 0 || q < tagSpace || q > cancelTag || k >= maxTagSequence {
			return false
		}
		end += m
		r = q
	}
	return slices.Contains(tagSequences, s[start:end])
}
