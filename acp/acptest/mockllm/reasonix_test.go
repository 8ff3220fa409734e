package mockllm

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"
)

// start reads the worker's messages from stdout and opens a session in ws (initialize, then
// session/new), returning its id.
func (p *rpcPeer) start(ctx context.Context, stdout io.Reader, ws string) string {
	go func() {
		defer close(p.msgs)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				p.msgs <- m
			}
		}
	}()
	p.call(ctx, "initialize", map[string]any{"protocolVersion": 1,
		"clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": false, "writeTextFile": false}, "terminal": false}}, nil)
	sess := p.call(ctx, "session/new", map[string]any{"cwd": ws, "mcpServers": []any{}}, nil)
	sid, _ := sess["sessionId"].(string)
	if sid == "" {
		p.t.Fatalf("session/new: %v", sess)
	}
	return sid
}

// rpcPeer speaks raw newline-delimited JSON-RPC to a worker process, so this test depends on
// nothing but the wire.
type rpcPeer struct {
	t      *testing.T
	in     io.Writer
	msgs   chan map[string]any
	nextID int
	// answer, when set, answers the worker's requests; ok false refuses one.
	answer func(method string, params map[string]any) (result any, ok bool)
}

func (p *rpcPeer) send(msg map[string]any) {
	msg["jsonrpc"] = "2.0"
	b, _ := json.Marshal(msg)
	if _, err := p.in.Write(append(b, '\n')); err != nil {
		p.t.Fatalf("write: %v", err)
	}
}

// call sends a request and returns its result, passing every other message to seen.
func (p *rpcPeer) call(ctx context.Context, method string, params any, seen func(map[string]any)) map[string]any {
	p.t.Helper()
	p.nextID++
	id := p.nextID
	p.send(map[string]any{"id": id, "method": method, "params": params})
	for {
		select {
		case m, ok := <-p.msgs:
			if !ok {
				p.t.Fatalf("%s: worker closed its output", method)
			}
			if _, isReq := m["method"]; isReq && m["id"] != nil {
				if p.answer != nil {
					params, _ := m["params"].(map[string]any)
					if res, ok := p.answer(m["method"].(string), params); ok {
						p.send(map[string]any{"id": m["id"], "result": res})
						continue
					}
				}
				// what is not answered is refused, so a smoke scenario grants nothing by default
				p.send(map[string]any{"id": m["id"], "error": map[string]any{"code": -32601, "message": "not supported"}})
				continue
			}
			if rid, _ := m["id"].(float64); m["method"] == nil && int(rid) == id {
				if e := m["error"]; e != nil {
					p.t.Fatalf("%s: error %v", method, e)
				}
				res, _ := m["result"].(map[string]any)
				return res
			}
			if seen != nil {
				seen(m)
			}
		case <-ctx.Done():
			p.t.Fatalf("%s: %v", method, ctx.Err())
		}
	}
}

// TestRealReasonixAgainstMock runs the real worker binary named by REASONIX_BIN against the mock.
func TestRealReasonixAgainstMock(t *testing.T) {
	bin := os.Getenv("REASONIX_BIN")
	if bin == "" {
		t.Skip("REASONIX_BIN is not set")
	}
	script, err := LoadScript("testdata/script.json")
	if err != nil {
		t.Fatal(err)
	}
	srv := start(t, *script)
	dir := t.TempDir()
	env, err := WriteReasonixHome(dir, srv.BaseURL())
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "acp")
	cmd.Dir, cmd.Env = ws, env
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stdin.Close(); _ = cmd.Wait() })
	p := &rpcPeer{t: t, in: stdin, msgs: make(chan map[string]any, 256)}
	sid := p.start(ctx, stdout, ws)
	p.call(ctx, "session/set_config_option", map[string]any{"sessionId": sid, "configId": "model", "value": "mock/mock-model"}, nil)
	var text string
	res := p.call(ctx, "session/prompt", map[string]any{"sessionId": sid,
		"prompt": []any{map[string]any{"type": "text", "text": "SCENARIO:text say hello"}}}, func(m map[string]any) {
		params, _ := m["params"].(map[string]any)
		upd, _ := params["update"].(map[string]any)
		if upd["sessionUpdate"] == "agent_message_chunk" {
			content, _ := upd["content"].(map[string]any)
			text += fmt.Sprint(content["text"])
		}
	})
	if res["stopReason"] != "end_turn" {
		t.Fatalf("prompt result %v", res)
	}
	if text != "Hello from the mock model. This is a plain text answer." {
		t.Fatalf("agent text %q", text)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Scenario != "SCENARIO:text" || reqs[0].Body["model"] != "mock-model" || !reqs[0].Finished {
		t.Fatalf("provider saw %+v", reqs)
	}
}
