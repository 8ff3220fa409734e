package tui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/tui/dialog"
	"reasonixctl/tui/intent"
	"reasonixctl/tui/words"
)

// The answering rules live here, and only here: every answer to a worker's request passes
// through answerGate.admit, which holds it, and is let go by answerGate.release. A request is
// answered only
//
//   - from its own dialog, on top of the stack, past the dialog's key grace (dialog.Stack);
//   - by a key that arrived alone: not one rune of several in one read, not a key that
//     followed another within keyBurstGap, and not one followed by another key before its
//     answer settled.
//
// Keys that arrive together are typing or a script meant for something else; a person who
// means to answer presses the key on its own.

// keyBurstGap is how close two keys must come to be one burst. Terminal reads deliver the bytes
// of one write together, microseconds apart; a person's separate keystrokes are tens of
// milliseconds apart at the fastest.
const keyBurstGap = 12 * time.Millisecond

// keyQuietMsg says no key followed key number n within keyBurstGap.
type keyQuietMsg struct{ n uint64 }

// answerGate tracks key bursts and holds an answer until its key proves to have come alone.
type answerGate struct {
	seen  uint64 // keys received
	quiet uint64 // the newest key known to have been followed by a quiet gap
	held  *heldAnswer
	said  map[string]string // what each answer in flight chose, by interaction id
}

type heldAnswer struct {
	key    uint64 // the key that gave it
	prompt *dialog.Prompt
	res    intent.Result
}

// key notes the arrival of a key and says whether it came alone so far (no key just before
// it), with the command that later reports the quiet after it. Any held answer is dropped: a
// key followed it.
func (g *answerGate) key(animate bool) (alone bool, quiet tea.Cmd) {
	alone = g.quiet == g.seen
	g.seen++
	g.held = nil
	n := g.seen
	if animate {
		quiet = tea.Tick(keyBurstGap, func(time.Time) tea.Msg { return keyQuietMsg{n} })
	} else {
		// Without a running program the quiet comes after every message already queued:
		// a test's keys sent together are one read.
		quiet = func() tea.Msg { return keyQuietMsg{n} }
	}
	return alone, quiet
}

// hold keeps an answer given by the current key until that key's quiet arrives.
func (g *answerGate) hold(d *dialog.Prompt, res intent.Result) {
	if g.said == nil {
		g.said = map[string]string{}
	}
	g.held = &heldAnswer{key: g.seen, prompt: d, res: res}
}

// settle takes the quiet after key n and returns the answer it releases, if any.
func (g *answerGate) settle(n uint64) *heldAnswer {
	if n == g.seen {
		g.quiet = n
	}
	h := g.held
	if h == nil || h.key != n {
		return nil
	}
	g.held = nil
	return h
}

// admit says whether a dialog's result may be carried out now (carryOut, actions.go). An answer
// to a request is held until its key proves to have come alone (release), and refused outright
// when it did not: no other path sends one.
func (g *answerGate) admit(d dialog.Dialog, res intent.Result, alone bool) bool {
	pd, ok := d.(*dialog.Prompt)
	if !ok || res.Control == nil || res.Control.Action() != core.ActionRespond {
		return true
	}
	if !alone {
		pd.Refuse("keys that arrive together never answer: press the key on its own")
		return false
	}
	g.hold(pd, res)
	return false
}

// release takes the quiet after key n and returns the held answer it lets go, if its key came
// alone and its request still waits in s, noting what it chose.
func (g *answerGate) release(n uint64, s *dialog.Stack) *heldAnswer {
	h := g.settle(n)
	if h == nil {
		return nil
	}
	ia := h.prompt.Interaction()
	if s.Prompt(ia.ID) != h.prompt {
		return nil
	}
	// What was chosen is said when the engine confirms; the request may be gone by then.
	req, _ := h.res.Control.(core.Respond)
	g.said[req.InteractionID] = words.AnswerText(ia, req.Decision, req.OptionID, req.Answer, req.Grant)
	return h
}
