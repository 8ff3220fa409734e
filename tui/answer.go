package tui

import (
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
)

// The answering rules live here, and only here: every answer to a worker's request passes
// through answerGate.hold and is sent by answerGate.settle. A request is answered only
//
//   - from its own dialog, on top of the stack, past the dialog's key grace (dialogStack);
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
	dialog *promptDialog
	res    dialogResult
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
func (g *answerGate) hold(d *promptDialog, res dialogResult) {
	if g.said == nil {
		g.said = map[string]string{}
	}
	g.held = &heldAnswer{key: g.seen, dialog: d, res: res}
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

// answerText says what an answer chose, in the person's terms: "allow once", `option 2
// "Multiply"`, a typed answer in quotes. A question's answer never reads "allow".
func answerText(ia core.Interaction, decision, optionID, answer string, grant bool) string {
	r := ia.Request
	if decision == core.DecisionDeny {
		if ia.Kind == core.InteractionInput {
			return "declined to answer"
		}
		return "deny"
	}
	if answer != "" {
		return strconv.Quote(clip(safetext.Line(answer), 60))
	}
	if ia.Kind == core.InteractionInput {
		for i, o := range r.Options {
			if o.OptionID == optionID {
				return fmt.Sprintf("option %d %s", i+1, strconv.Quote(clip(safetext.Line(o.Name), 60)))
			}
		}
		if optionID != "" {
			return "option " + strconv.Quote(clip(safetext.Line(optionID), 40))
		}
		return "answered"
	}
	switch {
	case grant:
		return "allow this command for the repository"
	case optionID != "":
		for _, o := range r.Options {
			if o.OptionID != optionID {
				continue
			}
			switch o.Kind {
			case core.OptionAllowAlways:
				return "allow for the session"
			case core.OptionAllowOnce:
				return "allow once"
			}
		}
		return "allow (" + clip(safetext.Line(optionID), 40) + ")"
	}
	return "allow once"
}

// responseText describes an answer recorded by the engine.
func responseText(ia core.Interaction) string {
	r := ia.Response
	if r == nil {
		return "no answer"
	}
	return answerText(ia, r.Decision, r.OptionID, r.Answer, false)
}

// answeredBy names who gave a recorded answer that this dashboard did not send.
func answeredBy(r *core.InteractionResponse) string {
	if r == nil {
		return "someone else"
	}
	switch r.By {
	case core.ByCodex:
		return mcpClient(r.Client)
	case core.ByAskedUser:
		return "the form shown through " + mcpClient(r.Client)
	case core.BySupervisor:
		return "another dashboard"
	case core.ByGrant:
		return "a standing grant"
	case core.ByPolicy:
		return "the policy"
	}
	return "someone else"
}

// mcpClient names the MCP client an answer came through, as it named itself.
func mcpClient(name string) string {
	if name == "" {
		return "an MCP client"
	}
	return safetext.Line(name)
}

// clip shortens s to n runes, marking the cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// apply carries out a dialog's result (carryOut, actions.go). An answer to a request is held by
// the gate until its key proves to have come alone, and refused outright when it did not: no
// other path sends one.
func (m *Model) apply(d dialog, res dialogResult, alone bool) tea.Cmd {
	if pd, ok := d.(*promptDialog); ok && res.control != nil && res.control.Action() == core.ActionRespond {
		if !alone {
			pd.err = "keys that arrive together never answer: press the key on its own"
			return nil
		}
		m.gate.hold(pd, res)
		return nil
	}
	return m.carryOut(d, res)
}

// release sends a held answer whose key came alone, if its request still waits here.
func (m *Model) release(h *heldAnswer) tea.Cmd {
	if m.dialogs.prompt(h.dialog.ia.ID) != h.dialog {
		return nil
	}
	// What was chosen is said when the engine confirms; the request may be gone by then.
	req, _ := h.res.control.(core.Respond)
	m.gate.said[req.InteractionID] = answerText(h.dialog.ia, req.Decision, req.OptionID, req.Answer, req.Grant)
	return m.carryOut(h.dialog, h.res)
}
