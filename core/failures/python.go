package failures

import (
	"regexp"
	"strconv"
	"strings"

	"reasonixctl/core"
)

var (
	unittestHeadRe  = regexp.MustCompile(`^(FAIL|ERROR|UNEXPECTED SUCCESS): (\S+) \(([^)]*)\)(.*)$`)
	unittestCountRe = regexp.MustCompile(`^FAILED \((.+)\)$`)

	pytestSummaryRe = regexp.MustCompile(`^=+ short test summary info =+$`)
	pytestLineRe    = regexp.MustCompile(`^(FAILED|ERROR) (\S.*?)(?: - (.*))?$`)
	pytestOtherRe   = regexp.MustCompile(`^(PASSED|SKIPPED|XFAIL|XPASS) `)
	// The closing line: "=== 2 failed, 1 passed, 1 error in 0.12s ===" (or without the rules, -q).
	pytestClosingRe = regexp.MustCompile(`^=*\s*(?:\d+ [a-z]+(?:, )?)+ in \d+(?:\.\d+)?s\b`)
	pytestCountRe   = regexp.MustCompile(`(\d+) (failed|errors?)\b`)
)

var (
	unittestEq   = strings.Repeat("=", 70)
	unittestDash = strings.Repeat("-", 70)
)

// readUnittest reads `python -m unittest`: each failure is a block headed `FAIL: test_x
// (module.Class.test_x)` (before Python 3.11: `(module.Class)`), after a line of `=`, and the
// closing `FAILED (failures=N, errors=M)` counts them.
func readUnittest(lines []string, n *normaliser) ([]core.CheckFailure, bool) {
	var fs []core.CheckFailure
	counted, found := 0, false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if m := unittestCountRe.FindStringSubmatch(l); m != nil {
			found = true
			for _, part := range strings.Split(m[1], ", ") {
				k, v, _ := strings.Cut(part, "=")
				if c, err := strconv.Atoi(v); err == nil && (k == "failures" || k == "errors" || k == "unexpected successes") {
					counted += c
				}
			}
			continue
		}
		if i == 0 || lines[i-1] != unittestEq {
			continue
		}
		m := unittestHeadRe.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		name, where, rest := m[2], m[3], strings.TrimSpace(m[4])
		id := where
		if !strings.HasSuffix(where, "."+name) {
			id = where + "." + name
		}
		if rest != "" {
			id += " " + rest
		}
		// The message: the block's last line (the exception), before the next rule.
		msg := ""
		for j := i + 2; j < len(lines) && lines[j] != unittestEq && lines[j] != unittestDash; j++ {
			if t := strings.TrimSpace(lines[j]); t != "" {
				msg = t
			}
		}
		if m[1] != "FAIL" {
			msg = strings.TrimSuffix(strings.ToLower(m[1])+": "+msg, ": ")
		}
		fs = append(fs, core.CheckFailure{ID: n.paths(id), Message: n.paths(msg)})
	}
	return fs, found && counted == len(fs)
}

// readPytest reads pytest's short test summary (`FAILED path::test - message`, `ERROR path`),
// shown by default since pytest 6, and checks it against the closing line's counts.
func readPytest(lines []string, n *normaliser) ([]core.CheckFailure, bool) {
	var fs []core.CheckFailure
	counted, closing := 0, false
	for i := 0; i < len(lines); i++ {
		if pytestSummaryRe.MatchString(lines[i]) {
			for i++; i < len(lines); i++ {
				l := lines[i]
				if m := pytestLineRe.FindStringSubmatch(l); m != nil {
					msg := m[3]
					if m[1] == "ERROR" {
						msg = strings.TrimSuffix("error: "+msg, ": ")
					}
					fs = append(fs, core.CheckFailure{ID: n.file(m[2]), Message: n.paths(msg)})
					continue
				}
				if pytestOtherRe.MatchString(l) {
					continue
				}
				break
			}
			i--
			continue
		}
		if l := lines[i]; pytestClosingRe.MatchString(l) {
			closing, counted = true, 0
			for _, m := range pytestCountRe.FindAllStringSubmatch(l, -1) {
				c, _ := strconv.Atoi(m[1])
				counted += c
			}
		}
	}
	return fs, closing && counted == len(fs)
}
