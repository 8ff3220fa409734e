// Package safetext turns text that did not come from reasonixctl itself — the worker's words,
// the repository's files and names, a grant's argv — into exact, inert text for every reader:
// the dashboard, the command line, the log, and the messages an MCP client shows a person.
// It also names the characters that render differently from their bytes (hidden characters
// and look-alikes), which the review lists as risks.
package safetext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// TabWidth is the number of columns a tab in worker or repository text expands to.
const TabWidth = 4

// Sanitize makes text safe and honest to show:
//   - newlines (and CRLF) stay, tabs expand to spaces;
//   - other C0 controls and DEL become their control pictures (ESC is ␛, CR ␍, BEL ␇), so an
//     escape sequence shows as inert text instead of acting;
//   - C1 controls (U+0080–U+009F, NEL among them), line and paragraph separators, and every
//     character HiddenIn finds (bidi controls, zero-width and other invisible characters)
//     become a visible marker such as ⟨U+202E⟩, so the reader sees the bytes rather than their
//     effect; an emoji sequence keeps its joiners, selectors and tags, which are part of the
//     picture it draws;
//   - invalid UTF-8 becomes U+FFFD.
func Sanitize(s string) string {
	if plain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		at := i
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
		case r >= utf8.RuneSelf && markedAt(s, at, r, n):
			b.WriteString(Marker(r))
		default:
			b.WriteString(s[at:i])
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

// Marked reports whether Sanitize shows r as a marker wherever it stands: a C1 control, a
// line or paragraph separator, or a character Hidden names. In an emoji sequence Sanitize
// keeps some of these (MarkedAt judges a character where it stands); an escape that must hold
// for any text, such as EscapeJSON's, uses Marked.
func Marked(r rune) bool {
	if c1OrSeparator(r) {
		return true
	}
	_, ok := Hidden(r)
	return ok
}

// MarkedAt reports whether Sanitize shows the character at byte offset i of s as a marker:
// Marked, except for the parts of an emoji sequence (see HiddenIn).
func MarkedAt(s string, i int) bool {
	r, n := utf8.DecodeRuneInString(s[i:])
	return markedAt(s, i, r, n)
}

func markedAt(s string, i int, r rune, n int) bool {
	if c1OrSeparator(r) {
		return true
	}
	_, ok := hiddenAt(s, i, r, n)
	return ok
}

// c1OrSeparator: a terminal obeys C1 controls (CSI, OSC, NEL as U+009B, U+009D, U+0085), and
// U+2028 and U+2029 break a line where the reader sees none.
func c1OrSeparator(r rune) bool { return (r >= 0x80 && r < 0xa0) || r == '\u2028' || r == '\u2029' }

// Marker is how Sanitize shows a hidden character.
func Marker(r rune) string { return fmt.Sprintf("⟨U+%04X⟩", r) }
