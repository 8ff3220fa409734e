package tui

import (
	"encoding/binary"
	"encoding/json"
	"hash/maphash"
	"sort"
	"time"

	"reasonixctl/core"
	"reasonixctl/core/stats"
	"reasonixctl/tui/term"
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

// noteSnapshot keeps the usage a detail reported as of journal seq as a report at that seq,
// unless the journal's own report there is known. Reports count a worker session's usage and
// start again from zero with the next session; a task whose journal was not read, and whose
// worker restarted while the dashboard watched, had only the new session's reports here, and
// its figures fell back to them.
func (ti *taskInfo) noteSnapshot(seq uint64, u core.Usage, at time.Time) {
	if seq == 0 {
		return
	}
	if ti.usageLog == nil {
		ti.usageLog = usageLog{}
	}
	if _, ok := ti.usageLog[seq]; ok {
		return
	}
	ti.usageLog[seq] = core.Event{Seq: seq, Time: at, Type: core.EventUsage, Data: usageJSON(u)}
}

// usageTotal is a task's usage over all its worker sessions, as far as the reports seen tell,
// kept until they change.
type usageTotal struct {
	gen   uint64
	n     int
	known bool
	u     core.Usage
}

// totalUsage is the task's usage over all its worker sessions: each session's counters start
// again from zero, so the newest report alone (ti.usage) undercounts a task whose worker
// restarted. nil while nothing was reported.
func (ti *taskInfo) totalUsage() *core.Usage {
	if len(ti.usageLog) == 0 {
		return ti.usage
	}
	tt := &ti.total
	if tt.known && tt.gen == ti.usageGen && tt.n == len(ti.usageLog) {
		return &tt.u
	}
	sum := stats.Compute([]stats.Task{{Events: ti.usageLog.events()}}, time.Time{}, time.UTC).UsageTotal
	u := core.Usage{PromptTokens: sum.PromptTokens, CompletionTokens: sum.CompletionTokens, ReasoningTokens: sum.ReasoningTokens,
		CacheHitTokens: sum.CacheHitTokens, CacheMissTokens: sum.CacheMissTokens}
	if last := ti.usage; last != nil {
		u.UsageSource = last.UsageSource
		if last.PromptTokens == u.PromptTokens && last.CompletionTokens == u.CompletionTokens {
			u.CacheHitRatio = last.CacheHitRatio // one session: its own ratio
		}
		if last.Currency != nil {
			if v, ok := sum.Cost[*last.Currency]; ok {
				u.EstimatedCost, u.Currency = &v, last.Currency
			}
		}
	}
	if hm := u.CacheHitTokens + u.CacheMissTokens; hm > 0 {
		r := float64(u.CacheHitTokens) / float64(hm)
		u.CacheHitRatio = &r
	}
	if u.EstimatedCost == nil && len(sum.Cost) == 1 {
		for cur, v := range sum.Cost {
			u.EstimatedCost, u.Currency = &v, &cur
		}
	}
	*tt = usageTotal{gen: ti.usageGen, n: len(ti.usageLog), known: true, u: u}
	return &tt.u
}

func (l usageLog) events() []core.Event {
	evs := make([]core.Event, 0, len(l))
	for _, ev := range l {
		evs = append(evs, ev)
	}
	sort.Slice(evs, func(i, j int) bool { return evs[i].Seq < evs[j].Seq })
	return evs
}

// usageToday keeps each task's share of today's usage (taskUsage), for the header's figure.
type usageToday struct {
	tasks map[string]*taskUsage
	// The header's figure is built for every frame; it is kept with the fingerprint of what
	// it was computed from (inputsOf) and reused while that stays the same.
	inputs uint64
	line   string
}

// today is the usage of every task in info that accrued since local midnight at now, and
// whether the figure is only a lower bound; tasks are the listed ones. A task's share is exact
// when its journal was read from the start, when it was created today (all its usage is
// today's), or when it has not changed today (none is). Otherwise the reports seen before its
// first one here are unknown: only the growth between reports seen counts, and the figure is
// marked as at least.
func (ut *usageToday) today(info map[string]*taskInfo, tasks []core.TaskView, now time.Time) (stats.Usage, bool) {
	loc := now.Location()
	day := now.Format("2006-01-02")
	midnight := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, loc)
	updated := map[string]string{}
	for _, tv := range tasks {
		updated[tv.TaskID] = tv.UpdatedAt
	}
	if ut.tasks == nil {
		ut.tasks = map[string]*taskUsage{}
	}
	var total stats.Usage
	partial := false
	for id, ti := range info {
		tu := ut.tasks[id]
		if tu == nil {
			tu = &taskUsage{}
			ut.tasks[id] = tu
		}
		u, p := tu.today(id, ti, now, midnight, updated[id], day, loc)
		total.Add(u)
		partial = partial || p
	}
	for id := range ut.tasks {
		if info[id] == nil {
			delete(ut.tasks, id)
		}
	}
	return total, partial
}

// taskUsage keeps what one task's share of today's usage was computed from, so that a new
// report costs the decoding of that report rather than of all of them: with many reports
// that was most of a frame.
type taskUsage struct {
	key   string      // the day, the case and what it depends on besides the reports
	n     int         // reports counted in reports
	last  core.Event  // the newest of them
	sum   stats.Usage // today's usage of the reports (the case's baseline included)
	final uint64      // usageGen the result was computed at
	u     stats.Usage
}

// today is the task's usage of today (see usageToday.today) and whether it is only a lower bound.
func (tu *taskUsage) today(id string, ti *taskInfo, now, midnight time.Time, updatedAt, day string, loc *time.Location) (stats.Usage, bool) {
	updated, _ := time.Parse(time.RFC3339Nano, updatedAt)
	var kind string
	switch {
	case ti.replayed && ti.fromStart:
		kind = "all" // the journal was read from its start
	case !ti.created.IsZero() && !ti.created.Before(midnight):
		kind = "today" // created today: its current cumulative usage all accrued today
	case !updated.IsZero() && updated.Before(midnight):
		return stats.Usage{}, false // unchanged today
	case ti.usage != nil:
		kind = "partial" // the first report seen is the baseline: it may count earlier days
	default:
		kind = "all"
	}
	partial := kind == "partial"
	key := day + "\x00" + kind
	newer := ti.usageLog.newer(tu.last.Seq)
	if tu.key != key || tu.n+len(newer) != len(ti.usageLog) {
		// Something other than new reports changed: count them all again.
		evs := ti.usageLog.events()
		tu.key, tu.n, tu.sum, tu.last, tu.final = key, 0, stats.Usage{}, core.Event{}, ^uint64(0)
		if len(evs) == 0 {
			if kind == "today" && ti.usage != nil {
				return dayTotal(id, day, loc, []core.Event{current(id, now, ti.usage)}), false
			}
			return stats.Usage{}, partial
		}
		if kind == "partial" {
			base := evs[0]
			base.Time = time.Time{}
			evs = append([]core.Event{base}, evs...)
		}
		tu.sum = dayTotal(id, day, loc, evs)
		tu.n, tu.last = len(ti.usageLog), evs[len(evs)-1]
	} else if len(newer) > 0 {
		// New reports only: what they add counts from the newest report counted before.
		prev := tu.last
		prev.Time = time.Time{}
		tu.sum.Add(dayTotal(id, day, loc, append([]core.Event{prev}, newer...)))
		tu.n += len(newer)
		tu.last = newer[len(newer)-1]
		tu.final = ^uint64(0)
	}
	if tu.final == ti.usageGen {
		return tu.u, partial
	}
	tu.u, tu.final = tu.sum, ti.usageGen
	if kind == "today" && ti.usage != nil {
		prev := tu.last
		prev.Time = time.Time{}
		tu.u = stats.Usage{}
		tu.u.Add(tu.sum)
		tu.u.Add(dayTotal(id, day, loc, []core.Event{prev, current(id, now, ti.usage)}))
	}
	return tu.u, partial
}

func current(id string, now time.Time, u *core.Usage) core.Event {
	return core.Event{TaskID: id, Seq: ^uint64(0), Time: now, Type: core.EventUsage, Data: usageJSON(*u)}
}

func dayTotal(id, day string, loc *time.Location, evs []core.Event) stats.Usage {
	return stats.DayTotal([]stats.Task{{ID: id, Events: evs}}, day, loc)
}

// newer are the reports after seq, oldest first.
func (l usageLog) newer(seq uint64) []core.Event {
	var out []core.Event
	for s, ev := range l {
		if s > seq {
			out = append(out, ev)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out
}

// header is the header's usage figure: today's tokens and, when the worker reported one, the
// estimated cost (see today).
func (ut *usageToday) header(info map[string]*taskInfo, tasks []core.TaskView, now time.Time) string {
	in := inputsOf(info, tasks, now)
	if ut.line != "" && in == ut.inputs {
		return ut.line
	}
	ut.inputs, ut.line = in, ut.headerOf(info, tasks, now)
	return ut.line
}

// inputsOf fingerprints everything today reads: the day, and per task its usage reports, how
// much of its journal was read, when it was created and when it last changed. Map order is
// random, so the tasks' hashes are summed.
func inputsOf(info map[string]*taskInfo, tasks []core.TaskView, now time.Time) uint64 {
	h := maphash.String(usageSeed, now.Format("2006-01-02"))
	for id, ti := range info {
		var b [26]byte
		binary.LittleEndian.PutUint64(b[0:], ti.usageGen)
		binary.LittleEndian.PutUint64(b[8:], uint64(len(ti.usageLog)))
		binary.LittleEndian.PutUint64(b[16:], uint64(ti.created.UnixNano()))
		if ti.replayed {
			b[24] = 1
		}
		if ti.fromStart {
			b[25] = 1
		}
		h += maphash.Comparable(usageSeed, struct {
			id   string
			data [26]byte
		}{id, b})
	}
	for _, tv := range tasks {
		h += maphash.Comparable(usageSeed, [2]string{tv.TaskID, tv.UpdatedAt}) * 31
	}
	return h
}

var usageSeed = maphash.MakeSeed()

func (ut *usageToday) headerOf(info map[string]*taskInfo, tasks []core.TaskView, now time.Time) string {
	u, partial := ut.today(info, tasks, now)
	s := "today " + term.HumanInt(u.Tokens()) + " tokens"
	if partial {
		s = "today ≥" + term.HumanInt(u.Tokens()) + " tokens"
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
