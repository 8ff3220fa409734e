package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/core/policy"
	"reasonixctl/core/safetext"
)

// grantable reports whether a permission request can be allowed for the repository: a command
// with an argv that the policy asks a person about (never one it always denies).
func grantable(r core.InteractionRequest) bool {
	return r.Tool == "execute" && len(r.Argv) > 0 && r.Code == policy.CodeUnknownExecutable
}

// grantsDialog lists the state directory's standing grants (P) and revokes the selected one
// (d, then y). Grants are a file of the state directory, read and written here directly, so the
// view works attached to another owner too.
type grantsDialog struct {
	dir      string
	grants   []core.Grant
	sel      int
	confirm  bool // d was pressed: y revokes
	msg, err string
}

func newGrantsDialog(dir string) *grantsDialog {
	d := &grantsDialog{dir: dir}
	d.reload()
	return d
}

func (d *grantsDialog) reload() {
	g, err := core.LoadGrants(d.dir)
	d.grants, d.err = g, ""
	if err != nil {
		d.err = err.Error()
	}
	d.sel = min(d.sel, max(len(d.grants)-1, 0))
}

func (d *grantsDialog) capturing() bool { return false }

func (d *grantsDialog) update(msg tea.KeyMsg, k KeyMap) dialogResult {
	if d.confirm {
		d.confirm = false
		if key.Matches(msg, k.Yes) && d.sel < len(d.grants) {
			g, err := core.RevokeGrant(d.dir, d.grants[d.sel].ID)
			if err != nil {
				d.err = err.Error()
				return dialogResult{}
			}
			d.reload()
			d.msg = "revoked " + g.ID + ": " + g.Describe() + " is asked about again"
		}
		return dialogResult{}
	}
	d.msg = ""
	switch {
	case key.Matches(msg, k.Dismiss), key.Matches(msg, k.Grants):
		return dialogResult{close: true}
	case key.Matches(msg, k.Down):
		d.sel = min(d.sel+1, max(len(d.grants)-1, 0))
	case key.Matches(msg, k.Up):
		d.sel = max(d.sel-1, 0)
	case key.Matches(msg, k.Deny) && len(d.grants) > 0:
		d.confirm = true
	case key.Matches(msg, k.Refresh):
		d.reload()
	}
	return dialogResult{}
}

func (d *grantsDialog) view(t Theme, k KeyMap, width int) (string, string) {
	var b strings.Builder
	b.WriteString(t.Title.Render("Standing grants") + t.Dim.Render(fmt.Sprintf("  %d · commands allowed for a repository, kept in the state directory", len(d.grants))))
	b.WriteString("\n")
	if len(d.grants) == 0 && d.err == "" {
		b.WriteString("\n" + t.Dim.Render("None. In a permission prompt, R allows a command for its repository from then on."))
	}
	for i, g := range d.grants {
		mark := "  "
		if i == d.sel {
			mark = "› "
		}
		line := fmt.Sprintf("%s%s  %s", mark, g.ID, g.Describe())
		b.WriteString("\n" + short(safetext.Line(line), max(width, 20)))
		b.WriteString("\n" + t.Dim.Render(short(safetext.Line(fmt.Sprintf("    %s · from task %s · %s", g.Repository, g.TaskID, g.CreatedAt)), max(width, 20))))
	}
	if d.confirm && d.sel < len(d.grants) {
		b.WriteString("\n\n" + t.Pending.Render("Revoke "+safetext.Line(d.grants[d.sel].ID)+"? y revokes, any other key keeps it."))
	}
	if d.msg != "" {
		b.WriteString("\n\n" + t.Dim.Render(short(safetext.Line(d.msg), max(width, 20))))
	}
	if d.err != "" {
		b.WriteString("\n\n" + t.Error.Render(safetext.Line(d.err)))
	}
	return b.String(), keyLines(t, width, hint(k.Down, "next"), hint(k.Up, "previous"), hint(k.Deny, "revoke"), hint(k.Dismiss, "close"))
}
