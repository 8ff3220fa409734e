package tui

import (
	"encoding/binary"
	"encoding/json"
	"hash/fnv"
	"math"
	"sort"
	"time"

	"reasonixctl/core"
	"reasonixctl/core/stats"
)

// usageLog keeps a task's usage reports by journal seq, from the live stream and from replays
// alike, for the header's figures of today. Reports are cumulative per task; core/stats turns
// them into what accrued when.
type usageLog map[uint64]core.Event

// noteUsage keeps ev if it is a usage report.
func (ti *taskInfo) noteUsage(ev core.Event) {
	if ev.Type != core.EventUsage || ev.Seq == 0 {
		return
	}
	if ti.usageLog == nil {
		ti.usageLog = usageLog{}
	}
	ti.usageLog[ev.Seq] = ev
}

func (l usageLog) events() []core.Event {
	evs := make([]core.Event, 0, len(l))
	for _, ev := range l {
		evs = append(evs, ev)
	}
	sort.Slice(evs, func(i, j int) bool { return evs[i].Seq < evs[j].Seq })
	return evs
}

// todayUsage is the usage of every task the dashboard knows that accrued since local midnight,
// and whether the figure is only a lower bound. A task's share is exact when its journal was
// read from the start, when it was created today (all its usage is today's), or when it has not
// changed today (none is). Otherwise the reports seen before its first one here are unknown:
// only the growth between reports seen counts, and the figure is marked as at least.
func (m *Model) todayUsage() (stats.Usage, bool) {
	now := m.now()
	loc := now.Location()
	day := now.Format("2006-01-02")
	midnight := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, loc)
	updated := map[string]string{}
	for _, tv := range m.list.tasks {
		updated[tv.TaskID] = tv.UpdatedAt
	}
	if m.usageMemo == nil {
		m.usageMemo = map[string]taskUsage{}
	}
	var total stats.Usage
	partial := false
	for id, ti := range m.info {
		// Decoding every report of every task on each frame was most of a frame with many
		// tasks: a task's share is kept until something it is made of changes.
		key := taskUsageKey(day, ti, updated[id])
		tu, ok := m.usageMemo[id]
		if !ok || tu.key != key {
			tu = taskUsage{key: key}
			tu.u, tu.partial = taskToday(id, ti, now, midnight, updated[id], day, loc)
			m.usageMemo[id] = tu
		}
		addUsage(&total, tu.u)
		partial = partial || tu.partial
	}
	for id := range m.usageMemo {
		if m.info[id] == nil {
			delete(m.usageMemo, id)
		}
	}
	return total, partial
}

// taskUsage is one task's share of today's usage and what it was computed from.
type taskUsage struct {
	key     uint64
	u       stats.Usage
	partial bool
}

// taskUsageKey fingerprints what a task's share reads: the day, its reports and what the
// dashboard knows of its start, usage and last update.
func taskUsageKey(day string, ti *taskInfo, updated string) uint64 {
	h := fnv.New64a()
	var buf [8]byte
	put := func(v uint64) {
		binary.LittleEndian.PutUint64(buf[:], v)
		_, _ = h.Write(buf[:])
	}
	_, _ = h.Write([]byte(day + "\x00" + updated + "\x00"))
	put(uint64(len(ti.usageLog)))
	if ti.replayed && ti.fromStart {
		put(1)
	} else {
		put(0)
	}
	put(uint64(ti.created.UnixNano()))
	put(ti.usageGen)
	return h.Sum64()
}

// taskToday is one task's usage of today (see todayUsage).
func taskToday(id string, ti *taskInfo, now, midnight time.Time, updatedAt, day string, loc *time.Location) (stats.Usage, bool) {
	evs := ti.usageLog.events()
	partial := false
	updated, _ := time.Parse(time.RFC3339Nano, updatedAt)
	switch {
	case ti.replayed && ti.fromStart:
	case !ti.created.IsZero() && !ti.created.Before(midnight):
		if ti.usage != nil {
			// Its current cumulative usage all accrued today.
			evs = append(evs, core.Event{TaskID: id, Seq: ^uint64(0), Time: now, Type: core.EventUsage, Data: usageJSON(*ti.usage)})
		}
	case !updated.IsZero() && updated.Before(midnight):
		return stats.Usage{}, false
	case ti.usage != nil:
		partial = true
		if len(evs) > 0 {
			// The first report seen is the baseline: what it counted may predate today.
			base := evs[0]
			base.Time = time.Time{}
			evs = append([]core.Event{base}, evs...)
		}
	}
	if len(evs) == 0 {
		return stats.Usage{}, partial
	}
	return stats.DayTotal([]stats.Task{{ID: id, Events: evs}}, day, loc), partial
}

func addUsage(u *stats.Usage, d stats.Usage) {
	u.PromptTokens += d.PromptTokens
	u.CompletionTokens += d.CompletionTokens
	u.ReasoningTokens += d.ReasoningTokens
	u.CacheHitTokens += d.CacheHitTokens
	u.CacheMissTokens += d.CacheMissTokens
	for cur, v := range d.Cost {
		if u.Cost == nil {
			u.Cost = map[string]float64{}
		}
		u.Cost[cur] = math.Round((u.Cost[cur]+v)*1e9) / 1e9
	}
}

// usageHeader is the header's usage figure: today's tokens and, when the worker reported one,
// the estimated cost.
func (m *Model) usageHeader() string {
	u, partial := m.todayUsage()
	s := "today " + humanInt(u.Tokens()) + " tokens"
	if partial {
		s = "today ≥" + humanInt(u.Tokens()) + " tokens"
	}
	if len(u.Cost) > 0 {
		s += " · est. " + stats.FormatCost(u.Cost)
	}
	return s
}

func usageJSON(u core.Usage) json.RawMessage {
	b, _ := json.Marshal(u)
	return b
}
