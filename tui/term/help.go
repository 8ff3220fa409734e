package term

import (
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"
)

// HelpModel is bubbles/help dressed in the theme; width 0 never truncates.
func HelpModel(t Theme, width int) help.Model {
	h := help.New()
	h.Width = width
	h.ShortSeparator = " · "
	h.Styles.ShortKey, h.Styles.ShortDesc, h.Styles.ShortSeparator = t.HelpKey, t.Help, t.Help
	h.Styles.FullKey, h.Styles.FullDesc, h.Styles.FullSeparator = t.HelpKey, t.Help, t.Help
	h.Styles.Ellipsis = t.Help
	return h
}

// ShortHelp renders "key help · key help" within width, dropping what does not fit.
func ShortHelp(t Theme, width int, bindings ...key.Binding) string {
	shown := make([]key.Binding, len(bindings))
	for i, b := range bindings {
		shown[i] = b
		if len(b.Keys()) == 0 && b.Help().Key != "" {
			// A hint that names keys the dialog reads itself (keys given as help alone) has no keys of its
			// own, and bubbles/help leaves a binding without keys out as disabled: the help's
			// "scroll · close" never showed.
			shown[i] = key.NewBinding(key.WithKeys(b.Help().Key), key.WithHelp(b.Help().Key, b.Help().Desc))
		}
	}
	s := HelpModel(t, width).ShortHelpView(shown)
	if width > 0 {
		// ShortHelpView keeps adding items when not even its ellipsis fits.
		s = ansi.Truncate(s, width, "…")
	}
	return s
}

// KeyLines renders "key help · key help" wrapped onto as many lines as width needs, so a
// dialog's keys are all shown even on a narrow screen.
func KeyLines(t Theme, width int, bindings ...key.Binding) string {
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

// HelpKeyColumn is where the full help's descriptions start.
const HelpKeyColumn = 15
