package dialog

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"reasonixctl/core/safetext"
	"reasonixctl/tui/bind"
	"reasonixctl/tui/intent"
	"reasonixctl/tui/term"
	"reasonixctl/tui/words"
)

// Notice tells a result or an error, with a command to copy when there is one.
type Notice struct {
	title   string
	lines   []string
	command string // a command to copy, shown on one line of its own
	isErr   bool
	// err is the error an error notice tells (ErrorNotice); next, when set, replaces the error's
	// generic advice (the root's words for an attached dashboard that has lost its owner).
	err  error
	next string
	// intro says it is the first note (Options.Intro), which opens by itself.
	intro bool
	why   string // why the last key did nothing
}

// NewNotice tells a result: a title and its lines.
func NewNotice(title string, lines ...string) *Notice { return &Notice{title: title, lines: lines} }

// Intro is the first note, paragraphs of prose that open by themselves before any request.
func Intro(title string, paragraphs []string) *Notice {
	return &Notice{title: title, lines: paragraphs, intro: true}
}

// ErrorNotice tells err: what happened, the details that matter and what to do next.
func ErrorNotice(title string, err error) *Notice {
	return &Notice{title: title, lines: words.DescribeError(err), isErr: true, err: err}
}

// Failure tells a failure already in lines.
func Failure(title string, lines ...string) *Notice {
	return &Notice{title: title, lines: lines, isErr: true}
}

// CommitNotice tells a commit and the command that brings it into the checkout, to copy.
func CommitNotice(taskID, hash, branch, integration string) *Notice {
	if integration == "" {
		integration = "git cherry-pick " + hash
	}
	return &Notice{
		title:   "Committed " + taskID,
		lines:   []string{"commit " + hash, "branch " + branch, "", "Bring it into your checkout with:"},
		command: integration,
	}
}

// AddLines adds lines under those the notice tells.
func (d *Notice) AddLines(lines ...string) { d.lines = append(d.lines, lines...) }

// TellsError says the notice tells an error (ErrorNotice), whose advice NextInstead can replace.
func (d *Notice) TellsError() bool { return d.err != nil }

// NextInstead replaces the advice of the error the notice tells with next.
func (d *Notice) NextInstead(next string) { d.next = next }

// MinWidth is how wide the dialog must be to show the command unwrapped.
func (d *Notice) MinWidth() int { return lipgloss.Width(safetext.Line(d.command)) }

func (d *Notice) keys(k bind.KeyMap) keys {
	return keys{
		{Key: k.Dismiss, Short: k.Dismiss.Help().Desc, Run: closed},
		{Key: bind.Hint(k.Copy, "copy the command the notice shows (a commit's cherry-pick line)"), Short: "copy the command",
			Run: func(tea.KeyMsg) intent.Result {
				return intent.Result{Do: intent.Copy{Text: d.command, What: "the cherry-pick line"}}
			},
			WhyNot: func() string {
				if d.command == "" {
					return "nothing to copy here"
				}
				return ""
			}},
	}
}

func (d *Notice) Update(msg tea.KeyMsg, k bind.KeyMap) intent.Result {
	res, why, _ := d.keys(k).Dispatch(msg)
	d.why = why
	return res
}

func (d *Notice) View(t term.Theme, k bind.KeyMap, width int) (string, string) {
	st := t.Good
	if d.isErr {
		st = t.Error
	}
	var b strings.Builder
	b.WriteString(st.Render(safetext.Line(d.title)) + "\n")
	lines := d.lines
	if d.next != "" && d.err != nil {
		lines = words.WithNext(lines, d.next)
	}
	for i, l := range lines {
		if d.intro {
			// Paragraphs of prose, not an error's details under their first line.
			if i > 0 {
				b.WriteString("\n")
			}
			b.WriteString("\n" + term.WrapIndent(safetext.Sanitize(l), width, 0))
			continue
		}
		b.WriteString("\n" + term.WrapIndent(safetext.Sanitize(l), width, 2))
	}
	if d.command != "" {
		// Never wrapped, so it copies as one line.
		b.WriteString("\n" + safetext.Line(d.command))
	}
	keys := term.KeyLines(t, width, d.keys(k).Footer()...)
	if d.why != "" {
		keys = t.Dim.Render(d.why) + "\n" + keys
	}
	return b.String(), keys
}

func (d *Notice) Capturing() bool { return false }
