package tui

import (
	"fmt"
	"strings"

	"reasonixctl/core"
	"reasonixctl/core/permission"
)

// choices are the options a person picks by number: for a question every option, for a
// permission none (those are answered with the allow / session / deny keys).
func choices(kind string, r core.InteractionRequest) []core.InteractionOption {
	if kind != core.InteractionInput {
		return nil
	}
	return r.Options
}

// freeTextAllowed says whether a question takes a typed answer: the engine passes a typed
// answer through when no offered option matches, so any question without options takes one.
func freeTextAllowed(kind string) bool {
	return kind == core.InteractionInput
}

type requestDescription struct{ what, why string }

func describeRequest(p core.InteractionRequest) requestDescription {
	var d requestDescription
	switch {
	case p.Question != "":
		d.what = p.Question
	case len(p.Argv) > 0:
		d.what = strings.Join(p.Argv, " ")
	case p.Title != "":
		d.what = p.Title
	default:
		d.what = strings.Join(p.Paths, " ")
	}
	d.why = permission.Asked(p).Brief()
	return d
}

func (d requestDescription) summary() string {
	if d.why == "" {
		return d.what
	}
	return fmt.Sprintf("%s (%s)", d.what, d.why)
}
