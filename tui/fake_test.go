package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"reasonixctl/core"
)

func TestMain(m *testing.M) {
	// Goldens and assertions compare plain text: no colour codes, whatever the terminal.
	lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
	os.Exit(m.Run())
}

// fakeService is a scripted core.Service that records every request.
type fakeService struct {
	mu        sync.Mutex
	tasks     []core.TaskView
	details   map[string]core.TaskDetail
	journals  map[string][]core.Event
	controls  []core.Command
	delegates []core.DelegateRequest
	onControl func(core.Command) (core.TaskView, error)
	// delegateErr fails Delegate the way the engine does when a worker cannot start: the task
	// it created is undone.
	delegateErr error
	// live feeds Subscribe for all tasks, one channel per call in order.
	live    []chan core.Event
	liveErr []error
	subs    int
	// reads are the FromSeq of each journal subscription.
	reads []uint64
	// listErr fails List, as calls fail while an attached dashboard's owner is gone.
	listErr error
	// drafts are the DraftContract requests; onDraft answers them (a real engine's, or canned).
	drafts  []core.DraftRequest
	onDraft func(context.Context, core.DraftRequest) (core.DraftResult, error)
	// grants are the owner's standing grants, or with grantsDir set the grants file of that
	// state directory, as an owner keeps them; grantCalls records each grant call ("list",
	// "revoke <id>") in order.
	grants     []core.Grant
	grantsDir  string
	grantCalls []string
}

var _ core.Service = (*fakeService)(nil)

func newFake() *fakeService {
	return &fakeService{details: map[string]core.TaskDetail{}, journals: map[string][]core.Event{}}
}

func (f *fakeService) Delegate(ctx context.Context, req core.DelegateRequest) (core.DelegateResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.delegates = append(f.delegates, req)
	if f.delegateErr != nil {
		return core.DelegateResult{}, f.delegateErr
	}
	for _, t := range f.tasks {
		if t.TaskID == req.TaskID {
			return core.DelegateResult{TaskView: t}, nil
		}
	}
	v := core.TaskView{TaskID: req.TaskID, State: core.StateProvisioning, WorkerLane: req.WorkerLane}
	f.tasks = append([]core.TaskView{v}, f.tasks...)
	return core.DelegateResult{TaskView: v}, nil
}

func (f *fakeService) Control(ctx context.Context, req core.Command) (core.TaskView, error) {
	f.mu.Lock()
	f.controls = append(f.controls, req)
	fn := f.onControl
	f.mu.Unlock()
	if fn != nil {
		return fn(req)
	}
	return core.TaskView{TaskID: req.Task(), State: core.StateRunning}, nil
}

func (f *fakeService) Inspect(ctx context.Context, req core.InspectRequest) (core.InspectResult, error) {
	return core.InspectResult{}, core.Errorf(core.CodeInvalidRequest, nil, "not used by the dashboard")
}

func (f *fakeService) List(ctx context.Context, filter core.ListFilter) ([]core.TaskView, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.listErr != nil {
		return nil, f.listErr
	}
	var out []core.TaskView
	for _, t := range f.tasks {
		if filter.All || !t.State.Terminal() {
			out = append(out, t)
		}
	}
	return out, nil
}

func (f *fakeService) Get(ctx context.Context, id string) (core.TaskDetail, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.details[id]
	if !ok {
		return core.TaskDetail{}, core.Errorf(core.CodeTaskNotFound, nil, "no task %s", id)
	}
	if j := f.journals[id]; len(j) > 0 {
		d.LastSeq = j[len(j)-1].Seq
	}
	for _, t := range f.tasks {
		if t.TaskID == id {
			d.View = t // the engine's detail always carries the current view
		}
	}
	d.Actions = core.ActionsFor(d.View)
	return d, nil
}

func (f *fakeService) Subscribe(ctx context.Context, opts core.SubscribeOptions) (*core.Subscription, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if opts.TaskID != "" {
		j := f.journals[opts.TaskID]
		f.reads = append(f.reads, opts.FromSeq)
		// Like the engine: the journal from FromSeq, then nothing until the context ends.
		ch := make(chan core.Event, 256)
		go func() {
			for _, ev := range j {
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
	i := f.subs
	f.subs++
	if i >= len(f.live) {
		ch := make(chan core.Event)
		return &core.Subscription{C: ch, Err: func() error { return nil }}, nil
	}
	var err error
	if i < len(f.liveErr) {
		err = f.liveErr[i]
	}
	return &core.Subscription{C: f.live[i], Err: func() error { return err }}, nil
}

// The review features, verification logs and applying are not scripted here: the fakes that
// test them (reviewFake, logService, applyingService) override them. The preview says what the
// engine says of a source checkout that has not moved: the change applies cleanly.
var errNotScripted = core.Errorf(core.CodeInvalidRequest, nil, "not scripted in this fake")

func (f *fakeService) Comment(context.Context, core.CommentRequest) (core.ReviewComment, error) {
	return core.ReviewComment{}, errNotScripted
}

func (f *fakeService) SendComments(context.Context, string) (core.TaskView, error) {
	return core.TaskView{}, errNotScripted
}

func (f *fakeService) ReviewFile(context.Context, string, string) ([]byte, error) {
	return nil, errNotScripted
}

func (f *fakeService) CherryPickPreview(_ context.Context, taskID string) (core.CherryPickPreview, error) {
	return core.CherryPickPreview{Source: "/src/app", Head: "3f2c1a9e8d7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a", Of: "review_tree", Clean: true}, nil
}

func (f *fakeService) ApplyToCheckout(context.Context, string, bool) (core.ApplyResult, error) {
	return core.ApplyResult{}, errNotScripted
}

func (f *fakeService) VerificationLog(context.Context, string, string, int64, int64) (core.LogPage, error) {
	return core.LogPage{}, errNotScripted
}

func (f *fakeService) DraftContract(ctx context.Context, req core.DraftRequest) (core.DraftResult, error) {
	f.mu.Lock()
	f.drafts = append(f.drafts, req)
	draft := f.onDraft
	f.mu.Unlock()
	if draft == nil {
		return core.DraftResult{}, errNotScripted
	}
	return draft(ctx, req)
}

func (f *fakeService) draftLog() []core.DraftRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.drafts)
}

func (f *fakeService) SetAsker(core.Asker) {}

func (f *fakeService) Grants(context.Context) ([]core.Grant, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.grantCalls = append(f.grantCalls, "list")
	if f.grantsDir != "" {
		return core.LoadGrants(f.grantsDir)
	}
	return slices.Clone(f.grants), nil
}

func (f *fakeService) RevokeGrant(_ context.Context, id string) (core.Grant, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.grantCalls = append(f.grantCalls, "revoke "+id)
	if f.grantsDir != "" {
		return core.RevokeGrant(f.grantsDir, id)
	}
	i := slices.IndexFunc(f.grants, func(g core.Grant) bool { return g.ID == id })
	if i < 0 {
		return core.Grant{}, core.Errorf(core.CodeInvalidRequest, &core.UnknownID{ID: id}, "no grant %s (reasonixctl grants list shows them)", id)
	}
	g := f.grants[i]
	f.grants = slices.Delete(f.grants, i, i+1)
	return g, nil
}

func (f *fakeService) grantLog() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.grantCalls)
}

func (f *fakeService) controlLog() []core.Command {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]core.Command(nil), f.controls...)
}

// clock is a settable test clock.
type clock struct{ t time.Time }

func (c *clock) Now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

var epoch = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// harness drives a model the way a program would, running commands synchronously.
type harness struct {
	t   *testing.T
	m   *Model
	svc *fakeService
	clk *clock
}

func newHarness(t *testing.T, svc *fakeService, w, h int) *harness {
	t.Helper()
	clk := &clock{t: epoch}
	m := newModel(context.Background(), svc, Options{StateDir: "/state", WorkerVersion: "1.38.11", Now: clk.Now, Dir: "/src/app"})
	hs := &harness{t: t, m: m, svc: svc, clk: clk}
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	hs.run(m.Init())
	return hs
}

func (h *harness) send(msgs ...tea.Msg) {
	h.t.Helper()
	queue := append([]tea.Msg(nil), msgs...)
	for n := 0; len(queue) > 0; n++ {
		if n > 10000 {
			h.t.Fatal("message loop does not settle")
		}
		msg := queue[0]
		queue = queue[1:]
		_, cmd := h.m.Update(msg)
		queue = append(queue, runCmd(cmd)...)
	}
}

func (h *harness) run(cmd tea.Cmd) { h.send(runCmd(cmd)...) }

func runCmd(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	switch msg := cmd().(type) {
	case nil, tea.QuitMsg:
		return nil
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			out = append(out, runCmd(c)...)
		}
		return out
	default:
		return []tea.Msg{msg}
	}
}

// press types keys: single characters, or names such as "enter", "esc", "tab", "ctrl+s".
func (h *harness) press(keys ...string) {
	h.t.Helper()
	for _, k := range keys {
		h.send(keyMsg(k))
	}
}

func (h *harness) typeText(s string) {
	h.t.Helper()
	for _, r := range s {
		h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

func keyMsg(k string) tea.KeyMsg {
	named := map[string]tea.KeyType{
		"enter": tea.KeyEnter, "esc": tea.KeyEsc, "tab": tea.KeyTab, "shift+tab": tea.KeyShiftTab,
		"ctrl+s": tea.KeyCtrlS, "ctrl+d": tea.KeyCtrlD, "ctrl+e": tea.KeyCtrlE, "ctrl+x": tea.KeyCtrlX, "pgdown": tea.KeyPgDown, "pgup": tea.KeyPgUp, "up": tea.KeyUp,
		"down": tea.KeyDown, "space": tea.KeySpace, "home": tea.KeyHome, "end": tea.KeyEnd,
		"backspace": tea.KeyBackspace, "left": tea.KeyLeft, "right": tea.KeyRight,
	}
	if t, ok := named[k]; ok {
		return tea.KeyMsg{Type: t}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func ev(task string, seq uint64, typ string, data any) eventsMsg {
	return eventsMsg{core.Event{TaskID: task, Seq: seq, Time: epoch.Add(time.Duration(seq) * time.Second), Type: typ, Data: mustJSON(data)}}
}

const sampleDiff = `diff --git a/internal/auth/login.go b/internal/auth/login.go
index 1111111..2222222 100644
--- a/internal/auth/login.go
+++ b/internal/auth/login.go
@@ -10,7 +10,8 @@ func Login(user string) error {
 	if user == "" {
-		return nil
+		return ErrEmptyUser
 	}
+	audit(user)
 	return check(user)
 }
 
@@ -40,6 +41,6 @@ func check(user string) error {
 	// look the user up
-	u := find(user)
+	u := lookup(user)
 	return u.err
 }
diff --git a/internal/auth/login_test.go b/internal/auth/login_test.go
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/internal/auth/login_test.go
@@ -0,0 +1,5 @@
+package auth
+
+func TestEmptyUser(t *testing.T) {
+	if Login("") != ErrEmptyUser { t.Fatal("want ErrEmptyUser") }
+}
`

const treeHash = "4a7748752d0e678809fc033f586028da8e82c3c6"

// scenario is a small dashboard world: a running task, a task in review and a finished one.
func scenario() *fakeService {
	f := newFake()
	cost := 0.0123
	usd := "USD"
	ratio := 0.5
	f.tasks = []core.TaskView{
		{TaskID: "login-fix", State: core.StateReviewRequired, Phase: "codex_review", WorkerLane: core.LaneFast,
			RepositoryID: "3ce0f10f", Branch: "reasonix/login-fix", Worktree: "/state/worktrees/3ce0f10f/login-fix",
			ReviewRevision: 2, ReviewTreeHash: treeHash, RepairRounds: 0, UpdatedAt: epoch.Add(-time.Minute).Format(time.RFC3339Nano)},
		{TaskID: "docs-typo", State: core.StateRunning, Phase: "implementing", WorkerLane: core.LaneDeep,
			RepositoryID: "9ab01c2d", UpdatedAt: epoch.Add(-5 * time.Minute).Format(time.RFC3339Nano)},
		{TaskID: "old-task", State: core.StateCompleted, WorkerLane: core.LaneFast, RepositoryID: "3ce0f10f",
			CommitHash: "abc123", UpdatedAt: epoch.Add(-72 * time.Hour).Format(time.RFC3339Nano)},
	}
	code := 0
	f.details["login-fix"] = core.TaskDetail{
		View: f.tasks[0], Repository: "/src/app", Objective: "Return ErrEmptyUser from Login when the user name is empty, with a test.",
		Contract: mustJSON(map[string]any{"write_scope": []string{"internal/auth/**"}, "forbidden_scope": []string{"secrets/**"}}),
		Summary:  "Login now rejects empty users; added a test.", Diff: sampleDiff,
		ChangedFiles: []string{"internal/auth/login.go", "internal/auth/login_test.go"},
		Usage:        &core.Usage{PromptTokens: 12000, CompletionTokens: 3400, EstimatedCost: &cost, Currency: &usd, CacheHitRatio: &ratio},
		Criteria: []core.Criterion{
			{ID: "ac_tests", Requirement: "go test ./internal/auth passes", Evidence: "automated"},
			{ID: "ac_readable", Requirement: "The error is documented and named clearly", Evidence: "review"},
			{ID: "ac_audit", Requirement: "Audit happens only for non-empty users", Evidence: "review"},
		},
		Verification: []core.VerificationResult{{ID: "unit", Argv: []string{"go", "test", "./internal/auth"}, ExitCode: &code, Passed: true, Proves: []string{"ac_tests"}}},
		CreatedAt:    epoch.Add(-10 * time.Minute),
	}
	f.details["docs-typo"] = core.TaskDetail{View: f.tasks[1], Repository: "/src/docs", Objective: "Fix typos in README.", CreatedAt: epoch.Add(-3 * time.Minute)}
	f.details["old-task"] = core.TaskDetail{View: f.tasks[2], Repository: "/src/app", Objective: "Old.", CreatedAt: epoch.Add(-72 * time.Hour)}
	f.journals["login-fix"] = []core.Event{
		{TaskID: "login-fix", Seq: 1, Time: epoch, Type: core.EventTaskCreated, Data: mustJSON(core.TaskCreatedData{State: core.StateProvisioning, Repository: "/src/app", Objective: "Return ErrEmptyUser"})},
		{TaskID: "login-fix", Seq: 2, Time: epoch, Type: core.EventStateChanged, Data: mustJSON(core.StateChangedData{From: core.StateProvisioning, To: core.StateRunning, Phase: "goal_running"})},
		{TaskID: "login-fix", Seq: 3, Time: epoch, Type: core.EventAgentMessage, Data: mustJSON(core.TextData{Text: "I will read the login code first, then add the check and a test."})},
		{TaskID: "login-fix", Seq: 4, Time: epoch, Type: core.EventToolCall, Data: mustJSON(core.ToolCallData{ToolCallID: "c1", Title: "read internal/auth/login.go", Kind: "read", Status: "pending"})},
		{TaskID: "login-fix", Seq: 5, Time: epoch, Type: core.EventToolCall, Data: mustJSON(core.ToolCallData{ToolCallID: "c1", Status: "completed"})},
		{TaskID: "login-fix", Seq: 6, Time: epoch, Type: core.EventPermissionDecided, Data: mustJSON(core.PermissionData{Kind: "execute", Argv: []string{"go", "test", "./internal/auth"}, Decision: "allow", Code: "verification_command", Reason: "listed in the contract", By: "policy"})},
		{TaskID: "login-fix", Seq: 7, Time: epoch, Type: core.EventPermissionDecided, Data: mustJSON(core.PermissionData{Kind: "execute", Argv: []string{"curl", "example.com"}, Decision: "deny", Code: "network_tool", Reason: "network tools are denied", By: "policy"})},
		{TaskID: "login-fix", Seq: 8, Time: epoch, Type: core.EventUsage, Data: mustJSON(core.Usage{PromptTokens: 12000, CompletionTokens: 3400, EstimatedCost: &cost, Currency: &usd})},
		{TaskID: "login-fix", Seq: 9, Time: epoch, Type: core.EventStateChanged, Data: mustJSON(core.StateChangedData{From: core.StateRunning, To: core.StateReviewRequired, Phase: "codex_review"})},
		{TaskID: "login-fix", Seq: 10, Time: epoch, Type: core.EventReviewReady, Data: mustJSON(core.ReviewReadyData{ReviewRevision: 2, ReviewTreeHash: treeHash, ChangedFiles: []string{"a", "b"}})},
	}
	return f
}

func permissionIA(id string) core.Interaction {
	return core.Interaction{ID: id, Kind: core.InteractionPermission, Status: core.InteractionPending, CreatedAt: epoch.Format(time.RFC3339),
		Request: core.InteractionRequest{
			Tool: "execute", Title: "make lint", Argv: []string{"make", "lint"}, Cwd: "/state/worktrees/9ab01c2d/docs-typo",
			Code: "unknown_executable", Reason: "make is not in the contract's verification commands",
			Options: []core.InteractionOption{
				{OptionID: "allow-once", Name: "Allow", Kind: "allow_once"},
				{OptionID: "allow-always", Name: "Allow Bash(make:*) for this session", Kind: "allow_always"},
				{OptionID: "reject-once", Name: "Reject", Kind: "reject_once"},
			},
		}}
}

func questionIA(id string) core.Interaction {
	return core.Interaction{ID: id, Kind: core.InteractionInput, Status: core.InteractionPending,
		Request: core.InteractionRequest{
			Tool: "other", Title: "ask", Question: "Which error name should I use?",
			Options: []core.InteractionOption{{OptionID: "o1", Name: "ErrEmptyUser"}, {OptionID: "o2", Name: "ErrNoUser"}},
		}}
}

func fmtControls(cs []core.Command) string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = fmt.Sprintf("%T%+v", c, c)
	}
	return "[" + strings.Join(out, " ") + "]"
}

// msgsOf runs cmd as a program would and returns its messages with batches flattened, leaving
// out the gate's keyQuietMsg: what a key did, not the timing of keys.
func msgsOf(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	switch msg := cmd().(type) {
	case nil, keyQuietMsg:
		return nil
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			out = append(out, msgsOf(c)...)
		}
		return out
	default:
		return []tea.Msg{msg}
	}
}

// quits says whether cmd quits the program.
func quits(cmd tea.Cmd) bool {
	for _, msg := range msgsOf(cmd) {
		if _, ok := msg.(tea.QuitMsg); ok {
			return true
		}
	}
	return false
}
