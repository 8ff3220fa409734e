package failures

import (
	"regexp"
	"strings"

	"reasonixctl/core"
)

// failingLineRe picks, in an output with no reporter we read, the lines that say something
// failed: they are what the checks tab and the error list for it.
var failingLineRe = regexp.MustCompile(`(?i)\b(?:fail(?:s|ed|ure|ures)?|errors?|panic(?:ked)?|fatal|exception|traceback|assert(?:ion)?)\b|^not ok\b|[✖✗×]`)

// outputFailures lists the failing lines of an output read whole, normalised (at most
// maxOutputFailures); an output with none is named by its last line. Whether it may be excused
// is decided by the whole output (Report.Digest), not by these lines alone.
func outputFailures(lines []string, n *normaliser) []core.CheckFailure {
	var fs []core.CheckFailure
	last := ""
	for _, l := range lines {
		norm := n.line(l)
		if norm == "" {
			continue
		}
		last = norm
		if failingLineRe.MatchString(l) && len(fs) < maxOutputFailures {
			fs = append(fs, core.CheckFailure{ID: norm, Message: strings.TrimSpace(n.paths(l))})
		}
	}
	switch {
	case len(fs) == 0 && last != "":
		fs = append(fs, core.CheckFailure{ID: last})
	case len(fs) == 0:
		fs = append(fs, core.CheckFailure{ID: "(no output)"})
	}
	return clip(fs)
}
