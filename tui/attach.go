package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
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

// onOwner takes in a change of the attachment. When the owner leaves, everything shown stays as
// it was and the header says so; when a new one answers, the views are reloaded from it.
func (m *Model) onOwner() tea.Cmd {
	a := m.attach.attached
	if a == nil {
		return nil
	}
	owner, ok := a.Owner()
	switch {
	case !ok && !m.attach.gone:
		m.attach.gone = true
		m.setStatus("the owner exited: showing what was last seen until a new owner starts", true, "")
	case ok && (m.attach.gone || owner != m.attach.owner):
		m.attach.owner, m.attach.gone = owner, false
		m.setStatus("attached to "+owner.Describe(), false, "")
		// The relay re-subscribes by itself too; reloading here does not depend on which of
		// the two arrives first.
		return m.resync(nil)
	}
	return nil
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
