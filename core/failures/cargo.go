package failures

import (
	"regexp"
	"strconv"
	"strings"

	"reasonixctl/core"
)

var (
	cargoTestRe     = regexp.MustCompile(`^test (.+) \.\.\. FAILED$`)
	cargoResultRe   = regexp.MustCompile(`^test result: FAILED\. \d+ passed; (\d+) failed;`)
	cargoTargetRe   = regexp.MustCompile(`^error: test failed, to rerun pass`)
	cargoErrorRe    = regexp.MustCompile(`^error(\[E\d+\])?: (.+)$`)
	cargoLocationRe = regexp.MustCompile(`^\s*--> (.+?):\d+:\d+$`)
	cargoPanicRe    = regexp.MustCompile(`^thread '(.+)'(?: \(\d+\))? panicked at `)
	cargoDocLineRe  = regexp.MustCompile(` \(line \d+\)$`)
	// The closing lines of a failed build or run, which name no failure of their own.
	cargoSummaryRe = regexp.MustCompile(`^error: (?:could not compile|aborting due to|\d+ targets? failed|test failed, to rerun)`)
)

// readCargo reads cargo test and cargo build: `test name ... FAILED` lines, checked against
// the `test result:` counts (and each failed test binary against a result, so that one that
// crashed is not missed), and the compiler's errors, each with the file its `-->` names.
func readCargo(lines []string, n *normaliser) ([]core.CheckFailure, bool) {
	var fs []core.CheckFailure
	tests := map[string]int{} // a failed test's index in fs, for its panic message
	counted, tested, results, targets := 0, 0, 0, 0
	for i, l := range lines {
		if m := cargoTestRe.FindStringSubmatch(l); m != nil {
			name := cargoDocLineRe.ReplaceAllString(m[1], "")
			tests[m[1]] = len(fs)
			tested++
			fs = append(fs, core.CheckFailure{ID: n.paths(name)})
			continue
		}
		if m := cargoResultRe.FindStringSubmatch(l); m != nil {
			c, _ := strconv.Atoi(m[1])
			counted += c
			results++
			continue
		}
		if cargoTargetRe.MatchString(l) {
			targets++
			continue
		}
		if m := cargoPanicRe.FindStringSubmatch(l); m != nil {
			if k, ok := tests[m[1]]; ok && fs[k].Message == "" && i+1 < len(lines) {
				fs[k].Message = strings.TrimSpace(lines[i+1])
			}
			continue
		}
		if cargoSummaryRe.MatchString(l) {
			continue
		}
		if m := cargoErrorRe.FindStringSubmatch(l); m != nil {
			file := ""
			for j := i + 1; j < len(lines) && j <= i+3; j++ {
				if loc := cargoLocationRe.FindStringSubmatch(lines[j]); loc != nil {
					file = n.file(loc[1])
					break
				}
			}
			id := "error" + m[1] + ": " + n.message(m[2])
			if file != "" {
				id = file + ": " + id
			}
			fs = append(fs, core.CheckFailure{ID: id, Message: strings.TrimSpace(m[2])})
		}
	}
	return fs, counted == tested && targets <= results
}
