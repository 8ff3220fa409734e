package events

import (
	"context"
	"strings"
	"sync"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/tui/bind"
	"reasonixctl/tui/term"
)

// fakeJournal is one task's scripted journal, read as the engine serves it: from a seq on, then
// nothing until the reader's context ends. reads are the FromSeq of each read.
type fakeJournal struct {
	mu     sync.Mutex
	events []core.Event
	reads  []uint64
}

func (j *fakeJournal) Subscribe(ctx context.Context, opts core.SubscribeOptions) (*core.Subscription, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	evs := j.events
	j.reads = append(j.reads, opts.FromSeq)
	ch := make(chan core.Event, 256)
	go func() {
		for _, ev := range evs {
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

// last is the newest seq the journal holds, as Get reports it.
func (j *fakeJournal) last() uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(j.events) == 0 {
		return 0
	}
	return j.events[len(j.events)-1].Seq
}

func (j *fakeJournal) append(evs ...core.Event) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.events = append(j.events, evs...)
}

func (j *fakeJournal) readCount() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.reads)
}

// The sizes the dashboard gives the events pane on a terminal of 80×24, 120×24 and 140×24.
const (
	narrowW, narrowH = 80, 18
	midW, midH       = 71, 20
	wideW, wideH     = 83, 20
)

// host drives one task's pane as the dashboard does: it reads the journal's newest window when
// the task is first shown and whenever the pane asks, runs the commands the pane returns and
// gives it their messages, and draws it at the size the dashboard gives it.
type host struct {
	t      *testing.T
	j      *fakeJournal
	p      *Pane
	w, h   int
	status string
}

func newHost(t *testing.T, j *fakeJournal, w, h int) *host {
	t.Helper()
	env := &Env{Theme: term.DefaultTheme(), Keys: bind.DefaultKeyMap(), Journal: j}
	hs := &host{t: t, j: j, p: New(env, "flood"), w: w, h: h}
	hs.reload()
	return hs
}

// reload reads the newest window again, as the dashboard does for a task it shows.
func (h *host) reload() {
	h.t.Helper()
	read := h.p.ReadTail()
	var fresh *Pane
	if last := h.j.last(); last > 0 {
		var err error
		if fresh, _, err = read(context.Background(), last, nil, nil); err != nil {
			h.t.Fatalf("reading the tail: %v", err)
		}
	}
	h.p = h.p.Succeed(fresh, nil)
}

// send gives the pane msg, and every message of the commands that follow.
func (h *host) send(msg tea.Msg) {
	h.t.Helper()
	queue := []tea.Msg{msg}
	for n := 0; len(queue) > 0; n++ {
		if n > 10000 {
			h.t.Fatal("message loop does not settle")
		}
		var cmd tea.Cmd
		var res Result
		h.p, cmd, res = h.p.Update(queue[0])
		queue = append(queue[1:], runCmd(cmd)...)
		if res.Status != "" {
			h.status = res.Status
		}
		if res.Reload {
			h.reload()
		}
	}
}

// update gives the pane msg without running the command it returns.
func (h *host) update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	h.p, cmd, _ = h.p.Update(msg)
	return cmd
}

// run runs cmd and gives the pane its messages.
func (h *host) run(cmd tea.Cmd) {
	for _, msg := range runCmd(cmd) {
		h.send(msg)
	}
}

func runCmd(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	switch msg := cmd().(type) {
	case nil:
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

func (h *host) press(keys ...string) {
	h.t.Helper()
	for _, k := range keys {
		h.send(keyMsg(k))
	}
}

func (h *host) typeText(s string) {
	h.t.Helper()
	for _, r := range s {
		h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

// live delivers an event of the live stream.
func (h *host) live(ev core.Event) { h.p.Live(ev) }

func (h *host) view() string { return h.p.View(h.w, h.h) }

// requireView checks that the pane shows each text, however its spaces were laid out.
func (h *host) requireView(want ...string) {
	h.t.Helper()
	v := h.view()
	flat := strings.Join(strings.Fields(v), " ")
	for _, w := range want {
		if !strings.Contains(flat, strings.Join(strings.Fields(w), " ")) {
			h.t.Fatalf("view lacks %q:\n%s", w, v)
		}
	}
}
