package tui

import (
	"fmt"
	"strings"
)

// Owner is the process that owns the state directory a dashboard is attached to.
type Owner struct {
	PID  int
	Mode string // as engine.Config.Mode: mcp, tui, demo, …
}

// Describe names the owner the way a person started it.
func (o Owner) Describe() string {
	switch o.Mode {
	case "mcp":
		return fmt.Sprintf("reasonixctl --mcp (pid %d)", o.PID)
	case "tui":
		return fmt.Sprintf("another reasonixctl dashboard (pid %d)", o.PID)
	}
	return fmt.Sprintf("reasonixctl %s (pid %d)", o.Mode, o.PID)
}

// Attachment is a dashboard's link to another process that owns the state directory: the
// service it was given forwards every call there.
type Attachment interface {
	// Owner returns the owning process; ok is false while none answers.
	Owner() (owner Owner, ok bool)
	// Changed receives a value whenever the owner goes away or a new one answers.
	Changed() <-chan struct{}
}

// ownerMsg says the attachment changed: the owner went away or a new one answered.
type ownerMsg struct{}

// attachState is what the model remembers of its attachment: the owner it last saw, and whether
// none answers now.
type attachState struct {
	attached Attachment // Options.Attached: nil when this dashboard's engine is its own
	stateDir string
	owner    Owner
	gone     bool
}

// follow takes in a change of the attachment: what the status line says of it, if anything, and
// whether to reload the views. When the owner leaves, everything shown stays as it was and the
// header says so; when a new one answers, the views are reloaded from it.
func (a *attachState) follow() (say string, isErr, reload bool) {
	if a.attached == nil {
		return "", false, false
	}
	owner, ok := a.attached.Owner()
	switch {
	case !ok && !a.gone:
		a.gone = true
		return "the owner exited: showing what was last seen until a new owner starts", true, false
	case ok && (a.gone || owner != a.owner):
		a.owner, a.gone = owner, false
		return "attached to " + owner.Describe(), false, true
	}
	return "", false, false
}

// label is the header's account of where the engine runs.
func (a *attachState) label() string {
	if a.attached == nil {
		return ""
	}
	if a.gone {
		return "owner " + strings.TrimPrefix(a.owner.Describe(), "reasonixctl ") +
			" exited; waiting for an owner: reasonixctl serve starts one"
	}
	return "attached to " + a.owner.Describe()
}
