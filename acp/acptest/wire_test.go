package acptest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
)

// rawPeer drives a fake over raw JSON-RPC lines, so tests can see exactly what is on the wire,
// malformed lines included.
type rawPeer struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan string
	done  chan error
	id    int
}

func startRaw(t *testing.T, opts Options) *rawPeer {
	t.Helper()
	c2aR, c2aW := io.Pipe()
	a2cR, a2cW := io.Pipe()
	p := &rawPeer{t: t, in: c2aW, lines: make(chan string, 1<<16), done: make(chan error, 1)}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	go func() { p.done <- Serve(ctx, c2aR, a2cW, opts) }()
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(a2cR)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		_ = c2aW.Close()
		select {
		case <-p.done:
		case <-time.After(waitLimit):
			t.Error("Serve did not return")
		}
		cancel()
	})
	return p
}

func (p *rawPeer) send(method string, params any) int {
	p.id++
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": p.id, "method": method, "params": params})
	if _, err := p.in.Write(append(b, '\n')); err != nil {
		p.t.Fatal(err)
	}
	return p.id
}

// next returns the next line, or fails the test when the fake stays silent.
func (p *rawPeer) next() string {
	p.t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			p.t.Fatal("the fake closed its output")
		}
		return l
	case <-time.After(waitLimit):
		p.t.Fatal("timed out waiting for output")
	}
	return ""
}

// call sends a request and returns its response, collecting every line before it.
func (p *rawPeer) call(method string, params any) (resp map[string]any, before []string) {
	p.t.Helper()
	id := p.send(method, params)
	for {
		l := p.next()
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["method"] == nil && m["id"] == float64(id) {
			return m, before
		}
		before = append(before, l)
	}
}

func (p *rawPeer) session(cwd string) string {
	p.t.Helper()
	p.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	res, _ := p.call("session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}})
	sid, _ := statusPath(res, "result", "sessionId").(string)
	if sid == "" {
		p.t.Fatalf("session/new: %v", res)
	}
	return sid
}

func textPrompt(sid, text string) map[string]any {
	return map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": text}}}
}

// fixture returns the first message of a recorded real-worker transcript that matches.
func fixture(t *testing.T, name string, match func(dir string, m map[string]any) bool) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "reasonix-1.38.11", name))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		var rec struct {
			Dir string         `json:"dir"`
			Msg map[string]any `json:"msg"`
		}
		if json.Unmarshal([]byte(line), &rec) == nil && match(rec.Dir, rec.Msg) {
			return rec.Msg
		}
	}
	t.Fatalf("%s: no matching message", name)
	return nil
}

// shape lists every key path of a JSON value, with array elements merged, so two messages can
// be compared by structure rather than by value.
func shape(v any, prefix string, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			out[prefix+"."+k] = true
			shape(e, prefix+"."+k, out)
		}
	case []any:
		for _, e := range x {
			shape(e, prefix+"[]", out)
		}
	}
}

func shapeDiff(t *testing.T, what string, want, got any) {
	t.Helper()
	w, g := map[string]bool{}, map[string]bool{}
	shape(want, "", w)
	shape(got, "", g)
	var missing, extra []string
	for k := range w {
		if !g[k] {
			missing = append(missing, k)
		}
	}
	for k := range g {
		if !w[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing)+len(extra) > 0 {
		t.Errorf("%s differs from the real worker: missing %v, extra %v", what, missing, extra)
	}
}

func TestWireShapesMatchTheRealWorker(t *testing.T) {
	p := startRaw(t, Options{Scenario: scenario(t, `{"turns":[{"steps":[{"text":"Hello."}]}]}`)})
	cwd := t.TempDir()
	init, _ := p.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	real := fixture(t, "text.ndjson", func(d string, m map[string]any) bool { return d == "a2c" && m["id"] == float64(1) })
	if !reflect.DeepEqual(init["result"], real["result"]) {
		t.Errorf("initialize result differs:\n got %v\nwant %v", init["result"], real["result"])
	}
	sess, notes := p.call("session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}})
	real = fixture(t, "text.ndjson", func(d string, m map[string]any) bool { return d == "a2c" && m["id"] == float64(2) })
	r1, r2 := sess["result"].(map[string]any), real["result"].(map[string]any)
	for _, k := range []string{"models", "modes", "configOptions"} {
		if !reflect.DeepEqual(r1[k], r2[k]) {
			t.Errorf("session/new %s differs:\n got %v\nwant %v", k, r1[k], r2[k])
		}
	}
	if len(notes) != 0 {
		t.Errorf("output before the session/new answer: %v", notes)
	}
	sid := r1["sessionId"].(string)
	_, _ = p.call("_reasonix.io/session/status", map[string]any{"sessionId": sid}) // drops the commands update

	resp, before := p.call("session/prompt", textPrompt(sid, "hi"))
	if statusPath(resp, "result", "stopReason") != "end_turn" {
		t.Fatalf("prompt: %v", resp)
	}
	var completion map[string]any
	for _, l := range before {
		var m map[string]any
		_ = json.Unmarshal([]byte(l), &m)
		if m["method"] == "_reasonix.io/session/status_update" && statusPath(m, "params", "event") == "completion" {
			completion = m
		}
	}
	realCompletion := fixture(t, "text.ndjson", func(d string, m map[string]any) bool {
		return m["method"] == "_reasonix.io/session/status_update" && statusPath(m, "params", "event") == "completion"
	})
	// the real usage block also carries cost-estimate fields the fake has no use for
	for _, m := range []map[string]any{completion, realCompletion} {
		delete(statusPath(m, "params", "status").(map[string]any), "usage")
	}
	shapeDiff(t, "completion status_update", realCompletion, completion)

	gate := fixture(t, "qshell_readonly_reject.ndjson", func(d string, m map[string]any) bool { return m["method"] == "session/request_permission" })
	p2 := startRaw(t, Options{Scenario: scenario(t, `{"turns":[{"steps":[{"shell":{"command":"echo built > build.log && cat build.log"}}]}]}`)})
	sid = p2.session(cwd)
	p2.call("session/set_config_option", map[string]any{"sessionId": sid, "configId": "tool_approval", "value": "read-only"})
	p2.send("session/prompt", textPrompt(sid, "go"))
	for {
		var m map[string]any
		_ = json.Unmarshal([]byte(p2.next()), &m)
		if m["method"] == "session/request_permission" {
			shapeDiff(t, "compound permission request", gate["params"], m["params"])
			if !reflect.DeepEqual(m["params"].(map[string]any)["options"], gate["params"].(map[string]any)["options"]) {
				t.Errorf("options differ: %v", m["params"].(map[string]any)["options"])
			}
			break
		}
	}
}

func TestGarbageLineIsWrittenRaw(t *testing.T) {
	p := startRaw(t, Options{Scenario: scenario(t, `{"turns":[{"steps":[{"garbage":"{\"jsonrpc\":\"2.0\",\"method\":"},{"text":"after"}]}]}`)})
	sid := p.session(t.TempDir())
	resp, before := p.call("session/prompt", textPrompt(sid, "go"))
	if statusPath(resp, "result", "stopReason") != "end_turn" {
		t.Fatalf("prompt: %v", resp)
	}
	garbage := 0
	for _, l := range before {
		if !json.Valid([]byte(l)) {
			garbage++
			if l != `{"jsonrpc":"2.0","method":` {
				t.Fatalf("garbage line %q", l)
			}
		}
	}
	if garbage != 1 {
		t.Fatalf("%d malformed lines in %v", garbage, before)
	}
}

func TestFloodSendsEveryChunk(t *testing.T) {
	p := startRaw(t, Options{Scenario: scenario(t, `{"turns":[{"steps":[{"flood":2000},{"text":"done"}]}]}`)})
	sid := p.session(t.TempDir())
	resp, before := p.call("session/prompt", textPrompt(sid, "go"))
	if statusPath(resp, "result", "stopReason") != "end_turn" {
		t.Fatalf("prompt: %v", resp)
	}
	n := 0
	for _, l := range before {
		if strings.Contains(l, `"text":"flood `) {
			n++
		}
	}
	if n != 2000 {
		t.Fatalf("%d flood chunks", n)
	}
}

func TestCrashEndsServeWithItsExitCode(t *testing.T) {
	c2aR, c2aW := io.Pipe()
	a2cR, a2cW := io.Pipe()
	defer c2aW.Close()
	done := make(chan error, 1)
	sc := scenario(t, `{"turns":[{"steps":[{"text":"about to crash"},{"crash":{"exit_code":3,"stderr":"panic: scripted"}}]}]}`)
	go func() { done <- Serve(context.Background(), c2aR, a2cW, Options{Scenario: sc}) }()
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		s := bufio.NewScanner(a2cR)
		for s.Scan() {
			lines <- s.Text()
		}
	}()
	for i, m := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`,
		`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"` + t.TempDir() + `","mcpServers":[]}}`,
	} {
		if _, err := c2aW.Write([]byte(m + "\n")); err != nil {
			t.Fatal(err)
		}
		for l := range lines {
			if strings.Contains(l, `"id":`+string(rune('1'+i))) && strings.Contains(l, `"result"`) {
				if i == 1 {
					var r map[string]any
					_ = json.Unmarshal([]byte(l), &r)
					sid := statusPath(r, "result", "sessionId").(string)
					b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": textPrompt(sid, "go")})
					if _, err := c2aW.Write(append(b, '\n')); err != nil {
						t.Fatal(err)
					}
				}
				break
			}
		}
	}
	var err error
	select {
	case err = <-done:
	case <-time.After(waitLimit):
		t.Fatal("Serve did not return after the crash")
	}
	var crash *CrashError
	if !errors.As(err, &crash) || crash.ExitCode != 3 || crash.Stderr != "panic: scripted" {
		t.Fatalf("Serve returned %v", err)
	}
	var rest []string
	for l := range lines { // the output is closed: the client sees EOF
		rest = append(rest, l)
	}
	for _, l := range rest {
		if strings.Contains(l, `"stopReason"`) {
			t.Fatalf("a crashed worker answered the prompt: %s", l)
		}
	}
}

func TestFreezeStopsAllAnswers(t *testing.T) {
	p := startRaw(t, Options{Scenario: scenario(t, `{"turns":[{"steps":[{"text":"frozen next","chunks":1},{"freeze":true}]}]}`)})
	sid := p.session(t.TempDir())
	p.send("session/prompt", textPrompt(sid, "go"))
	for !strings.Contains(p.next(), "frozen next") {
	}
	_ = p.in.Close()
	for l := range p.lines { // ends when Serve, having seen the input end, closes the output
		if strings.Contains(l, "stopReason") {
			t.Fatalf("a frozen worker answered the prompt: %s", l)
		}
	}
	if err := <-p.done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	p.done <- nil // for the cleanup
}

func TestBadInput(t *testing.T) {
	p := startRaw(t, Options{})
	if _, err := p.in.Write([]byte("this is not json\n")); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(p.next()), &m); err != nil || statusPath(m, "error", "code") != float64(-32700) {
		t.Fatalf("answer to garbage: %v %v", m, err)
	}
	resp, _ := p.call("session/new", map[string]any{"cwd": "relative/dir", "mcpServers": []any{}})
	if statusPath(resp, "error", "code") != float64(-32602) {
		t.Fatalf("relative cwd: %v", resp)
	}
	resp, _ = p.call("session/steer", map[string]any{})
	if statusPath(resp, "error", "code") != float64(-32601) || statusPath(resp, "error", "message") != "method not found: session/steer" {
		t.Fatalf("unprefixed steer: %v", resp)
	}
	resp, _ = p.call("session/prompt", textPrompt("nope", "x"))
	if statusPath(resp, "error", "code") != float64(-32602) {
		t.Fatalf("prompt for an unknown session: %v", resp)
	}
}

func TestScenarioValidation(t *testing.T) {
	for name, js := range map[string]string{
		"two actions":    `{"turns":[{"steps":[{"text":"a","hang":true}]}]}`,
		"no action":      `{"turns":[{"steps":[{}]}]}`,
		"unknown field":  `{"turns":[{"steps":[{"txt":"a"}]}]}`,
		"bad permission": `{"turns":[{"steps":[{"shell":{"command":"ls"},"permission":"maybe"}]}]}`,
		"bad plan":       `{"turns":[{"steps":[{"plan":[{"content":"x","status":"done"}]}]}]}`,
		"empty edit":     `{"turns":[{"steps":[{"edit":{"path":"a","old":"","new":"b"}}]}]}`,
		"bad on_steer":   `{"turns":[{"steps":[{"text":"a"}],"on_steer":[{"ask":{"question":"q"}}]}]}`,
		"not json":       `{"turns":`,
	} {
		var se *ScenarioError
		if _, err := ParseScenario([]byte(js)); !errors.As(err, &se) {
			t.Errorf("%s: got %v, want *ScenarioError", name, err)
		}
	}
	if err := DefaultScenario().Validate(); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadScenario(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Fatal("loaded a missing file")
	}
	if err := Serve(context.Background(), strings.NewReader(""), io.Discard, Options{Scenario: &Scenario{Turns: []Turn{{Steps: []Step{{}}}}}}); err == nil {
		t.Fatal("Serve accepted an invalid scenario")
	}
}

func TestStaticArgv(t *testing.T) {
	for cmd, want := range map[string][]string{
		"ls":                         {"ls"},
		"go test ./...":              {"go", "test", "./..."},
		`git commit -m 'a b' "c d"`:  {"git", "commit", "-m", "a b", "c d"},
		"echo built > build.log":     nil,
		"a && b":                     nil,
		"cat x | wc -l":              nil,
		"echo $HOME":                 nil,
		`echo "$(id)"`:               nil,
		"FOO=1 make":                 nil,
		"ls *.go":                    nil,
		"echo 'unterminated":         nil,
		"   ":                        nil,
		"sleep 4; echo slept":        nil,
		"go test -run 'TestA|TestB'": {"go", "test", "-run", "TestA|TestB"},
	} {
		got, ok := StaticArgv(cmd)
		if ok != (want != nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("StaticArgv(%q) = %q, %v; want %q", cmd, got, ok, want)
		}
	}
}
