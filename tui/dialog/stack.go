package dialog

import (
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"reasonixctl/tui/bind"
	"reasonixctl/tui/term"
)

// GraceQuiet is the key grace of a newly opened prompt: keys are ignored for GraceQuiet after it
// opens, and the grace starts again while keys keep arriving, for as long as they do. Keys
// typed for something else as a prompt appears — however long the typing goes on — therefore
// never answer it: the person pauses, reads, and then answers. A second: someone typing a word
// at two keys a second (a slow typist's pace) leaves half-second gaps, and a key ending such a
// gap answered the prompt that had opened under the word.
const GraceQuiet = time.Second

// Stack is the dialogs on screen; the top one has the keys (Key decides what the stack keeps
// for itself). It also owns the key grace of prompts, so no dialog can be answered by keys
// typed before it was on screen, and the scroll of the top dialog's body.
type Stack struct {
	items      []Dialog
	graceUntil time.Time
	scroll     int // lines the top dialog's body is scrolled
}

// Top is the dialog that has the keys, or nil.
func (s *Stack) Top() Dialog {
	if len(s.items) == 0 {
		return nil
	}
	return s.items[len(s.items)-1]
}

// Empty says no dialog is open: keys go to the focused pane or the dashboard.
func (s *Stack) Empty() bool { return len(s.items) == 0 }

// All is the dialogs open, the top one last.
func (s *Stack) All() []Dialog { return s.items }

// Push opens d on top; a prompt's key grace starts now.
func (s *Stack) Push(d Dialog, now time.Time) {
	s.items = append(s.items, d)
	s.scroll = 0
	if _, ok := d.(*Prompt); ok {
		s.graceUntil = now.Add(GraceQuiet)
	}
}

// Regrace starts the grace of the prompt on top again: it was not on screen until now.
func (s *Stack) Regrace(now time.Time) {
	if _, ok := s.Top().(*Prompt); ok {
		s.graceUntil = now.Add(GraceQuiet)
	}
}

// Remove closes d wherever it is in the stack.
func (s *Stack) Remove(d Dialog) {
	for i := len(s.items) - 1; i >= 0; i-- {
		if s.items[i] == d {
			s.items = append(s.items[:i:i], s.items[i+1:]...)
			s.scroll = 0
			return
		}
	}
}

// Prompt returns the open prompt of interaction id, if any.
func (s *Stack) Prompt(id string) *Prompt {
	for _, d := range s.items {
		if pd, ok := d.(*Prompt); ok && pd.ia.ID == id {
			return pd
		}
	}
	return nil
}

// Steer returns the open steer dialog of a task, if any.
func (s *Stack) Steer(taskID string) *Steer {
	for _, d := range s.items {
		if sd, ok := d.(*Steer); ok && sd.taskID == taskID {
			return sd
		}
	}
	return nil
}

// GrantsAnswered gives the open grants dialog the service's answer; one closed since has
// nothing to show it in.
func (s *Stack) GrantsAnswered(msg GrantsMsg) {
	for _, d := range s.items {
		if gd, ok := d.(*Grants); ok {
			gd.Answered(msg)
		}
	}
}

// HasPrompt says a request's prompt is open somewhere in the stack.
func (s *Stack) HasPrompt() bool {
	for _, d := range s.items {
		if _, ok := d.(*Prompt); ok {
			return true
		}
	}
	return false
}

// Swallow reports whether a key arriving now falls in the top prompt's grace, extending the
// grace while keys keep coming.
func (s *Stack) Swallow(now time.Time) bool {
	if _, ok := s.Top().(*Prompt); !ok || !now.Before(s.graceUntil) {
		return false
	}
	s.graceUntil = now.Add(GraceQuiet)
	return true
}

// GraceLeft is how long keys are still ignored.
func (s *Stack) GraceLeft(now time.Time) time.Duration {
	if _, ok := s.Top().(*Prompt); !ok {
		return 0
	}
	return max(s.graceUntil.Sub(now), 0)
}

// Step is what the stack makes of a key before its top dialog sees it.
type Step int

const (
	ToTop    Step = iota // the top dialog takes the key
	Took                 // the stack took it: the prompt's grace, paging the body
	Quit                 // ctrl+c in the quit confirmation: quit now
	AskQuit              // ctrl+c over any other dialog: ask first
	ShowHelp             // ? over a dialog that takes no text: the help on top
)

// keys is the stack's own table. Help and paging are the stack's only over a dialog that takes
// no text (they are text in a field) and is not the help (which reads them itself).
func (s *Stack) keys(k bind.KeyMap) bind.Table[Step] {
	top := s.Top()
	notText := func() string {
		if _, isHelp := top.(*Help); isHelp {
			return "the help reads its own keys"
		}
		if top.Capturing() {
			return "a text field has the keys"
		}
		return ""
	}
	return bind.Table[Step]{
		{Key: bind.Only(k.Quit, "ctrl+c"), Run: func(tea.KeyMsg) Step {
			if cd, ok := top.(*Confirm); ok && cd.quit {
				return Quit
			}
			return AskQuit
		}},
		{Key: k.Help, Run: func(tea.KeyMsg) Step { return ShowHelp }, WhyNot: notText},
		{Key: bind.Only(k.PageDown, "pgdown"), Run: func(tea.KeyMsg) Step { s.scroll += 5; return Took }, WhyNot: notText},
		{Key: bind.Only(k.PageUp, "pgup"), Run: func(tea.KeyMsg) Step { s.scroll = max(s.scroll-5, 0); return Took }, WhyNot: notText},
	}
}

// Key decides who takes a key while a dialog is open: nobody during the top prompt's grace
// (keys typed as it appeared were meant for something else), the stack for ctrl+c, help and
// paging, else the top dialog.
func (s *Stack) Key(msg tea.KeyMsg, k bind.KeyMap, now time.Time) Step {
	if s.Swallow(now) {
		return Took
	}
	step, why, found := s.keys(k).Dispatch(msg)
	if !found || why != "" {
		return ToTop
	}
	return step
}

// maxWidth is the widest a dialog's box is drawn, whatever the screen.
const maxWidth = 96

// View draws the top dialog in its box on a screen width wide, within height lines: its body
// scrolls when it is taller than that allows, and its key line always stays in view. During
// a prompt's key grace the key line says keys are paused.
func (s *Stack) View(t term.Theme, k bind.KeyMap, width, height int, now time.Time) string {
	d := s.Top()
	if d == nil {
		return ""
	}
	w := min(width-2, maxWidth)
	if nd, ok := d.(*Notice); ok {
		w = min(max(w, nd.MinWidth()+4), width)
	}
	inner := w - 4 // border and padding
	avail := max(height-2, 2)
	if hd, ok := d.(*Help); ok {
		hd.SetHeight(avail - 2) // its body, a blank line and its one key line fill the box
	}
	body, keys := d.View(t, k, inner)
	if left := s.GraceLeft(now); left > 0 {
		keys = t.Warn.Render(fmt.Sprintf("keys paused %.1fs so nothing typed before this appeared answers it", left.Seconds()))
	}
	lines := strings.Split(body, "\n")
	keyLines := strings.Split(keys, "\n")
	room := max(avail-len(keyLines)-1, 1)
	if len(lines) > room {
		top := term.Clamp(s.scroll, 0, len(lines)-room+1)
		s.scroll = top
		more := fmt.Sprintf("↕ pgup/pgdn scroll (%d–%d of %d lines)", top+1, min(top+room-1, len(lines)), len(lines))
		lines = append(lines[top:min(top+room-1, len(lines))], t.Dim.Render(more))
	}
	lines = append(lines, "")
	lines = append(lines, keyLines...)
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, inner, "…")
	}
	return t.Dialog.Width(w - 2).Render(strings.Join(lines, "\n"))
}
