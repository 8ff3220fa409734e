package term

import (
	"github.com/charmbracelet/lipgloss"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
)

// Theme is every style the dashboard draws with, kept as data so that a test or a future setting
// can swap it whole.
type Theme struct {
	Header      lipgloss.Style
	HeaderDim   lipgloss.Style
	Title       lipgloss.Style
	Selected    lipgloss.Style
	Dim         lipgloss.Style
	Pending     lipgloss.Style
	Error       lipgloss.Style
	Good        lipgloss.Style
	Warn        lipgloss.Style
	Border      lipgloss.Style
	Dialog      lipgloss.Style
	TabActive   lipgloss.Style
	TabInactive lipgloss.Style
	Help        lipgloss.Style
	HelpKey     lipgloss.Style
	// Behind is the screen under an open dialog: dimmed, not blanked, so the agent's last words
	// and the task stay in view.
	Behind lipgloss.Style

	// Event log lines by kind.
	Agent   lipgloss.Style
	Thought lipgloss.Style
	Tool    lipgloss.Style
	Allow   lipgloss.Style
	Deny    lipgloss.Style
	State   lipgloss.Style
	Usage   lipgloss.Style
	Steer   lipgloss.Style

	// Search matches: every occurrence, and the one n/N stands on.
	Match        lipgloss.Style
	MatchCurrent lipgloss.Style

	// Diff lines.
	DiffFile lipgloss.Style
	DiffHunk lipgloss.Style
	DiffAdd  lipgloss.Style
	DiffDel  lipgloss.Style
	DiffCtx  lipgloss.Style

	// Badges per state; a state missing here falls back to Dim.
	Badges map[core.State]lipgloss.Style
}

// DefaultTheme is a palette that adapts to the terminal's background: each colour has a light
// and a dark variant (lipgloss picks one from the background detected at start-up), so file
// names, context lines and agent text stay readable on both.
func DefaultTheme() Theme {
	c := func(light, dark string) lipgloss.AdaptiveColor {
		return lipgloss.AdaptiveColor{Light: light, Dark: dark}
	}
	fg := func(light, dark string) lipgloss.Style { return lipgloss.NewStyle().Foreground(c(light, dark)) }
	badge := func(light, dark string) lipgloss.Style { return fg(light, dark).Bold(true) }
	return Theme{
		Header:      lipgloss.NewStyle().Bold(true).Foreground(c("231", "231")).Background(c("25", "24")),
		HeaderDim:   lipgloss.NewStyle().Foreground(c("255", "252")).Background(c("25", "24")),
		Title:       lipgloss.NewStyle().Bold(true).Foreground(c("25", "117")),
		Selected:    lipgloss.NewStyle().Bold(true).Foreground(c("16", "231")).Background(c("153", "238")),
		Dim:         fg("242", "245"),
		Pending:     fg("130", "214").Bold(true),
		Error:       fg("160", "203").Bold(true),
		Good:        fg("28", "114"),
		Warn:        fg("94", "221"),
		Border:      fg("248", "240"),
		Dialog:      lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(c("130", "214")).Padding(0, 1),
		TabActive:   lipgloss.NewStyle().Bold(true).Underline(true).Foreground(c("231", "231")).Background(c("61", "62")).Padding(0, 1),
		TabInactive: fg("242", "245").Padding(0, 1),
		Help:        fg("242", "245"),
		HelpKey:     fg("25", "117").Bold(true),
		Behind:      fg("249", "240"),

		Agent:   fg("235", "252"),
		Thought: fg("244", "243").Italic(true),
		Tool:    fg("25", "111"),
		Allow:   fg("28", "114"),
		Deny:    fg("160", "203"),
		State:   fg("91", "177").Bold(true),
		Usage:   fg("244", "243"),
		Steer:   fg("94", "221"),

		Match:        lipgloss.NewStyle().Foreground(c("16", "16")).Background(c("229", "143")),
		MatchCurrent: lipgloss.NewStyle().Bold(true).Foreground(c("16", "16")).Background(c("214", "214")),

		DiffFile: fg("16", "231").Bold(true),
		DiffHunk: fg("30", "73"),
		DiffAdd:  fg("28", "114"),
		DiffDel:  fg("160", "203"),
		DiffCtx:  fg("237", "250"),

		Badges: map[core.State]lipgloss.Style{
			core.StateProvisioning:      badge("242", "245"),
			core.StateRunning:           badge("25", "75"),
			core.StateWaitingPermission: badge("130", "214"),
			core.StateWaitingInput:      badge("130", "214"),
			core.StatePaused:            badge("94", "221"),
			core.StateReviewRequired:    badge("91", "177"),
			core.StateVerifying:         badge("30", "117"),
			core.StateCompleted:         badge("28", "114"),
			core.StateCommitFailed:      badge("160", "203"),
			core.StateFailed:            badge("160", "203"),
			core.StateCancelled:         badge("242", "245"),
			core.StateClosed:            badge("248", "240"),
		},
	}
}

// MonochromeTheme is the palette for NO_COLOR: no colour at all, and the active tab, the
// selection and prompts still stand out through reverse, bold, underline and faint text.
func MonochromeTheme() Theme {
	plain := lipgloss.NewStyle()
	bold := plain.Bold(true)
	faint := plain.Faint(true)
	t := Theme{
		Header: bold.Reverse(true), HeaderDim: plain.Reverse(true), Title: bold, Selected: bold.Reverse(true),
		Dim: faint, Pending: bold.Underline(true), Error: bold, Good: bold, Warn: bold, Border: faint,
		Dialog:    lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).Padding(0, 1),
		TabActive: bold.Reverse(true).Underline(true).Padding(0, 1), TabInactive: plain.Padding(0, 1),
		Help: faint, HelpKey: bold, Behind: faint,
		Agent: plain, Thought: faint.Italic(true), Tool: plain, Allow: plain, Deny: bold, State: bold,
		Usage: faint, Steer: plain.Italic(true), Match: plain.Underline(true), MatchCurrent: bold.Reverse(true),
		DiffFile: bold, DiffHunk: faint, DiffAdd: bold, DiffDel: plain.Strikethrough(true), DiffCtx: plain,
		Badges: map[core.State]lipgloss.Style{},
	}
	for _, s := range core.States {
		t.Badges[s] = bold
	}
	return t
}

// badgeText is the fixed-width label of a state in the task list.
var badgeText = map[core.State]string{
	core.StateProvisioning:      "PROV",
	core.StateRunning:           "RUN",
	core.StateWaitingPermission: "PERM",
	core.StateWaitingInput:      "INPUT",
	core.StatePaused:            "PAUSE",
	core.StateReviewRequired:    "REVIEW",
	core.StateVerifying:         "VERIFY",
	core.StateCompleted:         "DONE",
	core.StateCommitFailed:      "CFAIL",
	core.StateFailed:            "FAIL",
	core.StateCancelled:         "CANCEL",
	core.StateClosed:            "CLOSED",
}

func (t Theme) Badge(s core.State) string {
	label, ok := badgeText[s]
	if !ok {
		label = safetext.Line(string(s))
	}
	st, ok := t.Badges[s]
	if !ok {
		st = t.Dim
	}
	return st.Render(PadRight(label, 6))
}
