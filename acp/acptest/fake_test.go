package acptest

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"
)

func scenario(t *testing.T, js string) *Scenario {
	t.Helper()
	s, err := ParseScenario([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestDefaultScenarioAsksWritesAndEndsReadyForReview(t *testing.T) {
	f := startFake(t, Options{})
	init, err := f.conn.Initialize(f.ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"_reasonix.io/session/status", "_reasonix.io/session/status_update"} {
		if !reflect.DeepEqual(init.AgentCapabilities.Meta[k], map[string]any{"schemaVersion": float64(1)}) {
			t.Fatalf("capability %s = %v", k, init.AgentCapabilities.Meta[k])
		}
	}
	f.open(t)
	f.set(t, "tool_approval", "read-only")
	done := f.prompt("implement the task")

	write := f.client.nextPerm(t)
	tc := write.req.ToolCall
	meta, _ := tc.Meta["reasonix.io"].(map[string]any)
	if tc.ToolCallId != "gate-1" || *tc.Kind != acp.ToolKindEdit || *tc.Title != "write_file result.txt" ||
		meta["tool"] != "write_file" || meta["subject"] != "result.txt" || meta["argv"] != nil {
		t.Fatalf("write permission %+v meta %v", tc, meta)
	}
	var kinds []string
	for _, o := range write.req.Options {
		kinds = append(kinds, string(o.OptionId)+"/"+string(o.Kind)+"/"+o.Name)
	}
	if strings.Join(kinds, ",") != "allow_once/allow_once/Allow,allow_always/allow_always/Allow Edit for this session,reject_once/reject_once/Reject" {
		t.Fatalf("options %v", kinds)
	}
	write.choose("allow_once")

	ls := f.client.nextPerm(t)
	meta, _ = ls.req.ToolCall.Meta["reasonix.io"].(map[string]any)
	if ls.req.ToolCall.ToolCallId != "gate-2" || *ls.req.ToolCall.Title != "bash ls" ||
		!reflect.DeepEqual(meta["argv"], []any{"ls"}) || meta["cwd"] != f.cwd || meta["commandSchemaVersion"] != float64(1) {
		t.Fatalf("ls permission %+v meta %v", ls.req.ToolCall, meta)
	}
	ls.choose("allow_once")

	if r := waitPrompt(t, done); r.err != nil || r.res.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v", r)
	}
	if data, err := os.ReadFile(filepath.Join(f.cwd, "result.txt")); err != nil || string(data) != "ok\n" {
		t.Fatalf("result.txt: %q %v", data, err)
	}
	st := f.status(t)
	if statusPath(st, "finalReadiness", "readyForReview") != true || statusPath(st, "finalReadiness", "summary") != "Created result.txt containing ok." ||
		st["state"] != "idle" || st["phase"] != "completed" || statusPath(st, "turnOutcome", "kind") != "completed" ||
		statusPath(st, "sandbox", "workspaceRoot") != f.cwd {
		t.Fatalf("status %v", st)
	}
	updates, statuses := f.client.snapshot()
	var phases []string
	for i, s := range statuses {
		if s["sequence"] != float64(i+1) {
			t.Fatalf("status update %d has sequence %v", i, s["sequence"])
		}
		phases = append(phases, statusPath(s, "status", "phase").(string))
	}
	if strings.Join(phases, ",") != "starting,waiting_permission,implementing,waiting_permission,implementing,implementing,completed" {
		t.Fatalf("phases %v", phases)
	}
	seen := map[string]int{}
	for _, n := range updates {
		seen[kindOf(n.Update)]++
	}
	if seen["plan"] != 3 || seen["tool_call"] != 5 || seen["tool_call_update"] != 5 {
		t.Fatalf("update kinds %v", seen)
	}
	if st["sequence"] != float64(len(statuses)) {
		t.Fatalf("status sequence %v after %d updates", st["sequence"], len(statuses))
	}
}

func TestRejectedWriteLeavesNoFileAndTurnEnds(t *testing.T) {
	f := startFake(t, Options{})
	f.open(t)
	done := f.prompt("go")
	f.client.nextPerm(t).choose("reject_once")
	f.client.nextPerm(t).choose("allow_once")
	if r := waitPrompt(t, done); r.err != nil || r.res.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(f.cwd, "result.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("result.txt exists after a rejection: %v", err)
	}
	updates, _ := f.client.snapshot()
	var failed []string
	for _, u := range toolUpdates(updates) {
		if *u.Status == acp.ToolCallStatusFailed {
			failed = append(failed, updateText(u))
		}
	}
	if len(failed) != 1 || failed[0] != "blocked by permission policy" {
		t.Fatalf("failed tool calls %q", failed)
	}
}

func TestShellPermissionsFollowTheWorkerPolicy(t *testing.T) {
	f := startFake(t, Options{Scenario: scenario(t, `{"turns":[{"steps":[
		{"shell":{"command":"ls -la","output":"x\n"}},
		{"shell":{"command":"echo built > build.log && cat build.log","output":"built\n"}},
		{"shell":{"command":"go test ./...","output":"ok\n"}},
		{"shell":{"command":"go test ./core","output":"ok\n"}},
		{"shell":{"command":"false","exit_code":1}}]}]}`)})
	f.open(t)
	f.set(t, "tool_approval", "read-only")
	done := f.prompt("go")

	compound := f.client.nextPerm(t)
	meta, _ := compound.req.ToolCall.Meta["reasonix.io"].(map[string]any)
	if compound.req.ToolCall.ToolCallId != "gate-1" || meta["argv"] != nil || meta["cwd"] != nil || meta["commandSchemaVersion"] != nil ||
		meta["subject"] != "echo built > build.log && cat build.log" || compound.req.Options[1].Name != "Allow Bash=echo built > build.log && cat build.log for this session" {
		t.Fatalf("compound permission %+v meta %v", compound.req, meta)
	}
	compound.choose("allow_once")

	gotest := f.client.nextPerm(t)
	meta, _ = gotest.req.ToolCall.Meta["reasonix.io"].(map[string]any)
	if !reflect.DeepEqual(meta["argv"], []any{"go", "test", "./..."}) || gotest.req.Options[1].Name != "Allow Bash(go test:*) for this session" {
		t.Fatalf("go test permission meta %v options %+v", meta, gotest.req.Options)
	}
	gotest.choose("allow_always") // covers "go test ./core" too

	f.client.nextPerm(t).choose("allow_once") // "false" is not a known reader
	if r := waitPrompt(t, done); r.err != nil || r.res.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v", r)
	}
	updates, _ := f.client.snapshot()
	var statuses []string
	for _, n := range updates {
		if u := n.Update.ToolCallUpdate; u != nil {
			statuses = append(statuses, string(*u.Status))
		}
	}
	if strings.Join(statuses, ",") != "completed,completed,completed,completed,failed" {
		t.Fatalf("tool statuses %v", statuses)
	}
}

func TestAskQuestion(t *testing.T) {
	sc := scenario(t, `{"turns":[{"steps":[
		{"ask":{"header":"Library","question":"Which library?","options":[{"label":"stdlib","description":"no deps"},{"label":"cobra"}]}},
		{"text":"Using it."}]}]}`)

	t.Run("answered", func(t *testing.T) {
		f := startFake(t, Options{Scenario: sc})
		f.open(t)
		done := f.prompt("go")
		q := f.client.nextPerm(t)
		if q.req.ToolCall.ToolCallId != "ask-1-q1" || *q.req.ToolCall.Kind != acp.ToolKindOther || *q.req.ToolCall.Title != "Which library?" ||
			len(q.req.Options) != 3 || q.req.Options[0].Name != "stdlib - no deps" || q.req.Options[2].OptionId != "q1:cancel" {
			t.Fatalf("question %+v", q.req)
		}
		f.client.waitFor(t, "waiting_input", func(_ []acp.SessionNotification, s []map[string]any) bool {
			return len(s) > 0 && statusPath(s[len(s)-1], "status", "phase") == "waiting_input"
		})
		q.choose("q1:2")
		if r := waitPrompt(t, done); r.err != nil || r.res.StopReason != acp.StopReasonEndTurn {
			t.Fatalf("prompt: %+v", r)
		}
		updates, _ := f.client.snapshot()
		for _, u := range toolUpdates(updates) {
			if !strings.HasPrefix(updateText(u), "The user answered:\n- Library: cobra\n") {
				t.Fatalf("answer reported as %q", updateText(u))
			}
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		f := startFake(t, Options{Scenario: sc})
		f.open(t)
		done := f.prompt("go")
		f.client.nextPerm(t).choose("q1:cancel")
		r := waitPrompt(t, done)
		var re *acp.RequestError
		if !errors.As(r.err, &re) || re.Code != -32603 {
			t.Fatalf("prompt after a cancelled question: %+v", r)
		}
		st := f.status(t)
		if st["phase"] != "error" || statusPath(st, "turnOutcome", "kind") != "error" || statusPath(st, "goal", "status") != "failed" {
			t.Fatalf("status %v", st)
		}
	})
}

func TestSteer(t *testing.T) {
	f := startFake(t, Options{Scenario: scenario(t, `{"turns":[{"steps":[{"text":"Working."},{"wait_steer":true}],
		"on_steer":[{"text":"Steered: {{steer}}"}]}]}`)})
	f.open(t)
	steer := func() (json.RawMessage, error) {
		return f.conn.CallExtension(f.ctx, "_reasonix.io/session/steer",
			map[string]any{"sessionId": f.sid, "prompt": []any{map[string]any{"type": "text", "text": "use bananas"}}})
	}
	var re *acp.RequestError
	if _, err := steer(); !errors.As(err, &re) || re.Code != -32600 || re.Message != "_reasonix.io/session/steer: session has no active prompt" {
		t.Fatalf("idle steer: %v", err)
	}
	done := f.prompt("go")
	f.client.waitFor(t, "the turn to start", func(u []acp.SessionNotification, _ []map[string]any) bool {
		return messageText(u, "agent_message_chunk") == "Working."
	})
	res, err := steer()
	if err != nil || string(res) != `{"disposition":"steer_accepted"}` {
		t.Fatalf("steer: %s %v", res, err)
	}
	if r := waitPrompt(t, done); r.err != nil || r.res.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v", r)
	}
	updates, _ := f.client.snapshot()
	if got := messageText(updates, "agent_message_chunk"); got != "Working.Steered: use bananas" {
		t.Fatalf("text %q", got)
	}
	if _, err := f.conn.CallExtension(f.ctx, "_reasonix.io/session/nope", map[string]any{}); !errors.As(err, &re) || re.Code != -32601 {
		t.Fatalf("unknown extension: %v", err)
	}
}

func TestCancelWhilePermissionIsOpen(t *testing.T) {
	f := startFake(t, Options{Scenario: scenario(t, `{"turns":[
		{"steps":[{"shell":{"command":"touch cancelled-marker"},"permission":"ask"}]},
		{"steps":[{"text":"second turn"}]}]}`)})
	f.open(t)
	done := f.prompt("go")
	open := f.client.nextPerm(t)
	if err := f.conn.Cancel(f.ctx, acp.CancelNotification{SessionId: f.sid}); err != nil {
		t.Fatal(err)
	}
	if r := waitPrompt(t, done); r.err != nil || r.res.StopReason != acp.StopReasonCancelled {
		t.Fatalf("prompt: %+v", r)
	}
	open.reply <- acp.NewRequestPermissionOutcomeCancelled() // late: must be ignored
	updates, _ := f.client.snapshot()
	for _, u := range toolUpdates(updates) {
		if *u.Status != acp.ToolCallStatusFailed || updateText(u) != "blocked: context canceled" {
			t.Fatalf("tool after cancel: %s %q", *u.Status, updateText(u))
		}
	}
	st := f.status(t)
	if st["phase"] != "cancelled" || statusPath(st, "turnOutcome", "kind") != "cancelled" || st["state"] != "idle" {
		t.Fatalf("status %v", st)
	}
	// the session stays usable, and the next prompt gets the next turn
	if r := waitPrompt(t, f.prompt("again")); r.err != nil || r.res.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("second prompt: %+v", r)
	}
	updates, _ = f.client.snapshot()
	if got := messageText(updates, "agent_message_chunk"); got != "second turn" {
		t.Fatalf("second turn text %q", got)
	}
}

func TestHangEndsOnlyOnCancel(t *testing.T) {
	f := startFake(t, Options{Scenario: scenario(t, `{"turns":[{"steps":[{"text":"hanging"},{"hang":true}]}]}`)})
	f.open(t)
	done := f.prompt("go")
	f.client.waitFor(t, "the turn to start", func(u []acp.SessionNotification, _ []map[string]any) bool {
		return messageText(u, "agent_message_chunk") == "hanging"
	})
	var re *acp.RequestError
	if _, err := f.conn.Prompt(f.ctx, acp.PromptRequest{SessionId: f.sid, Prompt: []acp.ContentBlock{acp.TextBlock("x")}}); !errors.As(err, &re) || re.Code != -32600 {
		t.Fatalf("second prompt during a turn: %v", err)
	}
	if err := f.conn.Cancel(f.ctx, acp.CancelNotification{SessionId: f.sid}); err != nil {
		t.Fatal(err)
	}
	if r := waitPrompt(t, done); r.err != nil || r.res.StopReason != acp.StopReasonCancelled {
		t.Fatalf("prompt: %+v", r)
	}
}

func TestPromptsPickTurnsInOrderOrByMatch(t *testing.T) {
	f := startFake(t, Options{Scenario: scenario(t, `{"turns":[
		{"steps":[{"text":"first"}]},
		{"match":"REPAIR","steps":[{"text":"repaired"}],"summary":"fixed it","not_ready":true},
		{"steps":[{"text":"second"}]}]}`)})
	f.open(t)
	want := []struct{ prompt, text string }{{"a", "first"}, {"please REPAIR", "repaired"}, {"b", "second"}, {"c", "Nothing more to do."}}
	for _, w := range want {
		before, _ := f.client.snapshot()
		if r := waitPrompt(t, f.prompt(w.prompt)); r.err != nil {
			t.Fatal(r.err)
		}
		after, _ := f.client.snapshot()
		if got := messageText(after[len(before):], "agent_message_chunk"); got != w.text {
			t.Fatalf("prompt %q answered %q, want %q", w.prompt, got, w.text)
		}
		if w.text == "repaired" {
			st := f.status(t)
			if statusPath(st, "finalReadiness", "summary") != "fixed it" || statusPath(st, "finalReadiness", "readyForReview") != false {
				t.Fatalf("status %v", st)
			}
		}
	}
}

func TestFilesOutsideTheWorkspaceAreRefused(t *testing.T) {
	outside := t.TempDir()
	f := startFake(t, Options{Scenario: scenario(t, `{"turns":[{"steps":[
		{"write":{"path":"../escape.txt","content":"x"},"permission":"never"},
		{"write":{"path":"link/escape.txt","content":"x"},"permission":"never"},
		{"write":{"path":"sub/dir/ok.txt","content":"fine"},"permission":"never"},
		{"edit":{"path":"sub/dir/ok.txt","old":"fine","new":"better"},"permission":"never"},
		{"read":"sub/dir/ok.txt"}]}]}`)})
	f.open(t)
	if err := os.Symlink(outside, filepath.Join(f.cwd, "link")); err != nil {
		t.Fatal(err)
	}
	if r := waitPrompt(t, f.prompt("go")); r.err != nil {
		t.Fatal(r.err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("wrote outside the workspace: %v", entries)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(f.cwd), "escape.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("wrote ../escape.txt")
	}
	if data, _ := os.ReadFile(filepath.Join(f.cwd, "sub/dir/ok.txt")); string(data) != "better" {
		t.Fatalf("ok.txt = %q", data)
	}
	updates, _ := f.client.snapshot()
	var got []string
	for _, n := range updates {
		if u := n.Update.ToolCallUpdate; u != nil {
			got = append(got, string(*u.Status))
		}
	}
	if strings.Join(got, ",") != "failed,failed,completed,completed,completed" {
		t.Fatalf("tool statuses %v", got)
	}
}

func TestConfigOptions(t *testing.T) {
	var re *acp.RequestError
	t.Run("current", func(t *testing.T) {
		f := startFake(t, Options{})
		f.open(t)
		_, err := f.conn.SetSessionConfigOption(f.ctx, acp.SetSessionConfigOptionRequest{ValueId: &acp.SetSessionConfigOptionValueId{
			SessionId: f.sid, ConfigId: "effort", Value: "high"}})
		if !errors.As(err, &re) || re.Code != -32602 {
			t.Fatalf("effort on the plain model: %v", err)
		}
		res := f.set(t, "model", "mockr/mock-thinker")
		if ids := optionIDs(res.ConfigOptions); ids != "model,effort,tool_approval" {
			t.Fatalf("options on the reasoning model: %s", ids)
		}
		f.set(t, "effort", "max")
		if _, err := f.conn.SetSessionConfigOption(f.ctx, acp.SetSessionConfigOptionRequest{ValueId: &acp.SetSessionConfigOptionValueId{
			SessionId: f.sid, ConfigId: "tool_approval", Value: "ask"}}); !errors.As(err, &re) || re.Code != -32602 {
			t.Fatalf("tool_approval=ask: %v", err)
		}
		st := f.status(t)
		if st["effort"] != "max" || st["model"] != "mockr/mock-thinker" || st["workMode"] != "standard" {
			t.Fatalf("status %v", st)
		}
		raw, err := f.conn.CallExtension(f.ctx, "_reasonix.io/session/status", map[string]any{"sessionId": "nope"})
		if !errors.As(err, &re) || re.Code != -32602 {
			t.Fatalf("status of an unknown session: %s %v", raw, err)
		}
		if _, err := f.conn.SetSessionMode(f.ctx, acp.SetSessionModeRequest{SessionId: f.sid, ModeId: "bogus"}); !errors.As(err, &re) || re.Code != -32602 {
			t.Fatalf("bogus mode: %v", err)
		}
		if _, err := f.conn.SetSessionMode(f.ctx, acp.SetSessionModeRequest{SessionId: f.sid, ModeId: "goal"}); err != nil {
			t.Fatal(err)
		}
		f.client.waitFor(t, "current_mode_update", func(u []acp.SessionNotification, _ []map[string]any) bool {
			return len(u) > 0 && u[len(u)-1].Update.CurrentModeUpdate != nil && u[len(u)-1].Update.CurrentModeUpdate.CurrentModeId == "goal"
		})
	})
	t.Run("legacy", func(t *testing.T) {
		f := startFake(t, Options{Legacy: true})
		f.open(t)
		res := f.set(t, "work_mode", "delivery")
		if ids := optionIDs(res.ConfigOptions); ids != "model,effort,work_mode,tool_approval" {
			t.Fatalf("legacy options %s", ids)
		}
		f.set(t, "effort", "low")
		f.set(t, "tool_approval", "ask")
		st := f.status(t)
		if st["workMode"] != "delivery" || st["effort"] != "low" {
			t.Fatalf("status %v", st)
		}
		// tool_approval=ask gates every write and command, ls included
		done := f.prompt("go")
		f.client.nextPerm(t).choose("allow_once")
		f.client.nextPerm(t).choose("allow_once")
		if r := waitPrompt(t, done); r.err != nil || r.res.StopReason != acp.StopReasonEndTurn {
			t.Fatalf("prompt: %+v", r)
		}
	})
}

func optionIDs(opts []acp.SessionConfigOption) string {
	var ids []string
	for _, o := range opts {
		b, _ := json.Marshal(o)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		ids = append(ids, m["id"].(string))
	}
	return strings.Join(ids, ",")
}

func TestPlanModeAsksToExitAndThoughtsStream(t *testing.T) {
	f := startFake(t, Options{Scenario: scenario(t, `{"turns":[{"steps":[{"thought":"thinking it over","chunks":3},{"text":"The plan."}]}]}`)})
	f.open(t)
	if _, err := f.conn.SetSessionMode(f.ctx, acp.SetSessionModeRequest{SessionId: f.sid, ModeId: "plan"}); err != nil {
		t.Fatal(err)
	}
	done := f.prompt("plan it")
	exit := f.client.nextPerm(t)
	meta, _ := exit.req.ToolCall.Meta["reasonix.io"].(map[string]any)
	if *exit.req.ToolCall.Title != "exit_plan_mode" || meta["tool"] != "exit_plan_mode" || len(exit.req.Options) != 2 {
		t.Fatalf("exit_plan_mode request %+v", exit.req)
	}
	exit.choose("allow_once")
	if r := waitPrompt(t, done); r.err != nil || r.res.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v", r)
	}
	updates, _ := f.client.snapshot()
	if got := messageText(updates, "agent_thought_chunk"); got != "thinking it over" {
		t.Fatalf("thought %q", got)
	}
	last := updates[len(updates)-1].Update.CurrentModeUpdate
	if last == nil || last.CurrentModeId != "normal" || f.status(t)["mode"] != "normal" {
		t.Fatalf("mode after approval: %+v", updates[len(updates)-1])
	}
}
