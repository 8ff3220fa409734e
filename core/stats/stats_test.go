package stats

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"reasonixctl/core"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

type journal struct {
	id  string
	evs []core.Event
}

func (j *journal) add(when, typ string, data any) {
	b, err := json.Marshal(data)
	if err != nil {
		panic(err)
	}
	j.evs = append(j.evs, core.Event{TaskID: j.id, Seq: uint64(len(j.evs) + 1), Time: at(when), Type: typ, Data: b})
}

func state(from, to core.State, phase string) core.StateChangedData {
	return core.StateChangedData{From: from, To: to, Phase: phase}
}

func usage(prompt, completion, reasoning, hit, miss int64, cost *float64) core.Usage {
	u := core.Usage{PromptTokens: prompt, CompletionTokens: completion, ReasoningTokens: reasoning,
		CacheHitTokens: hit, CacheMissTokens: miss, UsageSource: "reasonix", EstimatedCost: cost}
	if cost != nil {
		usd := "USD"
		u.Currency = &usd
	}
	return u
}

func cost(v float64) *float64 { return &v }

func verification(id, start, end string, passed, timedOut bool, exit *int) core.VerificationResult {
	return core.VerificationResult{ID: id, Argv: []string{"go", "test", "./..."}, Cwd: ".", StartedAt: start, FinishedAt: end,
		Passed: passed, TimedOut: timedOut, ExitCode: exit}
}

// knownTasks is two tasks with known figures: alpha (fast lane) is committed the same day after
// one repair round; beta (deep lane, a worker that reports no cost) spans midnight, loops on a
// denial, fails and times out a verification, hits a source collision and restarts its session.
func knownTasks() []Task {
	a := &journal{id: "alpha"}
	a.add("2026-11-30T10:00:00Z", core.EventTaskCreated, core.TaskCreatedData{State: core.StateProvisioning, RepositoryID: "aaa", Repository: "/src/alpha"})
	a.add("2026-11-30T10:00:01Z", core.EventStateChanged, state(core.StateProvisioning, core.StateRunning, "worker"))
	a.add("2026-11-30T10:01:00Z", core.EventPermissionDecided, core.PermissionData{Kind: "execute", Decision: core.DecisionAllow, By: "policy"})
	a.add("2026-11-30T10:01:10Z", core.EventPermissionDecided, core.PermissionData{Kind: "execute", Decision: core.DecisionDeny, Code: "unknown_executable", By: "policy"})
	a.add("2026-11-30T10:01:20Z", core.EventPermissionDecided, core.PermissionData{Kind: "execute", Decision: core.DecisionDeny, Code: "unknown_executable", By: "policy"})
	a.add("2026-11-30T10:02:00Z", core.EventUsage, usage(1000, 200, 50, 600, 400, cost(0.01)))
	a.add("2026-11-30T10:05:00Z", core.EventUsage, usage(3000, 500, 100, 2000, 1000, cost(0.03)))
	a.add("2026-11-30T10:05:00Z", core.EventStateChanged, state(core.StateRunning, core.StateReviewRequired, core.PhaseTurnEnded))
	a.add("2026-11-30T10:06:00Z", core.EventStateChanged, state(core.StateReviewRequired, core.StateRunning, "repair_1"))
	a.add("2026-11-30T10:08:00Z", core.EventUsage, usage(4000, 700, 120, 2800, 1200, cost(0.04)))
	a.add("2026-11-30T10:08:00Z", core.EventStateChanged, state(core.StateRunning, core.StateReviewRequired, core.PhaseTurnEnded))
	a.add("2026-11-30T10:09:00Z", core.EventStateChanged, state(core.StateReviewRequired, core.StateVerifying, "finalize"))
	zero := 0
	a.add("2026-11-30T10:09:13Z", core.EventVerification, verification("tests", "2026-11-30T10:09:00.000Z", "2026-11-30T10:09:12.500Z", true, false, &zero))
	a.add("2026-11-30T10:10:00Z", core.EventCommitted, core.CommittedData{CommitHash: "abc", Branch: "reasonix/alpha"})
	a.add("2026-11-30T10:10:00Z", core.EventStateChanged, state(core.StateVerifying, core.StateCompleted, "committed"))

	b := &journal{id: "beta"}
	b.add("2026-11-30T23:50:00Z", core.EventTaskCreated, core.TaskCreatedData{State: core.StateProvisioning, RepositoryID: "bbb", Repository: "/src/beta"})
	b.add("2026-11-30T23:50:01Z", core.EventStateChanged, state(core.StateProvisioning, core.StateRunning, "worker"))
	b.add("2026-11-30T23:55:00Z", core.EventUsage, usage(500, 100, 0, 0, 0, nil))
	b.add("2026-12-01T00:10:00Z", core.EventUsage, usage(1500, 300, 0, 0, 0, nil))
	b.add("2026-12-01T00:11:00Z", core.EventPermissionDecided, core.PermissionData{Kind: "execute", Decision: core.DecisionDeny, Code: "git_mutation", By: "policy"})
	b.add("2026-12-01T00:11:30Z", core.EventPermissionDecided, core.PermissionData{Kind: "execute", Decision: core.DecisionInteraction, Code: "unknown_executable", By: "policy"})
	b.add("2026-12-01T00:12:00Z", core.EventStateChanged, state(core.StateRunning, core.StatePaused, core.PhaseRepeatedDenial))
	b.add("2026-12-01T00:13:00Z", core.EventStateChanged, state(core.StatePaused, core.StateRunning, "resumed"))
	one := 1
	b.add("2026-12-01T00:19:03Z", core.EventVerification, verification("lint", "2026-12-01T00:19:00.000Z", "2026-12-01T00:19:03.000Z", false, false, &one))
	b.add("2026-12-01T00:21:10Z", core.EventVerification, verification("slow", "2026-12-01T00:19:10.000Z", "2026-12-01T00:21:10.000Z", false, true, nil))
	b.add("2026-12-01T00:30:00Z", core.EventStateChanged, state(core.StateRunning, core.StatePaused, core.PhaseSourceCollision))
	b.add("2026-12-01T00:40:00Z", core.EventUsage, usage(200, 50, 0, 0, 0, nil)) // a new session: counted whole

	return []Task{
		{ID: "alpha", State: core.StateCompleted, Lane: core.LaneFast, Events: a.evs},
		{ID: "beta", State: core.StatePaused, Lane: core.LaneDeep, Events: b.evs},
	}
}

func TestComputeKnownFigures(t *testing.T) {
	rep := Compute(knownTasks(), time.Time{}, time.UTC)
	check := func(what string, got, want any) {
		t.Helper()
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if string(g) != string(w) {
			t.Errorf("%s = %s, want %s", what, g, w)
		}
	}
	check("tasks", rep.Tasks, 2)
	check("outcomes", rep.ByOutcome, map[string]int{"completed": 1, "paused": 1})
	check("lanes", rep.ByLane, map[string]int{"fast": 1, "deep": 1})
	check("time to review", rep.TimeToReview, Durations{Count: 1, Median: cost(300), Mean: cost(300), Max: cost(300)})
	check("time to commit", rep.TimeToCommit, Durations{Count: 1, Median: cost(600), Mean: cost(600), Max: cost(600)})
	check("permissions", rep.Permissions, []Permission{
		{Decision: "deny", Code: "unknown_executable", Count: 2}, {Decision: "allow", Count: 1},
		{Decision: "deny", Code: "git_mutation", Count: 1}, {Decision: "interaction", Code: "unknown_executable", Count: 1}})
	check("denial loops", rep.DenialLoops, 1)
	check("source collisions", rep.SourceCollisions, 1)
	check("repair rounds", []int{rep.RepairRounds, rep.TasksRepaired}, []int{1, 1})
	check("verification", rep.Verification, Verification{Passed: 1, Failed: 1, TimedOut: 1,
		Duration: Durations{Count: 3, Median: cost(12.5), Mean: cost(45.167), Max: cost(120)}})
	// Cumulative reports count once: alpha's last report of the day, beta's growth per day, and
	// beta's restarted session whole. Only alpha reported a cost.
	check("usage by day", rep.UsageByDay, []DayUsage{
		{Day: "2026-11-30", Usage: Usage{PromptTokens: 4500, CompletionTokens: 800, ReasoningTokens: 120, CacheHitTokens: 2800, CacheMissTokens: 1200, Cost: map[string]float64{"USD": 0.04}}},
		{Day: "2026-12-01", Usage: Usage{PromptTokens: 1200, CompletionTokens: 250}},
	})
	check("usage by repository", rep.UsageByRepo, []RepoUsage{
		{Repository: "/src/alpha", Usage: Usage{PromptTokens: 4000, CompletionTokens: 700, ReasoningTokens: 120, CacheHitTokens: 2800, CacheMissTokens: 1200, Cost: map[string]float64{"USD": 0.04}}},
		{Repository: "/src/beta", Usage: Usage{PromptTokens: 1700, CompletionTokens: 350}},
	})
	if rep.UsageByDay[1].Cost != nil || rep.UsageByRepo[1].Cost != nil {
		t.Error("a worker that reports no cost shows a cost")
	}
	check("total", rep.UsageTotal.Tokens(), int64(4500+800+1200+250))
}

func TestComputeSince(t *testing.T) {
	rep := Compute(knownTasks(), at("2026-12-01T00:00:00Z"), time.UTC)
	if rep.Tasks != 1 || rep.ByOutcome["paused"] != 1 || rep.TimeToReview.Count != 0 || rep.TimeToCommit.Count != 0 {
		t.Fatalf("tasks %d %v review %d commit %d", rep.Tasks, rep.ByOutcome, rep.TimeToReview.Count, rep.TimeToCommit.Count)
	}
	if len(rep.UsageByDay) != 1 || rep.UsageByDay[0].Day != "2026-12-01" || rep.UsageByDay[0].PromptTokens != 1200 {
		t.Fatalf("usage %+v", rep.UsageByDay)
	}
	if len(rep.Permissions) != 2 || rep.Verification.Passed != 0 || rep.Verification.Failed != 1 {
		t.Fatalf("permissions %+v verification %+v", rep.Permissions, rep.Verification)
	}
	// Days follow the given time zone: at UTC+2 all of beta's usage is on 1 December.
	east := time.FixedZone("UTC+2", 2*3600)
	days := Compute(knownTasks(), time.Time{}, east).UsageByDay
	if len(days) != 2 || days[0].PromptTokens != 4000 || days[1].Day != "2026-12-01" || days[1].PromptTokens != 1700 {
		t.Fatalf("days at UTC+2: %+v", days)
	}
	if got := DayTotal(knownTasks(), "2026-12-01", time.UTC); got.PromptTokens != 1200 || got.Cost != nil {
		t.Fatalf("day total %+v", got)
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs (go test ./core/stats -update to accept):\n%s", name, got)
	}
}

func TestReportGolden(t *testing.T) {
	rep := Compute(knownTasks(), time.Time{}, time.UTC)
	var js bytes.Buffer
	enc := json.NewEncoder(&js)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rep); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.json", js.Bytes())
	var text bytes.Buffer
	WriteText(&text, rep)
	golden(t, "report.txt", text.Bytes())

	var empty bytes.Buffer
	WriteText(&empty, Compute(nil, at("2026-12-01T00:00:00Z"), time.UTC))
	golden(t, "empty.txt", empty.Bytes())
}
