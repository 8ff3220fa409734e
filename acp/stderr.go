package acp

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
)

const (
	stderrLines    = 64
	stderrLineSize = 4 << 10
)

// secretPatterns catch the credentials most likely to show up in a worker's diagnostics.
var secretPatterns = []struct {
	re   *regexp.Regexp
	repl string
}{
	{regexp.MustCompile(`(?i)\b(bearer\s+)[A-Za-z0-9._~+/=-]+`), "${1}[REDACTED]"},
	{regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{6,}`), "sk-[REDACTED]"},
	{regexp.MustCompile(`(?i)\b([A-Z0-9_]*(?:api[_-]?key|token|secret|password)["']?\s*[:=]\s*["']?)[^\s"',;]+`), "${1}[REDACTED]"},
}

func redactSecrets(s string) string {
	for _, p := range secretPatterns {
		s = p.re.ReplaceAllString(s, p.repl)
	}
	return s
}

// stderrRing keeps the last lines a worker wrote to stderr, redacted. It never forwards them
// anywhere: the terminal and stdout belong to the dashboard or the MCP protocol.
type stderrRing struct {
	mu      sync.Mutex
	lines   []string
	partial []byte
}

func (r *stderrRing) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			r.partial = append(r.partial, p...)
			if len(r.partial) >= stderrLineSize {
				r.flush()
			}
			break
		}
		r.partial = append(r.partial, p[:i]...)
		r.flush()
		p = p[i+1:]
	}
	return n, nil
}

func (r *stderrRing) flush() {
	line := redactSecrets(string(r.partial))
	if len(line) > stderrLineSize {
		line = line[:stderrLineSize]
	}
	r.lines = append(r.lines, strings.ToValidUTF8(line, "\uFFFD"))
	if len(r.lines) > stderrLines {
		r.lines = append(r.lines[:0], r.lines[len(r.lines)-stderrLines:]...)
	}
	r.partial = r.partial[:0]
}

// String returns the kept lines, oldest first, including an unterminated last line.
func (r *stderrRing) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := strings.Join(r.lines, "\n")
	if len(r.partial) > 0 {
		if out != "" {
			out += "\n"
		}
		out += redactSecrets(string(r.partial))
	}
	return out
}
