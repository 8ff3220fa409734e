package words

import (
	"fmt"
	"strings"

	"reasonixctl/core"
	"reasonixctl/core/permission"
)

// Choices are the options a person picks by number: for a question every option, for a
// permission none (those are answered with the allow / session / deny keys).
func Choices(kind string, r core.InteractionRequest) []core.InteractionOption {
	if kind != core.InteractionInput {
		return nil
	}
	return r.Options
}

// FreeTextAllowed says whether a question takes a typed answer: the engine passes a typed
// answer through when no offered option matches, so any question without options takes one.
func FreeTextAllowed(kind string) bool {
	return kind == core.InteractionInput
}

// Request is a worker's request in a line: what it asks for and why it was asked rather than
// decided by the policy.
type Request struct{ What, Why string }

// DescribeRequest words a request: its question, command, title or paths.
func DescribeRequest(p core.InteractionRequest) Request {
	var d Request
	switch {
	case p.Question != "":
		d.What = p.Question
	case len(p.Argv) > 0:
		d.What = strings.Join(p.Argv, " ")
	case p.Title != "":
		d.What = p.Title
	default:
		d.What = strings.Join(p.Paths, " ")
	}
	d.Why = permission.Asked(p).Brief()
	return d
}

func (d Request) Summary() string {
	if d.Why == "" {
		return d.What
	}
	return fmt.Sprintf("%s (%s)", d.What, d.Why)
}

// NothingChanged reports a review with no change at all: finalize could only fail on it.
func NothingChanged(d *core.TaskDetail) bool {
	return d.View.State == core.StateReviewRequired && d.View.ReviewRevision > 0 &&
		len(d.ChangedFiles) == 0 && d.Diff == ""
}
