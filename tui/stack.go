package tui

import (
	"reasonixctl/tui/bind"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// Key grace of a newly opened prompt: keys are ignored for graceQuiet after it opens, and the
// grace starts again while keys keep arriving, for as long as they do. Keys typed for
// something else as a prompt appears — however long the typing goes on — therefore never
// answer it: the person pauses, reads, and then answers. A second: someone typing a word at two
// keys a second (a slow typist's pace) leaves half-second gaps, and a key ending such a gap
// answered the prompt that had opened under the word.
const graceQuiet = time.Second

// dialogStack is the dialogs on screen; the top one has the keys (key decides what the stack
// keeps for itself). It also owns the key grace of prompts, so no dialog can be answered by
// keys typed before it was on screen.
type dialogStack struct {
	items      []dialog
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
		s.graceUntil = now.Add(graceQuiet)
	}
}

// regrace starts the grace of the prompt on top again: it was not on screen until now.
func (s *dialogStack) regrace(now time.Time) {
	if _, ok := s.top().(*promptDialog); ok {
		s.graceUntil = now.Add(graceQuiet)
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
	return true
}

// graceLeft is how long keys are still ignored.
func (s *dialogStack) graceLeft(now time.Time) time.Duration {
	if _, ok := s.top().(*promptDialog); !ok {
		return 0
	}
	return max(s.graceUntil.Sub(now), 0)
}

// stackStep is what the stack makes of a key before its top dialog sees it.
type stackStep int

const (
	stackToTop   stackStep = iota // the top dialog takes the key
	stackTook                     // the stack took it: the prompt's grace, paging the body
	stackQuit                     // ctrl+c in the quit confirmation: quit now
	stackAskQuit                  // ctrl+c over any other dialog: ask first
	stackHelp                     // ? over a dialog that takes no text: the help on top
)

// key decides who takes a key while a dialog is open: nobody during the top prompt's grace
// (keys typed as it appeared were meant for something else), the stack for ctrl+c, help and
// paging, else the top dialog.
func (s *dialogStack) key(msg tea.KeyMsg, k bind.KeyMap, now time.Time) stackStep {
	top := s.top()
	if s.swallow(now) {
		return stackTook
	}
	if msg.Type == tea.KeyCtrlC {
		if cd, ok := top.(*confirmDialog); ok && cd.quit {
			return stackQuit
		}
		return stackAskQuit
	}
	if _, isHelp := top.(*helpDialog); !isHelp && !top.capturing() {
		if key.Matches(msg, k.Help) {
			return stackHelp
		}
		switch msg.Type {
		case tea.KeyPgDown:
			s.scroll += 5
			return stackTook
		case tea.KeyPgUp:
			s.scroll = max(s.scroll-5, 0)
			return stackTook
		}
	}
	return stackToTop
}
