package tui

import (
	"context"
	"errors"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"reasonixctl/core"
)

// Run shows the dashboard on the terminal (alt screen) until the person quits or ctx ends.
func Run(ctx context.Context, svc core.Service, opts Options) error {
	// Decide the background up front: a terminal query after start-up can leak its reply into
	// the input stream.
	lipgloss.SetHasDarkBackground(true)
	m := newModel(ctx, svc, opts)
	p := tea.NewProgram(m, tea.WithAltScreen(), tea.WithContext(ctx))
	relayCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		relay(relayCtx, svc, p.Send, time.Second)
	}()
	_, err := p.Run()
	stop()
	<-done
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// relay is the dashboard's one event pipe: it forwards every task's live events to send, ticks
// once per interval so ages stay current, and re-subscribes when the stream ends (a slow reader
// falls behind and is cut off), telling the model to reload what it may have missed. send may
// block (program.Send does), which is why this runs on its own goroutine.
func relay(ctx context.Context, svc core.Service, send func(tea.Msg), tick time.Duration) {
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
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
				send(eventMsg(ev))
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
