package tui

import (
	"encoding/binary"
	"encoding/json"
	"hash/fnv"
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
	// Decoding every report of every task is most of a frame with many tasks: the figure is
	// kept until something it is made of changes.
	key := m.usageKey()
	if c := &m.usageCache; c.valid && c.key == key {
		return c.u, c.partial
	}
	u, partial := m.computeTodayUsage()
	m.usageCache = usageCache{valid: true, key: key, u: u, partial: partial}
	return u, partial
}

// usageCache is the last figure todayUsage computed and what it was computed from.
type usageCache struct {
	valid   bool
	key     uint64
	u       stats.Usage
	partial bool
}

// usageKey fingerprints what todayUsage reads: the day, each task's reports and what it
// knows of the task's start, usage and last update.
func (m *Model) usageKey() uint64 {
	h := fnv.New64a()
	var buf [8]byte
	put := func(v uint64) {
		binary.LittleEndian.PutUint64(buf[:], v)
		_, _ = h.Write(buf[:])
	}
	_, _ = h.Write([]byte(m.now().Format("2006-01-02 -0700")))
	ids := make([]string, 0, len(m.info))
	for id := range m.info {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		ti := m.info[id]
		_, _ = h.Write([]byte(id))
		put(uint64(len(ti.usageLog)))
		if ti.replayed && ti.fromStart {
			put(1)
		} else {
			put(0)
		}
		put(uint64(ti.created.UnixNano()))
		put(ti.usageGen)
	}
	for _, tv := range m.list.tasks {
		_, _ = h.Write([]byte(tv.TaskID + "\x00" + tv.UpdatedAt))
	}
	return h.Sum64()
}

func (m *Model) computeTodayUsage() (stats.Usage, bool) {
	now := m.now()
	loc := now.Location()
	day := now.Format("2006-01-02")
	midnight := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, loc)
	updated := map[string]time.Time{}
	for _, tv := range m.list.tasks {
		if t, err := time.Parse(time.RFC3339Nano, tv.UpdatedAt); err == nil {
			updated[tv.TaskID] = t
		}
	}
	var tasks []stats.Task
	partial := false
	for id, ti := range m.info {
		evs := ti.usageLog.events()
		switch {
		case ti.replayed && ti.fromStart:
		case !ti.created.IsZero() && !ti.created.Before(midnight):
			if ti.usage != nil {
				// Its current cumulative usage all accrued today.
				evs = append(evs, core.Event{TaskID: id, Seq: ^uint64(0), Time: now, Type: core.EventUsage, Data: usageJSON(*ti.usage)})
			}
		case !updated[id].IsZero() && updated[id].Before(midnight):
			continue
		case ti.usage != nil:
			partial = true
			if len(evs) > 0 {
				// The first report seen is the baseline: what it counted may predate today.
				base := evs[0]
				base.Time = time.Time{}
				evs = append([]core.Event{base}, evs...)
			}
		}
		if len(evs) > 0 {
			tasks = append(tasks, stats.Task{ID: id, Events: evs})
		}
	}
	return stats.DayTotal(tasks, day, loc), partial
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
