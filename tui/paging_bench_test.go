package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
	"reasonixctl/core/doctor"
	"reasonixctl/core/engine"
	"reasonixctl/store"
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
	// The frame after a usage report of the selected task, which holds 20,000 of them: the
	// header's figure of today decodes that task's reports again.
	b.Run("usage-report/120x40", func(b *testing.B) {
		f := manyTasks(100)
		m := modelOver(f, 120, 40)
		for i, t := range f.tasks {
			n := 1000
			if i == 0 {
				n = 100000
			}
			for _, msg := range benchEvents(t.TaskID, n) {
				drain(m, func() tea.Msg { return msg })
			}
		}
		id := f.tasks[0].TaskID
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			m.Update(ev(id, uint64(200000+i), core.EventUsage, core.Usage{PromptTokens: int64(2000000 + i)}))
			_ = m.View()
		}
	})
}

// BenchmarkReplay100kEvents selects a task whose journal holds 100,000 events until its
// events pane is drawn: Get, the journal's newest window read through Subscribe, the pane
// built, the first frame. One op is a fresh dashboard doing that.
func BenchmarkReplay100kEvents(b *testing.B) {
	f := journalFake("big", nil)
	for _, msg := range benchEvents("big", 100000) {
		f.journals["big"] = append(f.journals["big"], msg.(eventsMsg)[0])
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m := modelOver(f, 120, 40)
		if ti := m.info.task("big"); !ti.replayed || ti.events.Empty() {
			b.Fatal("the journal's newest window was not read")
		}
		_ = m.View()
	}
}

// bigJournalEngine is a real engine whose one task, waiting for review, has n more events
// appended to its journal through the store while the engine was closed: a worker cannot be
// made to write 100,000 events in a benchmark's set-up time.
func bigJournalEngine(b *testing.B, n int) *engine.Engine {
	b.Helper()
	state := filepath.Join(b.TempDir(), "state")
	scen := &acptest.Scenario{Name: "short", Turns: []acptest.Turn{{
		Steps:   []acptest.Step{{Write: &acptest.WriteFile{Path: "result.txt", Content: "done\n"}, Permission: "never"}, {Text: "Done."}},
		Summary: "Wrote result.txt.",
	}}}
	open := func() *engine.Engine {
		e, err := engine.Open(engine.Config{
			StateDir: state, Mode: "tui", PermissionMode: core.PermissionSupervised,
			AllowUnsandboxed: !doctor.SandboxAvailable(),
			Worker: engine.PipeWorker(func(ctx context.Context, r io.Reader, w io.Writer) error {
				return acptest.Serve(ctx, r, w, acptest.Options{Scenario: scen})
			}),
		})
		if err != nil {
			b.Fatal(err)
		}
		return e
	}
	e := open()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sub, err := e.Subscribe(ctx, core.SubscribeOptions{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := e.Delegate(ctx, core.DelegateRequest{
		TaskID: "big", Contract: json.RawMessage(engineContract), WaitMode: "background",
		Authority: core.Authority{Cwd: gitRepo(b), Writable: true},
	}); err != nil {
		b.Fatal(err)
	}
	done := false
	for ev := range sub.C {
		if d, ok := core.DataOf[core.StateChangedData](ev); ok && (d.To == core.StateReviewRequired || d.To.Terminal()) {
			done = true
			break
		}
	}
	if !done {
		b.Fatalf("the task did not reach review: %v", sub.Err())
	}
	cancel()
	if err := e.Close(); err != nil {
		b.Fatal(err)
	}
	st, err := store.Open(store.Options{Dir: state, Mode: "tui"})
	if err != nil {
		b.Fatal(err)
	}
	batch := make([]store.NewEvent, 0, 1000)
	for i, msg := range benchEvents("big", n) {
		ev := msg.(eventsMsg)[0]
		batch = append(batch, store.NewEvent{Type: ev.Type, Data: ev.Data})
		if len(batch) == cap(batch) || i == n-1 {
			if _, err := st.Append("big", batch...); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	if err := st.Close(); err != nil {
		b.Fatal(err)
	}
	e = open()
	b.Cleanup(func() { _ = e.Close() })
	return e
}

// BenchmarkReplay100kEventsEngine is BenchmarkReplay100kEvents against a real engine whose
// store holds the journal.
func BenchmarkReplay100kEventsEngine(b *testing.B) {
	e := bigJournalEngine(b, 100000)
	d, err := e.Get(context.Background(), "big")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m := modelOver(e, 120, 40)
		if ti := m.info.task("big"); !ti.replayed || ti.events.Empty() {
			b.Fatal("the journal's newest window was not read")
		}
		_ = m.View()
	}
	b.ReportMetric(float64(d.LastSeq), "journal-events")
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
		m.cmds.svc, m.info.events.Journal = f, f // later reads find the whole journal
		for j, ev := range journal {
			m.Update(eventsMsg{ev})
			if j%64 == 63 {
				_ = m.View()
			}
		}
		_ = m.View()
		streamed := heapInUse()
		pages := 0
		for !strings.Contains(m.View(), "w0000000 w0000001") && pages < 100000 {
			_, cmd := m.Update(keyMsg("g"))
			drain(m, cmd)
			pages++
		}
		if !strings.Contains(m.View(), "w0000000 w0000001") {
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
