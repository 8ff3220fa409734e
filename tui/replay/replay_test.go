package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"reasonixctl/core"
	"reasonixctl/tui/bind"
	"reasonixctl/tui/term"
)

func TestMain(m *testing.M) {
	// Goldens and assertions compare plain text: no colour codes, whatever the terminal.
	lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
	os.Exit(m.Run())
}

var epoch = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// journal is one task's journal as the engine serves it: Get says its last seq, Subscribe
// sends it from a seq on, then nothing until the context ends.
type journal struct {
	events []core.Event
	err    error // Get fails with it
}

func (j *journal) Get(context.Context, string) (core.TaskDetail, error) {
	if j.err != nil {
		return core.TaskDetail{}, j.err
	}
	var d core.TaskDetail
	if n := len(j.events); n > 0 {
		d.LastSeq = j.events[n-1].Seq
	}
	return d, nil
}

func (j *journal) Subscribe(ctx context.Context, opts core.SubscribeOptions) (*core.Subscription, error) {
	ch := make(chan core.Event, 16)
	go func() {
		for _, ev := range j.events {
			if ev.Seq < opts.FromSeq {
				continue
			}
			select {
			case ch <- ev:
			case <-ctx.Done():
				return
			}
		}
	}()
	return &core.Subscription{C: ch, Err: func() error { return nil }}, nil
}

func options() Options {
	return Options{Theme: term.DefaultTheme(), Keys: bind.DefaultKeyMap()}
}

// open opens the replay of old-task over j and gives it the journal its command reads.
func open(t *testing.T, j *journal) *Model {
	t.Helper()
	rp, cmd := Open(context.Background(), j, "old-task", options())
	if !rp.loading {
		t.Fatal("a replay opens before its journal is read")
	}
	rp, _, _ = rp.Update(cmd())
	return rp
}

func keyMsg(k string) tea.KeyMsg {
	named := map[string]tea.KeyType{"esc": tea.KeyEsc, "pgdown": tea.KeyPgDown, "pgup": tea.KeyPgUp, "left": tea.KeyLeft,
		"right": tea.KeyRight, "home": tea.KeyHome, "end": tea.KeyEnd, "ctrl+c": tea.KeyCtrlC, "enter": tea.KeyEnter}
	if t, ok := named[k]; ok {
		return tea.KeyMsg{Type: t}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

func press(rp *Model, keys ...string) Result {
	var res Result
	for _, k := range keys {
		_, _, res = rp.Update(keyMsg(k))
	}
	return res
}

func requireView(t *testing.T, v string, want ...string) {
	t.Helper()
	flat := strings.Join(strings.Fields(v), " ")
	for _, w := range want {
		if !strings.Contains(flat, strings.Join(strings.Fields(w), " ")) {
			t.Fatalf("view lacks %q:\n%s", w, v)
		}
	}
}

// scenario is a finished task's journal: asked, answered, reviewed twice, committed.
func scenario() *journal {
	at := func(seq int, typ string, data any) core.Event {
		return core.Event{TaskID: "old-task", Seq: uint64(seq), Time: epoch.Add(time.Duration(seq) * 7 * time.Second), Type: typ, Data: mustJSON(data)}
	}
	ia := core.Interaction{ID: "ia-7", Kind: core.InteractionPermission, Status: core.InteractionPending, CreatedAt: epoch.Format(time.RFC3339),
		Request: core.InteractionRequest{Tool: "execute", Title: "make lint", Argv: []string{"make", "lint"}, Cwd: "/state/worktrees/9ab01c2d/docs-typo",
			Code: "unknown_executable", Reason: "make is not in the contract's verification commands"}}
	answered := ia
	answered.Status, answered.Response = core.InteractionResolved, &core.InteractionResponse{Decision: core.DecisionAllow}
	code := 0
	return &journal{events: []core.Event{
		at(1, core.EventTaskCreated, core.TaskCreatedData{State: core.StateProvisioning, Repository: "/src/app", Objective: "Old."}),
		at(2, core.EventStateChanged, core.StateChangedData{From: core.StateProvisioning, To: core.StateRunning, Phase: "goal_running"}),
		at(3, core.EventAgentMessage, core.TextData{Text: "Linting first."}),
		at(4, core.EventInteractionWaiting, ia),
		at(5, core.EventStateChanged, core.StateChangedData{From: core.StateRunning, To: core.StateWaitingPermission, Phase: "permission"}),
		at(6, core.EventInteractionResolved, answered),
		at(7, core.EventStateChanged, core.StateChangedData{From: core.StateWaitingPermission, To: core.StateRunning, Phase: "goal_running"}),
		at(8, core.EventReviewReady, core.ReviewReadyData{ReviewRevision: 1, ReviewTreeHash: "1111111111111111", ChangedFiles: []string{"lint.go"},
			DiffStat: " lint.go | +3 -1\n 1 file changed, 3 insertions(+), 1 deletion(-)\n"}),
		at(9, core.EventStateChanged, core.StateChangedData{From: core.StateRunning, To: core.StateReviewRequired, Phase: "review"}),
		at(10, core.EventStateChanged, core.StateChangedData{From: core.StateReviewRequired, To: core.StateRunning, Phase: "repair_1"}),
		at(11, core.EventSteered, core.TextData{Text: "also fix the comment"}),
		at(12, core.EventReviewReady, core.ReviewReadyData{ReviewRevision: 2, ReviewTreeHash: "2222222222222222", ChangedFiles: []string{"lint.go", "lint_test.go"},
			DiffStat: " lint.go      | +4 -1\n lint_test.go | +12 -0\n 2 files changed, 16 insertions(+), 1 deletion(-)\n"}),
		at(13, core.EventStateChanged, core.StateChangedData{From: core.StateRunning, To: core.StateReviewRequired, Phase: "review"}),
		at(14, core.EventStateChanged, core.StateChangedData{From: core.StateReviewRequired, To: core.StateVerifying, Phase: "preflight"}),
		at(15, core.EventVerification, core.VerificationResult{ID: "unit", Argv: []string{"go", "test", "./..."}, ExitCode: &code, Passed: true}),
		at(16, core.EventStateChanged, core.StateChangedData{From: core.StateVerifying, To: core.StateCompleted, Phase: "completed"}),
		at(17, core.EventCommitted, core.CommittedData{CommitHash: "abc123", Branch: "reasonix/old-task", IntegrationCommand: "git cherry-pick abc123"}),
	}}
}

// The replay steps through a finished task's journal and shows it as it was at each point.
func TestReplayShowsTheTaskAsItWasAtEachEvent(t *testing.T) {
	rp := open(t, scenario())
	view := func() string { return rp.View(120, 37) }
	requireView(t, view(), "Replay old-task · event 1 of 17 · seq 1 · 2026-11-30 09:00:07 · +0:00", "state provisioning", "waiting nothing",
		"diff no review yet", "task created in /src/app: Old.")
	press(rp, "l", "l", "l")
	requireView(t, view(), "event 4 of 17 · seq 4", "+0:21", "state running (goal_running)", "waiting permission ia-7:", "make lint")
	press(rp, "right")
	requireView(t, view(), "state waiting_permission (permission)", "waiting permission ia-7")
	press(rp, "l")
	requireView(t, view(), "event 6 of 17", "waiting nothing")
	press(rp, "pgdown")
	requireView(t, view(), "event 16 of 17", "state completed (completed)", "revision 2 · tree 222222222222 · repair rounds 1/2",
		"lint_test.go | +12 -0", "checks ✓ passed unit")
	press(rp, "right")
	requireView(t, view(), "event 17 of 17", "commit abc123 on reasonix/old-task")
	press(rp, "pgup")
	requireView(t, view(), "event 7 of 17")
	press(rp, "pgup")
	requireView(t, view(), "event 1 of 17")
	press(rp, "G", "left", "left", "left", "left", "left", "left", "left")
	requireView(t, view(), "event 10 of 17 · seq 10", "state running (repair_1)", "revision 1 · tree 111111111111 · repair rounds 1/2",
		"lint.go | +3 -1", "1 file changed")
	if strings.Contains(view(), "lint_test.go") {
		t.Fatal("the diff stat of a later revision shows before it was reviewed")
	}
	press(rp, "g")
	requireView(t, view(), "event 1 of 17")
}

// The keys step through the journal, stopping at its ends with a word why; leaving, help and
// quitting are the root's.
func TestReplayKeysMoveOrAsk(t *testing.T) {
	rp := &Model{opts: options(), taskID: "t", events: make([]core.Event, 30)}
	for _, c := range []struct {
		key    string
		cur    int
		res    Result
		freeUp bool
	}{
		{"l", 1, Result{}, false},
		{"pgdown", 11, Result{}, false},
		{"G", 29, Result{}, false},
		{"right", 29, Result{Status: "the last event the journal held when the replay opened"}, false},
		{"g", 0, Result{}, false},
		{"h", 0, Result{Status: "the first event: nothing before it"}, false},
		{"home", 0, Result{Status: "the first event: nothing before it"}, false},
		{"?", 0, Result{Pass: true}, false},
		{"ctrl+c", 0, Result{Pass: true}, false},
		{"x", 0, Result{}, false}, // the replay's, doing nothing: it takes every key
		{"esc", 0, Result{Leave: true}, false},
		{"q", 0, Result{Leave: true}, false},
		{"p", 0, Result{Leave: true}, false},
	} {
		_, cmd, res := rp.Update(keyMsg(c.key))
		if res != c.res || rp.cur != c.cur || (cmd != nil) != c.freeUp {
			t.Errorf("%q: %+v at %d, want %+v at %d", c.key, res, rp.cur, c.res, c.cur)
		}
	}
	// Leaving a long replay gives its memory back at once.
	big := &Model{opts: options(), taskID: "t", events: make([]core.Event, bigReplay)}
	if _, cmd, res := big.Update(keyMsg("esc")); !res.Leave || cmd == nil {
		t.Errorf("leaving a replay of %d events: %+v, command %v", bigReplay, res, cmd != nil)
	}
}

// Until there is a journal to step through, the steps say why they do nothing and leave the
// footer.
func TestReplayWithNothingToStepSaysWhy(t *testing.T) {
	rp, _ := Open(context.Background(), scenario(), "old-task", options())
	if res := press(rp, "l"); res.Status != "reading the journal of old-task…" {
		t.Fatalf("a step while reading: %+v", res)
	}
	if got := footer(rp); got != "esc leave replay · ? help" {
		t.Fatalf("footer while reading: %q", got)
	}
	// A journal read for another task (a replay since left) is not this one's.
	rp.Update(LoadedMsg{TaskID: "other", events: scenario().events})
	if !rp.loading {
		t.Fatal("another task's journal was taken")
	}
	empty := open(t, &journal{})
	if res := press(empty, "G"); res.Status != "the journal of old-task is empty" {
		t.Fatalf("G in an empty journal: %+v", res)
	}
	failed := open(t, &journal{err: errors.New("the owner is gone")})
	requireView(t, failed.View(80, 21), "reading the journal failed: the owner is gone", "esc leaves the replay")
	if res := press(failed, "right"); res.Status != "reading the journal failed: nothing to step through" {
		t.Fatalf("a step after a failed read: %+v", res)
	}
	if got := footer(open(t, scenario())); got != "←/→ step · pgup/pgdn ten · g/G first/last · esc leave replay · ? help" {
		t.Fatalf("footer: %q", got)
	}
}

func footer(rp *Model) string {
	var out []string
	for _, b := range rp.Footer() {
		out = append(out, b.Help().Key+" "+b.Help().Desc)
	}
	return strings.Join(out, " · ")
}

// The view at a sequence number is the reducer's state there, whichever way the replay got
// there: stepping on from the start or seeking back from the end through the snapshots.
func TestReplaySeekMatchesTheReducer(t *testing.T) {
	var evs []core.Event
	for i := 1; i <= 3*replayEvery+17; i++ {
		typ, data := core.EventAgentMessage, any(core.TextData{Text: fmt.Sprintf("chunk %d", i)})
		switch i % 97 {
		case 5:
			typ, data = core.EventReviewReady, core.ReviewReadyData{ReviewRevision: i, DiffStat: fmt.Sprintf(" f.go | +%d -0\n", i)}
		case 11:
			typ, data = core.EventStateChanged, core.StateChangedData{To: core.StateRunning, Phase: fmt.Sprintf("phase %d", i)}
		}
		evs = append(evs, core.Event{TaskID: "old-task", Seq: uint64(i), Time: epoch.Add(time.Duration(i) * time.Second), Type: typ, Data: mustJSON(data)})
	}
	rp := open(t, &journal{events: evs})
	press(rp, "G")
	for _, i := range []int{len(evs) - 1, 2*replayEvery + 3, replayEvery - 1, replayEvery, 0, 600} {
		rp.seek(i)
		got, want := rp.at(rp.cur), core.ReplayState(evs, evs[i].Seq)
		if got.Seq != want.Seq || got.State != want.State || got.Phase != want.Phase || got.DiffStat != want.DiffStat || got.Events != want.Events {
			t.Fatalf("at index %d: view %+v, reducer %+v", i, got, want)
		}
	}
}

// TestGoldenReplayView pins the replay's drawing, stacked at 80 columns and side by side at
// 160. Regenerate with `go test ./tui/replay -run TestGoldenReplayView -update`.
func TestGoldenReplayView(t *testing.T) {
	for _, sc := range []struct {
		name string
		keys []string
	}{{"first", nil}, {"waiting", []string{"right", "right", "right", "right"}}, {"committed", []string{"G"}}} {
		for _, size := range [][2]int{{80, 21}, {160, 37}} {
			t.Run(fmt.Sprintf("%s_%dx%d", sc.name, size[0], size[1]), func(t *testing.T) {
				rp := open(t, scenario())
				press(rp, sc.keys...)
				golden.RequireEqual(t, []byte(rp.View(size[0], size[1])))
			})
		}
	}
}

// Every key the full help lists under Replay is one of the replay's table, and so is help.
func TestReplayTableHasEveryReplayKey(t *testing.T) {
	k := bind.DefaultKeyMap()
	taken := map[string]bool{}
	for _, b := range open(t, scenario()).Help().Bindings {
		for _, key := range b.Keys() {
			taken[key] = true
		}
	}
	for _, b := range []key.Binding{k.StepBack, k.StepOn, k.StepBack10, k.StepOn10, k.FirstEvent, k.LastEvent, k.LeaveReplay, k.Help} {
		for _, key := range b.Keys() {
			if !taken[key] {
				t.Errorf("%q (%s) is not in the replay's table", key, b.Help().Desc)
			}
		}
	}
}
