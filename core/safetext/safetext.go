// Package safetext turns text that did not come from reasonixctl itself — the worker's words,
// the repository's files and names, a grant's argv — into exact, inert text for every reader:
// the dashboard, the command line, the log, and the messages an MCP client shows a person.
// It also names the characters that render differently from their bytes (hidden characters
// and look-alikes), which the review lists as risks.
package safetext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// TabWidth is the number of columns a tab in worker or repository text expands to.
const TabWidth = 4

// Sanitize makes text safe and honest to show:
//   - newlines (and CRLF) stay, tabs expand to spaces;
//   - other C0 controls and DEL become their control pictures (ESC is ␛, CR ␍, BEL ␇), so an
//     escape sequence shows as inert text instead of acting;
//   - C1 controls (U+0080–U+009F, NEL among them), line and paragraph separators, bidi
//     controls, zero-width and other invisible characters become a visible marker such as
//     ⟨U+202E⟩, so the reader sees the bytes rather than their effect;
//   - invalid UTF-8 becomes U+FFFD.
func Sanitize(s string) string {
	if plain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == utf8.RuneError && n <= 1:
			b.WriteRune(utf8.RuneError)
		case r == '\n':
			b.WriteByte('\n')
		case r == '\t':
			b.WriteString(strings.Repeat(" ", TabWidth))
		case r == '\r' && i < len(s) && s[i] == '\n':
			// A CRLF line end is a line end; a bare CR, which would overwrite the line, shows.
		case r < 0x20:
			b.WriteRune(0x2400 + r) // ␀ … ␟
		case r == 0x7f:
			b.WriteRune('␡')
		case Marked(r):
			b.WriteString(Marker(r))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Line is Sanitize for a one-line field: line breaks become spaces.
func Line(s string) string { return strings.ReplaceAll(Sanitize(s), "\n", " ") }

// plain reports whether s is printable ASCII and newlines, which Sanitize returns as is.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\n') || c >= 0x7f {
			return false
		}
	}
	return true
}

// Marked reports the characters Sanitize shows as a marker: C1 controls, line and paragraph
// separators, and the characters Hidden names, which a terminal either obeys or draws as
// nothing.
func Marked(r rune) bool {
	if _, ok := Hidden(r); ok {
		return true
	}
	return (r >= 0x80 && r < 0xa0) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Cf, r)
}

// Marker is how Sanitize shows a hidden character.
func Marker(r rune) string { return fmt.Sprintf("⟨U+%04X⟩", r) }

// Hidden reports whether r is a character that changes how text around it renders without
// being seen: a bidi embedding, override, isolate or mark (U+202A–U+202E, U+2066–U+2069,
// U+200E, U+200F, U+061C), a zero-width space or joiner (U+200B–U+200D), the word joiner U+2060
// or the BOM U+FEFF. kind says which ("bidi control" or "zero-width").
func Hidden(r rune) (kind string, hidden bool) {
	switch {
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r == 0x200E, r == 0x200F, r == 0x061C:
		return "bidi control", true
	case r >= 0x200B && r <= 0x200D, r == 0x2060, r == 0xFEFF:
		return "zero-width", true
	}
	return "", false
}
