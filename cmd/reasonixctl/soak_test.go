//go:build linux

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"reasonixctl/store"
)

// The kill -9 soak drives delegate → review → finalize (and resume or cancel after a pause)
// through `reasonixctl --mcp` with the fake worker, SIGKILLs the owner at a random moment of
// each operation, and checks after every kill and restart that:
//   - every task's journal is gap-free and its record agrees with its last state change;
//   - every task can be finalized, resumed or cancelled (or is finished): the next round does so;
//   - no task branch points at a commit other than its base or its recorded, reviewed commit;
//   - the source checkout is untouched;
//   - no worker or verifier process of the killed owner is left once the next owner started.
//
// CI runs a short form; the long form is
//
//	REASONIXCTL_SOAK_KILLS=100 go test -run TestSoakKillNine -v -timeout 30m ./cmd/reasonixctl
//
// REASONIXCTL_SOAK_SEED replays a kill schedule (which operations, and how long after each one
// starts the owner dies); the machine's timing still decides exactly where each kill lands.
const (
	soakSeedEnv  = "REASONIXCTL_SOAK_SEED"
	soakKillsEnv = "REASONIXCTL_SOAK_KILLS"
	soakKillsCI  = 12
)

// soakScenario slows the fake worker down a little so that kills land inside its turn too.
const soakScenario = `{"name": "soak", "turns": [{"steps": [
  {"plan": [{"content": "Write result.txt", "status": "in_progress"}], "delay_ms": 40},
  {"text": "Writing result.txt.", "delay_ms": 40},
  {"write": {"path": "result.txt", "content": "ok\n"}, "delay_ms": 40},
  {"shell": {"command": "ls", "output": "result.txt\n"}, "delay_ms": 40},
  {"plan": [{"content": "Write result.txt", "status": "completed"}], "delay_ms": 40},
  {"text": "Created result.txt containing ok.", "delay_ms": 40}
], "summary": "Created result.txt containing ok."}]}`

// soakContract's verification takes a moment, so kills land in verification, staging and the
// commit as well as in the journal writes around them.
var soakContract = map[string]any{
	"schema_version": 1,
	"objective":      "Create result.txt",
	"user_outcome":   "result.txt holds ok",
	"write_scope":    []string{"result.txt"},
	"acceptance_criteria": []any{
		map[string]any{"id": "result", "requirement": "result.txt exists", "evidence": "automated"},
		map[string]any{"id": "reviewed", "requirement": "the change reads well", "evidence": "review"},
	},
	"verification": []any{
		map[string]any{"id": "settle", "argv": []string{"sleep", "0.3"}, "proves": []string{"result"}},
		map[string]any{"id": "exists", "argv": []string{"test", "-f", "result.txt"}, "proves": []string{"result"}},
	},
}

func TestSoakKillNine(t *testing.T) {
	if testing.Short() {
		t.Skip("the kill -9 soak starts a process per kill")
	}
	kills := soakKillsCI
	if v := os.Getenv(soakKillsEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("%s=%q is not a positive count", soakKillsEnv, v)
		}
		kills = n
	}
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv(soakSeedEnv); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q is not a number", soakSeedEnv, v)
		}
		seed = n
	}
	t.Logf("kill -9 soak: %d kills, seed %d (replay: %s=%d %s=%d)", kills, seed, soakSeedEnv, seed, soakKillsEnv, kills)
	bin, err := buildBinaries()
	if err != nil {
		t.Fatal(err)
	}
	s := &soak{
		t: t, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), bin: bin,
		repo: testRepo(t), state: privateDir(t), expected: map[string]time.Duration{},
		landed: map[string]int{},
	}
	scenario := filepath.Join(t.TempDir(), "soak-scenario.json")
	if err := os.WriteFile(scenario, []byte(soakScenario), 0o600); err != nil {
		t.Fatal(err)
	}
	s.env = []string{"FAKE_REASONIX_SCENARIO=" + scenario}
	s.base = gitIn(t, s.repo, "rev-parse", "HEAD")
	s.source = soakSourceFingerprint(t, s.repo)

	start := time.Now()
	for round := 1; round <= kills; round++ {
		s.round(round)
		if t.Failed() {
			t.Fatalf("round %d failed (seed %d)", round, seed)
		}
	}
	completed := s.finish()
	var where []string
	for k, n := range s.landed {
		where = append(where, fmt.Sprintf("%s ×%d", k, n))
	}
	sort.Strings(where)
	t.Logf("%d/%d recoveries in %s, seed %d; %d tasks completed; restarts that found an unrecorded commit rolled back: %d, a killed delegate undone: %d; kills landed in: %s",
		kills, kills, time.Since(start).Round(time.Second), seed, completed, s.rollbacks, s.undone, strings.Join(where, ", "))
}

type soak struct {
	t        *testing.T
	rng      *rand.Rand
	bin      string
	env      []string
	repo     string
	state    string
	base     string
	source   string
	expected map[string]time.Duration // how long each action took when it was not killed
	landed   map[string]int           // where kills landed: the acted-on task's state/phase at the kill
	next     int                      // number of the last new task
	known    []string                 // every task id delegated so far
	retry    string                   // a delegate of this new task was killed: retry the same id
	// What recovery had to do: commits rolled back, delegates undone (both counted per restart
	// that found them).
	rollbacks, undone int
}

// round starts an owner, checks what the last kill left, acts on the tasks and kills the owner
// at a random moment of that action.
func (s *soak) round(n int) {
	t := s.t
	o := startOwner(t, s.bin, s.state, s.env)
	defer o.kill()
	o.handshake()
	if s.rng.IntN(8) == 0 {
		// The server opens the engine, which recovers the last kill's tasks, as soon as
		// tools/list is answered: interrupt that recovery. The next start must finish it.
		after := time.Duration(s.rng.IntN(40)) * time.Millisecond
		o.awaitFor(0, after) // no request has id 0: this only lets the owner run
		o.kill()
		s.landed["start-up recovery"]++
		t.Logf("round %d: killed %s into start-up recovery", n, after)
		s.checkStore(n)
		return
	}
	tasks := s.checkAfterRestart(o, true)
	if t.Failed() {
		return
	}
	action, id, args := s.choose(tasks)
	// Half the kills fall anywhere in the operation, half near its end, where the commit and
	// the last journal writes are.
	f := s.rng.Float64() * 1.3
	if s.rng.IntN(2) == 0 {
		f = 0.7 + s.rng.Float64()*0.45
	}
	delay := time.Duration(f * float64(s.expectedFor(action)))
	began := time.Now()
	reqID := o.request("tools/call", map[string]any{"name": args.tool, "arguments": args.args, "_meta": codexMeta(s.repo, true)})
	var res toolResult
	var done bool
	if action == "finalize" && s.rng.IntN(2) == 0 {
		// The commit is a short step at the end: watch for it and kill within it or just after.
		res, done = o.awaitPhase(reqID, id, "committing", time.Duration(s.rng.IntN(40))*time.Millisecond)
		delay = 0
	} else {
		res, done = o.awaitFor(reqID, delay)
	}
	if !done && delay > s.expectedFor(action) {
		// The operation takes longer than it did: stretch the window so that kills still
		// reach its end.
		s.expected[action] = delay * 5 / 4
	}
	if done {
		s.expected[action] = time.Since(began)
		if res.IsError {
			t.Errorf("round %d: %s %s failed after a restart: %s", n, action, id, errorText(res))
			return
		}
		if action == "delegate" {
			s.retry = ""
		}
	}
	o.kill()
	where := s.killPoint(id)
	if done {
		where = "after " + action + " returned (" + where + ")"
	}
	s.landed[where]++
	t.Logf("round %d: %s %s, killed after %s: %s", n, action, id, time.Since(began).Round(time.Millisecond), where)
	s.checkStore(n)
}

type toolCall struct {
	tool string
	args map[string]any
}

// choose picks the next operation: the open task's finalize, resume or cancel, else a new task
// (or the retry of a new task whose delegate was killed before it stored the task).
func (s *soak) choose(tasks map[string]soakView) (string, string, toolCall) {
	if action, id, call, ok := s.openAction(tasks); ok {
		return action, id, call
	}
	id := s.retry
	if id == "" {
		s.next++
		id = fmt.Sprintf("soak-%03d", s.next)
		s.known = append(s.known, id)
	}
	s.retry = id
	return "delegate", id, toolCall{"reasonix_delegate", map[string]any{"task_id": id, "contract": soakContract}}
}

// openAction is the next action on a task in review or paused, if there is one.
func (s *soak) openAction(tasks map[string]soakView) (string, string, toolCall, bool) {
	if _, stored := tasks[s.retry]; stored {
		s.retry = "" // the killed delegate got as far as storing its task
	}
	ids := make([]string, 0, len(tasks))
	for id := range tasks {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		v := tasks[id]
		switch v.State {
		case "review_required":
			return "finalize", id, toolCall{"reasonix_control", map[string]any{
				"task_id": id, "action": "finalize", "review_summary": "reads well", "approved_review_criteria": []string{"reviewed"},
				"expected_review_revision": v.ReviewRevision, "expected_review_tree_hash": v.ReviewTreeHash,
			}}, true
		case "paused":
			if s.rng.IntN(4) == 0 {
				return "cancel", id, toolCall{"reasonix_control", map[string]any{"task_id": id, "action": "cancel"}}, true
			}
			return "resume", id, toolCall{"reasonix_delegate", map[string]any{
				"task_id": id, "contract": soakContract, "pause_revision": v.PauseRevision, "pause_reason_hash": v.PauseReasonHash,
			}}, true
		}
	}
	return "", "", toolCall{}, false
}

func (s *soak) expectedFor(action string) time.Duration {
	if d, ok := s.expected[action]; ok {
		return max(d, 100*time.Millisecond)
	}
	return 1500 * time.Millisecond
}

// soakView is the part of a task's status the soak uses.
type soakView struct {
	State           string `json:"state"`
	Phase           string `json:"phase"`
	ReviewRevision  int    `json:"review_revision"`
	ReviewTreeHash  string `json:"review_tree_hash"`
	PauseRevision   int    `json:"pause_revision"`
	PauseReasonHash string `json:"pause_reason_hash"`
	CommitHash      string `json:"commit_hash"`
	Reason          string `json:"reason"`
}

// checkAfterRestart checks what the restarted owner recovered: every stored task in a state
// the supervisor can act on, the branches, the source checkout and the processes.
func (s *soak) checkAfterRestart(o *owner, fresh bool) map[string]soakView {
	t := s.t
	tasks := map[string]soakView{}
	for _, id := range s.known {
		res := o.tool("reasonix_inspect", map[string]any{"task_id": id, "include": []string{"status"}}, nil)
		if res.IsError {
			// Only a new task whose delegate was killed may be missing (never stored, or undone).
			if id != s.retry || !strings.Contains(errorText(res), "task_not_found") {
				t.Errorf("inspect %s after restart: %s", id, errorText(res))
			} else {
				s.undone++
			}
			continue
		}
		var out struct {
			Sections struct {
				Status soakView `json:"status"`
			} `json:"sections"`
		}
		if err := json.Unmarshal(res.StructuredContent, &out); err != nil {
			t.Fatalf("inspect %s: %v: %s", id, err, res.StructuredContent)
		}
		v := out.Sections.Status
		if strings.Contains(v.Reason, "was rolled back") {
			s.rollbacks++
		}
		switch v.State {
		case "review_required", "paused", "completed", "cancelled":
		default:
			t.Errorf("task %s is %s/%s after a restart: neither finalizable, resumable nor finished", id, v.State, v.Phase)
		}
		tasks[id] = v
	}
	s.checkBranches(tasks)
	if got := soakSourceFingerprint(t, s.repo); got != s.source {
		t.Errorf("the source checkout changed:\n%s\nwant\n%s", got, s.source)
	}
	// Only a freshly started owner has no worker of its own yet.
	if left := survivors(s.state); fresh && len(left) > 0 {
		t.Errorf("processes of the killed owner survived its restart:\n%s", strings.Join(left, "\n"))
	}
	return tasks
}

// checkBranches: a task branch is at the base, or at the completed task's commit, whose tree
// is the reviewed tree and whose parent is the base.
func (s *soak) checkBranches(tasks map[string]soakView) {
	t := s.t
	out := gitIn(t, s.repo, "for-each-ref", "--format=%(refname:strip=3) %(objectname)", "refs/heads/reasonix/")
	for _, line := range strings.Split(out, "\n") {
		if line == "" {
			continue
		}
		id, commit, _ := strings.Cut(line, " ")
		if commit == s.base {
			continue
		}
		v, ok := tasks[id]
		switch {
		case !ok:
			t.Errorf("branch reasonix/%s points at %s but no task owns it", id, commit)
		case v.State != "completed" || v.CommitHash != commit:
			t.Errorf("branch reasonix/%s points at %s, task is %s/%s with commit %q", id, commit, v.State, v.Phase, v.CommitHash)
		default:
			if parent := gitIn(t, s.repo, "rev-parse", commit+"^"); parent != s.base {
				t.Errorf("commit %s of %s has parent %s, not the base", commit, id, parent)
			}
			if tree := gitIn(t, s.repo, "rev-parse", commit+"^{tree}"); tree != v.ReviewTreeHash {
				t.Errorf("commit %s of %s has tree %s, reviewed %s", commit, id, tree, v.ReviewTreeHash)
			}
		}
	}
}

// withStore opens the state directory's store while no owner runs.
func (s *soak) withStore(f func(*store.Store)) {
	st, err := store.Open(store.Options{Dir: s.state, Mode: "soak-check"})
	if err != nil {
		s.t.Fatalf("opening the store after a kill: %v\nholders of the lock:\n%s", err, lockHolders(filepath.Join(s.state, "owner.lock")))
	}
	defer st.Close()
	f(st)
}

// killPoint names where the kill landed: the task's state and phase as the killed owner left it.
func (s *soak) killPoint(id string) string {
	where := "no record"
	s.withStore(func(st *store.Store) {
		raw, err := st.Get(id)
		if err != nil {
			return
		}
		var r struct{ State, Phase string }
		if json.Unmarshal(raw, &r) == nil {
			where = r.State + "/" + r.Phase
		}
	})
	return where
}

// checkStore checks, with no owner running, that every journal is gap-free and that each
// record's state is the one its last state change moved it to.
func (s *soak) checkStore(round int) {
	t := s.t
	s.withStore(func(st *store.Store) {
		recs, err := st.List()
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range recs {
			evs, err := st.Journal(rec.TaskID, 1, 1<<20)
			if err != nil {
				t.Errorf("round %d: journal of %s: %v", round, rec.TaskID, err)
				continue
			}
			last := ""
			for i, ev := range evs {
				if ev.Seq != uint64(i+1) {
					t.Errorf("round %d: journal of %s has seq %d at position %d", round, rec.TaskID, ev.Seq, i+1)
					break
				}
				if ev.Type == "state_changed" {
					var d struct{ To string }
					json.Unmarshal(ev.Data, &d)
					last = d.To
				} else if ev.Type == "task_created" && last == "" {
					last = "provisioning"
				}
			}
			var r struct{ State string }
			json.Unmarshal(rec.Data, &r)
			if r.State != last {
				t.Errorf("round %d: task %s is %s but its journal's last state change is to %q", round, rec.TaskID, r.State, last)
			}
		}
	})
}

// finish restarts once more without a kill and takes every open task to an end: finalized,
// or resumed and then finalized, or cancelled. It returns how many tasks completed.
func (s *soak) finish() int {
	t := s.t
	o := startOwner(t, s.bin, s.state, s.env)
	defer o.kill()
	o.handshake()
	for i := range 20 {
		tasks := s.checkAfterRestart(o, i == 0)
		if t.Failed() {
			return 0
		}
		action, id, call, ok := s.openAction(tasks)
		if !ok {
			if s.retry == "" {
				break
			}
			action, id, call = s.choose(tasks)
		}
		res := o.tool(call.tool, call.args, codexMeta(s.repo, true))
		if res.IsError {
			t.Fatalf("%s %s after the last restart: %s", action, id, errorText(res))
		}
		if action == "delegate" {
			s.retry = ""
		}
	}
	o.close()
	s.checkStore(0)
	completed := 0
	s.withStore(func(st *store.Store) {
		recs, _ := st.List()
		for _, rec := range recs {
			var r struct{ State, Phase string }
			json.Unmarshal(rec.Data, &r)
			switch r.State {
			case "completed":
				completed++
			case "cancelled":
			default:
				t.Errorf("task %s ended the soak %s/%s", rec.TaskID, r.State, r.Phase)
			}
		}
	})
	return completed
}

// owner is one `reasonixctl --mcp` process that the soak kills.
type owner struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	lines  chan []byte
	nextID int
	stderr *bytes.Buffer
	exited chan struct{}
}

func startOwner(t *testing.T, bin, state string, env []string) *owner {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "reasonixctl"), "--mcp")
	cmd.Env = append(os.Environ(),
		"CODEX_REASONIX_STATE_DIR="+state,
		"REASONIX_BIN="+filepath.Join(bin, "fake-reasonix"),
		"GIT_AUTHOR_NAME=Soak", "GIT_AUTHOR_EMAIL=soak@example.com")
	cmd.Env = append(cmd.Env, env...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	o := &owner{t: t, cmd: cmd, in: in, lines: make(chan []byte, 256), stderr: &bytes.Buffer{}, exited: make(chan struct{})}
	cmd.Stderr = o.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			o.lines <- append([]byte(nil), sc.Bytes()...)
		}
		close(o.lines)
	}()
	go func() {
		cmd.Wait()
		close(o.exited)
	}()
	return o
}

func (o *owner) handshake() {
	id := o.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "soak", "version": "1"}})
	o.must(id)
	o.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	o.must(o.request("tools/list", map[string]any{}))
}

func (o *owner) send(v any) {
	b, _ := json.Marshal(v)
	o.in.Write(append(b, '\n'))
}

func (o *owner) request(method string, params any) int {
	o.nextID++
	o.send(map[string]any{"jsonrpc": "2.0", "id": o.nextID, "method": method, "params": params})
	return o.nextID
}

// awaitFor waits up to d for the answer to request id; false means none came in time.
// Other answers are dropped.
func (o *owner) awaitFor(id int, d time.Duration) (toolResult, bool) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		select {
		case line, ok := <-o.lines:
			if !ok {
				o.t.Fatalf("reasonixctl exited unexpectedly: %s", o.stderr)
			}
			raw, match := o.answer(line, id)
			if !match {
				continue
			}
			var r toolResult
			if err := json.Unmarshal(raw, &r); err != nil {
				o.t.Fatalf("answer %s: %v", raw, err)
			}
			return r, true
		case <-timer.C:
			return toolResult{}, false
		}
	}
}

// awaitPhase waits for the answer to request reqID while watching task id; once the task is in
// phase, it waits at most extra more. false means no answer came.
func (o *owner) awaitPhase(reqID int, id, phase string, extra time.Duration) (toolResult, bool) {
	watch := func() int {
		return o.request("tools/call", map[string]any{"name": "reasonix_inspect", "arguments": map[string]any{
			"task_id": id, "include": []string{"status"}, "wait_ms": 2000}})
	}
	inspectID := watch()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case line, ok := <-o.lines:
			if !ok {
				o.t.Fatalf("reasonixctl exited unexpectedly: %s", o.stderr)
			}
			if raw, match := o.answer(line, reqID); match {
				var r toolResult
				if err := json.Unmarshal(raw, &r); err != nil {
					o.t.Fatalf("answer %s: %v", raw, err)
				}
				return r, true
			}
			raw, match := o.answer(line, inspectID)
			if !match {
				continue
			}
			var r toolResult
			var out struct {
				Sections struct {
					Status soakView `json:"status"`
				} `json:"sections"`
			}
			if json.Unmarshal(raw, &r) != nil || json.Unmarshal(r.StructuredContent, &out) != nil {
				o.t.Fatalf("inspect answer %s", raw)
			}
			if out.Sections.Status.Phase == phase {
				return o.awaitFor(reqID, extra)
			}
			inspectID = watch()
		case <-deadline:
			o.t.Fatalf("task %s never reached %s", id, phase)
		}
	}
}

func (o *owner) answer(line []byte, id int) (json.RawMessage, bool) {
	var msg struct {
		ID     *int            `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &msg); err != nil {
		o.t.Fatalf("non-protocol line on stdout: %q", line)
	}
	if msg.ID == nil || *msg.ID != id {
		return nil, false
	}
	if msg.Error != nil {
		o.t.Fatalf("request %d: %s", id, msg.Error)
	}
	return msg.Result, true
}

func (o *owner) must(id int) json.RawMessage {
	deadline := time.After(60 * time.Second)
	for {
		select {
		case line, ok := <-o.lines:
			if !ok {
				o.t.Fatalf("reasonixctl exited unexpectedly: %s", o.stderr)
			}
			if raw, match := o.answer(line, id); match {
				return raw
			}
		case <-deadline:
			o.t.Fatalf("no answer to request %d", id)
		}
	}
}

func (o *owner) tool(name string, args, meta map[string]any) toolResult {
	params := map[string]any{"name": name, "arguments": args}
	if meta != nil {
		params["_meta"] = meta
	}
	var r toolResult
	if err := json.Unmarshal(o.must(o.request("tools/call", params)), &r); err != nil {
		o.t.Fatal(err)
	}
	return r
}

// kill SIGKILLs the owner alone (its workers and verifiers are in their own process groups)
// and waits until it is gone.
func (o *owner) kill() {
	select {
	case <-o.exited:
		return
	default:
	}
	_ = o.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-o.exited:
	case <-time.After(30 * time.Second):
		o.t.Fatal("the owner did not die of SIGKILL")
	}
}

// close ends the owner the ordinary way.
func (o *owner) close() {
	o.in.Close()
	select {
	case <-o.exited:
	case <-time.After(30 * time.Second):
		o.t.Error("reasonixctl --mcp did not exit after stdin closed")
		o.kill()
	}
}

func errorText(r toolResult) string {
	if len(r.Content) == 0 {
		return string(r.StructuredContent)
	}
	return r.Content[0].Text
}

// soakSourceFingerprint is everything of the source checkout a task must never change.
func soakSourceFingerprint(t *testing.T, repo string) string {
	return gitIn(t, repo, "status", "--porcelain=v1", "--untracked-files=all") + "|" +
		gitIn(t, repo, "rev-parse", "HEAD") + "|" + gitIn(t, repo, "ls-files", "-s")
}

// survivors lists live processes working inside the state directory (workers and verifiers run
// in task worktrees there). A process already dying of a signal does not count.
func survivors(state string) []string {
	var out []string
	for _, p := range processesUnder(state) {
		out = append(out, fmt.Sprintf("pid %d in %s: %s", p.pid, p.cwd, p.cmdline))
	}
	return out
}

// lockHolders lists the processes that have path open.
func lockHolders(path string) string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		fds, _ := os.ReadDir(filepath.Join("/proc", e.Name(), "fd"))
		for _, fd := range fds {
			if l, _ := os.Readlink(filepath.Join("/proc", e.Name(), "fd", fd.Name())); l == path {
				cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
				status, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
				out = append(out, fmt.Sprintf("pid %s fd %s: %s\n%s", e.Name(), fd.Name(), strings.ReplaceAll(string(cmdline), "\x00", " "), status))
			}
		}
	}
	return strings.Join(out, "\n")
}

// dying reports a zombie or a process with SIGKILL pending.
func dying(status string) bool {
	for _, line := range strings.Split(status, "\n") {
		k, v, _ := strings.Cut(line, ":")
		v = strings.TrimSpace(v)
		switch k {
		case "State":
			if strings.HasPrefix(v, "Z") || strings.HasPrefix(v, "X") {
				return true
			}
		case "SigPnd", "ShdPnd":
			if mask, err := strconv.ParseUint(v, 16, 64); err == nil && mask&(1<<(uint(syscall.SIGKILL)-1)) != 0 {
				return true
			}
		}
	}
	return false
}
