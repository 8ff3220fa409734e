package tui

import (
	"fmt"
	"strings"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
)

func commitNotice(taskID, hash, branch, integration string) *noticeDialog {
	if integration == "" {
		integration = "git cherry-pick " + hash
	}
	return &noticeDialog{
		title:   "Committed " + taskID,
		lines:   []string{"commit " + hash, "branch " + branch, "", "Bring it into your checkout with:"},
		command: integration,
	}
}

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

func errorNotice(title string, err error) *noticeDialog {
	return &noticeDialog{title: title, lines: describeError(err), isErr: true, err: err}
}

// errorNotice is errorNotice as this dashboard tells it: while an attached dashboard has no
// owner, a failed call is explained by that (ownerGoneNext), not by the error's generic advice.
func (m *Model) errorNotice(title string, err error) *noticeDialog {
	n := errorNotice(title, err)
	if m.attach.gone {
		n.ownerGone, n.stateDir = true, m.opts.StateDir
	}
	return n
}

// describeError is describeError as this dashboard tells it (see errorNotice).
func (m *Model) describeError(err error) []string {
	lines := describeError(err)
	if m.attach.gone {
		lines = withNext(lines, ownerGoneNext(m.opts.StateDir))
	}
	return lines
}

// ownerGoneNext is what to do about a call that failed while no owner answers for the state
// directory: nothing is wrong with the worker, the dashboard waits for an owner.
func ownerGoneNext(stateDir string) string {
	return "No process owns " + stateDir + " now: this dashboard waits for an owner and reloads when one " +
		"answers. Start one with `reasonixctl serve`, or run `reasonixctl` with this state directory " +
		"(CODEX_REASONIX_STATE_DIR=" + stateDir + "), then try again."
}

// withNext replaces the "Next: …" line of describeError's lines with next.
func withNext(lines []string, next string) []string {
	out := append([]string(nil), lines...)
	for i := len(out) - 1; i >= 0; i-- {
		if strings.HasPrefix(out[i], "Next: ") {
			out[i] = "Next: " + next
			return out
		}
	}
	return append(out, "", "Next: "+next)
}

// describeError renders a *core.Error as plain lines: what happened, the details that matter and
// what to do next.
func describeError(err error) []string {
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
			s.Checkpoint, snapshotText(s.Expected), snapshotText(s.Current)))
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
		lines = append(lines, k+": "+compactJSON(e.Details[k]))
	}
	if next != "" {
		lines = append(lines, "", "Next: "+next)
	}
	return lines
}

// snapshotText names a review snapshot: its revision and the start of its tree hash.
func snapshotText(s core.ReviewSnapshot) string {
	text := fmt.Sprintf("revision %d", s.ReviewRevision)
	if h := s.ReviewTreeHash; h != "" {
		text += " (tree " + h[:min(len(h), 12)] + ")"
	}
	return text
}

// oneLine is an error as one line to draw (errors quote paths, worker text and other foreign
// strings).
func oneLine(err error) string { return safetext.Line(err.Error()) }
