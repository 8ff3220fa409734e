package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
)

// contractView is the part of a task contract the dashboard shows; the engine owns validation.
type contractView struct {
	WriteScope     []string         `json:"write_scope"`
	ForbiddenScope []string         `json:"forbidden_scope"`
	Criteria       []core.Criterion `json:"acceptance_criteria"`
}

func parseContract(raw json.RawMessage) contractView {
	var c contractView
	_ = json.Unmarshal(raw, &c)
	return c
}

func padRight(s string, w int) string {
	if n := lipgloss.Width(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

// fixBlock makes s exactly w columns by h lines, so panes line up when joined.
func fixBlock(s string, w, h int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	for i, l := range lines {
		lines[i] = padRight(ansi.Truncate(l, w, ""), w)
	}
	return strings.Join(lines, "\n")
}

// fitBetween puts left and right at the two ends of a w-wide line, truncating left if needed.
func fitBetween(left, right string, w int) string {
	rw := lipgloss.Width(right)
	left = ansi.Truncate(left, max(w-rw-1, 0), "…")
	return padRight(left, w-rw) + right
}

func wrapLines(s string, w int) []string {
	return strings.Split(ansi.Wrap(s, max(w, 4), ""), "\n")
}

// wrapIndent wraps s to w columns and indents continuation lines by indent spaces.
func wrapIndent(s string, w, indent int) string {
	lines := wrapLines(s, w-indent)
	pad := strings.Repeat(" ", indent)
	for i := 1; i < len(lines); i++ {
		lines[i] = pad + lines[i]
	}
	return strings.Join(lines, "\n")
}

func short(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func humanInt(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.0fk", float64(n)/1e3)
	case n >= 1_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

func formatCost(v float64, currency *string) string {
	cur := "USD"
	if currency != nil && *currency != "" {
		cur = safetext.Line(*currency)
	}
	if cur == "USD" {
		return fmt.Sprintf("$%.4f", v)
	}
	return fmt.Sprintf("%.4f %s", v, cur)
}

func humanAge(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(int(d.Seconds()), 0))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}
