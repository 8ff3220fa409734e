package redact

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// Placeholder replaces every secret and every value stored under a secret-looking key.
const Placeholder = "[REDACTED]"

// TruncationMarker ends every string cut at MaxStringLen.
const TruncationMarker = "…[TRUNCATED]"

// Limits applied by String and Value.
const (
	MaxStringLen = 8192 // characters (runes) kept from a longer string
	MaxDepth     = 12   // nesting levels of maps and slices kept by Value
	MaxItems     = 1000 // items kept from a longer slice
)

// secretPatterns match secrets wherever they appear in text. The PEM pattern also swallows an
// unterminated key so that a truncated log never shows its body.
var secretPatterns = []*regexp.Regexp{
	regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----|[\s\S]*)`),
	regexp.MustCompile(`\bAKIA[0-9A-Z]{16}\b`),
	regexp.MustCompile(`\b(?:sk|rk|pk)-(?:proj-)?[A-Za-z0-9_-]{16,}\b`),
	regexp.MustCompile(`\bgh[opusr]_[A-Za-z0-9]{20,}\b`),
	regexp.MustCompile(`(?i)\bBearer\s+[A-Za-z0-9._~+/-]+=*\b`),
}

var secretKey = regexp.MustCompile(`(?i)(?:^|[_-])(?:api[_-]?key|token|secret|password|passwd|credential|authorization|cookie|private[_-]?key)(?:$|[_-])`)

// ContainsSecret reports whether s contains a value matching one of the secret patterns.
func ContainsSecret(s string) bool {
	for _, re := range secretPatterns {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// String replaces every secret in s with Placeholder, then cuts it to MaxStringLen characters.
// Redaction comes first so that a cut can never leave the visible half of a secret behind.
func String(s string) string {
	for _, re := range secretPatterns {
		s = re.ReplaceAllLiteralString(s, Placeholder)
	}
	return truncate(s)
}

func truncate(s string) string {
	if len(s) <= MaxStringLen || utf8.RuneCountInString(s) <= MaxStringLen {
		return s
	}
	n := 0
	for i := range s {
		if n == MaxStringLen {
			return s[:i] + TruncationMarker
		}
		n++
	}
	return s
}

// IsSecretKey reports whether values stored under this object key are redacted whatever they hold.
func IsSecretKey(key string) bool { return secretKey.MatchString(key) }

// Value returns a redacted deep copy of a decoded JSON value (maps, slices, strings, numbers,
// bools, nil): strings go through String, values under secret keys become Placeholder, slices are
// cut to MaxItems and anything nested deeper than MaxDepth becomes TruncationMarker. Other Go types
// are replaced by TruncationMarker rather than passed through unchecked.
func Value(v any) any { return value(v, 0) }

func value(v any, depth int) any {
	switch t := v.(type) {
	case nil, bool, float64, float32, int, int64, int32, uint64, uint32:
		return t
	case string:
		return String(t)
	case interface{ String() string }: // json.Number
		return String(t.String())
	}
	if depth >= MaxDepth {
		return TruncationMarker
	}
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, item := range t {
			if IsSecretKey(k) {
				out[k] = Placeholder
				continue
			}
			out[k] = value(item, depth+1)
		}
		return out
	case []any:
		n := min(len(t), MaxItems)
		out := make([]any, n)
		for i := range n {
			out[i] = value(t[i], depth+1)
		}
		return out
	case []string:
		n := min(len(t), MaxItems)
		out := make([]any, n)
		for i := range n {
			out[i] = String(t[i])
		}
		return out
	}
	return TruncationMarker
}

// Strings redacts each element of a slice of text, such as an argv.
func Strings(in []string) []string {
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = String(s)
	}
	return out
}

// hasSegment reports whether the slash-separated path has a segment equal (ignoring case) to one
// of names. Backslashes count as separators so Windows-style input cannot hide a segment.
func hasSegment(p string, names ...string) bool {
	for _, seg := range strings.FieldsFunc(p, isSep) {
		for _, n := range names {
			if strings.EqualFold(seg, n) {
				return true
			}
		}
	}
	return false
}

func isSep(r rune) bool { return r == '/' || r == '\\' }
