package term

import (
	"fmt"
	"reasonixctl/core/safetext"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// PadRight pads s with spaces to w cells; a wider s is returned as it is.
func PadRight(s string, w int) string {
	if n := lipgloss.Width(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

// FixBlock makes s exactly w columns by h lines, so panes line up when joined.
func FixBlock(s string, w, h int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	for i, l := range lines {
		lines[i] = PadRight(ansi.Truncate(l, w, ""), w)
	}
	return strings.Join(lines, "\n")
}

// FitBetween puts left and right at the two ends of a w-wide line, truncating left if needed.
func FitBetween(left, right string, w int) string {
	rw := lipgloss.Width(right)
	left = ansi.Truncate(left, max(w-rw-1, 0), "…")
	return PadRight(left, w-rw) + right
}

// WrapLines wraps s to w cells (at least 4) and returns its lines.
func WrapLines(s string, w int) []string {
	return strings.Split(ansi.Wrap(s, max(w, 4), ""), "\n")
}

// WrapIndent wraps s to w columns and indents continuation lines by indent spaces.
func WrapIndent(s string, w, indent int) string {
	lines := WrapLines(s, w-indent)
	pad := strings.Repeat(" ", indent)
	for i := 1; i < len(lines); i++ {
		lines[i] = pad + lines[i]
	}
	return strings.Join(lines, "\n")
}

// Short cuts s to at most n bytes (for hashes and ids, which are ASCII).
func Short(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// OrDash is s, or "-" for an empty s.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// HumanInt writes n with a k or M suffix once it has four digits or more.
func HumanInt(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.0fk", float64(n)/1e3)
	case n >= 1_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// FormatCost writes a cost in its currency, dollars by default.
func FormatCost(v float64, currency *string) string {
	cur := "USD"
	if currency != nil && *currency != "" {
		cur = safetext.Line(*currency)
	}
	if cur == "USD" {
		return fmt.Sprintf("$%.4f", v)
	}
	return fmt.Sprintf("%.4f %s", v, cur)
}

// HumanAge writes a duration as its largest whole unit: 42s, 5m, 3h, 2d.
func HumanAge(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(int(d.Seconds()), 0))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// Clamp is v limited to [lo, hi].
func Clamp(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// WindowAround returns at most n lines of lines, keeping index i visible.
func WindowAround(lines []string, i, n int) []string {
	if len(lines) <= n {
		return lines
	}
	start := Clamp(i-n/2, 0, len(lines)-n)
	return lines[start : start+n]
}

// TextWidth is the display width of clean text, rune by rune so that a word broken between
// runes measures the same as the whole.
func TextWidth(s string) int {
	w := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			w++
			i++
			continue
		}
		_, n := utf8.DecodeRuneInString(s[i:])
		w += ansi.StringWidth(s[i : i+n])
		i += n
	}
	return w
}

// CapText bounds what one entry keeps of a large field.
func CapText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d more bytes)", len(s)-cut)
}

// NewInput is a one-line text field that takes at most limit characters: the engine's limit for
// what the field becomes, so the person cannot type what would be refused.
func NewInput(placeholder, value string, limit int) textinput.Model {
	in := textinput.New()
	in.Prompt = ""
	in.Placeholder = placeholder
	in.CharLimit = limit
	in.SetValue(value)
	// A static cursor needs no timer commands, which keeps the model deterministic.
	in.Cursor.SetMode(cursor.CursorStatic)
	return in
}
