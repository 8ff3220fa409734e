package tui

import (
	"context"
	"errors"
	"os"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"reasonixctl/core"
)

// Run shows the dashboard on the terminal (alt screen) until the person quits or ctx ends.
//
// Environment: NO_COLOR draws without colour; REASONIXCTL_THEME=light|dark skips asking the
// terminal for its background; REASONIXCTL_NOTIFY=off silences the bell and the OSC 9
// notification for a task that starts waiting for the person or becomes ready to finalize. The
// terminal is asked to report its focus: while it says it has focus, nothing rings.
func Run(ctx context.Context, svc core.Service, opts Options) error {
	// Decide the background up front: a terminal query after start-up can leak its reply into
	// the input stream.
	switch os.Getenv("REASONIXCTL_THEME") {
	case "light":
		lipgloss.SetHasDarkBackground(false)
	case "dark":
		lipgloss.SetHasDarkBackground(true)
	default:
		lipgloss.SetHasDarkBackground(lipgloss.HasDarkBackground())
	}
	if os.Getenv("NO_COLOR") != "" {
		// Attributes (reverse, bold, underline) without colour: the ASCII profile would drop
		// them too, and with them every sign of the selection and the active tab.
		lipgloss.SetColorProfile(termenv.ANSI)
		opts.Monochrome = true
	}
	opts.Notify = os.Getenv("REASONIXCTL_NOTIFY") != "off"
	if opts.Output == nil {
		opts.Output = os.Stdout
	}
	opts.animate = true
	m := newModel(ctx, svc, opts)
	p := tea.NewProgram(m, tea.WithAltScreen(), tea.WithReportFocus(), tea.WithContext(ctx), tea.WithFPS(frameRate))
	relayCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		relay(relayCtx, svc, p.Send, time.Second)
	}()
	if a := opts.Attached; a != nil {
		go func() {
			for {
				select {
				case <-relayCtx.Done():
					return
				case <-a.Changed():
					p.Send(ownerMsg{})
				}
			}
		}()
	}
	_, err := p.Run()
	stop()
	<-done
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// relay is the dashboard's one event pipe: it forwards every task's live events to send, at
// most one batch a frame (gather), ticks
// once per interval so ages stay current, and re-subscribes when the stream ends (a slow reader
// falls behind and is cut off), telling the model to reload what it may have missed. send may
// block (program.Send does), which is why this runs on its own goroutine.
func relay(ctx context.Context, svc core.Service, send func(tea.Msg), tick time.Duration) {
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	pace := time.NewTimer(time.Hour)
	pace.Stop()
	var lastSent time.Time
	first := true
	for ctx.Err() == nil {
		sub, err := svc.Subscribe(ctx, core.SubscribeOptions{})
		if err != nil {
			send(resyncMsg{err: err})
			select {
			case <-ctx.Done():
				return
			case <-ticker.C:
			}
			continue
		}
		if !first {
			send(resyncMsg{})
		}
		first = false
	stream:
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-sub.C:
				if !ok {
					break stream
				}
				batch, open := gather(ctx, sub.C, ev, time.Until(lastSent.Add(eventFrame)), pace)
				send(eventsMsg(batch))
				lastSent = time.Now()
				if !open {
					break stream
				}
			case now := <-ticker.C:
				send(tickMsg(now))
			}
		}
		if ctx.Err() != nil {
			return
		}
		send(resyncMsg{err: sub.Err()})
	}
}

// eventFrame is the shortest time between two batches of events. Bubble Tea builds the whole
// frame after every message, so one message per event cost a frame per event: with 100 tasks
// streaming, about 290 frames a second, most of the dashboard's time. At 30 batches a second a
// streamed chunk reaches the screen at most 33 ms after it arrived.
const eventFrame = time.Second / 30

// maxBatch bounds one batch, so a flood still reaches the screen in steps.
const maxBatch = 512

// gather returns first with the events that follow it on c within wait (none waited for when
// wait ≤ 0: only those already there), and whether c is still open. pace is the caller's
// stopped timer, reused.
func gather(ctx context.Context, c <-chan core.Event, first core.Event, wait time.Duration, pace *time.Timer) ([]core.Event, bool) {
	batch := []core.Event{first}
	var deadline <-chan time.Time
	if wait > 0 {
		pace.Reset(wait)
		defer pace.Stop()
		deadline = pace.C
	}
	for len(batch) < maxBatch {
		select {
		case ev, ok := <-c:
			if !ok {
				return batch, false
			}
			batch = append(batch, ev)
			continue
		default:
		}
		if deadline == nil {
			return batch, true
		}
		select {
		case ev, ok := <-c:
			if !ok {
				return batch, false
			}
			batch = append(batch, ev)
		case <-deadline:
			return batch, true
		case <-ctx.Done():
			return batch, true
		}
	}
	return batch, true
}

// frameRate is how often the renderer may write a changed frame. At Bubble Tea's 60 a key's
// effect waited up to 16.7 ms for the next write, so the key-to-frame p99 with 100 tasks
// streaming was 18 ms; at 120 the wait is at most 8.3 ms. A write happens only when the frame
// changed, and events come in at most 30 batches a second (eventFrame), so the extra ticks cost
// a wakeup and a comparison with the last frame: 0–0.07 ms of CPU per event with 100 tasks
// streaming, 0.4 % of a core idle (BENCHMARKS.md, "The dashboard's cost per event").
const frameRate = 120
