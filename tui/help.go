package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// helpModel is bubbles/help dressed in the theme; width 0 never truncates.
func helpModel(t Theme, width int) help.Model {
	h := help.New()
	h.Width = width
	h.ShortSeparator = " · "
	h.Styles.ShortKey, h.Styles.ShortDesc, h.Styles.ShortSeparator = t.HelpKey, t.Help, t.Help
	h.Styles.FullKey, h.Styles.FullDesc, h.Styles.FullSeparator = t.HelpKey, t.Help, t.Help
	h.Styles.Ellipsis = t.Help
	return h
}

// shortHelp renders "key help · key help" within width, dropping what does not fit.
func shortHelp(t Theme, width int, bindings ...key.Binding) string {
	shown := make([]key.Binding, len(bindings))
	for i, b := range bindings {
		shown[i] = b
		if len(b.Keys()) == 0 && b.Help().Key != "" {
			// A hint that names keys the dialog reads itself (bind(nil, …)) has no keys of its
			// own, and bubbles/help leaves a binding without keys out as disabled: the help's
			// "scroll · close" never showed.
			shown[i] = bind([]string{b.Help().Key}, b.Help().Key, b.Help().Desc)
		}
	}
	s := helpModel(t, width).ShortHelpView(shown)
	if width > 0 {
		// ShortHelpView keeps adding items when not even its ellipsis fits.
		s = ansi.Truncate(s, width, "…")
	}
	return s
}

// keyLines renders "key help · key help" wrapped onto as many lines as width needs, so a
// dialog's keys are all shown even on a narrow screen.
func keyLines(t Theme, width int, bindings ...key.Binding) string {
	sep := t.Help.Render(" · ")
	var lines []string
	line, lineW := "", 0
	for _, b := range bindings {
		h := b.Help()
		item := t.HelpKey.Render(h.Key) + " " + t.Help.Render(h.Desc)
		w := ansi.StringWidth(h.Key) + 1 + ansi.StringWidth(h.Desc)
		switch {
		case lineW == 0:
			line, lineW = item, w
		case width > 0 && lineW+3+w > width:
			lines = append(lines, line)
			line, lineW = item, w
		default:
			line, lineW = line+sep+item, lineW+3+w
		}
	}
	if lineW > 0 {
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// helpKeyColumn is where the full help's descriptions start.
const helpKeyColumn = 15

// helpDialog is the full key list; it scrolls in a viewport and says where it is.
type helpDialog struct {
	vp     viewport.Model
	ready  bool
	height int
}

func (d *helpDialog) capturing() bool { return false }

func (d *helpDialog) update(msg tea.KeyMsg, k KeyMap) dialogResult {
	switch {
	case key.Matches(msg, k.Dismiss), key.Matches(msg, k.Help):
		return dialogResult{close: true}
	case key.Matches(msg, k.Down):
		d.vp.ScrollDown(1)
	case key.Matches(msg, k.Up):
		d.vp.ScrollUp(1)
	default:
		scrollViewport(&d.vp, msg, k)
	}
	return dialogResult{}
}

// scrollViewport pages a viewport with the detail keys: page up and down, top and bottom.
func scrollViewport(vp *viewport.Model, msg tea.KeyMsg, k KeyMap) {
	switch {
	case key.Matches(msg, k.PageDown):
		vp.PageDown()
	case key.Matches(msg, k.PageUp):
		vp.PageUp()
	case key.Matches(msg, k.Top):
		vp.GotoTop()
	case key.Matches(msg, k.Bottom):
		vp.GotoBottom()
	}
}

// setHeight is called by the frame before view with the lines the body may use.
func (d *helpDialog) setHeight(h int) { d.height = max(h, 1) }

func (d *helpDialog) view(t Theme, k KeyMap, width int) (string, string) {
	var lines []string
	for _, g := range k.groups() {
		lines = append(lines, t.Title.Render(g.Title))
		for _, b := range g.Bindings {
			h := b.Help()
			// A description too long for the line goes on under itself rather than being cut.
			desc := strings.Split(ansi.Wordwrap(h.Desc, max(width-helpKeyColumn, 20), ""), "\n")
			lines = append(lines, "  "+t.HelpKey.Render(padRight(h.Key, helpKeyColumn-2))+t.Help.Render(desc[0]))
			for _, more := range desc[1:] {
				lines = append(lines, strings.Repeat(" ", helpKeyColumn)+t.Help.Render(more))
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
	keys := shortHelp(t, width, bind(nil, "↑↓/pgup/pgdn", "scroll"), bind(nil, "esc/?", "close"))
	return d.vp.View(), t.Dim.Render(pos) + "  " + keys
}
