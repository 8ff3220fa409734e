package acptest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

var callSeq atomic.Int64

// Ways a turn ends other than completing.
var (
	errCancelled = errors.New("turn cancelled")
	errGone      = errors.New("worker gone") // crashed, frozen or shut down: no answer is sent
)

// turnFailure ends a turn with a JSON-RPC error for the prompt.
type turnFailure struct {
	reason     string
	diagnostic string
}

func (f *turnFailure) Error() string { return f.reason }

func (a *agent) prompt(req *request) {
	s, text, rerr := a.sessionPrompt(req, "session/prompt")
	if rerr != nil {
		req.reply(nil, rerr)
		return
	}

	s.mu.Lock()
	if s.turn != nil {
		s.mu.Unlock()
		req.reply(nil, &rpcError{Code: -32600, Message: "session/prompt: session already has an active prompt"})
		return
	}
	ctx, cancel := context.WithCancel(a.ctx)
	defer cancel()
	t := &activeTurn{cancel: cancel, wake: make(chan struct{})}
	s.turn = t
	script, matched := a.pickTurn(s.prompts, text)
	if !matched {
		s.prompts++
	}
	if s.title == "" {
		s.title = truncate(text, 80)
	}
	s.messages += 2
	s.updated = time.Now()
	s.turnUse = usageCounts{}
	s.phase, s.outcome, s.ready, s.summary = "starting", map[string]any{"kind": "none"}, false, ""
	s.goal = "none"
	if s.mode == "goal" {
		s.goal = "running"
	}
	s.emitLocked("phase")
	s.mu.Unlock()

	pl := &player{a: a, s: s, t: t, ctx: ctx, turn: script, promptChars: len(text)}
	err := pl.run()
	if err == nil && s.currentMode() == "plan" {
		err = pl.exitPlanMode()
	}
	s.finish(req, pl, err)
}

// pickTurn chooses the script for a prompt: a turn whose Match the text contains, else the
// n-th turn without a Match.
func (a *agent) pickTurn(n int, text string) (turn Turn, matched bool) {
	sc := a.opts.Scenario
	for _, t := range sc.Turns {
		if t.Match != "" && strings.Contains(text, t.Match) {
			return t, true
		}
	}
	var plain []Turn
	for _, t := range sc.Turns {
		if t.Match == "" {
			plain = append(plain, t)
		}
	}
	switch {
	case n < len(plain):
		return plain[n], false
	case sc.After != nil:
		return *sc.After, false
	}
	return Turn{Steps: []Step{{Text: "Nothing more to do."}}}, false
}

func (s *session) currentMode() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mode
}

// finish reports how the turn ended, then answers the prompt.
func (s *session) finish(req *request, pl *player, err error) {
	if errors.Is(err, errGone) || pl.a.ctx.Err() != nil {
		return
	}
	var fail *turnFailure
	s.mu.Lock()
	s.turn = nil
	switch {
	case err == nil:
		if !pl.reportedUsage {
			s.addUsageLocked(1000+pl.promptChars/4, max(1, pl.outputChars/4))
			s.emitLocked("usage")
		}
		s.phase, s.outcome = "completed", map[string]any{"kind": "completed"}
		s.ready, s.summary = !pl.turn.NotReady, pl.turn.Summary
		if s.summary == "" {
			s.summary = pl.lastText
		}
		if s.mode == "goal" {
			s.goal = "complete"
		}
		s.emitLocked("completion")
	case errors.Is(err, errCancelled):
		s.phase, s.outcome, s.goal = "cancelled", map[string]any{"kind": "cancelled"}, "cancelled"
		s.emitLocked("completion")
	case errors.As(err, &fail):
		outcome := map[string]any{"kind": "error", "reason": fail.reason}
		if fail.diagnostic != "" {
			outcome["diagnostic"] = map[string]any{"kind": fail.diagnostic}
		}
		s.phase, s.outcome, s.goal = "error", outcome, "failed"
		s.emitLocked("error")
	}
	s.mu.Unlock()
	if pl.modeAfter != "" {
		s.update(map[string]any{"sessionUpdate": "current_mode_update", "currentModeId": pl.modeAfter})
	}
	switch {
	case err == nil:
		req.reply(map[string]any{"stopReason": "end_turn"}, nil)
	case errors.Is(err, errCancelled):
		req.reply(map[string]any{"stopReason": "cancelled"}, nil)
	case fail != nil:
		req.reply(nil, &rpcError{Code: -32603, Message: "session/prompt: " + fail.reason})
	}
}

func (s *session) addUsageLocked(prompt, completion int) {
	s.turnUse.prompt += prompt
	s.turnUse.completion += completion
	s.cumUse.prompt += prompt
	s.cumUse.completion += completion
}

// player plays one turn's script.
type player struct {
	a    *agent
	s    *session
	t    *activeTurn
	ctx  context.Context
	turn Turn

	promptChars, outputChars int
	lastText                 string
	reportedUsage            bool
	modeAfter                string // a mode the turn switched to, reported after it ends
}

func (p *player) run() error {
	for _, st := range p.turn.Steps {
		if err := p.answerSteers(); err != nil {
			return err
		}
		if err := p.step(st); err != nil {
			return err
		}
	}
	return p.answerSteers()
}

// answerSteers plays OnSteer once for every steer not yet answered.
func (p *player) answerSteers() error {
	if len(p.turn.OnSteer) == 0 {
		return nil
	}
	for {
		p.s.mu.Lock()
		if p.t.played >= len(p.t.steers) {
			p.s.mu.Unlock()
			return nil
		}
		p.t.played++
		p.s.mu.Unlock()
		for _, st := range p.turn.OnSteer {
			if err := p.step(st); err != nil {
				return err
			}
		}
	}
}

func (p *player) latestSteer() string {
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	if len(p.t.steers) == 0 {
		return ""
	}
	return p.t.steers[len(p.t.steers)-1]
}

func (p *player) sleep(ms int) error {
	if ms <= 0 {
		return p.ctxErr()
	}
	timer := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-p.ctx.Done():
		return p.ctxErr()
	}
}

// ctxErr tells a cancelled turn from a worker that is shutting down.
func (p *player) ctxErr() error {
	switch {
	case p.a.ctx.Err() != nil:
		return errGone
	case p.ctx.Err() != nil:
		return errCancelled
	}
	return nil
}

func (p *player) step(st Step) error {
	if err := p.sleep(st.DelayMS); err != nil {
		return err
	}
	switch {
	case st.Text != "":
		text := strings.ReplaceAll(st.Text, "{{steer}}", p.latestSteer())
		p.chunks("agent_message_chunk", text, st.Chunks)
		p.lastText = text
	case st.Thought != "":
		p.chunks("agent_thought_chunk", st.Thought, st.Chunks)
	case st.Plan != nil:
		p.plan(st.Plan)
	case st.Write != nil:
		return p.writeFile(st)
	case st.Edit != nil:
		return p.editFile(st)
	case st.Read != "":
		p.readFile(st.Read)
	case st.Shell != nil:
		return p.shell(st)
	case st.Ask != nil:
		return p.ask(st.Ask)
	case st.Usage != nil:
		p.s.mu.Lock()
		p.s.addUsageLocked(st.Usage.PromptTokens, st.Usage.CompletionTokens)
		p.s.emitLocked("usage")
		p.s.mu.Unlock()
		p.reportedUsage = true
	case st.WaitSteer:
		return p.waitSteer()
	case st.Hang:
		<-p.ctx.Done()
		return p.ctxErr()
	case st.Freeze:
		p.a.conn.frozen.Store(true)
		<-p.a.ctx.Done()
		return errGone
	case st.Crash != nil:
		p.a.crash(&CrashError{ExitCode: st.Crash.ExitCode, Stderr: st.Crash.Stderr})
		<-p.a.ctx.Done()
		return errGone
	case st.Flood > 0:
		title := "flood" + strings.Repeat(".", max(st.FloodBytes-5, 0))
		for i := 0; i < st.Flood && p.ctx.Err() == nil; i++ {
			if st.FloodKind == "tool_call" {
				p.s.update(map[string]any{"sessionUpdate": "tool_call", "toolCallId": fmt.Sprintf("flood_%d", i),
					"title": title, "kind": "read", "status": "completed"})
				continue
			}
			p.s.update(map[string]any{"sessionUpdate": "agent_message_chunk", "content": textBlock(fmt.Sprintf("flood %d\n", i))})
		}
	case st.Garbage != "":
		_ = p.a.conn.writeLine([]byte(st.Garbage))
	case st.Fail != "":
		return &turnFailure{reason: st.Fail}
	case st.Spawn != "":
		p.spawn(st.Spawn)
	}
	return p.ctxErr()
}

// spawn starts command in the background, in the worker's process group, and reaps it when it
// ends.
func (p *player) spawn(command string) {
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Dir = p.s.cwd
	if err := cmd.Start(); err != nil {
		p.a.log.Warn("acptest: spawn failed", "command", command, "err", err)
		return
	}
	go func() { _ = cmd.Wait() }()
}

func (p *player) waitSteer() error {
	for {
		p.s.mu.Lock()
		got, wake := len(p.t.steers) > 0, p.t.wake
		p.s.mu.Unlock()
		if got {
			return nil
		}
		select {
		case <-wake:
		case <-p.ctx.Done():
			return p.ctxErr()
		}
	}
}

func textBlock(s string) map[string]any {
	if s == "" {
		return map[string]any{"type": "text"} // the worker omits an empty text entirely
	}
	return map[string]any{"type": "text", "text": s}
}

func toolContent(s string) []any {
	return []any{map[string]any{"type": "content", "content": textBlock(s)}}
}

func (p *player) chunks(kind, text string, n int) {
	if n == 0 {
		n = 2
	}
	for _, part := range splitRunes(text, n) {
		p.s.update(map[string]any{"sessionUpdate": kind, "content": textBlock(part)})
	}
	p.outputChars += len(text)
}

func splitRunes(s string, n int) []string {
	r := []rune(s)
	size := max(1, (len(r)+n-1)/n)
	var out []string
	for i := 0; i < len(r); i += size {
		out = append(out, string(r[i:min(i+size, len(r))]))
	}
	return out
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

func (p *player) newCallID() string { return fmt.Sprintf("call_fake_%d", callSeq.Add(1)) }

func (p *player) toolCall(id, title, kind string, raw any, locations []any) {
	u := map[string]any{"sessionUpdate": "tool_call", "toolCallId": id, "title": title, "kind": kind, "status": "pending", "rawInput": raw}
	if locations != nil {
		u["locations"] = locations
	}
	p.s.update(u)
}

func (p *player) toolDone(id string, ok bool, text string) {
	status := "completed"
	if !ok {
		status = "failed"
	}
	p.s.update(map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": id, "status": status, "content": toolContent(text)})
	p.outputChars += len(text)
}

func (p *player) plan(entries []PlanEntry) {
	id := p.newCallID()
	p.toolCall(id, "todo_write", "edit", map[string]any{"todos": entries}, nil)
	out := make([]any, len(entries))
	counts := map[string]int{"total": len(entries), "pending": 0, "in_progress": 0, "completed": 0}
	for i, e := range entries {
		out[i] = map[string]any{"content": e.Content, "priority": "medium", "status": e.Status}
		counts[e.Status]++
	}
	p.s.update(map[string]any{"sessionUpdate": "plan", "entries": out})
	result, _ := json.Marshal(map[string]any{"todos": entries, "counts": counts})
	p.toolDone(id, true, string(result))
}

// permission is one gated tool use, described as the worker describes it.
type permission struct {
	callID   string
	title    string
	kind     string
	raw      any
	location []any
	meta     map[string]any
	rule     string // the allow_always rule, e.g. "Bash(go test:*)" or "Edit"
}

// needsPermission applies the step override, the session's allow_always rules and then the
// worker's approval policy; writer says whether the tool changes anything.
func (p *player) needsPermission(override, rule string, writer bool) bool {
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	switch {
	case override == "never":
		return false
	case p.s.allowed[rule]:
		return false
	case override == "ask":
		return true
	case p.a.opts.Legacy:
		return p.s.approval == "ask"
	}
	return p.s.approval == "read-only" && writer
}

// requestPermission asks the client; it returns whether the tool may run, or errCancelled /
// errGone when the turn ended while the request was open (the request is then abandoned).
func (p *player) requestPermission(g permission) (bool, error) {
	p.s.mu.Lock()
	p.s.gate++
	n := p.s.gate
	p.s.phase = "waiting_permission"
	p.s.emitLocked("phase")
	p.s.mu.Unlock()
	g.meta["approvalId"] = fmt.Sprint(n)
	tc := map[string]any{"toolCallId": fmt.Sprintf("gate-%d", n), "title": g.title, "kind": g.kind, "status": "pending",
		"_meta": map[string]any{"reasonix.io": g.meta}}
	if g.raw != nil {
		tc["rawInput"] = g.raw
	}
	if g.location != nil {
		tc["locations"] = g.location
	}
	options := []any{
		map[string]any{"optionId": "allow_once", "name": "Allow", "kind": "allow_once"},
		map[string]any{"optionId": "allow_always", "name": "Allow " + g.rule + " for this session", "kind": "allow_always"},
		map[string]any{"optionId": "reject_once", "name": "Reject", "kind": "reject_once"},
	}
	if g.rule == "" {
		options = []any{options[0], options[2]}
	}
	res, err := p.a.conn.call(p.ctx, "session/request_permission", map[string]any{"sessionId": p.s.id, "toolCall": tc, "options": options})
	if cerr := p.ctxErr(); cerr != nil {
		return false, cerr
	}
	p.s.setPhase("implementing")
	if err != nil {
		p.a.log.Warn("acptest: permission request failed", "err", err)
		return false, nil
	}
	choice := selectedOption(res)
	if choice == "allow_always" && g.rule != "" {
		p.s.mu.Lock()
		p.s.allowed[g.rule] = true
		p.s.mu.Unlock()
	}
	return choice == "allow_once" || choice == "allow_always", nil
}

// selectedOption is the optionId the client selected, "" for a cancelled or malformed answer.
func selectedOption(res json.RawMessage) string {
	var r struct {
		Outcome struct {
			Outcome  string `json:"outcome"`
			OptionID string `json:"optionId"`
		} `json:"outcome"`
	}
	if json.Unmarshal(res, &r) != nil || r.Outcome.Outcome != "selected" {
		return ""
	}
	return r.Outcome.OptionID
}

// gate runs the permission step for a tool call and reports a refusal on the tool call.
func (p *player) gate(override string, writer bool, g permission) (bool, error) {
	if !p.needsPermission(override, g.rule, writer) {
		return true, nil
	}
	ok, err := p.requestPermission(g)
	switch {
	case err != nil:
		if errors.Is(err, errCancelled) {
			p.toolDone(g.callID, false, "blocked: context canceled")
		}
		return false, err
	case !ok:
		p.toolDone(g.callID, false, "blocked by permission policy")
	}
	return ok, nil
}

func (p *player) shell(st Step) error {
	cmd := st.Shell.Command
	id := p.newCallID()
	raw := map[string]any{"command": cmd}
	p.toolCall(id, "bash", "execute", raw, nil)
	argv, simple := StaticArgv(cmd)
	meta := map[string]any{"fresh": false, "subject": cmd, "tool": "bash"}
	rule := "Bash=" + cmd
	if simple {
		meta["argv"], meta["commandSchemaVersion"], meta["cwd"] = argv, 1, p.s.cwd
		rule = "Bash(" + strings.Join(argv[:min(2, len(argv))], " ") + ":*)"
	}
	ok, err := p.gate(st.Permission, !simple || !readOnlyCommand(argv),
		permission{callID: id, title: "bash " + cmd, kind: "execute", raw: raw, meta: meta, rule: rule})
	if !ok || err != nil {
		return err
	}
	p.toolDone(id, st.Shell.ExitCode == 0, st.Shell.Output)
	return p.ctxErr()
}

func (p *player) fileGate(st Step, id, tool, path string, raw map[string]any) (abs string, ok bool, err error) {
	abs, rerr := resolveInside(p.s.cwd, path)
	loc := abs
	if rerr != nil {
		loc = filepath.Join(p.s.cwd, path)
	}
	locations := []any{map[string]any{"path": loc}}
	p.toolCall(id, tool, "edit", raw, locations)
	if rerr != nil {
		p.toolDone(id, false, rerr.Error())
		return "", false, nil
	}
	ok, err = p.gate(st.Permission, true, permission{callID: id, title: tool + " " + path, kind: "edit", raw: raw,
		location: locations, meta: map[string]any{"fresh": false, "subject": path, "tool": tool}, rule: "Edit"})
	return abs, ok, err
}

func (p *player) writeFile(st Step) error {
	w := st.Write
	id := p.newCallID()
	abs, ok, err := p.fileGate(st, id, "write_file", w.Path, map[string]any{"path": w.Path, "content": w.Content})
	if !ok || err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		p.toolDone(id, false, err.Error())
		return p.ctxErr()
	}
	if err := os.WriteFile(abs, []byte(w.Content), 0o644); err != nil {
		p.toolDone(id, false, err.Error())
		return p.ctxErr()
	}
	p.toolDone(id, true, fmt.Sprintf("wrote %d bytes to %s", len(w.Content), abs))
	return p.ctxErr()
}

func (p *player) editFile(st Step) error {
	e := st.Edit
	id := p.newCallID()
	abs, ok, err := p.fileGate(st, id, "edit_file", e.Path, map[string]any{"path": e.Path, "old_string": e.Old, "new_string": e.New})
	if !ok || err != nil {
		return err
	}
	data, rerr := os.ReadFile(abs)
	switch n := strings.Count(string(data), e.Old); {
	case rerr != nil:
		p.toolDone(id, false, rerr.Error())
	case n != 1:
		p.toolDone(id, false, fmt.Sprintf("edit_file: old_string occurs %d times in %s; it must occur exactly once", n, abs))
	default:
		if werr := os.WriteFile(abs, []byte(strings.Replace(string(data), e.Old, e.New, 1)), 0o644); werr != nil {
			p.toolDone(id, false, werr.Error())
			break
		}
		p.toolDone(id, true, fmt.Sprintf("edited %s\nActual replacement receipt after write:\n@@ replacement 1 of 1 (1 occurrence(s)) @@\n-%s\n+%s\n", abs, e.Old, e.New))
	}
	return p.ctxErr()
}

func (p *player) readFile(path string) {
	id := p.newCallID()
	abs, err := resolveInside(p.s.cwd, path)
	loc := abs
	if err != nil {
		loc = filepath.Join(p.s.cwd, path)
	}
	p.toolCall(id, "read_file", "read", map[string]any{"path": path}, []any{map[string]any{"path": loc}})
	if err != nil {
		p.toolDone(id, false, err.Error())
		return
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		p.toolDone(id, false, err.Error())
		return
	}
	var b strings.Builder
	for i, line := range strings.SplitAfter(string(data), "\n") {
		if line != "" {
			fmt.Fprintf(&b, "%d\u2192%s", i+1, line)
		}
	}
	p.toolDone(id, true, b.String())
}

// ask puts one question to the user through a permission request whose options are the answers.
func (p *player) ask(q *Question) error {
	id := p.newCallID()
	opts := make([]any, len(q.Options))
	rawOpts := make([]any, len(q.Options))
	perm := make([]any, 0, len(q.Options)+1)
	for i, c := range q.Options {
		opts[i] = map[string]any{"label": c.Label, "description": c.Description}
		rawOpts[i] = map[string]any{"Label": c.Label, "Description": c.Description}
		name := c.Label
		if c.Description != "" {
			name += " - " + c.Description
		}
		perm = append(perm, map[string]any{"optionId": fmt.Sprintf("q1:%d", i+1), "name": name, "kind": "allow_once"})
	}
	perm = append(perm, map[string]any{"optionId": "q1:cancel", "name": "Cancel", "kind": "reject_once"})
	p.toolCall(id, "ask", "other", map[string]any{"questions": []any{map[string]any{"header": q.Header, "question": q.Question,
		"options": opts, "multiSelect": false}}}, nil)

	p.s.mu.Lock()
	p.s.gate++
	n := p.s.gate
	p.s.phase = "waiting_input"
	p.s.emitLocked("phase")
	p.s.mu.Unlock()
	tc := map[string]any{"toolCallId": fmt.Sprintf("ask-%d-q1", n), "title": q.Question, "kind": "other", "status": "pending",
		"content":  toolContent(q.Header),
		"rawInput": map[string]any{"id": "q1", "multi": false, "options": rawOpts, "question": q.Question}}
	res, err := p.a.conn.call(p.ctx, "session/request_permission", map[string]any{"sessionId": p.s.id, "toolCall": tc, "options": perm})
	if cerr := p.ctxErr(); cerr != nil {
		if errors.Is(cerr, errCancelled) {
			p.toolDone(id, false, "ask: context canceled")
		}
		return cerr
	}
	var choice int
	if err == nil {
		_, _ = fmt.Sscanf(selectedOption(res), "q1:%d", &choice)
	}
	if choice < 1 || choice > len(q.Options) {
		p.toolDone(id, false, "ask: context canceled")
		return &turnFailure{reason: "context canceled", diagnostic: "cancelled"}
	}
	p.s.setPhase("implementing")
	header := q.Header
	if header == "" {
		header = q.Question
	}
	var dec [8]byte
	_, _ = rand.Read(dec[:])
	p.toolDone(id, true, fmt.Sprintf("The user answered:\n- %s: %s\n\ndecision_id: dec-%s", header, q.Options[choice-1].Label, hex.EncodeToString(dec[:])))
	return p.ctxErr()
}

// exitPlanMode ends a plan-mode turn the way the worker does: it asks to leave plan mode and,
// when allowed, switches the session back to normal.
func (p *player) exitPlanMode() error {
	ok, err := p.requestPermission(permission{title: "exit_plan_mode", kind: "other",
		meta: map[string]any{"fresh": false, "subject": "", "tool": "exit_plan_mode"}})
	if err != nil || !ok {
		return err
	}
	p.s.mu.Lock()
	p.s.mode = "normal"
	p.s.mu.Unlock()
	p.modeAfter = "normal"
	return nil
}

// resolveInside resolves path against cwd and refuses anything that lands outside cwd,
// symbolic links included.
func resolveInside(cwd, path string) (string, error) {
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(cwd, abs)
	}
	abs = filepath.Clean(abs)
	if !within(cwd, abs) || abs == cwd {
		return "", fmt.Errorf("path %s is outside the workspace %s", path, cwd)
	}
	root, err := filepath.EvalSymlinks(cwd)
	if err != nil {
		return "", err
	}
	// The deepest existing ancestor decides where a write would really land.
	existing := abs
	for {
		if _, err := os.Lstat(existing); err == nil {
			break
		}
		existing = filepath.Dir(existing)
	}
	real, err := filepath.EvalSymlinks(existing)
	if err != nil {
		return "", err
	}
	if !within(root, real) {
		return "", fmt.Errorf("path %s leaves the workspace %s through a symbolic link", path, cwd)
	}
	return abs, nil
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
