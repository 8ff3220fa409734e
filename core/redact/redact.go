package redact

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"
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
// unterminated key so that a truncated log never shows its body. Every match starts with one of
// the pattern's literals, which lets Go's slow unanchored search be replaced by a fast substring
// search plus an anchored match at each candidate (see find); referencePatterns keeps the plain
// regular expressions the tests compare against.
var secretPatterns = []literalPattern{
	{lits: []string{"-----BEGIN "}, re: anchored(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----|[\s\S]*)`)},
	{lits: []string{"AKIA"}, boundary: true, re: anchored(`AKIA[0-9A-Z]{16}\b`)},
	{lits: []string{"sk-", "rk-", "pk-"}, boundary: true, re: anchored(`(?:sk|rk|pk)-(?:proj-)?[A-Za-z0-9_-]{16,}\b`)},
	{lits: []string{"gh"}, boundary: true, re: anchored(`gh[opusr]_[A-Za-z0-9]{20,}\b`)},
	{lits: []string{"bearer"}, fold: true, boundary: true, re: anchored(`(?i)Bearer\s+[A-Za-z0-9._~+/-]+=*\b`)},
}

var referencePatterns = []*regexp.Regexp{
	regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----|[\s\S]*)`),
	regexp.MustCompile(`\bAKIA[0-9A-Z]{16}\b`),
	regexp.MustCompile(`\b(?:sk|rk|pk)-(?:proj-)?[A-Za-z0-9_-]{16,}\b`),
	regexp.MustCompile(`\bgh[opusr]_[A-Za-z0-9]{20,}\b`),
	regexp.MustCompile(`(?i)\bBearer\s+[A-Za-z0-9._~+/-]+=*\b`),
}

func anchored(expr string) *regexp.Regexp { return regexp.MustCompile(`^(?:` + expr + `)`) }

// literalPattern is a regular expression whose matches all begin with one of lits (compared
// case-insensitively in ASCII when fold is set) and, when boundary is set, at a word boundary.
type literalPattern struct {
	lits     []string
	fold     bool
	boundary bool
	re       *regexp.Regexp
}

// find returns the leftmost-first, non-overlapping matches of the pattern, as the unanchored
// expression would.
func (p literalPattern) find(s string, limit int) [][2]int {
	var out [][2]int
	for from := 0; from < len(s) && (limit < 0 || len(out) < limit); {
		pos := -1
		for _, lit := range p.lits {
			j := -1
			if p.fold {
				j = indexASCIIFold(s[from:], lit)
			} else {
				j = strings.Index(s[from:], lit)
			}
			if j >= 0 && (pos < 0 || from+j < pos) {
				pos = from + j
			}
		}
		if pos < 0 {
			break
		}
		if p.boundary && pos > 0 && isWordByte(s[pos-1]) {
			from = pos + 1
			continue
		}
		loc := p.re.FindStringIndex(s[pos:])
		if loc == nil {
			from = pos + 1
			continue
		}
		out = append(out, [2]int{pos, pos + loc[1]})
		from = pos + max(loc[1], 1)
	}
	return out
}

func (p literalPattern) replace(s string) string {
	matches := p.find(s, -1)
	if len(matches) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range matches {
		b.WriteString(s[last:m[0]])
		b.WriteString(Placeholder)
		last = m[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// indexASCIIFold is strings.Index(asciiLower(s), lit) for a lowercase lit, without lowering a
// copy of s: every string of every event is searched, and most hold no secret.
func indexASCIIFold(s, lit string) int {
	if lit == "" {
		return 0
	}
	for i := 0; i+len(lit) <= len(s); i++ {
		if lowerASCII(s[i]) != lit[0] {
			continue
		}
		j := 1
		for j < len(lit) && lowerASCII(s[i+j]) == lit[j] {
			j++
		}
		if j == len(lit) {
			return i
		}
	}
	return -1
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// asciiLower lowercases A–Z only, so byte offsets stay valid.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

var secretKey = regexp.MustCompile(`(?i)(?:^|[_-])(?:api[_-]?key|token|secret|password|passwd|credential|authorization|cookie|private[_-]?key)(?:$|[_-])`)

// ContainsSecret reports whether s contains a value matching one of the secret patterns.
func ContainsSecret(s string) bool {
	for _, p := range secretPatterns {
		if len(p.find(s, 1)) > 0 {
			return true
		}
	}
	return false
}

// String replaces every secret in s with Placeholder, then cuts it to MaxStringLen characters.
// Redaction comes first so that a cut can never leave the visible half of a secret behind.
func String(s string) string { return truncate(Secrets(s)) }

// Secrets replaces every secret in s with Placeholder and keeps the whole text: for logs and
// diffs that have their own size limits.
func Secrets(s string) string {
	for _, p := range secretPatterns {
		s = p.replace(s)
	}
	return s
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
func IsSecretKey(key string) bool {
	secretKeys.RLock()
	secret, ok := secretKeys.m[key]
	secretKeys.RUnlock()
	if ok {
		return secret
	}
	secret = secretKey.MatchString(key)
	if len(key) <= maxRememberedKeyLen {
		secretKeys.Lock()
		if len(secretKeys.m) < maxRememberedKeys {
			secretKeys.m[strings.Clone(key)] = secret
		}
		secretKeys.Unlock()
	}
	return secret
}

// secretKeys remembers IsSecretKey's answers: every event carries the same few object keys, and
// matching one allocates the regexp's backtracking state (a quarter of a MiB per task, 6% of
// what a task allocates). Bounded, since a worker chooses its keys.
var secretKeys = struct {
	sync.RWMutex
	m map[string]bool
}{m: map[string]bool{}}

const (
	maxRememberedKeys   = 4096
	maxRememberedKeyLen = 64
)

// Value returns a redacted deep copy of a decoded JSON value (maps, slices, strings, numbers,
// bools, nil): strings go through String, values under secret keys become Placeholder, slices are
// cut to MaxItems and anything nested deeper than MaxDepth becomes TruncationMarker. Other Go types
// are replaced by TruncationMarker rather than passed through unchecked.
func Value(v any) any { return value(v, 0) }

func value(v any, depth int) any {
	switch t := v.(type) {
	case nil, bool, float64, float32, int, int64, int32, uint64, uint32:
		return t
	case json.Number:
		return t // a number, even when decoded as text; no secret pattern can match it
	case string:
		return String(t)
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
