package bind

import (
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
)

// KeyMap is every key of the dashboard, grouped by where it applies. Each binding carries its
// help text; the footer and the `?` screen are drawn from this data alone.
type KeyMap struct {
	// Anywhere outside a dialog.
	Up, Down, NextView, PrevView, EventsView, DiffView, ContractView key.Binding
	ChecksView, Replay                                               key.Binding
	PageUp, PageDown, Top, Bottom                                    key.Binding
	ToggleAll, NewTask, Steer, Finalize, Cancel, Close, Resume       key.Binding
	ShowPending, Refresh, Help, Quit, Suspend                        key.Binding
	Grants, Apply, Rebase                                            key.Binding

	// Events view.
	PrevItem, NextItem, Expand key.Binding
	// Events view and the checks' log.
	Search, NextMatch, PrevMatch, Filter key.Binding

	// Checks view.
	PrevCheck, NextCheck, DropCheck key.Binding

	// Replay.
	StepBack, StepOn, StepBack10, StepOn10, FirstEvent, LastEvent, LeaveReplay key.Binding

	// Diff view.
	NextHunk, PrevHunk, NextFile, PrevFile, Reviewed key.Binding
	LineUp, LineDown, OpenFile, SideBySide           key.Binding
	Comment, SendComments, Copy, Editor              key.Binding
	Wrap, ScrollLeft, ScrollRight, HideFiles         key.Binding

	// Permission / question prompt. Only these keys answer: no aliases, and enter never allows.
	AllowOnce, AllowSession, Deny, Option, FreeText, Later key.Binding
	AllowRepo                                              key.Binding

	// Forms and confirmations.
	FocusNext, FocusPrev, Toggle, Submit, Yes, No, Dismiss key.Binding
	// AckRisks acknowledges, in the finalize form, the risks the review found in the diff.
	AckRisks key.Binding
	// Excuse, in the finalize form, excuses the last attempt's pre-existing failures.
	Excuse key.Binding

	// The checks tab's log search.
	// ClearSearch clears a kept search (n and N then act as elsewhere again).
	ClearSearch key.Binding
	// Dialogs: keys a dialog reads that no binding above names on their own.
	//
	// Back leaves a form, or the prompt's typed answer, sending nothing.
	Back key.Binding
	// StepOption and Choose select a question's option and answer with it.
	StepOption, Choose key.Binding
	// Draft, EditContract and SwitchLane are the new-task form's.
	Draft, EditContract, SwitchLane key.Binding
}

func New(keys []string, helpKey, helpText string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(helpKey, helpText))
}

// DefaultKeyMap is the dashboard's key map.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:           New([]string{"up", "k"}, "↑/k", "previous task"),
		Down:         New([]string{"down", "j"}, "↓/j", "next task"),
		NextView:     New([]string{"tab"}, "tab", "next detail view"),
		PrevView:     New([]string{"shift+tab"}, "shift+tab", "previous detail view"),
		EventsView:   New([]string{"1"}, "1", "events view"),
		DiffView:     New([]string{"2"}, "2", "diff view"),
		ContractView: New([]string{"3"}, "3", "contract and evidence view"),
		ChecksView:   New([]string{"4"}, "4", "checks: the last finalize's verification and their logs"),
		Replay:       New([]string{"p"}, "p", "replay the task from its journal"),
		PageUp:       New([]string{"pgup", "ctrl+u", "b"}, "pgup/b", "scroll the detail up a page"),
		PageDown:     New([]string{"pgdown", "ctrl+d", " "}, "pgdn/space", "scroll the detail down a page"),
		Top:          New([]string{"home", "g"}, "g/home", "scroll to the top"),
		Bottom:       New([]string{"end", "G"}, "G/end", "scroll to the bottom (follow live events)"),
		ToggleAll:    New([]string{"A"}, "A", "toggle active / all tasks"),
		NewTask:      New([]string{"n"}, "n", "start a new task from a contract file"),
		Steer:        New([]string{"s"}, "s", "steer the worker (a repair round when in review)"),
		Finalize:     New([]string{"F"}, "F", "finalize the reviewed task into one commit"),
		Cancel:       New([]string{"x"}, "x", "cancel the task (asks first)"),
		Close:        New([]string{"X"}, "X", "close the task (asks first)"),
		Resume:       New([]string{"r"}, "r", "resume a paused task"),
		ShowPending:  New([]string{"i"}, "i", "open the next request waiting for you"),
		Refresh:      New([]string{"ctrl+r"}, "ctrl+r", "reload tasks and detail"),
		Help:         New([]string{"?"}, "?", "full help"),
		Quit:         New([]string{"q", "ctrl+c"}, "q", "quit"),
		Suspend:      New([]string{"ctrl+z"}, "ctrl+z", "suspend to the shell (fg comes back); tasks stop waiting for you meanwhile"),
		Grants:       New([]string{"P"}, "P", "standing grants: commands allowed for a repository (d revokes)"),
		Rebase:       New([]string{"M"}, "M", "move a task in review whose change conflicts with HEAD onto it (a repair round resolves the markers)"),
		Apply:        New([]string{"L"}, "L", "land a completed task: cherry-pick its commit onto its checkout's branch (asks first; never pushes)"),

		PrevItem: New([]string{"["}, "[", "previous tool call or decision"),
		NextItem: New([]string{"]"}, "]", "next tool call or decision"),
		Expand:   New([]string{"enter"}, "enter", "expand / fold the selected entry"),

		Search:    New([]string{"/"}, "/", "search (enter keeps, esc goes back)"),
		NextMatch: New([]string{"n"}, "n", "next match (while a search is kept)"),
		PrevMatch: New([]string{"N"}, "N", "previous match, reading older events from the journal (while a search is kept)"),
		Filter:    New([]string{"f"}, "f", "filter: agent text, tools, decisions, states, interactions, all"),

		PrevCheck: New([]string{"["}, "[", "previous check"),
		NextCheck: New([]string{"]"}, "]", "next check"),
		DropCheck: New([]string{"D"}, "D", "drop this check from the contract"),

		StepBack:    New([]string{"left", "h"}, "←/h", "one event back"),
		StepOn:      New([]string{"right", "l"}, "→/l", "one event on"),
		StepBack10:  New([]string{"pgup"}, "pgup", "ten events back"),
		StepOn10:    New([]string{"pgdown"}, "pgdn", "ten events on"),
		FirstEvent:  New([]string{"g", "home"}, "g/home", "first event"),
		LastEvent:   New([]string{"G", "end"}, "G/end", "last event"),
		LeaveReplay: New([]string{"esc", "q", "p"}, "esc", "leave the replay"),

		NextHunk:     New([]string{"]"}, "]", "next hunk"),
		PrevHunk:     New([]string{"["}, "[", "previous hunk"),
		NextFile:     New([]string{"}", "."}, "}/.", "next file"),
		PrevFile:     New([]string{"{", ","}, "{/,", "previous file"),
		Reviewed:     New([]string{"v"}, "v", "mark the file reviewed / not reviewed"),
		LineDown:     New([]string{"J", "shift+down"}, "J/shift+↓", "select the next diff line"),
		LineUp:       New([]string{"K", "shift+up"}, "K/shift+↑", "select the previous diff line"),
		OpenFile:     New([]string{"enter"}, "enter", "open / collapse a large or generated file"),
		SideBySide:   New([]string{"w"}, "w", "side by side / unified (≥160 columns)"),
		Comment:      New([]string{"c"}, "c", "comment the selected line (again: edit or delete it)"),
		SendComments: New([]string{"C"}, "C", "send the open comments as one repair round"),
		Copy:         New([]string{"y"}, "y", "copy the cherry-pick line after a commit, else the file path (OSC 52)"),
		Editor:       New([]string{"e"}, "e", "open the reviewed file at the line in $EDITOR (read-only copy)"),
		Wrap:         New([]string{"W"}, "W", "wrap long lines / scroll them sideways (kept for the session)"),
		ScrollLeft:   New([]string{"left", "h"}, "←/h", "scroll the code left (lines not wrapped)"),
		ScrollRight:  New([]string{"right", "l"}, "→/l", "scroll the code right (lines not wrapped)"),
		HideFiles:    New([]string{"z"}, "z", "hide / show the file list, giving the code the width"),

		AllowOnce:    New([]string{"a"}, "a", "allow once"),
		AllowSession: New([]string{"S"}, "S", "allow for the session (when offered)"),
		AllowRepo:    New([]string{"R"}, "R", "allow this exact command (argv and cwd) for the repository from now on (a standing grant)"),
		Deny:         New([]string{"d"}, "d", "deny"),
		Option:       New([]string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}, "1-9", "select a question's numbered option (↑/↓ too); enter answers with it"),
		FreeText:     New([]string{"t"}, "t", "type a free-text answer (when allowed)"),
		Later:        New([]string{"esc"}, "esc", "answer later (i brings it back)"),

		FocusNext: New([]string{"tab", "down"}, "tab", "next field"),
		FocusPrev: New([]string{"shift+tab", "up"}, "shift+tab", "previous field"),
		Toggle:    New([]string{" "}, "space", "tick / untick, switch lane or worker"),
		Submit:    New([]string{"ctrl+s", "enter"}, "enter/ctrl+s", "submit"),
		Excuse:    New([]string{"ctrl+x"}, "ctrl+x", "excuse pre-existing failures"),
		AckRisks:  New([]string{"ctrl+o"}, "ctrl+o", "acknowledge the review's risks (finalize)"),
		Yes:       New([]string{"y"}, "y", "yes"),
		No:        New([]string{"n", "esc"}, "n/esc", "no"),
		Dismiss:   New([]string{"esc", "enter", "q"}, "esc", "close"),

		ClearSearch:  New([]string{"esc"}, "esc", "clear the kept search"),
		Back:         New([]string{"esc"}, "esc", "cancel: close the form, or stop typing an answer, sending nothing"),
		StepOption:   New([]string{"up", "down"}, "↑/↓", "select the previous / next option"),
		Choose:       New([]string{"enter"}, "enter", "answer with the selected option, or send the typed answer"),
		Draft:        New([]string{"ctrl+d"}, "ctrl+d", "draft a contract from the repository's toolchains (new task)"),
		EditContract: New([]string{"ctrl+e"}, "ctrl+e", "open the contract in $EDITOR (new task)"),
		SwitchLane:   New([]string{"left", "right"}, "←/→", "switch lane, cycle worker (new task)"),
	}
}

// Group is one titled section of the full help screen.
type Group struct {
	Title    string
	Bindings []key.Binding
}

// hint is b with a shorter description, for the footer.
func Hint(b key.Binding, desc string) key.Binding {
	return New(b.Keys(), b.Help().Key, desc)
}

// ScrollViewport pages a viewport with the detail keys: page up and down, top and bottom.
func ScrollViewport(vp *viewport.Model, msg tea.KeyMsg, k KeyMap) {
	switch {
	case key.Matches(msg, k.PageDown):
		vp.PageDown()
	case key.Matches(msg, k.PageUp):
		vp.PageUp()
	case key.Matches(msg, k.Top):
		vp.GotoTop()
	case key.Matches(msg, k.Bottom):
		vp.GotoBottom()
	}
}
