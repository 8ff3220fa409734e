package safetext

import (
	"bytes"
	"fmt"
	"io"
	"unicode/utf8"
)

// NewWriter returns a writer for a terminal that shows what is written to it as Sanitize
// would, except that tabs stay (the command line's own tables are tab-separated): whatever a
// command prints, nothing in it acts on the terminal. A UTF-8 sequence split between two
// writes is held until the next.
func NewWriter(w io.Writer) io.Writer { return &writer{w: w} }

type writer struct {
	w    io.Writer
	tail []byte // an incomplete UTF-8 sequence at the end of the last write
}

func (t *writer) Write(p []byte) (int, error) {
	n := len(p)
	if len(t.tail) > 0 {
		p = append(t.tail, p...)
		t.tail = nil
	}
	if cut := incompleteTail(p); cut < len(p) {
		t.tail = append([]byte(nil), p[cut:]...)
		p = p[:cut]
	}
	var out bytes.Buffer
	out.Grow(len(p))
	for _, line := range bytes.SplitAfter(p, []byte{'\t'}) {
		text, tab := bytes.CutSuffix(line, []byte{'\t'})
		out.WriteString(Sanitize(string(text)))
		if tab {
			out.WriteByte('\t')
		}
	}
	if _, err := t.w.Write(out.Bytes()); err != nil {
		return 0, err
	}
	return n, nil
}

// incompleteTail returns where a UTF-8 sequence that p ends in the middle of starts, or len(p).
func incompleteTail(p []byte) int {
	for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax; i-- {
		if utf8.RuneStart(p[i]) {
			if !utf8.FullRune(p[i:]) {
				return i
			}
			break
		}
	}
	return len(p)
}

// EscapeJSON rewrites the JSON text b (as an encoder wrote it) so that every control character and every character
// Sanitize would mark (bidi controls, line separators, invisible characters, …) is written as
// a \u escape: the same data, decoded, but nothing a terminal would act on or hide. Such runes
// only ever appear inside JSON strings, where an escape means the same rune.
func EscapeJSON(b []byte) []byte {
	var out []byte
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		// Raw newlines, tabs and CRs are the JSON's own whitespace: inside a string an encoder
		// has escaped them already.
		bad := (r < 0x20 && r != '\n' && r != '\t' && r != '\r') || r == 0x7f || (r >= 0x80 && Marked(r)) || (r == utf8.RuneError && n <= 1)
		if !bad {
			if out != nil {
				out = append(out, b[i:i+n]...)
			}
			i += n
			continue
		}
		if out == nil {
			out = append(make([]byte, 0, len(b)+16), b[:i]...)
		}
		switch {
		case r == utf8.RuneError && n <= 1:
			out = append(out, `\ufffd`...)
		case r > 0xffff:
			r1, r2 := surrogates(r)
			out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
		default:
			out = fmt.Appendf(out, `\u%04x`, r)
		}
		i += n
	}
	if out == nil {
		return b
	}
	return out
}

func surrogates(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}
