package words

import (
	"encoding/json"
	"fmt"
	"reasonixctl/core"
	"reasonixctl/core/safetext"
	"strings"
)

var nextSteps = map[core.NextAction]string{
	core.NextFixRequest:             "Fix what the message names and try again.",
	core.NextInstallOrUpgrade:       "Install or upgrade the missing piece (reasonixctl doctor says which), then try again.",
	core.NextCreateNewTask:          "Start a new task with another id (n).",
	core.NextInspectTask:            "Look at the task's current state (ctrl+r reloads it) before acting again.",
	core.NextResolveSourceCollision: "Resolve the overlapping changes in your checkout, then try again.",
	core.NextRepairAndFinalize:      "Steer a repair round (s) saying what to fix, review the new diff, then finalize again (F).",
	core.NextRetry:                  "Try again in a moment.",
	core.NextNone:                   "This is unexpected; the log has the details.",
}

// nextByCode overrides the generic next step where the code says more.
var nextByCode = map[core.Code]string{
	core.CodeReasonixUnavailable:  "Run `reasonixctl doctor`: it says whether the worker binary is missing, too old or misconfigured. Fix that, then start the task again.",
	core.CodeReasonixIncompatible: "Run `reasonixctl doctor` to see which worker version and features are needed.",
	core.CodeVerificationFailed:   "Read the whole log in the checks view (4), steer a repair round (s) saying what to fix, review the new diff, then finalize again (F).",
	core.CodeSandboxUnavailable:   "Install bubblewrap (Debian/Ubuntu: apt install bubblewrap; Fedora: dnf install bubblewrap), then check with `reasonixctl doctor`.",
}

// DescribeError renders a *core.Error as plain lines: what happened, the details that matter and
// what to do next.
func DescribeError(err error) []string {
	e := core.AsError(err)
	msgLines := strings.Split(e.Message, "\n")
	lines := []string{string(e.Code) + ": " + msgLines[0]}
	for _, l := range msgLines[1:] {
		lines = append(lines, "  │ "+l)
	}
	next := nextSteps[e.NextAction]
	if n, ok := nextByCode[e.Code]; ok {
		next = n
	}
	if s := e.Stale(); s != nil {
		lines = append(lines, fmt.Sprintf("The review snapshot moved on at %s: you reviewed %s, the task now has %s.",
			s.Checkpoint, SnapshotText(s.Expected), SnapshotText(s.Current)))
		next = "The diff has been reloaded: review it again (2) and finalize against the new snapshot (F)."
	}
	// A failed check's message already says what ran, how it ended, its log and its tail.
	for _, is := range e.Issues() {
		lines = append(lines, "• "+is.Path+": "+is.Message)
	}
	for _, k := range e.OtherDetails() {
		switch k {
		case "baseline", "pre_existing_failure", "placeholders", "failures", "failure_format":
			// The base commit's output is in the checks tab, and the message lists the failures
			// one per line; the placeholders are the issues.
			continue
		}
		lines = append(lines, k+": "+CompactJSON(e.Details[k]))
	}
	if next != "" {
		lines = append(lines, "", "Next: "+next)
	}
	return lines
}

// SnapshotText names a review snapshot: its revision and the start of its tree hash.
func SnapshotText(s core.ReviewSnapshot) string {
	text := fmt.Sprintf("revision %d", s.ReviewRevision)
	if h := s.ReviewTreeHash; h != "" {
		text += " (tree " + h[:min(len(h), 12)] + ")"
	}
	return text
}

// OneLine is an error as one line to draw (errors quote paths, worker text and other foreign
// strings).
func OneLine(err error) string { return safetext.Line(err.Error()) }

// WithNext replaces the "Next: …" line of describeError's lines with next.
func WithNext(lines []string, next string) []string {
	out := append([]string(nil), lines...)
	for i := len(out) - 1; i >= 0; i-- {
		if strings.HasPrefix(out[i], "Next: ") {
			out[i] = "Next: " + next
			return out
		}
	}
	return append(out, "", "Next: "+next)
}

func CompactJSON(v any) string {
	if v == nil {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}
