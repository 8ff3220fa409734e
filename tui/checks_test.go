package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"reasonixctl/core"
)

// logService is the fake service with logs: its VerificationLog serves them and counts reads.
type logService struct {
	*fakeService
	logs  map[string]string // by task/id
	reads int
}

var _ core.Service = (*logService)(nil)

func (s *logService) VerificationLog(ctx context.Context, taskID, id string, offset, limit int64) (core.LogPage, error) {
	s.reads++
	text, ok := s.logs[taskID+"/"+id]
	if !ok {
		return core.LogPage{}, core.Errorf(core.CodeInvalidRequest, nil, "task %s has no verification %q", taskID, id)
	}
	limit = min(limit, 1000) // small pages, so a log takes several reads
	end := min(offset+limit, int64(len(text)))
	return core.LogPage{TaskID: taskID, ID: id, Offset: offset, Data: text[offset:end], Size: int64(len(text)), EOF: end == int64(len(text))}, nil
}

// unitLog is a failing test run of 120 lines.
func unitLog() string {
	var b strings.Builder
	b.WriteString("$ [\"go\",\"test\",\"./internal/auth\"]\ncwd: .\nexit: 1 timeout: false\n")
	for i := 1; i <= 114; i++ {
		fmt.Fprintf(&b, "=== RUN   TestLogin/case_%03d\n", i)
	}
	b.WriteString("--- FAIL: TestLogin/case_042 (0.00s)\n    login_test.go:42: Login(\"\") = nil, want ErrEmptyUser\nFAIL\n")
	return b.String()
}

func checksScenario() *logService {
	f := scenario()
	d := f.details["login-fix"]
	one, zero := 1, 0
	start := epoch.Add(-2 * time.Minute)
	d.Verification = []core.VerificationResult{
		{ID: "unit", Argv: []string{"go", "test", "./internal/auth"}, Cwd: ".", ExitCode: &one, Proves: []string{"ac_tests"},
			StartedAt: start.Format(time.RFC3339Nano), FinishedAt: start.Add(3200 * time.Millisecond).Format(time.RFC3339Nano),
			LogPath: "/state/verification/login-fix/unit.log", SHA256: "u1", OutputBytes: int64(len(unitLog()))},
		{ID: "vet", Argv: []string{"go", "vet", "./..."}, Cwd: ".", ExitCode: &zero, Passed: true,
			StartedAt: start.Format(time.RFC3339Nano), FinishedAt: start.Add(450 * time.Millisecond).Format(time.RFC3339Nano),
			LogPath: "/state/verification/login-fix/vet.log", SHA256: "v1", OutputBytes: 40},
	}
	f.details["login-fix"] = d
	return &logService{fakeService: f, logs: map[string]string{
		"login-fix/unit": unitLog(),
		"login-fix/vet":  "$ [\"go\",\"vet\",\"./...\"]\ncwd: .\nexit: 0 timeout: false\n",
	}}
}

func newChecksHarness(t *testing.T, svc core.Service, fake *fakeService, w, h int, mono bool) *harness {
	t.Helper()
	clk := &clock{t: epoch}
	m := newModel(context.Background(), svc, Options{StateDir: "/state", WorkerVersion: "1.38.11", Now: clk.Now, Dir: "/src/app", Monochrome: mono})
	hs := &harness{t: t, m: m, svc: fake, clk: clk}
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	hs.run(m.Init())
	return hs
}

func TestGoldenChecks(t *testing.T) {
	scenes := []struct {
		name  string
		setup func(h *harness)
	}{
		{"list", func(h *harness) { h.press("4") }},
		{"paged", func(h *harness) { h.press("4", "pgdown", "pgdown") }},
		{"bottom", func(h *harness) { h.press("4", "G") }},
		{"search", func(h *harness) {
			h.press("4", "/")
			h.typeText("case_04")
			h.press("enter", "n")
		}},
		{"passed", func(h *harness) { h.press("4", "]") }},
	}
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		for _, sc := range scenes {
			t.Run(fmt.Sprintf("%s_%dx%d", sc.name, size[0], size[1]), func(t *testing.T) {
				svc := checksScenario()
				h := newChecksHarness(t, svc, svc.fakeService, size[0], size[1], false)
				sc.setup(h)
				golden.RequireEqual(t, []byte(h.view()))
			})
		}
	}
	// With colour: the failed check, the selection and the search marks.
	t.Run("search_dark_80x24", func(t *testing.T) {
		lipgloss.SetColorProfile(termenv.ANSI256)
		t.Cleanup(func() { lipgloss.SetColorProfile(termenv.Ascii) })
		svc := checksScenario()
		h := newChecksHarness(t, svc, svc.fakeService, 80, 24, false)
		h.press("4", "/")
		h.typeText("fail")
		golden.RequireEqual(t, []byte(h.view()))
	})
}

// The checks tab (tui/checks) reads a log through the service only once it is on screen, the
// read reaches the tab of the task it was for, and the tab's keys reach it through the root;
// the tab's own tests (tui/checks) cover what it does with them.
func TestChecksTabReadsTheLogOnceOnScreen(t *testing.T) {
	svc := checksScenario()
	h := newChecksHarness(t, svc, svc.fakeService, 120, 40, false)
	if svc.reads != 0 {
		t.Fatalf("%d log reads before the checks tab was opened", svc.reads)
	}
	h.press("4")
	h.requireView("[4 Checks]", "2 check(s) · 1 failed", "log unit", "of 120", "=== RUN TestLogin/case_001")
	h.press("G")
	h.requireView("--- FAIL: TestLogin/case_042")
	reads := svc.reads
	h.press("]", "[")
	h.requireView("log unit")
	if svc.reads != reads+1 {
		t.Fatalf("%d reads after switching checks, want %d: a read log is kept", svc.reads, reads+1)
	}
	// Typing a search holds every key, as text; q does not quit.
	h.press("/")
	h.typeText("q")
	h.requireView("/q▏")
}

// The failure of a real finalize quotes the end of the failing log and its path, and the checks
// view then reads the whole log through the engine.
func TestFailedVerificationShowsItsLogTailAndTheWholeLog(t *testing.T) {
	repo := gitRepo(t)
	state := filepath.Join(t.TempDir(), "state")
	e := openEngine(t, state)
	t.Cleanup(func() { _ = e.Close() })
	contract := strings.Replace(engineContract, `"argv": ["test", "-s", "result.txt"]`, `"argv": ["ls", "result.txt", "missing-file.txt"]`, 1)
	if _, err := e.Delegate(context.Background(), core.DelegateRequest{
		TaskID: "failing-check", Contract: json.RawMessage(contract), WaitMode: "background",
		Authority: core.Authority{Cwd: repo, Writable: true},
	}); err != nil {
		t.Fatal(err)
	}
	h := newLiveHarness(t, e, repo)
	h.waitView("Permission requested", "make check")
	h.clk.advance(time.Second)
	h.press("a")
	h.waitView("review_required", "All set for review.")
	h.press("F")
	h.typeText("checked")
	h.press("tab", "space", "enter")
	// The file was not marked reviewed: the form asks once, and a second submit goes on.
	h.waitView("not marked reviewed")
	h.press("enter")
	logPath := filepath.Join(state, "verification", "failing-check", "has-result.log")
	h.waitView("finalize failing-check failed", "verification has-result failed: ls result.txt missing-file.txt exited 2",
		"│ result.txt", "ls: cannot access 'missing-file.txt'", "checks view (4)")
	// The path is wrapped in the notice: compare without the wrapping.
	if v := strings.ReplaceAll(flatten(h.view()), " ", ""); !strings.Contains(v, "(log:"+logPath+")") {
		t.Fatalf("the notice does not name the log %s:\n%s", logPath, h.view())
	}
	h.press("esc", "4")
	h.waitView("[4 Checks]", "✗ failed", "has-result", "exit 2", `$ ["ls","result.txt","missing-file.txt"]`, "exit: 2 timeout: false",
		"state/verification/failing-check/has-result.log", "ls: cannot access 'missing-file.txt'")

	// The check fails on the base too; D drops it from the contract, which gets a new hash.
	h.waitView("before the change: ✗ fails too", "D drops the check")
	before := contractHashOf(t, e, "failing-check")
	h.press("D")
	h.waitView("Drop has-result from failing-check's contract?")
	h.press("y")
	h.waitView("amend_checks failing-check: now review_required")
	if after := contractHashOf(t, e, "failing-check"); after == before {
		t.Fatal("the contract did not change")
	}
	d, _ := e.Get(context.Background(), "failing-check")
	if strings.Contains(string(d.Contract), "has-result") {
		t.Fatalf("the check is still in the contract:\n%s", d.Contract)
	}
}

func contractHashOf(t *testing.T, svc core.Service, id string) string {
	t.Helper()
	d, err := svc.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return d.View.ContractHash
}
