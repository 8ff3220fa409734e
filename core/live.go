package core

import (
	"unicode/utf8"
)

// TruncateText cuts s to at most n bytes, at a rune boundary.
func TruncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}
