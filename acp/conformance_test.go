package acp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"reasonixctl/acp/acptest"
	"reasonixctl/acp/acptest/mockllm"
)

// The conformance suite drives one worker through the behaviour the supervisor depends on. It
// runs against the real Reasonix binary (REASONIX_BIN) with a scripted model, against the
// fake-reasonix binary, and against the in-process fake.

const steerText = "also mention the word PELICAN"

// target starts workers of one kind. sawSteer checks that the steer text reached the model.
type target struct {
	start    func(t *testing.T) (*Worker, string)
	sawSteer func(t *testing.T, agentText string)
}

// modelScript scripts the real worker's model for the suite's prompts.
var modelScript = mockllm.Script{Scenarios: []mockllm.Scenario{
	{Match: "SCENARIO:perm", Steps: []mockllm.Step{
		{Text: "Writing the file.", ToolCalls: []mockllm.ToolCall{{Name: "write_file", Arguments: map[string]any{"path": "allowed.txt", "content": "yes\n"}}}},
		{ToolCalls: []mockllm.ToolCall{{Name: "bash", Arguments: map[string]any{"command": "touch rejected-marker"}}}},
		{Text: "Done."},
	}},
	{Match: "SCENARIO:steer", Steps: []mockllm.Step{
		{Text: "This answer streams slowly so that it can be steered midway through.", Chunks: 8, ChunkDelayMS: 250},
		{Text: "Steered answer."},
	}},
	{Match: "SCENARIO:cancel", Steps: []mockllm.Step{
		{Text: "This answer streams very slowly so that the client can cancel it midway.", Chunks: 20, ChunkDelayMS: 300},
	}},
	{Match: "SCENARIO:permcancel", Steps: []mockllm.Step{
		{ToolCalls: []mockllm.ToolCall{{Name: "bash", Arguments: map[string]any{"command": "touch cancelled-marker"}}}},
		{Text: "after cancel"},
	}},
}}

// fakeScenario plays the same prompts on the fake worker.
var fakeScenario = &acptest.Scenario{Name: "conformance", Turns: []acptest.Turn{
	{Match: "SCENARIO:perm", Steps: []acptest.Step{
		{Text: "Writing the file."},
		{Write: &acptest.WriteFile{Path: "allowed.txt", Content: "yes\n"}},
		{Shell: &acptest.Shell{Command: "touch rejected-marker"}},
		{Text: "Done."},
	}},
	{Match: "SCENARIO:steer", Steps: []acptest.Step{{Text: "Working slowly."}, {WaitSteer: true}}, OnSteer: []acptest.Step{{Text: "Steered: {{steer}}"}}},
	{Match: "SCENARIO:cancel", Steps: []acptest.Step{{Text: "Working slowly."}, {Hang: true}}},
	{Match: "SCENARIO:permcancel", Steps: []acptest.Step{{Shell: &acptest.Shell{Command: "touch cancelled-marker"}}, {Text: "after cancel"}}},
	{Match: "SCENARIO:crash", Steps: []acptest.Step{{Text: "About to fail."}, {Crash: &acptest.Crash{ExitCode: 7, Stderr: "provider said 401 for Authorization: Bearer sk-abcdef1234567\n"}}}},
	{Match: "SCENARIO:garbage", Steps: []acptest.Step{{Garbage: "{\"jsonrpc\":\"2.0\",\"method\":"}}},
	{Match: "SCENARIO:freeze", Steps: []acptest.Step{{Freeze: true}}},
}}

// TestFakeWorkerFaults makes the fake worker crash, write garbage and freeze: each ends in a
// typed error and nothing waits forever.
func TestFakeWorkerFaults(t *testing.T) {
	for name, start := range map[string]func(t *testing.T) (*Worker, string){
		"in-process": inProcessTarget().start,
		"binary":     fakeBinaryTarget(t).start,
	} {
		t.Run(name, func(t *testing.T) {
			for _, c := range []struct {
				prompt string
				want   error
			}{{"SCENARIO:crash", ErrWorkerExited}, {"SCENARIO:garbage", ErrProtocol}} {
				w, cwd := start(t)
				s, err := w.NewSession(testCtx(t), SessionConfig{Cwd: cwd})
				if err != nil {
					t.Fatal(err)
				}
				rec := record(s)
				if _, err := s.Prompt(testCtx(t), c.prompt); !errors.Is(err, c.want) {
					t.Errorf("%s: prompt err = %v", c.prompt, err)
				}
				last := rec.waitFor(t, "error event", func(e Event) bool { return e.Kind() == KindError }).(ErrorEvent)
				if !errors.Is(last.Err, c.want) {
					t.Errorf("%s: error event %v", c.prompt, last.Err)
				}
				<-w.Done()
				if name == "binary" && c.want == ErrWorkerExited {
					if !strings.Contains(w.Err().Error(), "exit status 7") {
						t.Errorf("err = %v", w.Err())
					}
					if st := w.Stderr(); !strings.Contains(st, "Bearer [REDACTED]") || strings.Contains(st, "sk-abc") {
						t.Errorf("stderr = %q", st)
					}
				}
			}

			w, cwd := start(t)
			s, err := w.NewSession(testCtx(t), SessionConfig{Cwd: cwd})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			if _, err := s.Prompt(ctx, "SCENARIO:freeze"); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("frozen prompt err = %v", err)
			}
			ctx2, cancel2 := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel2()
			if _, err := s.Status(ctx2); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("status of frozen worker err = %v", err)
			}
			_ = w.Close()
			if _, err := s.Status(testCtx(t)); !errors.Is(err, ErrWorkerClosed) {
				t.Errorf("status after close err = %v", err)
			}
		})
	}
}

func TestConformanceRealReasonix(t *testing.T) {
	bin := os.Getenv("REASONIX_BIN")
	if bin == "" {
		t.Skip("REASONIX_BIN is not set")
	}
	var llm *mockllm.Server
	runConformance(t, target{
		start: func(t *testing.T) (*Worker, string) {
			var err error
			llm, err = mockllm.Start(modelScript, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = llm.Close() })
			env, err := mockllm.WriteReasonixHome(t.TempDir(), llm.BaseURL())
			if err != nil {
				t.Fatal(err)
			}
			cwd := t.TempDir()
			w, err := Start(testCtx(t), LaunchConfig{Bin: bin, Dir: cwd, Env: env})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = w.Close() })
			return w, cwd
		},
		sawSteer: func(t *testing.T, _ string) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, err := llm.WaitFor(ctx, func(reqs []mockllm.Request) bool {
				return slices.ContainsFunc(reqs, func(r mockllm.Request) bool {
					return slices.ContainsFunc(r.Messages, func(m mockllm.Message) bool {
						return m.Role == "user" && strings.Contains(m.Text, steerText)
					})
				})
			})
			if err != nil {
				t.Errorf("no provider request carried the steer text: %v", err)
			}
		},
	})
}

func TestConformanceFakeBinary(t *testing.T) {
	runConformance(t, fakeBinaryTarget(t))
}

func TestConformanceInProcess(t *testing.T) {
	runConformance(t, inProcessTarget())
}

// fakeBinaryTarget builds cmd/fake-reasonix and starts it as a worker process.
func fakeBinaryTarget(t *testing.T) target {
	if testing.Short() {
		t.Skip("builds cmd/fake-reasonix")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "fake-reasonix")
	build := exec.Command("go", "build", "-o", bin, "reasonixctl/cmd/fake-reasonix")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	scenario := filepath.Join(dir, "scenario.json")
	writeScenario(t, scenario)
	return target{
		start: func(t *testing.T) (*Worker, string) {
			cwd := t.TempDir()
			w, err := Start(testCtx(t), LaunchConfig{Bin: bin, Dir: cwd, Env: []string{"FAKE_REASONIX_SCENARIO=" + scenario}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = w.Close() })
			return w, cwd
		},
		sawSteer: fakeSawSteer,
	}
}

// inProcessTarget serves the fake worker over pipes, as the demo and engine tests do.
func inProcessTarget() target {
	return target{
		start: func(t *testing.T) (*Worker, string) {
			cr, aw := io.Pipe()
			ar, cw := io.Pipe()
			ctx, cancel := context.WithCancel(context.Background())
			served := make(chan error, 1)
			go func() { served <- acptest.Serve(ctx, ar, aw, acptest.Options{Scenario: fakeScenario}) }()
			w, err := Connect(testCtx(t), cr, cw, ConnectConfig{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				_ = w.Close()
				cancel()
				<-served
			})
			return w, t.TempDir()
		},
		sawSteer: fakeSawSteer,
	}
}

func fakeSawSteer(t *testing.T, agentText string) {
	if !strings.Contains(agentText, steerText) {
		t.Errorf("agent text %q does not echo the steer", agentText)
	}
}

func writeScenario(t *testing.T, path string) {
	data, err := json.Marshal(fakeScenario)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// recorder collects a session's events in the background.
type recorder struct {
	mu     sync.Mutex
	events []Event
	more   chan struct{}
	done   chan struct{}
}

func record(s *Session) *recorder {
	r := &recorder{more: make(chan struct{}, 1), done: make(chan struct{})}
	go func() {
		defer close(r.done)
		for e := range s.Events() {
			r.mu.Lock()
			r.events = append(r.events, e)
			r.mu.Unlock()
			select {
			case r.more <- struct{}{}:
			default:
			}
		}
	}()
	return r
}

func (r *recorder) snapshot() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// waitFor blocks until an event satisfies ok.
func (r *recorder) waitFor(t *testing.T, what string, ok func(Event) bool) Event {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		for _, e := range r.snapshot() {
			if ok(e) {
				return e
			}
		}
		select {
		case <-r.more:
		case <-r.done:
			for _, e := range r.snapshot() {
				if ok(e) {
					return e
				}
			}
			t.Fatalf("stream ended without %s", what)
		case <-deadline:
			t.Fatalf("no %s", what)
		}
	}
}

func (r *recorder) agentText() string {
	var b strings.Builder
	for _, e := range r.snapshot() {
		if c, ok := e.(Chunk); ok && c.Stream == KindAgentMessage {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

func runConformance(t *testing.T, tg target) {
	t.Run("permissions", func(t *testing.T) {
		w, cwd := tg.start(t)
		var mu sync.Mutex
		var asked []PermissionRequest
		s, err := w.NewSession(testCtx(t), SessionConfig{Cwd: cwd, Model: "mock/mock-model", Mode: ModeNormal,
			OnPermission: func(ctx context.Context, r PermissionRequest) PermissionOutcome {
				mu.Lock()
				asked = append(asked, r)
				mu.Unlock()
				if r.ToolKind == "edit" {
					return r.Choose("allow_once")
				}
				return r.Choose("reject_once")
			}})
		if err != nil {
			t.Fatal(err)
		}
		if eff := s.Effective(); eff.ToolApproval != "read-only" || eff.Model != "mock/mock-model" || eff.Mode != ModeNormal {
			t.Errorf("effective = %+v", eff)
		}
		rec := record(s)
		stop, err := s.Prompt(testCtx(t), "SCENARIO:perm write allowed.txt, then touch rejected-marker")
		if err != nil || stop != StopEndTurn {
			t.Fatalf("prompt = %q, %v", stop, err)
		}
		if b, err := os.ReadFile(filepath.Join(cwd, "allowed.txt")); err != nil || string(b) != "yes\n" {
			t.Errorf("allowed.txt = %q, %v", b, err)
		}
		if _, err := os.Stat(filepath.Join(cwd, "rejected-marker")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("rejected command ran: %v", err)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(asked) != 2 {
			t.Fatalf("asked %d times: %+v", len(asked), asked)
		}
		write, shell := asked[0], asked[1]
		if write.Meta == nil || write.Meta.Tool != "write_file" || write.Meta.Subject != "allowed.txt" || write.CallID == "" ||
			!strings.HasPrefix(write.ToolCallID, "gate-") || len(write.Locations) != 1 {
			t.Errorf("write request = %+v meta %+v", write, write.Meta)
		}
		if shell.Meta == nil || strings.Join(shell.Meta.Argv, " ") != "touch rejected-marker" || shell.Meta.CommandSchemaVersion != 1 ||
			shell.CallID == "" {
			t.Errorf("shell request = %+v meta %+v", shell, shell.Meta)
		}
		failed := rec.waitFor(t, "failed shell update", func(e Event) bool {
			u, ok := e.(ToolCallUpdate)
			return ok && u.ID == shell.CallID && u.Status == "failed"
		}).(ToolCallUpdate)
		if !strings.Contains(failed.Text, "blocked") {
			t.Errorf("rejected update text %q", failed.Text)
		}
		rec.waitFor(t, "completed write update", func(e Event) bool {
			u, ok := e.(ToolCallUpdate)
			return ok && u.ID == write.CallID && u.Status == "completed"
		})
		st, err := s.Status(testCtx(t))
		if err != nil {
			t.Fatal(err)
		}
		if st.SessionID != s.ID() || st.State != "idle" || st.TurnOutcome.Kind != "completed" || st.Sequence == 0 {
			t.Errorf("status = %+v", st)
		}
		if err := s.Close(testCtx(t)); err != nil {
			t.Error(err)
		}
		<-rec.done

		// The closed session continues on the same worker, with the same settings.
		resumed, err := w.ResumeSession(testCtx(t), s.ID(), SessionConfig{Cwd: cwd, Model: "mock/mock-model"})
		if err != nil {
			t.Fatal(err)
		}
		if st, err := resumed.Status(testCtx(t)); err != nil || st.SessionID != s.ID() {
			t.Errorf("resumed status = %+v, %v", st, err)
		}
		if eff := resumed.Effective(); eff.ToolApproval != "read-only" {
			t.Errorf("resumed effective = %+v", eff)
		}
	})

	t.Run("steer", func(t *testing.T) {
		w, cwd := tg.start(t)
		s, err := w.NewSession(testCtx(t), SessionConfig{Cwd: cwd, Model: "mock/mock-model"})
		if err != nil {
			t.Fatal(err)
		}
		rec := record(s)
		type result struct {
			stop StopReason
			err  error
		}
		done := make(chan result, 1)
		go func() {
			stop, err := s.Prompt(testCtx(t), "SCENARIO:steer say something")
			done <- result{stop, err}
		}()
		rec.waitFor(t, "first chunk", func(e Event) bool { return e.Kind() == KindAgentMessage })
		disp, err := s.Steer(testCtx(t), steerText)
		if err != nil || disp != "steer_accepted" {
			t.Fatalf("steer = %q, %v", disp, err)
		}
		r := <-done
		if r.err != nil || r.stop != StopEndTurn {
			t.Fatalf("prompt = %q, %v", r.stop, r.err)
		}
		rec.waitFor(t, "completion status", func(e Event) bool { u, ok := e.(StatusUpdate); return ok && u.Event == "completion" })
		tg.sawSteer(t, rec.agentText())
		if _, err := s.Steer(testCtx(t), "late"); !errors.Is(err, ErrNoActiveTurn) {
			t.Errorf("idle steer err = %v", err)
		}
	})

	t.Run("cancel", func(t *testing.T) {
		w, cwd := tg.start(t)
		s, err := w.NewSession(testCtx(t), SessionConfig{Cwd: cwd, Model: "mock/mock-model"})
		if err != nil {
			t.Fatal(err)
		}
		rec := record(s)
		done := make(chan StopReason, 1)
		go func() {
			stop, err := s.Prompt(testCtx(t), "SCENARIO:cancel talk slowly")
			if err != nil {
				t.Errorf("prompt: %v", err)
			}
			done <- stop
		}()
		rec.waitFor(t, "first chunk", func(e Event) bool { return e.Kind() == KindAgentMessage })
		if err := s.Cancel(testCtx(t)); err != nil {
			t.Fatal(err)
		}
		select {
		case stop := <-done:
			if stop != StopCancelled {
				t.Errorf("stop = %q", stop)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("prompt did not return after cancel")
		}
		st, err := s.Status(testCtx(t))
		if err != nil || st.TurnOutcome.Kind != "cancelled" {
			t.Errorf("status after cancel = %+v, %v", st.TurnOutcome, err)
		}
	})

	// Cancel while a permission request is open: the callback's context ends, the request is
	// answered cancelled, the tool fails and the turn stops.
	t.Run("cancel-permission", func(t *testing.T) {
		w, cwd := tg.start(t)
		waiting := make(chan PermissionRequest, 1)
		s, err := w.NewSession(testCtx(t), SessionConfig{Cwd: cwd, Model: "mock/mock-model",
			OnPermission: func(ctx context.Context, r PermissionRequest) PermissionOutcome {
				waiting <- r
				<-ctx.Done()
				return r.Choose("allow_once")
			}})
		if err != nil {
			t.Fatal(err)
		}
		rec := record(s)
		done := make(chan StopReason, 1)
		go func() {
			stop, err := s.Prompt(testCtx(t), "SCENARIO:permcancel touch a marker")
			if err != nil {
				t.Errorf("prompt: %v", err)
			}
			done <- stop
		}()
		var req PermissionRequest
		select {
		case req = <-waiting:
		case <-time.After(30 * time.Second):
			t.Fatal("no permission request")
		}
		if err := s.Cancel(testCtx(t)); err != nil {
			t.Fatal(err)
		}
		select {
		case stop := <-done:
			if stop != StopCancelled {
				t.Errorf("stop = %q", stop)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("prompt did not return after cancel")
		}
		pe := rec.waitFor(t, "permission event", func(e Event) bool { return e.Kind() == KindPermission }).(PermissionEvent)
		if !pe.Outcome.Cancelled() {
			t.Errorf("answered %+v", pe.Outcome)
		}
		rec.waitFor(t, "failed tool call", func(e Event) bool {
			u, ok := e.(ToolCallUpdate)
			return ok && u.ID == req.CallID && u.Status == "failed"
		})
		if _, err := os.Stat(filepath.Join(cwd, "cancelled-marker")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("cancelled command ran: %v", err)
		}
	})
}
