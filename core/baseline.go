package core

import (
	"os"
	"strings"
)

// Baseline statuses: how a verification command fares on the base commit, before the change.
const (
	BaselinePassed  = "passed"  // it passes before the change: the change made it fail
	BaselineFailed  = "failed"  // it fails before the change too: a pre-existing failure
	BaselineUnknown = "unknown" // it could not run there (toolchain missing, sandbox unavailable, …)
)

// BaselineResult is one verification command run on a base commit's files, in the same sandbox
// and with the same cache as finalize runs it (package core/baseline runs it).
type BaselineResult struct {
	Status   string `json:"status"` // passed | failed | unknown
	Base     string `json:"base"`   // the commit it ran on
	ExitCode *int   `json:"exitCode,omitempty"`
	TimedOut bool   `json:"timedOut,omitempty"`
	LogPath  string `json:"logPath,omitempty"`
	LogTail  string `json:"logTail,omitempty"` // the last lines of its output
	Reason   string `json:"reason,omitempty"`  // why it is unknown
	// Failures are what a failed run's output names, read as FailureFormat says (their
	// PreExisting is false: they are the base's own); OutputDigest is of its whole output,
	// normalised, which is what a command with no reporter we read is compared by. Empty when
	// the output could not be read whole (cut at the log's limit).
	Failures      []CheckFailure `json:"failures,omitempty"`
	FailureFormat string         `json:"failureFormat,omitempty"`
	OutputDigest  string         `json:"outputDigest,omitempty"`
}

// PreExisting reports whether the command also fails before the change. Whether a failure
// after the change may be excused depends on which failures it shows: VerificationResult.Excusable.
func (b *BaselineResult) PreExisting() bool { return b != nil && b.Status == BaselineFailed }

// FailuresKnown reports whether the command fails before the change with failures its
// toolchain's reporter names (tests, build errors), so that finalize can tell those from the
// failures a change causes: such a check still proves something, and `contract init --check`
// keeps it.
func (b *BaselineResult) FailuresKnown() bool {
	return b.PreExisting() && len(b.Failures) > 0 && b.FailureFormat != "" && b.FailureFormat != FailureFormatOutput
}

// CheckFailure is one failure a verification command's output names: a test (its id as the
// toolchain names it), a build error (its package or file and message), or, for a command
// with no reporter we read, a failing line of its output.
type CheckFailure struct {
	ID      string `json:"id"`
	Message string `json:"message,omitempty"`
	// PreExisting: the same failure is on the base commit too. Only such failures can be excused.
	PreExisting bool `json:"pre_existing"`
}

// How a command's failures were read (VerificationResult.FailureFormat).
const (
	FailureFormatGo       = "go"        // go test / go vet / go build: tests, build and vet errors
	FailureFormatPytest   = "pytest"    // pytest's short test summary
	FailureFormatUnittest = "unittest"  // python -m unittest
	FailureFormatNode     = "node-test" // node --test, TAP or spec reporter
	FailureFormatCargo    = "cargo"     // cargo test / build: tests and compile errors
	// FailureFormatOutput: no reporter we read; the whole output, normalised, is compared.
	FailureFormatOutput = "output"
)

// BaseCheck is one verification command run on the checkout's HEAD commit.
type BaseCheck struct {
	ID       string          `json:"id"`
	Argv     []string        `json:"argv"`
	Cwd      string          `json:"cwd"`
	Baseline *BaselineResult `json:"baseline"`
}

// FirstFailingLines is the first n lines of what a command printed on the base commit (its
// log without the header), for a person deciding about it.
func FirstFailingLines(b *BaselineResult, n int) string {
	if b == nil {
		return ""
	}
	if b.Status == BaselineUnknown {
		return b.Reason
	}
	text := b.LogTail
	if b.LogPath != "" {
		if raw, err := os.ReadFile(b.LogPath); err == nil {
			text = string(raw)
		}
	}
	lines := strings.Split(text, "\n")
	for i := range min(4, len(lines)) {
		// The log's own header: what ran, where, on which base, how it ended.
		if l := lines[i]; strings.HasPrefix(l, "$ ") || strings.HasPrefix(l, "cwd: ") || strings.HasPrefix(l, "base: ") || strings.HasPrefix(l, "exit: ") {
			lines[i] = ""
		}
	}
	return FirstLines(strings.Join(lines, "\n"), n)
}

// FirstLines is the first n non-blank lines of text, without trailing spaces.
func FirstLines(text string, n int) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		out = append(out, strings.TrimRight(l, "\r "))
		if len(out) == n {
			break
		}
	}
	return strings.Join(out, "\n")
}

// TailOf is the last lines of text, at most maxBytes, trailing blank lines dropped.
func TailOf(text string, lines, maxBytes int) string {
	parts := strings.Split(strings.TrimRight(text, "\n "), "\n")
	if len(parts) > lines {
		parts = parts[len(parts)-lines:]
	}
	out := strings.Join(parts, "\n")
	if len(out) > maxBytes {
		out = out[len(out)-maxBytes:]
		if i := strings.IndexByte(out, '\n'); i >= 0 {
			out = out[i+1:]
		}
	}
	return out
}
