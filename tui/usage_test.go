package tui

import (
	"context"
	"testing"
	"time"

	"reasonixctl/core"
)

// The header counts what accrued today from the usage reports: exactly for tasks read from the
// start or created today, not at all for tasks untouched today, and as a lower bound otherwise.
func TestTodayUsage(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	m := newModel(context.Background(), newFake(), Options{StateDir: "/state", Now: func() time.Time { return now }})
	usd := "USD"
	report := func(id string, seq uint64, at time.Time, prompt int64, cost *float64) core.Event {
		u := core.Usage{PromptTokens: prompt, EstimatedCost: cost}
		if cost != nil {
			u.Currency = &usd
		}
		return core.Event{TaskID: id, Seq: seq, Time: at, Type: core.EventUsage, Data: usageJSON(u)}
	}
	c := func(v float64) *float64 { return &v }
	yesterday, morning := now.Add(-20*time.Hour), now.Add(-6*time.Hour)

	// Read from the start: yesterday's 1000 prompt tokens are not today's, the next 500 are.
	a := m.info.task("a")
	a.replayed = true
	a.noteUsage(report("a", 3, yesterday, 1000, c(0.01)))
	a.noteUsage(report("a", 9, morning, 1500, c(0.015)))
	a.noteUsage(report("a", 9, morning, 1500, c(0.015))) // the same report again (live, then replayed)
	a.noteAgent(core.Event{TaskID: "a", Seq: 10, Type: core.EventAgentMessage})
	u, partial := m.usage.today(m.info.byID, m.list.tasks, m.now())
	if u.PromptTokens != 500 || u.Cost["USD"] != 0.005 || partial {
		t.Fatalf("replayed task: %+v partial %v", u, partial)
	}

	// Created today, journal not read: all its usage is today's. No cost reported: none shown.
	b := m.info.task("b")
	b.created = morning
	b.usage = &core.Usage{PromptTokens: 700}
	if u, partial = m.usage.today(m.info.byID, m.list.tasks, m.now()); u.PromptTokens != 1200 || u.Cost["USD"] != 0.005 || partial {
		t.Fatalf("with a task of today: %+v partial %v", u, partial)
	}

	// Older, journal not read, changed today: only the growth seen here counts, as a lower bound.
	d := m.info.task("d")
	d.created, d.usage = yesterday.Add(-time.Hour), &core.Usage{PromptTokens: 5000}
	d.noteUsage(report("d", 40, now.Add(-time.Minute), 5000, nil))
	d.noteUsage(report("d", 41, now, 5300, nil))
	if u, partial = m.usage.today(m.info.byID, m.list.tasks, m.now()); u.PromptTokens != 1500 || !partial {
		t.Fatalf("with a partly known task: %+v partial %v", u, partial)
	}
	if got := m.usage.header(m.info.byID, m.list.tasks, m.now()); got != "today ≥1.5k tokens · est. $0.0050" {
		t.Fatalf("header %q", got)
	}
	// The figure is kept between frames; a new report reaching the model changes it.
	m.Update(eventsMsg{report("d", 42, now, 5600, nil)})
	if got := m.usage.header(m.info.byID, m.list.tasks, m.now()); got != "today ≥1.8k tokens · est. $0.0050" {
		t.Fatalf("header after a new report %q", got)
	}
	// So does the next day.
	now = now.Add(24 * time.Hour)
	if got := m.usage.header(m.info.byID, m.list.tasks, m.now()); got == "today ≥1.8k tokens · est. $0.0050" {
		t.Fatalf("header on the next day still %q", got)
	}
}
