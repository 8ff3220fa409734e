// Package stats derives usage statistics from task journals: outcomes and lanes, times to
// review and to commit, permission decisions, denial loops, verification, repair rounds, source
// collisions and token usage with estimated cost per day and per repository. It is a pure
// function of recorded events: a figure nothing recorded is absent (null), never estimated.
package stats

import (
	"math"
	"sort"
	"strings"
	"time"

	"reasonixctl/core"
)

// Task is one task's journal with what the journal does not say about it.
type Task struct {
	ID     string
	State  core.State // current state: the outcome of a finished task
	Lane   core.Lane
	Events []core.Event // the whole journal, oldest first
}

// Report is what Compute returns; its JSON is the `stats --json` output.
type Report struct {
	Since            *time.Time     `json:"since"` // nil: everything recorded
	Tasks            int            `json:"tasks"`
	Repositories     int            `json:"repositories"`
	ByOutcome        map[string]int `json:"by_outcome"` // current state -> tasks
	ByLane           map[string]int `json:"by_lane"`
	TimeToReview     Durations      `json:"time_to_review"` // task creation to its first review_required
	TimeToCommit     Durations      `json:"time_to_commit"` // task creation to its commit
	Permissions      []Permission   `json:"permissions"`
	DenialLoops      int            `json:"denial_loops"` // pauses after a repeated identical denial
	Verification     Verification   `json:"verification"`
	RepairRounds     int            `json:"repair_rounds"`
	TasksRepaired    int            `json:"tasks_repaired"`
	SourceCollisions int            `json:"source_collisions"` // pauses because the source checkout changed owned paths
	UsageByDay       []DayUsage     `json:"usage_by_day"`
	UsageByRepo      []RepoUsage    `json:"usage_by_repository"`
	UsageTotal       Usage          `json:"usage_total"`
}

// Durations summarises a set of durations, in seconds; the figures are null without samples.
type Durations struct {
	Count  int      `json:"count"`
	Median *float64 `json:"median_seconds"`
	Mean   *float64 `json:"mean_seconds"`
	Max    *float64 `json:"max_seconds"`
}

// Permission counts permission decisions with one decision and code.
type Permission struct {
	Decision string `json:"decision"` // allow | deny | interaction
	Code     string `json:"code,omitempty"`
	Count    int    `json:"count"`
}

// Verification counts verification runs by result.
type Verification struct {
	Passed   int       `json:"passed"`
	Failed   int       `json:"failed"`
	TimedOut int       `json:"timed_out"`
	Duration Durations `json:"duration"`
}

// Usage is token usage and the estimated cost the worker reported, by currency. Cost is null
// when no usage it covers came with a cost.
type Usage struct {
	PromptTokens     int64              `json:"prompt_tokens"`
	CompletionTokens int64              `json:"completion_tokens"`
	ReasoningTokens  int64              `json:"reasoning_tokens"`
	CacheHitTokens   int64              `json:"cache_hit_tokens"`
	CacheMissTokens  int64              `json:"cache_miss_tokens"`
	Cost             map[string]float64 `json:"estimated_cost"`
}

// Tokens is prompt plus completion tokens (reasoning tokens are part of completion).
func (u Usage) Tokens() int64 { return u.PromptTokens + u.CompletionTokens }

// DayUsage is the usage that accrued on one day (in the report's time zone).
type DayUsage struct {
	Day string `json:"day"` // YYYY-MM-DD
	Usage
}

// RepoUsage is the usage of the tasks of one repository.
type RepoUsage struct {
	Repository string `json:"repository"` // the checkout's root, or its id when the root is unknown
	Usage
}

// Add adds d to u, costs per currency.
func (u *Usage) Add(d Usage) {
	u.PromptTokens += d.PromptTokens
	u.CompletionTokens += d.CompletionTokens
	u.ReasoningTokens += d.ReasoningTokens
	u.CacheHitTokens += d.CacheHitTokens
	u.CacheMissTokens += d.CacheMissTokens
	for cur, v := range d.Cost {
		if u.Cost == nil {
			u.Cost = map[string]float64{}
		}
		u.Cost[cur] = round(u.Cost[cur]+v, 1e9)
	}
}

// Compute derives the report from the tasks' journals. With a non-zero since, only what
// happened at or after it counts: events, usage, and the outcome of tasks with any event then.
// Days are calendar days in loc (UTC when nil).
func Compute(tasks []Task, since time.Time, loc *time.Location) Report {
	if loc == nil {
		loc = time.UTC
	}
	rep := Report{ByOutcome: map[string]int{}, ByLane: map[string]int{}, Permissions: []Permission{},
		UsageByDay: []DayUsage{}, UsageByRepo: []RepoUsage{}}
	if !since.IsZero() {
		s := since
		rep.Since = &s
	}
	in := func(t time.Time) bool { return since.IsZero() || !t.Before(since) }
	var toReview, toCommit, verify []float64
	perms := map[Permission]int{}
	days := map[string]*Usage{}
	repos := map[string]*Usage{}
	seenRepos := map[string]bool{}
	for _, t := range tasks {
		seen := false
		var created time.Time
		repo := ""
		reviewed, repaired := false, false
		usage := usageTracker{}
		for _, ev := range t.Events {
			if in(ev.Time) {
				seen = true
			}
			switch ev.Type {
			case core.EventTaskCreated:
				created = ev.Time
				if d, ok := core.DataOf[core.TaskCreatedData](ev); ok {
					repo = d.Repository
					if repo == "" {
						repo = d.RepositoryID
					}
				}
			case core.EventStateChanged:
				d, ok := core.DataOf[core.StateChangedData](ev)
				if !ok {
					continue
				}
				if d.To == core.StateReviewRequired && !reviewed {
					reviewed = true
					if in(ev.Time) && !created.IsZero() {
						toReview = append(toReview, ev.Time.Sub(created).Seconds())
					}
				}
				if !in(ev.Time) {
					continue
				}
				switch {
				case d.To == core.StatePaused && d.Phase == core.PhaseRepeatedDenial:
					rep.DenialLoops++
				case d.To == core.StatePaused && d.Phase == core.PhaseSourceCollision:
					rep.SourceCollisions++
				case d.To == core.StateRunning && strings.HasPrefix(d.Phase, "repair_"):
					rep.RepairRounds++
					repaired = true
				}
			case core.EventCommitted:
				if in(ev.Time) && !created.IsZero() {
					toCommit = append(toCommit, ev.Time.Sub(created).Seconds())
				}
			case core.EventPermissionDecided:
				if d, ok := core.DataOf[core.PermissionData](ev); ok && in(ev.Time) {
					code := d.Code
					if d.Decision == core.DecisionAllow {
						code = ""
					}
					perms[Permission{Decision: d.Decision, Code: code}]++
				}
			case core.EventVerification:
				v, ok := core.DataOf[core.VerificationResult](ev)
				if !ok || !in(ev.Time) {
					continue
				}
				switch {
				case v.TimedOut:
					rep.Verification.TimedOut++
				case v.Passed:
					rep.Verification.Passed++
				default:
					rep.Verification.Failed++
				}
				if s, err1 := time.Parse(time.RFC3339Nano, v.StartedAt); err1 == nil {
					if f, err2 := time.Parse(time.RFC3339Nano, v.FinishedAt); err2 == nil && !f.Before(s) {
						verify = append(verify, f.Sub(s).Seconds())
					}
				}
			case core.EventUsage:
				u, ok := core.DataOf[core.Usage](ev)
				if !ok {
					continue
				}
				// Every usage event is the task's cumulative usage; only the growth since the
				// previous one accrued now, so nothing is counted twice.
				d := usage.delta(u)
				if !in(ev.Time) {
					continue
				}
				day := ev.Time.In(loc).Format("2006-01-02")
				if days[day] == nil {
					days[day] = &Usage{}
				}
				days[day].Add(d)
				key := repo
				if key == "" {
					key = "(unknown)"
				}
				if repos[key] == nil {
					repos[key] = &Usage{}
				}
				repos[key].Add(d)
				rep.UsageTotal.Add(d)
			}
		}
		if repaired {
			rep.TasksRepaired++
		}
		if !seen {
			continue
		}
		rep.Tasks++
		if repo != "" {
			seenRepos[repo] = true
		}
		rep.ByOutcome[string(t.State)]++
		lane := string(t.Lane)
		if lane == "" {
			lane = "unknown"
		}
		rep.ByLane[lane]++
	}
	rep.TimeToReview = summarise(toReview)
	rep.TimeToCommit = summarise(toCommit)
	rep.Verification.Duration = summarise(verify)
	for p, n := range perms {
		p.Count = n
		rep.Permissions = append(rep.Permissions, p)
	}
	sort.Slice(rep.Permissions, func(i, j int) bool {
		a, b := rep.Permissions[i], rep.Permissions[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		if a.Decision != b.Decision {
			return a.Decision < b.Decision
		}
		return a.Code < b.Code
	})
	for day, u := range days {
		rep.UsageByDay = append(rep.UsageByDay, DayUsage{Day: day, Usage: *u})
	}
	sort.Slice(rep.UsageByDay, func(i, j int) bool { return rep.UsageByDay[i].Day < rep.UsageByDay[j].Day })
	for r, u := range repos {
		rep.UsageByRepo = append(rep.UsageByRepo, RepoUsage{Repository: r, Usage: *u})
	}
	sort.Slice(rep.UsageByRepo, func(i, j int) bool { return rep.UsageByRepo[i].Repository < rep.UsageByRepo[j].Repository })
	rep.Repositories = len(seenRepos)
	return rep
}

// usageTracker turns a task's cumulative usage reports into increments. A report below the
// previous one means the worker's counters restarted (a new session): it then counts whole.
type usageTracker struct {
	prev     *core.Usage
	prevCost map[string]float64
}

func (t *usageTracker) delta(u core.Usage) Usage {
	reset := t.prev == nil || u.PromptTokens < t.prev.PromptTokens || u.CompletionTokens < t.prev.CompletionTokens ||
		u.ReasoningTokens < t.prev.ReasoningTokens || u.CacheHitTokens < t.prev.CacheHitTokens || u.CacheMissTokens < t.prev.CacheMissTokens
	d := Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, ReasoningTokens: u.ReasoningTokens,
		CacheHitTokens: u.CacheHitTokens, CacheMissTokens: u.CacheMissTokens}
	if !reset {
		d.PromptTokens -= t.prev.PromptTokens
		d.CompletionTokens -= t.prev.CompletionTokens
		d.ReasoningTokens -= t.prev.ReasoningTokens
		d.CacheHitTokens -= t.prev.CacheHitTokens
		d.CacheMissTokens -= t.prev.CacheMissTokens
	}
	if reset {
		t.prevCost = nil
	}
	if u.EstimatedCost != nil {
		cur := "USD"
		if u.Currency != nil && *u.Currency != "" {
			cur = *u.Currency
		}
		v := *u.EstimatedCost
		if p, ok := t.prevCost[cur]; ok && v >= p {
			v -= p
		}
		d.Cost = map[string]float64{cur: round(v, 1e9)}
		t.prevCost = map[string]float64{cur: *u.EstimatedCost}
	}
	c := u
	t.prev = &c
	return d
}

func summarise(xs []float64) Durations {
	d := Durations{Count: len(xs)}
	if len(xs) == 0 {
		return d
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	var sum float64
	for _, x := range s {
		sum += x
	}
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	mean, mx := round(sum/float64(len(s)), 1e3), round(s[len(s)-1], 1e3)
	med = round(med, 1e3)
	d.Median, d.Mean, d.Max = &med, &mean, &mx
	return d
}

func round(v, scale float64) float64 { return math.Round(v*scale) / scale }

// DayTotal is the usage of the given tasks' journals that accrued on day (YYYY-MM-DD in loc):
// what the dashboard's header shows for today.
func DayTotal(tasks []Task, day string, loc *time.Location) Usage {
	rep := Compute(tasks, time.Time{}, loc)
	for _, d := range rep.UsageByDay {
		if d.Day == day {
			return d.Usage
		}
	}
	return Usage{}
}
