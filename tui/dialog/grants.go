package dialog

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

// Grants lists the state directory's standing grants (P) and revokes the selected one (d, then
// y). It reads and revokes them through the service, in GrantsCmd, so that a dashboard
// attached to another owner shows and changes what that owner decides by; the person's allow
// that makes a grant goes with the answer to its prompt (Control, Grant).
type Grants struct {
	grants   []core.Grant
	loaded   bool // the first list has come back
	busy     bool // a list or a revoke is on its way
	sel      int
	confirm  bool // d was pressed: y revokes
	msg, err string
}

// NewGrants is the grants dialog waiting for its first list: the root runs GrantsCmd with
// intent.Grants{} as it opens it.
func NewGrants() *Grants { return &Grants{busy: true} }

// GrantsService is what the grants dialog needs of core.Service.
type GrantsService interface {
	Grants(ctx context.Context) ([]core.Grant, error)
	RevokeGrant(ctx context.Context, id string) (core.Grant, error)
}

// GrantsMsg is the service's answer to an intent.Grants: the grants as they are now, and the
// grant revoked on the way. A revoke that failed lists nothing (revokeErr).
type GrantsMsg struct {
	grants    []core.Grant
	err       error
	revoked   *core.Grant
	revokeErr error
}

// GrantsCmd carries out a: revokes a.Revoke when set, then lists the grants, and answers with
// a GrantsMsg for the open grants dialog (Answered).
func GrantsCmd(ctx context.Context, svc GrantsService, a intent.Grants) tea.Cmd {
	return func() tea.Msg {
		var msg GrantsMsg
		if a.Revoke != "" {
			g, err := svc.RevokeGrant(ctx, a.Revoke)
			if err != nil {
				return GrantsMsg{revokeErr: err}
			}
			msg.revoked = &g
		}
		msg.grants, msg.err = svc.Grants(ctx)
		return msg
	}
}

// Answered takes the service's answer.
func (d *Grants) Answered(msg GrantsMsg) {
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

func (d *Grants) Capturing() bool { return false }

func (d *Grants) keys(k bind.KeyMap) keys {
	idle := func() string {
		if d.busy {
			return "the owner has not answered yet"
		}
		return ""
	}
	return keys{
		{Key: k.Down, Short: "next", Run: func(tea.KeyMsg) intent.Result {
			d.sel = min(d.sel+1, max(len(d.grants)-1, 0))
			return intent.Result{}
		}},
		{Key: k.Up, Short: "previous", Run: func(tea.KeyMsg) intent.Result {
			d.sel = max(d.sel-1, 0)
			return intent.Result{}
		}},
		{Key: k.Deny, Short: "revoke", Run: func(tea.KeyMsg) intent.Result {
			d.confirm = true
			return intent.Result{}
		}, WhyNot: func() string {
			if len(d.grants) == 0 {
				return "no grant to revoke"
			}
			return idle()
		}},
		{Key: k.Refresh, Run: func(tea.KeyMsg) intent.Result {
			d.busy = true
			return intent.Result{Do: intent.Grants{}}
		}, WhyNot: idle},
		{Key: k.Dismiss, Short: "close", Run: closed},
		{Key: k.Grants, Run: closed},
	}
}

func (d *Grants) Update(msg tea.KeyMsg, k bind.KeyMap) intent.Result {
	if d.confirm {
		// Any key but y keeps the grant.
		d.confirm = false
		if key.Matches(msg, k.Yes) && d.sel < len(d.grants) && !d.busy {
			d.busy = true
			return intent.Result{Do: intent.Grants{Revoke: d.grants[d.sel].ID}}
		}
		return intent.Result{}
	}
	res, why, _ := d.keys(k).Dispatch(msg)
	d.msg = why
	return res
}

func (d *Grants) View(t term.Theme, k bind.KeyMap, width int) (string, string) {
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
	return b.String(), term.KeyLines(t, width, d.keys(k).Footer()...)
}
