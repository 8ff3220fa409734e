package replay

import (
	"runtime/debug"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/tui/bind"
)

// Result is what the replay asks of the root after a message.
type Result struct {
	// Leave closes the replay.
	Leave bool
	// Pass says the key is the dashboard's own (help, quit): the root's keys have it.
	Pass bool
	// Status says why a key did nothing, for the header.
	Status string
}

// step is what one of the replay's keys asks: to move by, to the first or last event, or
// something of the root.
type step struct {
	leave, pass bool
	status      string
}

// table is the replay's keys, in the order the footer names them. The steps do nothing until
// there is a journal to step through.
func (rp *Model) table() bind.Table[step] {
	k := &rp.opts.Keys
	moves := func(back, on key.Binding, by int) func(tea.KeyMsg) step {
		return func(msg tea.KeyMsg) step {
			if key.Matches(msg, back) {
				return rp.move(-by)
			}
			return rp.move(by)
		}
	}
	return bind.Table[step]{
		{Key: bind.Pair(k.StepBack, k.StepOn, "←/→"), Short: "step", Run: moves(k.StepBack, k.StepOn, 1), WhyNot: rp.nothingToStep},
		{Key: bind.Pair(k.StepBack10, k.StepOn10, "pgup/pgdn"), Short: "ten", Run: moves(k.StepBack10, k.StepOn10, 10), WhyNot: rp.nothingToStep},
		{Key: bind.Pair(k.FirstEvent, k.LastEvent, "g/G"), Short: "first/last", Run: moves(k.FirstEvent, k.LastEvent, len(rp.events)), WhyNot: rp.nothingToStep},
		{Key: k.LeaveReplay, Short: "leave replay", Run: func(tea.KeyMsg) step { return step{leave: true} }},
		{Key: k.Help, Short: "help", Run: func(tea.KeyMsg) step { return step{pass: true} }},
		// q leaves; ctrl+c still quits, asking first as everywhere.
		{Key: bind.New([]string{"ctrl+c"}, "ctrl+c", k.Quit.Help().Desc), Run: func(tea.KeyMsg) step { return step{pass: true} }},
	}
}

// nothingToStep says why the steps do nothing: the journal is not read yet, could not be, or
// is empty.
func (rp *Model) nothingToStep() string {
	switch {
	case rp.loading:
		return "reading the journal of " + rp.taskID + "…"
	case len(rp.events) > 0:
		return ""
	case rp.err != nil:
		return "reading the journal failed: nothing to step through"
	}
	return "the journal of " + rp.taskID + " is empty"
}

// move steps by events (back when negative), stopping at either end; at the end already, it
// says so.
func (rp *Model) move(by int) step {
	switch {
	case by < 0 && rp.cur == 0:
		return step{status: "the first event: nothing before it"}
	case by > 0 && rp.cur == len(rp.events)-1:
		return step{status: "the last event the journal held when the replay opened"}
	}
	rp.seek(rp.cur + by)
	return step{}
}

// Footer is the replay's keys that do something now, each with its word for the footer.
func (rp *Model) Footer() []key.Binding { return rp.table().Footer() }

// Help is the replay's group in the full help: every key it takes.
func (rp *Model) Help() bind.Group { return bind.Group{Title: "Replay", Bindings: rp.table().Help()} }

// HelpGroup is the replay's help group before any replay is open, for the full help.
func HelpGroup(k bind.KeyMap) bind.Group { return (&Model{opts: Options{Keys: k}}).Help() }

// key moves through the journal, or says what the root should do. Every other key is the
// replay's too, and does nothing: the replay takes the whole body while it is open.
func (rp *Model) key(msg tea.KeyMsg) (tea.Cmd, Result) {
	s, why, found := rp.table().Dispatch(msg)
	switch {
	case !found:
		return nil, Result{}
	case why != "":
		return nil, Result{Status: why}
	case s.leave:
		if len(rp.events) >= bigReplay {
			// A long journal held tens of MB; give them back now rather than whenever the
			// runtime's scavenger gets to them, since the dashboard stays open for hours.
			return func() tea.Msg { debug.FreeOSMemory(); return nil }, Result{Leave: true}
		}
		return nil, Result{Leave: true}
	}
	return nil, Result{Pass: s.pass, Status: s.status}
}

// Update takes a key, or the journal read for the replay.
func (rp *Model) Update(msg tea.Msg) (*Model, tea.Cmd, Result) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		cmd, res := rp.key(msg)
		return rp, cmd, res
	case LoadedMsg:
		rp.load(msg)
	}
	return rp, nil, Result{}
}
