package tui

import (
	"time"
)

// Key grace of a newly opened prompt: keys are ignored for graceQuiet after it opens, and the
// grace starts again while keys keep arriving, never past graceCap from the opening. Keys
// typed for something else just as a prompt appears therefore never answer it.
const (
	graceQuiet = 500 * time.Millisecond
	graceCap   = 1500 * time.Millisecond
)

// dialogStack owns focus: the top dialog receives every key. It also owns the key grace of
// prompts, so no dialog can be answered by keys typed before it was on screen.
type dialogStack struct {
	items      []dialog
	graceFrom  time.Time // when the prompt on top opened
	graceUntil time.Time
	scroll     int // lines the top dialog's body is scrolled
}

func (s *dialogStack) top() dialog {
	if len(s.items) == 0 {
		return nil
	}
	return s.items[len(s.items)-1]
}

func (s *dialogStack) empty() bool { return len(s.items) == 0 }

func (s *dialogStack) push(d dialog, now time.Time) {
	s.items = append(s.items, d)
	s.scroll = 0
	if _, ok := d.(*promptDialog); ok {
		s.graceFrom, s.graceUntil = now, now.Add(graceQuiet)
	}
}

func (s *dialogStack) remove(d dialog) {
	for i := len(s.items) - 1; i >= 0; i-- {
		if s.items[i] == d {
			s.items = append(s.items[:i:i], s.items[i+1:]...)
			s.scroll = 0
			return
		}
	}
}

// prompt returns the open prompt of interaction id, if any.
func (s *dialogStack) prompt(id string) *promptDialog {
	for _, d := range s.items {
		if pd, ok := d.(*promptDialog); ok && pd.ia.ID == id {
			return pd
		}
	}
	return nil
}

func (s *dialogStack) hasPrompt() bool {
	for _, d := range s.items {
		if _, ok := d.(*promptDialog); ok {
			return true
		}
	}
	return false
}

// swallow reports whether a key arriving now falls in the top prompt's grace, extending the
// grace while keys keep coming.
func (s *dialogStack) swallow(now time.Time) bool {
	if _, ok := s.top().(*promptDialog); !ok || !now.Before(s.graceUntil) {
		return false
	}
	s.graceUntil = now.Add(graceQuiet)
	if limit := s.graceFrom.Add(graceCap); s.graceUntil.After(limit) {
		s.graceUntil = limit
	}
	return true
}

// graceLeft is how long keys are still ignored.
func (s *dialogStack) graceLeft(now time.Time) time.Duration {
	if _, ok := s.top().(*promptDialog); !ok {
		return 0
	}
	return max(s.graceUntil.Sub(now), 0)
}
