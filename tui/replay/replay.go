package replay

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
	"reasonixctl/tui/bind"
	"reasonixctl/tui/events"
	"reasonixctl/tui/term"
	"reasonixctl/tui/words"
)

const (
	// maxReplayEvents bounds the journal a replay holds; a longer one is replayed up to there.
	maxReplayEvents = 200_000
	// replayEvery is how many events apart the replay keeps snapshots, so that a seek folds at
	// most this many events.
	replayEvery = 256
	// replayReadTimeout bounds reading a journal for a replay.
	replayReadTimeout = 20 * time.Second
	// bigReplay is a journal long enough that leaving its replay returns memory at once.
	bigReplay = 10_000
)

// Journal is the part of the service a replay reads the journal through: Get for the last seq
// the task has now, and Subscribe from the first. It is called only inside the command Open
// returns.
type Journal interface {
	Get(ctx context.Context, taskID string) (core.TaskDetail, error)
	Subscribe(ctx context.Context, opts core.SubscribeOptions) (*core.Subscription, error)
}

// Options are how a replay draws and which keys it reads.
type Options struct {
	Theme term.Theme
	Keys  bind.KeyMap
}

// LoadedMsg carries the journal of task TaskID read for its replay.
type LoadedMsg struct {
	TaskID    string
	events    []core.Event
	truncated bool
	err       error
}

// Model steps through a task's journal, showing the task as it was after each event. It takes
// the whole body while open; esc leaves it.
type Model struct {
	opts      Options
	taskID    string
	loading   bool
	err       error
	events    []core.Event
	truncated bool
	cur       int                   // the event the view stands on
	snaps     []core.ReplaySnapshot // snaps[k] is the task after the first k*replayEvery events
	// titles are the tool calls' titles by id: their later updates often carry only a status.
	titles map[string]string
}

// Open starts a replay of task taskID: the command it returns reads the journal from the first
// event up to the last one the task has now (a live task's later events are not waited for).
func Open(ctx context.Context, j Journal, taskID string, o Options) (*Model, tea.Cmd) {
	rp := &Model{opts: o, taskID: taskID, loading: true}
	return rp, func() tea.Msg {
		evs, truncated, err := readJournal(ctx, j, taskID)
		return LoadedMsg{TaskID: taskID, events: evs, truncated: truncated, err: err}
	}
}

// TaskID is the task the replay steps through.
func (rp *Model) TaskID() string { return rp.taskID }

// readJournal drains a task's journal through Subscribe from seq 1 up to the last seq Get
// reports: the subscription would go on with live events, so it stops there.
func readJournal(ctx context.Context, svc Journal, id string) ([]core.Event, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, replayReadTimeout)
	defer cancel()
	d, err := svc.Get(ctx, id)
	if err != nil || d.LastSeq == 0 {
		return nil, false, err
	}
	sub, err := svc.Subscribe(ctx, core.SubscribeOptions{TaskID: id, FromSeq: 1})
	if err != nil {
		return nil, false, err
	}
	evs := make([]core.Event, 0, min(d.LastSeq, maxReplayEvents))
	for {
		select {
		case ev, ok := <-sub.C:
			if !ok {
				return evs, false, sub.Err()
			}
			evs = append(evs, ev)
			if ev.Seq >= d.LastSeq {
				return evs, false, nil
			}
			if len(evs) >= maxReplayEvents {
				return evs, true, nil
			}
		case <-ctx.Done():
			return evs, false, ctx.Err()
		}
	}
}

// load takes the journal read for the replay of msg.TaskID; one for another task (a replay
// since left, another since started) is not this replay's.
func (rp *Model) load(msg LoadedMsg) {
	if rp.taskID != msg.TaskID {
		return
	}
	rp.loading = false
	rp.events, rp.truncated, rp.err = msg.events, msg.truncated, msg.err
	if len(rp.events) > 0 {
		rp.err = nil // what was read is worth stepping through; the header says if it is cut
	}
	rp.snaps = []core.ReplaySnapshot{{}}
	rp.cur = 0
	rp.titles = events.ToolTitles(rp.events)
}

// at is the task after the events up to and including index i.
func (rp *Model) at(i int) core.ReplaySnapshot {
	if i < 0 || len(rp.events) == 0 {
		return core.ReplaySnapshot{}
	}
	i = min(i, len(rp.events)-1)
	k := (i + 1) / replayEvery
	for len(rp.snaps) <= k {
		n := len(rp.snaps) - 1
		s := rp.snaps[n]
		for _, ev := range rp.events[n*replayEvery : (n+1)*replayEvery] {
			s.Apply(ev)
		}
		rp.snaps = append(rp.snaps, s)
	}
	s := rp.snaps[k]
	for _, ev := range rp.events[k*replayEvery : i+1] {
		s.Apply(ev)
	}
	return s
}

// seek moves to event index i, clamped.
func (rp *Model) seek(i int) { rp.cur = term.Clamp(i, 0, max(len(rp.events)-1, 0)) }

// sinceStart renders d as +m:ss or +h:mm:ss.
func sinceStart(d time.Duration) string {
	d = max(d, 0).Round(time.Second)
	h, mnt, s := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	if h > 0 {
		return fmt.Sprintf("+%d:%02d:%02d", h, mnt, s)
	}
	return fmt.Sprintf("+%d:%02d", mnt, s)
}

// view draws the replay in w×h: where it stands, the task as it was there, and the
// events around that point.
func (rp *Model) View(w, h int) string {
	t := rp.opts.Theme
	title := " Replay " + safetext.Line(rp.taskID)
	switch {
	case rp.loading:
		return term.FixBlock(t.Title.Render(title)+"\n"+t.Dim.Render(" reading the journal…"), w, h)
	case rp.err != nil:
		return term.FixBlock(t.Title.Render(title)+"\n"+t.Error.Render(ansi.Truncate(" reading the journal failed: "+safetext.Line(words.OneLine(rp.err)), w, "…"))+
			"\n"+t.Dim.Render(" esc leaves the replay"), w, h)
	case len(rp.events) == 0:
		return term.FixBlock(t.Title.Render(title)+"\n"+t.Dim.Render(" the journal is empty · esc leaves the replay"), w, h)
	}
	ev := rp.events[rp.cur]
	s := rp.at(rp.cur)
	title += fmt.Sprintf(" · event %d of %d · seq %d · %s · %s", rp.cur+1, len(rp.events), ev.Seq,
		ev.Time.UTC().Format("2006-01-02 15:04:05"), sinceStart(ev.Time.Sub(rp.events[0].Time)))
	if rp.truncated {
		title += fmt.Sprintf(" · first %d events only", len(rp.events))
	}
	lines := []string{t.Title.Render(ansi.Truncate(title, w, "…")), progressBar(t, rp.cur, len(rp.events), w)}

	state := rp.state(s, w)
	if w >= 120 {
		leftW := min(w/2, 72)
		rightW := w - leftW - 1
		bodyH := h - len(lines)
		left := term.FixBlock(strings.Join(state, "\n"), leftW, bodyH)
		right := rp.eventLines(t, rightW, bodyH)
		sep := strings.TrimSuffix(strings.Repeat(t.Border.Render("│")+"\n", bodyH), "\n")
		return term.FixBlock(strings.Join(lines, "\n")+"\n"+lipgloss.JoinHorizontal(lipgloss.Top, left, sep, right), w, h)
	}
	room := h - len(lines)
	evH := max(room/2, min(room, 6))
	if len(state) > room-evH {
		state = append(state[:max(room-evH-1, 0)], t.Dim.Render(" …"))
	}
	lines = append(lines, state...)
	lines = append(lines, rp.eventLines(t, w, h-len(lines)))
	return term.FixBlock(strings.Join(lines, "\n"), w, h)
}

// state is the snapshot as labelled lines.
func (rp *Model) state(s core.ReplaySnapshot, w int) []string {
	t := rp.opts.Theme
	var lines []string
	add := func(label, value string, st lipgloss.Style) {
		for i, l := range term.WrapLines(safetext.Sanitize(value), max(w-11, 10)) {
			if i == 0 {
				lines = append(lines, " "+t.Dim.Render(term.PadRight(label, 9))+st.Render(l))
			} else {
				lines = append(lines, strings.Repeat(" ", 10)+st.Render(l))
			}
		}
	}
	plain := lipgloss.NewStyle()
	state := string(s.State)
	if state == "" {
		state = "-"
	}
	if s.Phase != "" {
		state += " (" + s.Phase + ")"
	}
	st, ok := t.Badges[s.State]
	if !ok {
		st = plain
	}
	add("state", state, st)
	if s.Reason != "" {
		add("reason", s.Reason, t.Warn)
	}
	if s.ReviewRevision > 0 {
		add("review", fmt.Sprintf("revision %d · tree %s · repair rounds %d/%d", s.ReviewRevision, term.Short(s.ReviewTreeHash, 12),
			s.RepairRounds, core.MaxRepairRounds), plain)
	}
	if len(s.Pending) == 0 {
		add("waiting", "nothing", t.Dim)
	}
	for _, ia := range s.Pending {
		add("waiting", ia.Kind+" "+ia.ID+": "+words.DescribeRequest(ia.Request).Summary(), t.Pending)
	}
	if len(s.Verification) > 0 {
		var parts []string
		for _, v := range s.Verification {
			parts = append(parts, words.CheckStatus(v)+" "+v.ID)
		}
		add("checks", strings.Join(parts, " · "), plain)
	}
	if s.Usage != nil {
		add("usage", words.Usage(s.Usage), t.Usage)
	}
	if s.CommitHash != "" {
		add("commit", s.CommitHash+" on "+s.Branch, t.Good)
	}
	if s.DiffStat == "" {
		add("diff", "no review yet", t.Dim)
	} else {
		lines = append(lines, " "+t.Dim.Render("diff stat"))
		for _, l := range strings.Split(strings.TrimRight(s.DiffStat, "\n"), "\n") {
			lines = append(lines, " "+ansi.Truncate(safetext.Sanitize(l), w-2, "…"))
		}
	}
	return lines
}

// eventLines lists the events around the current one, which is marked.
func (rp *Model) eventLines(t term.Theme, w, h int) string {
	if h <= 0 {
		return ""
	}
	start := term.Clamp(rp.cur-h/2, 0, max(len(rp.events)-h, 0))
	seqW := len(fmt.Sprint(rp.events[len(rp.events)-1].Seq))
	var lines []string
	for i := start; i < len(rp.events) && len(lines) < h; i++ {
		ev := rp.events[i]
		kind, text := events.OneLine(ev, rp.titles)
		mark := "  "
		if i == rp.cur {
			mark = "› "
		}
		line := ansi.Truncate(fmt.Sprintf("%s%*d %s %s", mark, seqW, ev.Seq, ev.Time.UTC().Format("15:04:05"), text), w-1, "…")
		switch {
		case i == rp.cur:
			lines = append(lines, t.Selected.Render(term.PadRight(" "+line, w)))
		case i > rp.cur:
			lines = append(lines, " "+t.Dim.Render(line))
		default:
			lines = append(lines, " "+kind.Style(t).Render(line))
		}
	}
	return term.FixBlock(strings.Join(lines, "\n"), w, h)
}

// progressBar shows how far into the journal the replay stands.
func progressBar(t term.Theme, cur, n, w int) string {
	bw := max(w-2, 1)
	pos := 0
	if n > 1 {
		pos = cur * (bw - 1) / (n - 1)
	}
	return " " + t.Title.Render(strings.Repeat("━", pos)+"●") + t.Dim.Render(strings.Repeat("─", max(bw-pos-1, 0)))
}
