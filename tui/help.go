package tui

import (
	"fmt"
	"reasonixctl/tui/bind"
	"reasonixctl/tui/intent"
	"reasonixctl/tui/term"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// helpDialog is the full key list; it scrolls in a viewport and says where it is.
type helpDialog struct {
	vp     viewport.Model
	ready  bool
	height int
}

func (d *helpDialog) capturing() bool { return false }

func (d *helpDialog) update(msg tea.KeyMsg, k bind.KeyMap) intent.Result {
	switch {
	case key.Matches(msg, k.Dismiss), key.Matches(msg, k.Help):
		return intent.Result{Close: true}
	case key.Matches(msg, k.Down):
		d.vp.ScrollDown(1)
	case key.Matches(msg, k.Up):
		d.vp.ScrollUp(1)
	default:
		bind.ScrollViewport(&d.vp, msg, k)
	}
	return intent.Result{}
}

// setHeight is called by the frame before view with the lines the body may use.
func (d *helpDialog) setHeight(h int) { d.height = max(h, 1) }

func (d *helpDialog) view(t term.Theme, k bind.KeyMap, width int) (string, string) {
	var lines []string
	for _, g := range k.Groups() {
		lines = append(lines, t.Title.Render(g.Title))
		for _, b := range g.Bindings {
			h := b.Help()
			// A description too long for the line goes on under itself rather than being cut.
			desc := strings.Split(ansi.Wordwrap(h.Desc, max(width-term.HelpKeyColumn, 20), ""), "\n")
			lines = append(lines, "  "+t.HelpKey.Render(term.PadRight(h.Key, term.HelpKeyColumn-2))+t.Help.Render(desc[0]))
			for _, more := range desc[1:] {
				lines = append(lines, strings.Repeat(" ", term.HelpKeyColumn)+t.Help.Render(more))
			}
		}
	}
	h := d.height
	if h == 0 {
		h = len(lines)
	}
	if !d.ready {
		d.vp, d.ready = viewport.New(width, h), true
	}
	d.vp.Width, d.vp.Height = width, h
	d.vp.SetContent(strings.Join(lines, "\n"))
	first := d.vp.YOffset + 1
	last := min(d.vp.YOffset+d.vp.Height, d.vp.TotalLineCount())
	pos := fmt.Sprintf("lines %d–%d of %d", first, last, d.vp.TotalLineCount())
	if d.vp.TotalLineCount() <= d.vp.Height {
		pos = "all shown"
	}
	keys := term.ShortHelp(t, width, bind.New(nil, "↑↓/pgup/pgdn", "scroll"), bind.New(nil, "esc/?", "close"))
	return d.vp.View(), t.Dim.Render(pos) + "  " + keys
}
