package tui

import (
	"github.com/charmbracelet/lipgloss"

	"reasonixctl/core"
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

	// Event log lines by kind.
	Agent   lipgloss.Style
	Thought lipgloss.Style
	Tool    lipgloss.Style
	Allow   lipgloss.Style
	Deny    lipgloss.Style
	State   lipgloss.Style
	Usage   lipgloss.Style
	Steer   lipgloss.Style

	// Diff lines.
	DiffFile lipgloss.Style
	DiffHunk lipgloss.Style
	DiffAdd  lipgloss.Style
	DiffDel  lipgloss.Style
	DiffCtx  lipgloss.Style

	// Badges per state; a state missing here falls back to Dim.
	Badges map[core.State]lipgloss.Style
}

// DefaultTheme is a dark-background palette in the 256-colour range, degrading to plain text
// under an ASCII profile.
func DefaultTheme() Theme {
	c := func(s string) lipgloss.Color { return lipgloss.Color(s) }
	fg := func(col string) lipgloss.Style { return lipgloss.NewStyle().Foreground(c(col)) }
	badge := func(col string) lipgloss.Style { return fg(col).Bold(true) }
	return Theme{
		Header:      lipgloss.NewStyle().Bold(true).Foreground(c("231")).Background(c("24")),
		HeaderDim:   lipgloss.NewStyle().Foreground(c("252")).Background(c("24")),
		Title:       lipgloss.NewStyle().Bold(true).Foreground(c("117")),
		Selected:    lipgloss.NewStyle().Bold(true).Foreground(c("231")).Background(c("238")),
		Dim:         fg("245"),
		Pending:     fg("214").Bold(true),
		Error:       fg("203").Bold(true),
		Good:        fg("114"),
		Warn:        fg("221"),
		Border:      fg("240"),
		Dialog:      lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(c("214")).Padding(0, 1),
		TabActive:   lipgloss.NewStyle().Bold(true).Foreground(c("231")).Background(c("62")).Padding(0, 1),
		TabInactive: fg("245").Padding(0, 1),
		Help:        fg("245"),
		HelpKey:     fg("117").Bold(true),

		Agent:   fg("252"),
		Thought: fg("243").Italic(true),
		Tool:    fg("111"),
		Allow:   fg("114"),
		Deny:    fg("203"),
		State:   fg("177").Bold(true),
		Usage:   fg("243"),
		Steer:   fg("221"),

		DiffFile: fg("231").Bold(true),
		DiffHunk: fg("73"),
		DiffAdd:  fg("114"),
		DiffDel:  fg("203"),
		DiffCtx:  fg("250"),

		Badges: map[core.State]lipgloss.Style{
			core.StateProvisioning:      badge("245"),
			core.StateRunning:           badge("75"),
			core.StateWaitingPermission: badge("214"),
			core.StateWaitingInput:      badge("214"),
			core.StatePaused:            badge("221"),
			core.StateReviewRequired:    badge("177"),
			core.StateVerifying:         badge("117"),
			core.StateCompleted:         badge("114"),
			core.StateCommitFailed:      badge("203"),
			core.StateFailed:            badge("203"),
			core.StateCancelled:         badge("245"),
			core.StateClosed:            badge("240"),
		},
	}
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

func (t Theme) badge(s core.State) string {
	label, ok := badgeText[s]
	if !ok {
		label = string(s)
	}
	st, ok := t.Badges[s]
	if !ok {
		st = t.Dim
	}
	return st.Render(padRight(label, 6))
}
