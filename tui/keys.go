package tui

import (
	"github.com/charmbracelet/bubbles/key"
)

// KeyMap is every binding of the dashboard, grouped by where it applies. Each binding carries its
// help text; the footer and the `?` screen are drawn from this data alone.
type KeyMap struct {
	// Anywhere outside a dialog.
	Up, Down, NextView, PrevView, EventsView, DiffView, ContractView key.Binding
	ChecksView, Replay                                               key.Binding
	PageUp, PageDown, Top, Bottom                                    key.Binding
	ToggleAll, NewTask, Steer, Finalize, Cancel, Close, Resume       key.Binding
	ShowPending, Refresh, Help, Quit, Suspend                        key.Binding
	Grants, Apply                                                    key.Binding

	// Events view.
	PrevItem, NextItem, Expand key.Binding
	// Events view and the checks' log.
	Search, NextMatch, PrevMatch, Filter key.Binding

	// Checks view.
	PrevCheck, NextCheck key.Binding

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
}

func bind(keys []string, helpKey, helpText string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(helpKey, helpText))
}

// DefaultKeyMap is the dashboard's key map.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:           bind([]string{"up", "k"}, "↑/k", "previous task"),
		Down:         bind([]string{"down", "j"}, "↓/j", "next task"),
		NextView:     bind([]string{"tab"}, "tab", "next detail view"),
		PrevView:     bind([]string{"shift+tab"}, "shift+tab", "previous detail view"),
		EventsView:   bind([]string{"1"}, "1", "events view"),
		DiffView:     bind([]string{"2"}, "2", "diff view"),
		ContractView: bind([]string{"3"}, "3", "contract and evidence view"),
		ChecksView:   bind([]string{"4"}, "4", "checks: the last finalize's verification and their logs"),
		Replay:       bind([]string{"p"}, "p", "replay the task from its journal"),
		PageUp:       bind([]string{"pgup", "ctrl+u", "b"}, "pgup/b", "scroll the detail up a page"),
		PageDown:     bind([]string{"pgdown", "ctrl+d", " "}, "pgdn/space", "scroll the detail down a page"),
		Top:          bind([]string{"home", "g"}, "g/home", "scroll to the top"),
		Bottom:       bind([]string{"end", "G"}, "G/end", "scroll to the bottom (follow live events)"),
		ToggleAll:    bind([]string{"A"}, "A", "toggle active / all tasks"),
		NewTask:      bind([]string{"n"}, "n", "start a new task from a contract file"),
		Steer:        bind([]string{"s"}, "s", "steer the worker (a repair round when in review)"),
		Finalize:     bind([]string{"F"}, "F", "finalize the reviewed task into one commit"),
		Cancel:       bind([]string{"x"}, "x", "cancel the task (asks first)"),
		Close:        bind([]string{"X"}, "X", "close the task (asks first)"),
		Resume:       bind([]string{"r"}, "r", "resume a paused task"),
		ShowPending:  bind([]string{"i"}, "i", "open the next request waiting for you"),
		Refresh:      bind([]string{"ctrl+r"}, "ctrl+r", "reload tasks and detail"),
		Help:         bind([]string{"?"}, "?", "full help"),
		Quit:         bind([]string{"q", "ctrl+c"}, "q", "quit"),
		Suspend:      bind([]string{"ctrl+z"}, "ctrl+z", "suspend to the shell (fg comes back); tasks stop waiting for you meanwhile"),
		Grants:       bind([]string{"P"}, "P", "standing grants: commands allowed for a repository (d revokes)"),
		Apply:        bind([]string{"L"}, "L", "land a completed task: cherry-pick its commit onto its checkout's branch (asks first; never pushes)"),

		PrevItem: bind([]string{"["}, "[", "previous tool call or decision"),
		NextItem: bind([]string{"]"}, "]", "next tool call or decision"),
		Expand:   bind([]string{"enter"}, "enter", "expand / fold the selected entry"),

		Search:    bind([]string{"/"}, "/", "search (enter keeps, esc goes back)"),
		NextMatch: bind([]string{"n"}, "n", "next match (while a search is kept)"),
		PrevMatch: bind([]string{"N"}, "N", "previous match, reading older events from the journal (while a search is kept)"),
		Filter:    bind([]string{"f"}, "f", "filter: agent text, tools, decisions, states, interactions, all"),

		PrevCheck: bind([]string{"["}, "[", "previous check"),
		NextCheck: bind([]string{"]"}, "]", "next check"),

		StepBack:    bind([]string{"left", "h"}, "←/h", "one event back"),
		StepOn:      bind([]string{"right", "l"}, "→/l", "one event on"),
		StepBack10:  bind([]string{"pgup"}, "pgup", "ten events back"),
		StepOn10:    bind([]string{"pgdown"}, "pgdn", "ten events on"),
		FirstEvent:  bind([]string{"g", "home"}, "g/home", "first event"),
		LastEvent:   bind([]string{"G", "end"}, "G/end", "last event"),
		LeaveReplay: bind([]string{"esc", "q", "p"}, "esc", "leave the replay"),

		NextHunk:     bind([]string{"]"}, "]", "next hunk"),
		PrevHunk:     bind([]string{"["}, "[", "previous hunk"),
		NextFile:     bind([]string{"}", "."}, "}/.", "next file"),
		PrevFile:     bind([]string{"{", ","}, "{/,", "previous file"),
		Reviewed:     bind([]string{"v"}, "v", "mark the file reviewed / not reviewed"),
		LineDown:     bind([]string{"J", "shift+down"}, "J/shift+↓", "select the next diff line"),
		LineUp:       bind([]string{"K", "shift+up"}, "K/shift+↑", "select the previous diff line"),
		OpenFile:     bind([]string{"enter"}, "enter", "open / collapse a large or generated file"),
		SideBySide:   bind([]string{"w"}, "w", "side by side / unified (≥160 columns)"),
		Comment:      bind([]string{"c"}, "c", "comment the selected line (again: edit or delete it)"),
		SendComments: bind([]string{"C"}, "C", "send the open comments as one repair round"),
		Copy:         bind([]string{"y"}, "y", "copy the cherry-pick line after a commit, else the file path (OSC 52)"),
		Editor:       bind([]string{"e"}, "e", "open the reviewed file at the line in $EDITOR (read-only copy)"),
		Wrap:         bind([]string{"W"}, "W", "wrap long lines / scroll them sideways (kept for the session)"),
		ScrollLeft:   bind([]string{"left", "h"}, "←/h", "scroll the code left (lines not wrapped)"),
		ScrollRight:  bind([]string{"right", "l"}, "→/l", "scroll the code right (lines not wrapped)"),
		HideFiles:    bind([]string{"z"}, "z", "hide / show the file list, giving the code the width"),

		AllowOnce:    bind([]string{"a"}, "a", "allow once"),
		AllowSession: bind([]string{"S"}, "S", "allow for the session (when offered)"),
		AllowRepo:    bind([]string{"R"}, "R", "allow this exact command (argv and cwd) for the repository from now on (a standing grant)"),
		Deny:         bind([]string{"d"}, "d", "deny"),
		Option:       bind([]string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}, "1-9", "select a question's numbered option (↑/↓ too); enter answers with it"),
		FreeText:     bind([]string{"t"}, "t", "type a free-text answer (when allowed)"),
		Later:        bind([]string{"esc"}, "esc", "answer later (i brings it back)"),

		FocusNext: bind([]string{"tab", "down"}, "tab", "next field"),
		FocusPrev: bind([]string{"shift+tab", "up"}, "shift+tab", "previous field"),
		Toggle:    bind([]string{" "}, "space", "tick / untick, switch lane"),
		Submit:    bind([]string{"ctrl+s", "enter"}, "enter/ctrl+s", "submit"),
		AckRisks:  bind([]string{"ctrl+o"}, "ctrl+o", "acknowledge the review's risks (finalize)"),
		Yes:       bind([]string{"y"}, "y", "yes"),
		No:        bind([]string{"n", "esc"}, "n/esc", "no"),
		Dismiss:   bind([]string{"esc", "enter", "q"}, "esc", "close"),
	}
}

// helpGroup is one titled section of the full help screen.
type helpGroup struct {
	Title    string
	Bindings []key.Binding
}

func (k KeyMap) groups() []helpGroup {
	return []helpGroup{
		{"Tasks", []key.Binding{k.Up, k.Down, k.ToggleAll, k.NewTask, k.Steer, k.Finalize, k.Apply, rebaseKey, k.Resume, k.Cancel, k.Close, k.ShowPending, k.Grants, k.Refresh, k.Help, k.Quit, k.Suspend}},
		{"Detail", []key.Binding{k.NextView, k.PrevView, k.EventsView, k.DiffView, k.ContractView, k.ChecksView, k.Replay, k.PageUp, k.PageDown, k.Top, k.Bottom}},
		{"Events", []key.Binding{k.PrevItem, k.NextItem, k.Expand}},
		{"Find (events, check logs and the diff: n/N go across files)", []key.Binding{k.Search, k.NextMatch, k.PrevMatch, k.Filter}},
		{"Checks", []key.Binding{k.PrevCheck, k.NextCheck, dropCheckKey}},
		{"Replay", []key.Binding{k.StepBack, k.StepOn, k.StepBack10, k.StepOn10, k.FirstEvent, k.LastEvent, k.LeaveReplay}},
		{"Diff", []key.Binding{k.NextHunk, k.PrevHunk, k.NextFile, k.PrevFile, k.Reviewed, k.LineDown, k.LineUp,
			k.OpenFile, k.SideBySide, k.Wrap, k.ScrollLeft, k.ScrollRight, k.HideFiles, k.Comment, k.SendComments, k.Copy, k.Editor}},
		{"Prompt", []key.Binding{k.AllowOnce, k.AllowSession, k.AllowRepo, k.Deny, k.Option, k.FreeText, k.Later}},
		{"Forms", []key.Binding{k.FocusNext, k.FocusPrev, k.Toggle, k.Submit, k.AckRisks, excuseKey, k.Yes, k.No, k.Dismiss}},
	}
}

// hint is b with a shorter description, for the footer.
func hint(b key.Binding, desc string) key.Binding {
	return bind(b.Keys(), b.Help().Key, desc)
}

// eventKeys are the events pane's bindings, taken from the key map so help and footer agree.
func (k KeyMap) eventKeys() EventKeys {
	return EventKeys{PageUp: k.PageUp, PageDown: k.PageDown, Top: k.Top, Bottom: k.Bottom,
		PrevItem: k.PrevItem, NextItem: k.NextItem, Expand: k.Expand,
		Search: k.Search, NextMatch: k.NextMatch, PrevMatch: k.PrevMatch, Filter: k.Filter,
		ClearSearch: bind([]string{"esc"}, "esc", "clear the search")}
}
