package stats

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"
)

// WriteText writes the report for people. A figure nothing recorded shows as "—".
func WriteText(w io.Writer, rep Report) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	if rep.Since != nil {
		p("Statistics since %s\n", rep.Since.UTC().Format("2006-01-02 15:04 UTC"))
	} else {
		p("Statistics of everything recorded\n")
	}
	p("Tasks: %d in %s\n", rep.Tasks, plural(rep.Repositories, "repository"))
	p("  by outcome: %s\n", counts(rep.ByOutcome))
	p("  by lane:    %s\n", counts(rep.ByLane))
	p("Time to review: %s\n", durations(rep.TimeToReview, "task"))
	p("Time to commit: %s\n", durations(rep.TimeToCommit, "task"))
	if len(rep.Permissions) == 0 {
		p("Permission decisions: —\n")
	} else {
		parts := make([]string, len(rep.Permissions))
		for i, d := range rep.Permissions {
			label := d.Decision
			if d.Code != "" {
				label += " " + d.Code
			}
			parts[i] = fmt.Sprintf("%s %d", label, d.Count)
		}
		p("Permission decisions: %s\n", strings.Join(parts, " · "))
	}
	p("Denial loops: %d\n", rep.DenialLoops)
	v := rep.Verification
	p("Verification: %d passed · %d failed · %d timed out; duration %s\n", v.Passed, v.Failed, v.TimedOut, durations(v.Duration, "run"))
	p("Repair rounds: %d (%s)\n", rep.RepairRounds, plural(rep.TasksRepaired, "task"))
	p("Source collisions: %d\n", rep.SourceCollisions)
	p("Usage by day:\n")
	if len(rep.UsageByDay) == 0 {
		p("  —\n")
	}
	for _, d := range rep.UsageByDay {
		p("  %s  %s\n", d.Day, usageLine(d.Usage))
	}
	p("Usage by repository:\n")
	if len(rep.UsageByRepo) == 0 {
		p("  —\n")
	}
	for _, r := range rep.UsageByRepo {
		p("  %s  %s\n", r.Repository, usageLine(r.Usage))
	}
	p("Total usage: %s\n", usageLine(rep.UsageTotal))
}

func counts(m map[string]int) string {
	if len(m) == 0 {
		return "—"
	}
	keys := slices.Sorted(maps.Keys(m))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, " · ")
}

func durations(d Durations, unit string) string {
	if d.Count == 0 {
		return "—"
	}
	sec := func(v *float64) string {
		return time.Duration(*v * float64(time.Second)).Round(time.Millisecond).String()
	}
	return fmt.Sprintf("median %s, mean %s, max %s (%s)", sec(d.Median), sec(d.Mean), sec(d.Max), plural(d.Count, unit))
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	if strings.HasSuffix(unit, "y") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(unit, "y"))
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

func usageLine(u Usage) string {
	s := fmt.Sprintf("tokens %d (prompt %d, completion %d, reasoning %d; cache hit %d, miss %d) · cost %s",
		u.Tokens(), u.PromptTokens, u.CompletionTokens, u.ReasoningTokens, u.CacheHitTokens, u.CacheMissTokens, FormatCost(u.Cost))
	return s
}

// FormatCost shows an estimated cost by currency, or "—" when none was reported.
func FormatCost(cost map[string]float64) string {
	if len(cost) == 0 {
		return "—"
	}
	curs := slices.Sorted(maps.Keys(cost))
	parts := make([]string, len(curs))
	for i, c := range curs {
		if c == "USD" {
			parts[i] = fmt.Sprintf("$%.4f", cost[c])
		} else {
			parts[i] = fmt.Sprintf("%.4f %s", cost[c], c)
		}
	}
	return strings.Join(parts, " + ")
}
