package redact

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
)

// Finding is one secret found by a scan. It never carries the secret itself.
type Finding struct {
	Line int    // 1-based line of the match
	Rule string // which rule matched: "pattern" or "assignment"
}

var assignment = regexp.MustCompile(`(?i)(?:api[_-]?key|access[_-]?token|client[_-]?secret|password|passwd)\s*[:=]\s*["']?([^\s"']{12,})`)

var placeholderWords = []string{"example", "placeholder", "changeme", "dummy", "fake", "test", "redacted", "your_", "your-"}

// MaxScanBytes bounds ScanFile; larger files are refused rather than scanned in part.
const MaxScanBytes = 10 << 20

// ScanBytes reports the secrets in a file's content. Content with a NUL byte is binary and is not
// scanned. An assignment such as `password = "…"` counts only when its value does not look like a
// placeholder.
func ScanBytes(content []byte) []Finding {
	if bytes.IndexByte(content, 0) >= 0 {
		return nil
	}
	var found []Finding
	for i, line := range strings.Split(string(content), "\n") {
		if ContainsSecret(line) {
			found = append(found, Finding{Line: i + 1, Rule: "pattern"})
			continue
		}
		if !mayAssign(line) {
			continue
		}
		for _, m := range assignment.FindAllStringSubmatch(line, -1) {
			if !looksLikePlaceholder(m[1]) {
				found = append(found, Finding{Line: i + 1, Rule: "assignment"})
				break
			}
		}
	}
	// A PEM key spans lines; the per-line pass only sees its BEGIN line, which is enough to flag it.
	return found
}

// mayAssign is a cheap filter before the (slow, case-folding) assignment expression: a match
// needs one of these words, or non-ASCII text that Unicode case folding could turn into one.
func mayAssign(line string) bool {
	for i := 0; i < len(line); i++ {
		if line[i] >= 0x80 {
			return true
		}
	}
	lower := asciiLower(line)
	for _, w := range []string{"key", "token", "secret", "passw"} {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

func looksLikePlaceholder(v string) bool {
	lv := strings.ToLower(v)
	for _, w := range placeholderWords {
		if strings.Contains(lv, w) {
			return true
		}
	}
	return false
}

// ScanFile reads one file (at most MaxScanBytes) and returns ScanBytes of its content.
func ScanFile(path string) ([]Finding, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if info.Size() > MaxScanBytes {
		return nil, fmt.Errorf("redact: %s is %d bytes, over the %d byte scan limit", path, info.Size(), MaxScanBytes)
	}
	content, err := io.ReadAll(io.LimitReader(f, MaxScanBytes+1))
	if err != nil {
		return nil, err
	}
	return ScanBytes(content), nil
}
