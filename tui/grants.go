package tui

import (
	"context"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
	"reasonixctl/tui/bind"
	"reasonixctl/tui/intent"
	"reasonixctl/tui/term"
)

// grantsDialog lists the state directory's standing grants (P) and revokes the selected one
// (d, then y). It reads and revokes them through core.Service, from commands, so that a
// dashboard attached to another owner shows and changes what that owner decides by; the
// person's allow that makes a grant goes with the answer to its prompt (Control, Grant).
type grantsDialog struct {
	grants   []core.Grant
	loaded   bool // the first list has come back
	busy     bool // a list or a revoke is on its way
	sel      int
	confirm  bool // d was pressed: y revokes
	msg, err string
}

// grantsMsg is the service's answer to a grantsAction: the grants as they are now, and the grant
// revoked on the way. A revoke that failed lists nothing (revokeErr).
type grantsMsg struct {
	grants    []core.Grant
	err       error
	revoked   *core.Grant
	revokeErr error
}

func newGrantsDialog() *grantsDialog { return &grantsDialog{busy: true} }

// openGrants is P: the dialog, and the command that fills it.
func (m *Model) openGrants() tea.Cmd {
	m.push(newGrantsDialog())
	return m.grantsCmd(intent.Grants{})
}

// grantsCmd carries out a grantsAction through the service.
func (m *Model) grantsCmd(a intent.Grants) tea.Cmd {
	ctx, svc := m.ctx, m.svc
	return func() tea.Msg { return callGrants(ctx, svc, a) }
}

func callGrants(ctx context.Context, svc core.Service, a intent.Grants) grantsMsg {
	var msg grantsMsg
	if a.Revoke != "" {
		g, err := svc.RevokeGrant(ctx, a.Revoke)
		if err != nil {
			return grantsMsg{revokeErr: err}
		}
		msg.revoked = &g
	}
	msg.grants, msg.err = svc.Grants(ctx)
	return msg
}

// onGrants gives the open grants dialog the service's answer; one closed since has nothing to
// show it in.
func (m *Model) onGrants(msg grantsMsg) {
	for _, d := range m.dialogs.items {
		if gd, ok := d.(*grantsDialog); ok {
			gd.answered(msg)
		}
	}
}

func (d *grantsDialog) answered(msg grantsMsg) {
	d.busy = false
	if msg.revokeErr != nil {
		d.err = msg.revokeErr.Error()
		return
	}
	d.loaded = true
	d.grants, d.err = msg.grants, ""
	if msg.err != nil {
		d.err = msg.err.Error()
	}
	d.sel = min(d.sel, max(len(d.grants)-1, 0))
	if g := msg.revoked; g != nil {
		d.msg = "revoked " + g.ID + ": " + g.Describe() + " is asked about again"
	}
}

func (d *grantsDialog) capturing() bool { return false }

func (d *grantsDialog) update(msg tea.KeyMsg, k bind.KeyMap) intent.Result {
	if d.confirm {
		d.confirm = false
		if key.Matches(msg, k.Yes) && d.sel < len(d.grants) && !d.busy {
			d.busy = true
			return intent.Result{Do: intent.Grants{Revoke: d.grants[d.sel].ID}}
		}
		return intent.Result{}
	}
	d.msg = ""
	switch {
	case key.Matches(msg, k.Dismiss), key.Matches(msg, k.Grants):
		return intent.Result{Close: true}
	case key.Matches(msg, k.Down):
		d.sel = min(d.sel+1, max(len(d.grants)-1, 0))
	case key.Matches(msg, k.Up):
		d.sel = max(d.sel-1, 0)
	case key.Matches(msg, k.Deny) && len(d.grants) > 0 && !d.busy:
		d.confirm = true
	case key.Matches(msg, k.Refresh) && !d.busy:
		d.busy = true
		return intent.Result{Do: intent.Grants{}}
	}
	return intent.Result{}
}

func (d *grantsDialog) view(t term.Theme, k bind.KeyMap, width int) (string, string) {
	var b strings.Builder
	b.WriteString(t.Title.Render("Standing grants") + t.Dim.Render(fmt.Sprintf("  %d · commands allowed for a repository, kept in the state directory", len(d.grants))))
	b.WriteString("\n")
	switch {
	case !d.loaded && d.err == "":
		b.WriteString("\n" + t.Dim.Render("Loading…"))
	case len(d.grants) == 0 && d.err == "":
		b.WriteString("\n" + t.Dim.Render("None. In a permission prompt, R allows a command for its repository from then on."))
	}
	for i, g := range d.grants {
		mark := "  "
		if i == d.sel {
			mark = "› "
		}
		line := fmt.Sprintf("%s%s  %s", mark, g.ID, g.Describe())
		b.WriteString("\n" + term.Short(safetext.Line(line), max(width, 20)))
		b.WriteString("\n" + t.Dim.Render(term.Short(safetext.Line(fmt.Sprintf("    %s · from task %s · %s", g.Repository, g.TaskID, g.CreatedAt)), max(width, 20))))
	}
	if d.confirm && d.sel < len(d.grants) {
		b.WriteString("\n\n" + t.Pending.Render("Revoke "+safetext.Line(d.grants[d.sel].ID)+"? y revokes, any other key keeps it."))
	}
	if d.msg != "" {
		b.WriteString("\n\n" + t.Dim.Render(term.Short(safetext.Line(d.msg), max(width, 20))))
	}
	if d.err != "" {
		b.WriteString("\n\n" + t.Error.Render(safetext.Line(d.err)))
	}
	return b.String(), term.KeyLines(t, width, bind.Hint(k.Down, "next"), bind.Hint(k.Up, "previous"), bind.Hint(k.Deny, "revoke"), bind.Hint(k.Dismiss, "close"))
}
