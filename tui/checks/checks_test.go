package checks

import (
	"strings"
	"testing"

	"reasonixctl/core"
	"reasonixctl/tui/intent"
)

func TestListAndPageTheWholeLog(t *testing.T) {
	logs := sampleLogs()
	tb := newTab(t, logs, inReview, results(), 120, 36)
	tb.requireView("2 check(s) · 1 failed", "✗ failed", "unit", "exit 1", "3.2s", "go test ./internal/auth",
		"✓ passed", "vet", "exit 0", "450ms", "lines 1–", "of 120", "/state/verification/login-fix/unit.log", "=== RUN TestLogin/case_001")
	if logs.reads < 2 {
		t.Fatalf("a %d-byte log read in %d page(s)", len(unitLog()), logs.reads)
	}
	tb.press("G")
	tb.requireView("--- FAIL: TestLogin/case_042", `login_test.go:42: Login("") = nil, want ErrEmptyUser`, "of 120")
	tb.requireNotInView("case_001")
	tb.press("g")
	tb.requireView("lines 1–", "case_001")
	// The log search: first match below the top, n/N round the ends, esc back.
	tb.press("/")
	tb.typeText("FAIL")
	tb.requireView("/FAIL", "match 1 of 2", "--- FAIL: TestLogin/case_042")
	tb.press("enter", "n")
	tb.requireView("match 2 of 2")
	tb.press("n")
	tb.requireView("match 1 of 2 (wrapped)")
	tb.press("N")
	tb.requireView("match 2 of 2 (wrapped)")
	tb.press("esc")
	tb.requireNotInView("/FAIL")
	reads := logs.reads
	tb.press("]")
	tb.requireView("› ✓ passed", "log vet", "exit: 0 timeout: false")
	tb.press("[")
	tb.requireView("log unit")
	if logs.reads != reads+1 {
		t.Fatalf("%d reads after switching checks, want %d: a read log is kept", logs.reads, reads+1)
	}
}

func TestBeforeAnyFinalize(t *testing.T) {
	tb := newTab(t, sampleLogs(), inReview, []core.VerificationResult{}, 120, 36)
	tb.requireView("no checks yet: finalizing (F) runs", "commands and shows them here")
	// Its keys say why they do nothing, and the footer offers none of them; the rest are the
	// dashboard's.
	for _, k := range []string{"]", "[", "/", "D"} {
		tb.press(k)
		if !tb.last.Took || !strings.HasPrefix(tb.last.Status, "no checks yet") {
			t.Errorf("%s with no checks: %+v", k, tb.last)
		}
	}
	for _, k := range []string{"n", "pgdown", "G", "esc"} {
		if tb.press(k); tb.last.Took {
			t.Errorf("%s with no checks was taken", k)
		}
	}
	if f := tb.m.Footer(); len(f) != 0 {
		t.Errorf("footer with no checks: %v", f)
	}
}

func TestLoadingUntilTheDetailArrives(t *testing.T) {
	logs := sampleLogs()
	tb := newTab(t, logs, core.TaskView{}, nil, 80, 20)
	tb.requireView("loading…")
	if tb.press("]"); !strings.Contains(tb.last.Status, "still loading") || logs.reads != 0 {
		t.Fatalf("] before the detail: %+v, %d reads", tb.last, logs.reads)
	}
}

// A new attempt's checks open on the first failed one: its log is the one to read.
func TestOpenOnTheFirstFailure(t *testing.T) {
	rs := results()
	rs[0], rs[1] = rs[1], rs[0]
	tb := newTab(t, sampleLogs(), inReview, rs, 120, 36)
	tb.requireView("› ✗ failed", "log unit")
	tb.press("[")
	tb.requireView("› ✓ passed", "log vet")
	// The same attempt again keeps the selection; a new one goes back to its first failure.
	tb.m = tb.m.Show(inReview, rs)
	tb.requireView("› ✓ passed")
	rs = append([]core.VerificationResult(nil), rs...)
	rs[1].FinishedAt = epoch.Format("2006-01-02T15:04:05.999999999Z07:00")
	tb.m = tb.m.Show(inReview, rs)
	tb.load()
	tb.requireView("› ✗ failed", "log unit")
}

// D asks the root to ask before dropping the selected check, only where core offers
// amend_checks; elsewhere it says why in core's words.
func TestDropAsksFirstWhereCoreAllows(t *testing.T) {
	running := core.TaskView{TaskID: "login-fix", State: core.StateRunning}
	tb := newTab(t, sampleLogs(), running, results(), 120, 36)
	tb.press("D")
	if tb.last.Status != "amend_checks needs a task in review; login-fix is running" || tb.last.Do != nil {
		t.Fatalf("D in a running task: %+v", tb.last)
	}
	tb.m = tb.m.Show(core.TaskView{TaskID: "login-fix", State: core.StateReviewRequired, RepairRounds: core.MaxRepairRounds}, results())
	tb.press("D")
	ask, ok := tb.last.Do.(intent.Confirm)
	if !ok || tb.last.Status != "" {
		t.Fatalf("D in review: %+v", tb.last)
	}
	if ask.Title != "Drop unit from login-fix's contract?" || ask.Yes != (intent.DropCheck{TaskID: "login-fix", Check: "unit"}) {
		t.Fatalf("D asks %+v", ask)
	}
}

// While the query is typed every key is text, but ctrl+c, which stays the dashboard's.
func TestTypingTheQuery(t *testing.T) {
	tb := newTab(t, sampleLogs(), inReview, results(), 120, 36)
	tb.press("/")
	if !tb.m.Capturing() {
		t.Fatal("/ did not start the search")
	}
	tb.typeText("nD]q")
	tb.requireView("/nD]q", "no match", "› ✗ failed")
	tb.press("backspace", "backspace", "backspace")
	tb.requireView("/n▏")
	if tb.press("ctrl+c"); tb.last.Took {
		t.Fatal("the search took ctrl+c")
	}
	tb.press("ctrl+u", "enter")
	if tb.m.Capturing() || tb.m.search.shown() {
		t.Fatal("enter on an empty query kept a search")
	}
	// n without a kept search is not the tab's: it starts a new task.
	if tb.press("n"); tb.last.Took {
		t.Fatal("n without a search was taken")
	}
}

// A log that cannot be read says why where it would be.
func TestALogThatCannotBeRead(t *testing.T) {
	logs := sampleLogs()
	delete(logs.logs, "login-fix/unit")
	tb := newTab(t, logs, inReview, results(), 100, 30)
	tb.requireView("log unit", "task login-fix has no verification")
	tb = newTab(t, nil, inReview, results(), 100, 30)
	tb.requireView("log unit", errNoReader.Error())
}

// The help lists every key the tab takes, whatever the state; the footer only what runs now.
func TestHelpAndFooterFromTheTable(t *testing.T) {
	tb := newTab(t, sampleLogs(), inReview, results(), 100, 30)
	var help []string
	for _, b := range tb.m.Help().Bindings {
		help = append(help, b.Help().Key)
	}
	if got := strings.Join(help, " "); got != "[ ] D / pgup/b pgdn/space g/home G/end n N esc" {
		t.Fatalf("help: %s", got)
	}
	var foot []string
	for _, b := range tb.m.Footer() {
		foot = append(foot, b.Help().Key+" "+b.Help().Desc)
	}
	if got := strings.Join(foot, " · "); got != "] check · / search log" {
		t.Fatalf("footer: %s", got)
	}
	one := newTab(t, sampleLogs(), inReview, results()[:1], 100, 30)
	if f := one.m.Footer(); len(f) != 1 || f[0].Help().Desc != "search log" {
		t.Fatalf("footer with one check: %v", f)
	}
}
