package term

import (
	"reasonixctl/core/safetext"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// GuardFrame is the last step of every frame: it paints the markers sanitize left in the
// warning colour (open and close are the style's codes; after a marker the styles in force
// before it are restored) and, should a string have reached the frame without sanitize, turns
// every control character and every escape sequence other than SGR into its visible form, and
// marks what sanitize marks, by the same rule (safetext.MarkedAt): an emoji sequence sanitize
// kept whole stays whole.
func GuardFrame(frame, open, close string) string {
	if !needsGuard(frame) {
		return frame
	}
	var b strings.Builder
	b.Grow(len(frame) + 64)
	var active []string // SGR sequences in force since the last reset
	// Styles can part an emoji sequence sanitize kept whole (the highlighter colours a keycap's
	// # apart from its selector), and a terminal joins the parts again: a character is judged
	// where it stands in the frame's text without its SGR sequences, made when first needed.
	text, skipped := "", 0
	restore := func() {
		if !strings.HasSuffix(close, "\x1b[0m") {
			b.WriteString("\x1b[0m")
		}
		for _, s := range active {
			b.WriteString(s)
		}
	}
	for i := 0; i < len(frame); {
		c := frame[i]
		switch {
		case c == 0x1b:
			seq, ok := sgrAt(frame[i:])
			if !ok {
				b.WriteRune('␛')
				i++
				continue
			}
			if seq == "\x1b[m" || seq == "\x1b[0m" {
				active = active[:0]
			} else {
				active = append(active, seq)
			}
			b.WriteString(seq)
			i += len(seq)
			skipped += len(seq)
		case c == '\n':
			b.WriteByte(c)
			i++
		case c < 0x20:
			b.WriteRune(0x2400 + rune(c))
			i++
		case c == 0x7f:
			b.WriteRune('␡')
			i++
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			i++
		default:
			r, n := utf8.DecodeRuneInString(frame[i:])
			marked := safetext.Marked(r)
			if marked {
				if text == "" {
					text = WithoutSGR(frame)
				}
				marked = safetext.MarkedAt(text, i-skipped)
			}
			switch {
			case r == utf8.RuneError && n <= 1:
				b.WriteRune(utf8.RuneError)
			case marked:
				b.WriteString(safetext.Marker(r))
			case r == '⟨' && markerAt(frame[i:]) > 0:
				n = markerAt(frame[i:])
				if open == "" {
					b.WriteString(frame[i : i+n])
					break
				}
				b.WriteString("\x1b[0m" + open + frame[i:i+n] + close)
				restore()
			case r >= 0x2400 && r <= 0x2421 && open != "":
				b.WriteString("\x1b[0m" + open + frame[i:i+n] + close)
				restore()
			default:
				b.WriteString(frame[i : i+n])
			}
			i += n
		}
	}
	return b.String()
}

// WithoutSGR is frame without the SGR sequences guardFrame keeps; every other byte stays where
// guardFrame reads it, so that frame[i] is text[i-k] with k the bytes of the sequences before it.
func WithoutSGR(frame string) string {
	var b strings.Builder
	b.Grow(len(frame))
	for i := 0; i < len(frame); {
		if frame[i] == 0x1b {
			if seq, ok := sgrAt(frame[i:]); ok {
				i += len(seq)
				continue
			}
		}
		b.WriteByte(frame[i])
		i++
	}
	return b.String()
}

// needsGuard reports whether a frame holds anything guardFrame would change: a byte other than
// printable ASCII and newline, or an escape sequence.
func needsGuard(frame string) bool {
	for i := 0; i < len(frame); i++ {
		if c := frame[i]; (c < 0x20 && c != '\n') || c >= 0x7f {
			return true
		}
	}
	return false
}

// sgrAt returns the SGR sequence (ESC [ params m) s starts with.
func sgrAt(s string) (string, bool) {
	if len(s) < 3 || s[1] != '[' {
		return "", false
	}
	for j := 2; j < len(s) && j < 128; j++ {
		switch c := s[j]; {
		case c == 'm':
			return s[:j+1], true
		case (c >= '0' && c <= '9') || c == ';' || c == ':':
		default:
			return "", false
		}
	}
	return "", false
}

// markerAt returns the length of the marker s starts with (⟨U+XXXX⟩, 4 to 6 hex digits), or 0.
func markerAt(s string) int {
	const openLen = len("⟨U+")
	if !strings.HasPrefix(s, "⟨U+") {
		return 0
	}
	j := openLen
	for j < len(s) && j-openLen < 6 && isHex(s[j]) {
		j++
	}
	if j-openLen < 4 || !strings.HasPrefix(s[j:], "⟩") {
		return 0
	}
	return j + len("⟩")
}

func isHex(c byte) bool { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F') }

// StyleCodes returns the codes a style opens and closes a text with, as rendered now.
func StyleCodes(render func(...string) string) (open, close string) {
	out := render("X")
	i := strings.Index(out, "X")
	if i < 0 || ansi.Strip(out) != "X" {
		return "", ""
	}
	return out[:i], out[i+1:]
}
