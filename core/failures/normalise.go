package failures

import (
	"regexp"
	"slices"
	"strings"
)

// normaliser takes out of a line what differs between two runs of the same failure: the
// checked tree's and the cache's paths, temporary paths, times, durations, addresses, process
// and thread numbers, and line numbers of source positions (a change that adds a line above a
// failing test moves it without making it another failure).
type normaliser struct {
	roots []rootSub
}

type rootSub struct{ path, with string }

func newNormaliser(r Roots) *normaliser {
	n := &normaliser{}
	add := func(p, under, with string) {
		p = strings.TrimRight(p, "/")
		if p != "" && p != "." {
			n.roots = append(n.roots, rootSub{p + "/", under}, rootSub{p, with})
		}
	}
	// Paths in the tree become relative, as the toolchains print most of them.
	add(r.Tree, "", ".")
	add(r.Cache, "$CACHE/", "$CACHE")
	// The longest first: a cache may lie inside the tree's parent, or the other way round.
	slices.SortStableFunc(n.roots, func(a, b rootSub) int { return len(b.path) - len(a.path) })
	return n
}

var (
	ansiRe = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)`)

	isoTimeRe = regexp.MustCompile(`\d{4}-\d{2}-\d{2}[T ]\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2}\b)?`)
	clockRe   = regexp.MustCompile(`\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b`)
	tmpRe     = regexp.MustCompile(`(?:/private)?(?:/tmp|/var/tmp|/dev/shm)/[^\s'"()\[\]{}<>,;:]*`)
	hexRe     = regexp.MustCompile(`\b0[xX][0-9a-fA-F]+\b`)
	longHexRe = regexp.MustCompile(`\b[0-9a-fA-F]{8,}\b`)
	// 12ms, 0.5s, 1m2.5s, 3µs, "12 ms", "1.5 seconds"; go test's "(cached)" stands for one.
	durationRe = regexp.MustCompile(`\b\d+(?:\.\d+)?(?:ns|µs|us|ms|s|m|h)(?:\d+(?:\.\d+)?(?:ns|µs|us|ms|s|m|h))*\b|\b\d+(?:\.\d+)? ?(?:ms|secs?|seconds?|minutes?)\b|\(cached\)`)
	durMsRe    = regexp.MustCompile(`\b(duration_ms:?) \d+(?:\.\d+)?`)
	// A source position: file.ext:12 or file.ext:12:5 (and Python's `line 12`).
	positionRe = regexp.MustCompile(`(\.[A-Za-z][A-Za-z0-9]{0,5}):\d+(?::\d+)?`)
	pyLineRe   = regexp.MustCompile(`\bline \d+\b`)
	threadRe   = regexp.MustCompile(`(thread '[^']*') \(\d+\)`)
	goroutRe   = regexp.MustCompile(`\bgoroutine \d+\b`)
	pidRe      = regexp.MustCompile(`\b(pid|PID|process) ?[=:#]? ?\d+\b`)
)

func stripANSI(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	return ansiRe.ReplaceAllString(s, "")
}

// paths replaces the roots: the checked tree's path becomes relative ("." for itself).
func (n *normaliser) paths(s string) string {
	for _, r := range n.roots {
		s = strings.ReplaceAll(s, r.path, r.with)
	}
	return s
}

// line is the whole normalisation of one line of output.
func (n *normaliser) line(s string) string {
	s = n.paths(stripANSI(s))
	s = isoTimeRe.ReplaceAllString(s, "<time>")
	s = clockRe.ReplaceAllString(s, "<time>")
	s = tmpRe.ReplaceAllString(s, "<tmp>")
	s = threadRe.ReplaceAllString(s, "$1 (<n>)")
	s = goroutRe.ReplaceAllString(s, "goroutine <n>")
	s = pidRe.ReplaceAllString(s, "$1 <n>")
	s = hexRe.ReplaceAllString(s, "0x<hex>")
	s = longHexRe.ReplaceAllString(s, "<hex>")
	s = durMsRe.ReplaceAllString(s, "$1 <dur>")
	s = durationRe.ReplaceAllString(s, "<dur>")
	s = positionRe.ReplaceAllString(s, "$1:<n>")
	s = pyLineRe.ReplaceAllString(s, "line <n>")
	return strings.TrimSpace(s)
}

// message normalises an error message that is part of a failure's id (a build error's text):
// its paths and positions, not its words.
func (n *normaliser) message(s string) string {
	s = n.paths(s)
	s = tmpRe.ReplaceAllString(s, "<tmp>")
	s = positionRe.ReplaceAllString(s, "$1")
	return strings.TrimSpace(s)
}

// file is a source path as a failure id names it: relative to the tree, without "./".
func (n *normaliser) file(p string) string {
	p = n.paths(p)
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	return p
}

// digest is of the normalised non-blank lines, sorted: two outputs that say the same things
// in another order (parallel jobs) are the same.
func (n *normaliser) digest(lines []string) string {
	var norm []string
	for _, l := range lines {
		if l = n.line(l); l != "" {
			norm = append(norm, l)
		}
	}
	slices.Sort(norm)
	return sha(norm)
}
