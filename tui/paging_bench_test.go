package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
)

// manyTasks is a fake service with n running tasks and no journals.
func manyTasks(n int) *fakeService {
	f := newFake()
	for i := range n {
		id := fmt.Sprintf("task-%03d", i)
		v := core.TaskView{TaskID: id, State: core.StateRunning, Phase: "implementing", WorkerLane: core.LaneFast,
			RepositoryID: fmt.Sprintf("%08x", i), UpdatedAt: epoch.Add(-time.Duration(i) * time.Minute).Format(time.RFC3339Nano)}
		f.tasks = append(f.tasks, v)
		f.details[id] = core.TaskDetail{View: v, Repository: fmt.Sprintf("/src/repo-%03d", i), Objective: "Do task " + id + ".", CreatedAt: epoch}
	}
	return f
}

func modelOver(svc core.Service, w, h int) *Model {
	clk := &clock{t: epoch}
	m := newModel(context.Background(), svc, Options{StateDir: "/state", WorkerVersion: "1.38.11", Now: clk.Now, Dir: "/src/app"})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	drain(m, m.Init())
	return m
}

// drain runs commands and feeds their messages back until none are left.
func drain(m *Model, cmd tea.Cmd) {
	queue := runCmd(cmd)
	for len(queue) > 0 {
		msg := queue[0]
		queue = queue[1:]
		_, c := m.Update(msg)
		queue = append(queue, runCmd(c)...)
	}
}

// BenchmarkView100Tasks100kEvents draws the dashboard with 100 running tasks after 100,000
// events streamed in: spread over the tasks (1,000 each), or all into the selected one.
func BenchmarkView100Tasks100kEvents(b *testing.B) {
	for _, c := range []struct {
		name     string
		perTask  int
		selected int
	}{{"spread", 1000, 0}, {"one-task", 0, 100000}} {
		for _, size := range [][2]int{{80, 24}, {120, 40}} {
			b.Run(fmt.Sprintf("%s/%dx%d", c.name, size[0], size[1]), func(b *testing.B) {
				f := manyTasks(100)
				m := modelOver(f, size[0], size[1])
				for i, t := range f.tasks {
					n := c.perTask
					if i == 0 {
						n += c.selected
					}
					for _, msg := range benchEvents(t.TaskID, n) {
						drain(m, func() tea.Msg { return msg })
					}
				}
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					_ = m.View()
				}
			})
		}
	}
}

// BenchmarkReplay100kEvents selects a task whose journal holds 100,000 events until its
// events pane is drawn: Get, the journal's newest window read through Subscribe, the pane
// built, the first frame. One op is a fresh dashboard doing that.
func BenchmarkReplay100kEvents(b *testing.B) {
	f := journalFake("big", nil)
	for _, msg := range benchEvents("big", 100000) {
		f.journals["big"] = append(f.journals["big"], core.Event(msg.(eventMsg)))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m := modelOver(f, 120, 40)
		if p := m.task("big").events; p.lastSeq != 100000 {
			b.Fatalf("pane ends at %d", p.lastSeq)
		}
		_ = m.View()
	}
}

// floodEngine is a real engine whose one task's worker streamed n finished tool calls, each
// a journal event, and is waiting for review.
func floodEngine(b *testing.B, n int) *core.Engine {
	b.Helper()
	scen := &acptest.Scenario{Name: "flood", Turns: []acptest.Turn{{
		Steps:   []acptest.Step{{Write: &acptest.WriteFile{Path: "result.txt", Content: "done\n"}, Permission: "never"}, {Flood: n, FloodKind: "tool_call"}},
		Summary: "Flooded.",
	}}}
	e, err := core.Open(core.Config{
		StateDir: filepath.Join(b.TempDir(), "state"), Mode: "tui", PermissionMode: core.PermissionSupervised,
		AllowUnsandboxed: !core.SandboxAvailable(),
		Worker: core.PipeWorker(func(ctx context.Context, r io.Reader, w io.Writer) error {
			return acptest.Serve(ctx, r, w, acptest.Options{Scenario: scen})
		}),
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = e.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	sub, err := e.Subscribe(ctx, core.SubscribeOptions{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := e.Delegate(ctx, core.DelegateRequest{
		TaskID: "flood", Contract: json.RawMessage(engineContract), WaitMode: "background",
		Authority: core.Authority{Cwd: gitRepo(b), Writable: true},
	}); err != nil {
		b.Fatal(err)
	}
	for ev := range sub.C {
		var d core.StateChangedData
		if ev.Type == core.EventStateChanged && json.Unmarshal(ev.Data, &d) == nil && (d.To == core.StateReviewRequired || d.To.Terminal()) {
			return e
		}
	}
	b.Fatalf("the event stream ended before the flood task finished: %v", sub.Err())
	return nil
}

// BenchmarkReplay100kEventsEngine is BenchmarkReplay100kEvents against a real engine whose
// store holds the journal.
func BenchmarkReplay100kEventsEngine(b *testing.B) {
	e := floodEngine(b, 100000)
	d, err := e.Get(context.Background(), "flood")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(d.LastSeq), "journal-events")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m := modelOver(e, 120, 40)
		if p := m.task("flood").events; p.lastSeq < d.LastSeq {
			b.Fatalf("pane ends at %d of %d", p.lastSeq, d.LastSeq)
		}
		_ = m.View()
	}
}

// BenchmarkStream10MB streams 10 MB of agent text (4 KiB events, as the store coalesces them)
// through the dashboard, drawing a frame every 64 events, then pages back through the whole
// journal to its first event, and reports the heap the dashboard holds after each (after a GC,
// the journal's own memory subtracted).
func BenchmarkStream10MB(b *testing.B) {
	journal := monologueJournal("flood", 10<<20, 4<<10)
	f := journalFake("flood", journal)
	for i := 0; i < b.N; i++ {
		base := heapInUse()
		m := modelOver(journalFake("flood", nil), 80, 24)
		m.svc = f // later reads find the whole journal
		for j, ev := range journal {
			m.Update(eventMsg(ev))
			if j%64 == 63 {
				_ = m.View()
			}
		}
		_ = m.View()
		streamed := heapInUse()
		p := m.task("flood").events
		pages := 0
		for p.hasOlder() && pages < 100000 {
			_, cmd := m.Update(keyMsg("g"))
			drain(m, cmd)
			_ = m.View()
			p = m.task("flood").events
			pages++
		}
		if p.hasOlder() {
			b.Fatal("paging back did not reach the first event")
		}
		paged := heapInUse()
		b.ReportMetric(float64(streamed-base)/(1<<20), "MB-heap-streamed")
		b.ReportMetric(float64(paged-base)/(1<<20), "MB-heap-paged-back")
		b.ReportMetric(float64(pages), "pages")
		runtime.KeepAlive(m)
	}
}

func heapInUse() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapInuse)
}
