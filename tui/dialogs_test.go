package tui

import (
	"time"

	"reasonixctl/tui/dialog"
)

// The dialogs as the root's tests look into them.

type promptDialog = dialog.Prompt

const graceQuiet = dialog.GraceQuiet

var commitNotice = dialog.CommitNotice

// stackView is the dialog stack, read through the harness (stack()).
type stackView struct{ s *dialog.Stack }

func (v stackView) top() dialog.Dialog                  { return v.s.Top() }
func (v stackView) empty() bool                         { return v.s.Empty() }
func (v stackView) hasPrompt() bool                     { return v.s.HasPrompt() }
func (v stackView) all() []dialog.Dialog                { return v.s.All() }
func (v stackView) push(d dialog.Dialog, now time.Time) { v.s.Push(d, now) }
