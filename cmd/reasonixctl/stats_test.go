package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"reasonixctl/core/engine"
	"reasonixctl/core/stats"
)

// stats over a state directory with a committed task and a paused one.
func TestStatsCommand(t *testing.T) {
	seedTasks(t)
	code, out, errOut := runCmd(rootCmd, "stats")
	if code != 0 {
		t.Fatalf("stats: %d %s", code, errOut)
	}
	for _, want := range []string{"Tasks: 2 in 1 repository", "by outcome: completed 1 · paused 1", "Time to review: median",
		"Time to commit: median", "(1 task)", "Verification: 1 passed · 0 failed · 0 timed out"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runCmd(rootCmd, "stats", "--json", "--since", "1h")
	var rep stats.Report
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("json: %d %s", code, out)
	}
	if rep.Tasks != 2 || rep.TimeToCommit.Count != 1 || rep.TimeToReview.Count != 1 || rep.Verification.Passed != 1 || rep.Since == nil {
		t.Fatalf("report %+v", rep)
	}
	// Another checkout has no tasks.
	code, out, _ = runCmd(rootCmd, "stats", "--json", "--repo", testRepo(t))
	if json.Unmarshal([]byte(out), &rep) != nil || code != 0 || rep.Tasks != 0 {
		t.Fatalf("other repo: %d %s", code, out)
	}
	if code, _, errOut := runCmd(rootCmd, "stats", "--since", "week"); code != 2 || !strings.Contains(errOut, "--since") {
		t.Fatalf("bad --since: %d %s", code, errOut)
	}
}

// While another process owns the state directory, stats says which one instead of waiting.
func TestStatsNamesTheOwner(t *testing.T) {
	state := privateDir(t)
	t.Setenv("CODEX_REASONIX_STATE_DIR", state)
	e, err := engine.Open(engine.Config{StateDir: state, Mode: "mcp"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	code, _, errOut := runCmd(rootCmd, "stats")
	if code != 1 || !strings.Contains(errOut, "in use by reasonixctl pid "+itoa(os.Getpid())) || !strings.Contains(errOut, "mode mcp") {
		t.Fatalf("owned: %d %s", code, errOut)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
