package dialog

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"reasonixctl/tui/bind"
	"reasonixctl/tui/intent"
	"reasonixctl/tui/term"
)

// Help is the full key list, in the groups the root hands it (each part's lines from its
// binding table); it scrolls in a viewport and says where it is.
type Help struct {
	groups []bind.Group
	vp     viewport.Model
	ready  bool
	height int
}

// NewHelp lists groups.
func NewHelp(groups []bind.Group) *Help { return &Help{groups: groups} }

func (d *Help) Capturing() bool { return false }

func (d *Help) keys(k bind.KeyMap) keys {
	scroll := slices.Concat(k.Up.Keys(), k.Down.Keys(), k.PageUp.Keys(), k.PageDown.Keys(), k.Top.Keys(), k.Bottom.Keys())
	return keys{
		{Key: bind.New(scroll, "↑↓/pgup/pgdn", "scroll"), Short: "scroll", Run: func(msg tea.KeyMsg) intent.Result {
			switch {
			case key.Matches(msg, k.Down):
				d.vp.ScrollDown(1)
			case key.Matches(msg, k.Up):
				d.vp.ScrollUp(1)
			default:
				bind.ScrollViewport(&d.vp, msg, k)
			}
			return intent.Result{}
		}},
		{Key: bind.New(append(k.Dismiss.Keys(), k.Help.Keys()...), "esc/?", "close"), Short: "close", Run: closed},
	}
}

func (d *Help) Update(msg tea.KeyMsg, k bind.KeyMap) intent.Result {
	res, _, _ := d.keys(k).Dispatch(msg)
	return res
}

// SetHeight is called by the frame before View with the lines the body may use.
func (d *Help) SetHeight(h int) { d.height = max(h, 1) }

func (d *Help) View(t term.Theme, k bind.KeyMap, width int) (string, string) {
	var lines []string
	for _, g := range d.groups {
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
	return d.vp.View(), t.Dim.Render(pos) + "  " + term.ShortHelp(t, width, d.keys(k).Footer()...)
}

// HelpGroups are the dialogs' groups of the full help, read from their binding tables: the
// prompt's keys, and those of the forms, confirmations and notices.
func HelpGroups(k bind.KeyMap) []bind.Group {
	prompt := (&Prompt{selected: -1}).keys(k).Help()
	var forms []key.Binding
	seen := map[string]bool{}
	for _, t := range []keys{(&Finalize{}).keys(k), (&NewTask{}).keys(k), (&Confirm{}).keys(k), (&Notice{}).keys(k)} {
		for _, b := range t.Help() {
			h := b.Help()
			if id := h.Key + "\x00" + h.Desc; !seen[id] {
				seen[id] = true
				forms = append(forms, b)
			}
		}
	}
	return []bind.Group{{Title: "Prompt", Bindings: prompt}, {Title: "Forms", Bindings: forms}}
}
