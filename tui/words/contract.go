package words

import (
	"fmt"
	"strings"

	"reasonixctl/core"
	"reasonixctl/tui/term"
)

// Verification says one verification check's result in a line: how it ended, its command and
// its exit code.
func Verification(v core.VerificationResult) string {
	res := "FAILED"
	if v.Passed {
		res = "passed"
	}
	if v.TimedOut {
		res = "TIMED OUT"
	}
	exit := "-"
	if v.ExitCode != nil {
		exit = fmt.Sprint(*v.ExitCode)
	}
	return fmt.Sprintf("%s %s: %s (exit %s)", res, v.ID, strings.Join(v.Argv, " "), exit)
}

// Usage says a worker's token usage and cost in a line; "-" when there is none.
func Usage(u *core.Usage) string {
	if u == nil {
		return "-"
	}
	s := fmt.Sprintf("prompt %s · completion %s", term.HumanInt(u.PromptTokens), term.HumanInt(u.CompletionTokens))
	if u.ReasoningTokens > 0 {
		s += " · reasoning " + term.HumanInt(u.ReasoningTokens)
	}
	if u.CacheHitRatio != nil {
		s += fmt.Sprintf(" · cache %.0f%%", *u.CacheHitRatio*100)
	}
	if u.EstimatedCost != nil {
		s += " · " + term.FormatCost(*u.EstimatedCost, u.Currency)
	}
	return s
}
