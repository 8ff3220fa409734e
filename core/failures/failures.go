// Package failures reads which failures a verification command's output names, at the
// granularity its toolchain reports them — a test, a build error of a package, a failing line
// of a script — and compares a change's failures with the base commit's, so that only a failure
// that was there before the change can be excused (issue 37). It is pure: it reads text.
//
// It parses what the command prints rather than adding a reporter flag to its argv: the argv of
// a contract is exact (what the worker may run and the person approved), a flag such as go
// test's -json or pytest's --junitxml changes what runs and where it writes (the checked tree is
// read-only, and a report written to the sandbox's /tmp is gone with it), and the default
// output of each toolchain names every failure already. A reporter the contract's argv asks for
// itself is read when it prints to the output (go test -json, node's tap and junit):
//
//   - go test, go vet, go build: `--- FAIL: TestX` under the package's `FAIL\tpkg` line, the
//     compiler's and vet's `file.go:L:C: message` lines under their `# pkg` header, `FAIL\tpkg
//     [build failed]`; `-json` events when the contract asks for -json itself.
//   - pytest: the short test summary (`FAILED node::id - message`, `ERROR node::id`), checked
//     against the counts of its closing line.
//   - python -m unittest: the `FAIL: test (module.Class.test)` and `ERROR:` blocks, checked
//     against `FAILED (failures=N, errors=M)`.
//   - node --test: TAP (`not ok N - name`, node 20's reporter when not on a terminal), the
//     spec reporter (`✖ name (…ms)`) or --test-reporter=junit on stdout, checked against their
//     `fail N` counts.
//   - cargo test / build: `test name ... FAILED` lines checked against `test result:` counts,
//     and the compiler's `error[E…]: message` with its `--> file` location.
//
// When a parser cannot account for every failure the output counts, or finds none although the
// command failed, the output is read as a command with no reporter: it is excusable only when
// all of it, normalised (times, durations, hex addresses, temporary paths and the checked
// tree's own path taken out), is the same as on the base.
package failures

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"slices"
	"strings"

	"reasonixctl/core"
)

// Limits of what a report keeps.
const (
	// MaxFailures is how many failures a structured report compares one by one; an output that
	// names more is compared whole, as one with no reporter is (just as sound, less forgiving).
	// With the lengths below, a check's result and its base's stay well within a journal event.
	MaxFailures = 100
	// maxOutputFailures is how many failing lines a report of a whole output lists.
	maxOutputFailures = 30
	maxIDLen          = 200
	maxMessageLen     = 160
)

// Roots are the absolute paths a run's output may name that differ between the base commit's
// run and the change's: the checked tree (the base's exported files, the task's worktree) and
// the toolchains' cache (the base's, the task's). They are taken out before comparing.
type Roots struct {
	Tree  string
	Cache string
}

// Report is what one failed run's output names.
type Report struct {
	Format   string              // core.FailureFormat*
	Failures []core.CheckFailure // in the order the output names them; PreExisting is false
	Digest   string              // sha256 of the normalised output's non-blank lines, sorted
}

// parser reads the lines of an output; complete is false when the output counts failures the
// parser did not find.
type parser struct {
	format string
	read   func(lines []string, n *normaliser) (fs []core.CheckFailure, complete bool)
}

// Read reads the failures in what a command with argv printed (its stdout, a newline, its
// stderr). roots are taken out of paths.
func Read(argv []string, output string, roots Roots) Report {
	n := newNormaliser(roots)
	lines := splitLines(output)
	rep := Report{Digest: n.digest(lines)}
	if p, ok := parserFor(argv); ok {
		fs, complete := safeRead(p, lines, n)
		if complete && len(fs) > 0 && len(fs) <= MaxFailures {
			rep.Format, rep.Failures = p.format, clip(fs)
			return rep
		}
	}
	rep.Format, rep.Failures = core.FailureFormatOutput, outputFailures(lines, n)
	return rep
}

// safeRead runs a parser on output a repository's code printed: whatever it holds, a parser
// that fails leaves the output to be compared whole rather than stop a finalize.
func safeRead(p parser, lines []string, n *normaliser) (fs []core.CheckFailure, complete bool) {
	defer func() {
		if recover() != nil {
			fs, complete = nil, false
		}
	}()
	return p.read(lines, n)
}

// Judge marks each failure of the change's report that the base's report has too (as many
// times as the base has it) pre-existing, and reports whether the change's failures may be
// excused: every one is on the base, read the same way — and, for an output read whole, the
// whole output is the same.
func Judge(base, change Report) ([]core.CheckFailure, bool) {
	out := slices.Clone(change.Failures)
	for i := range out {
		out[i].PreExisting = false
	}
	if base.Format == "" || base.Format != change.Format {
		// Read differently (one names tests, the other could not be read so): nothing the change
		// shows is known to be on the base.
		return out, false
	}
	have := map[string]int{}
	for _, f := range base.Failures {
		have[f.ID]++
	}
	all := true
	for i := range out {
		if have[out[i].ID] > 0 {
			have[out[i].ID]--
			out[i].PreExisting = true
		} else {
			all = false
		}
	}
	if change.Format != core.FailureFormatOutput {
		return out, all && len(out) > 0
	}
	if base.Digest == "" || base.Digest != change.Digest {
		if all {
			out = append(out, core.CheckFailure{ID: "output", Message: "its output differs from the base commit's beyond these lines"})
		}
		return out, false
	}
	for i := range out {
		out[i].PreExisting = true
	}
	return out, len(out) > 0
}

// parserFor picks the parser of the toolchain argv runs, if we read its reporter.
func parserFor(argv []string) (parser, bool) {
	if len(argv) == 0 {
		return parser{}, false
	}
	tool := filepath.Base(argv[0])
	args := argv[1:]
	switch {
	case tool == "go":
		if sub := firstNonFlag(args); sub == "test" || sub == "vet" || sub == "build" || sub == "install" {
			return parser{core.FailureFormatGo, readGo}, true
		}
	case tool == "cargo":
		if sub := firstNonFlag(args); sub == "test" || sub == "build" || sub == "check" || sub == "clippy" {
			return parser{core.FailureFormatCargo, readCargo}, true
		}
	case tool == "pytest" || tool == "py.test":
		return parser{core.FailureFormatPytest, readPytest}, true
	case isPython(tool):
		for i, a := range args {
			if a == "-m" && i+1 < len(args) {
				switch args[i+1] {
				case "pytest":
					return parser{core.FailureFormatPytest, readPytest}, true
				case "unittest":
					return parser{core.FailureFormatUnittest, readUnittest}, true
				}
				break
			}
		}
	case tool == "node" || tool == "nodejs":
		if slices.Contains(args, "--test") {
			return parser{core.FailureFormatNode, readNode}, true
		}
	}
	return parser{}, false
}

func firstNonFlag(args []string) string {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "+") { // cargo +nightly test
			return a
		}
	}
	return ""
}

// isPython: python, python3, python3.12.
func isPython(tool string) bool {
	rest, ok := strings.CutPrefix(tool, "python")
	return ok && strings.Trim(rest, "0123456789.") == ""
}

// splitLines splits an output into lines without their line ends and terminal escapes.
func splitLines(s string) []string {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(stripANSI(l), " \t\r")
	}
	return lines
}

// clip bounds each failure's id and message.
func clip(fs []core.CheckFailure) []core.CheckFailure {
	for i := range fs {
		fs[i].ID = truncate(fs[i].ID, maxIDLen)
		fs[i].Message = truncate(strings.TrimSpace(fs[i].Message), maxMessageLen)
	}
	return fs
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

func sha(lines []string) string {
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(sum[:])
}
