package remote

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
	"reasonixctl/core/engine"
)

// BenchmarkOwnerEventPath is the owner's work for one streamed text event, in process: a
// worker's session/update line with one text chunk is read and decoded (acp), coalesced and
// flushed by the task's pump (redacted and encoded), appended to the journal (store), and
// delivered to two subscribers to all tasks: one in the owner's process (Engine.Subscribe) and
// one through the owner's socket (the Subscribe stream's relay and its encoding), read as raw
// frames so that no dashboard's decoding is counted. One op is one journal event.
//
// The worker is the scripted fake, in process, holding its turn open; the benchmark writes the
// session/update lines itself, encoded beforehand, into the worker's output, so that the fake's
// own encoding is not counted either. The lines alternate between the agent's message and its
// thought, so each chunk flushes the one before it at once (the stream switched) rather than on
// the 250 ms timer a real stream waits for: the work is the same except for that timer's firing.
// Each line is written once both subscribers have the previous event, so the queues stay empty
// and ns/op is the event's whole path, hand-overs between goroutines included; cpu-µs/event is
// the process's CPU time (user and system) per event over the same loop.
//
//	go test -run '^$' -bench OwnerEventPath -benchmem ./core/remote
func BenchmarkOwnerEventPath(b *testing.B) {
	var inj atomic.Pointer[injector]
	scn := &acptest.Scenario{Turns: []acptest.Turn{{Steps: []acptest.Step{{Hang: true}}}}}
	dir := shortDir(b)
	e, err := engine.Open(engine.Config{StateDir: dir, Mode: "mcp", Worker: engine.PipeWorker(func(ctx context.Context, r io.Reader, w io.Writer) error {
		j := &injector{w: w}
		inj.Store(j)
		return acptest.Serve(ctx, r, j, acptest.Options{Scenario: scn})
	})})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	srv, err := serve(context.Background(), e, dir, Info{Mode: "mcp"}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// Both subscribers count the text events they receive and wake the benchmark.
	inProc := newEventCounter()
	sub, err := e.Subscribe(ctx, core.SubscribeOptions{})
	if err != nil {
		b.Fatal(err)
	}
	go func() {
		for ev := range sub.C {
			inProc.saw(ev.Type == core.EventWorkerStatus, isText(ev.Type))
		}
		inProc.end()
	}()
	socket := newEventCounter()
	if err := rawSubscribe(ctx, dir, socket); err != nil {
		b.Fatal(err)
	}

	const id = "stream-1"
	repo := newRepo(b)
	bg := 0
	if _, err := e.Delegate(ctx, core.DelegateRequest{TaskID: id, Contract: json.RawMessage(happyContract),
		Authority: core.Authority{Cwd: repo, Writable: true}, WaitTimeoutSeconds: &bg}); err != nil {
		b.Fatal(err)
	}
	// The turn has started once the worker's first status is journaled.
	inProc.waitStatus(b)
	socket.waitStatus(b)
	d, err := e.Get(ctx, id)
	if err != nil || d.View.SessionID == "" {
		b.Fatalf("no session: %v %+v", err, d.View)
	}
	lines := chunkLines(d.View.SessionID)
	j := inj.Load()
	write := func(i int) {
		if _, err := j.Write(lines[i%len(lines)]); err != nil {
			b.Fatal(err)
		}
	}
	// One chunk is held by the pump; each later one flushes the chunk before it.
	write(0)
	base := [2]int64{inProc.texts.Load(), socket.texts.Load()}
	cpu0 := processCPU()
	i := 1
	for b.Loop() {
		write(i)
		inProc.waitTexts(b, base[0]+int64(i))
		socket.waitTexts(b, base[1]+int64(i))
		i++
	}
	b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(i-1), "cpu-µs/event")
}

// processCPU is the CPU time the process has used, user and system: the benchmark's two
// readers count too, but they do little.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func isText(typ string) int {
	if typ == core.EventAgentMessage || typ == core.EventAgentThought {
		return 1
	}
	return 0
}

// chunkLines are session/update lines as the fake worker writes them: one text chunk each, of
// the agent's message and its thought in turn, about as long as a streamed word group.
func chunkLines(session string) [][]byte {
	var out [][]byte
	for i, kind := range []string{"agent_message_chunk", "agent_thought_chunk", "agent_message_chunk", "agent_thought_chunk"} {
		line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{
			"sessionId": session,
			"update":    map[string]any{"sessionUpdate": kind, "content": map[string]any{"type": "text", "text": fmt.Sprintf("word %d of the streamed answer. ", 40+i)}},
		}})
		out = append(out, append(line, '\n'))
	}
	return out
}

// injector is the fake worker's output, shared with the benchmark: one line per Write.
type injector struct {
	mu sync.Mutex
	w  io.Writer
}

func (j *injector) Write(p []byte) (int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.w.Write(p)
}

// eventCounter counts what a subscriber received.
type eventCounter struct {
	texts  atomic.Int64
	status atomic.Bool
	done   atomic.Bool
	wake   chan struct{}
}

func newEventCounter() *eventCounter { return &eventCounter{wake: make(chan struct{}, 1)} }

func (c *eventCounter) saw(status bool, texts int) {
	if status {
		c.status.Store(true)
	}
	c.texts.Add(int64(texts))
	c.signal()
}

func (c *eventCounter) end() {
	c.done.Store(true)
	c.signal()
}

func (c *eventCounter) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

func (c *eventCounter) waitStatus(b *testing.B) {
	for !c.status.Load() {
		if c.done.Load() {
			b.Fatal("the subscription ended")
		}
		<-c.wake
	}
}

func (c *eventCounter) waitTexts(b *testing.B, n int64) {
	for c.texts.Load() < n {
		if c.done.Load() {
			b.Fatal("the subscription ended")
		}
		<-c.wake
	}
}

// rawSubscribe opens the owner's Subscribe stream to all tasks over its socket and counts the
// events of every frame without decoding them.
func rawSubscribe(ctx context.Context, dir string, c *eventCounter) error {
	path := SocketPath(dir)
	hc := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", path)
		},
		DisableCompression: true,
	}}
	msg := []byte(`{"options":{}}`)
	body := binary.BigEndian.AppendUint32([]byte{0}, uint32(len(msg)))
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://owner"+procSubscribe, bytes.NewReader(append(body, msg...)))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/connect+json")
	req.Header.Set("Connect-Protocol-Version", "1")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return fmt.Errorf("subscribe: %s", resp.Status)
	}
	r := bufio.NewReaderSize(resp.Body, 64<<10)
	var head [5]byte
	var buf []byte
	readFrame := func() ([]byte, byte, error) {
		if _, err := io.ReadFull(r, head[:]); err != nil {
			return nil, 0, err
		}
		n := int(binary.BigEndian.Uint32(head[1:]))
		if cap(buf) < n {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		_, err := io.ReadFull(r, buf)
		return buf, head[0], err
	}
	ready, _, err := readFrame()
	if err != nil || !strings.Contains(string(ready), `"ready":true`) {
		resp.Body.Close()
		return fmt.Errorf("subscribe: no ready frame: %q %v", ready, err)
	}
	go func() {
		defer resp.Body.Close()
		defer c.end()
		for {
			frame, flags, err := readFrame()
			if err != nil || flags&2 != 0 { // end of stream
				return
			}
			c.saw(bytes.Contains(frame, []byte(`"type":"worker_status"`)),
				bytes.Count(frame, []byte(`"type":"agent_message"`))+bytes.Count(frame, []byte(`"type":"agent_thought"`)))
		}
	}()
	return nil
}
