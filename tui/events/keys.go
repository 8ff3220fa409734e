package events

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/tui/bind"
)

// keyStep is what one of the pane's keys did: pass hands the key on to the dashboard's own
// keys after all; status, when set, says why it did nothing.
type keyStep struct {
	pass   bool
	status string
}

// noEvents is why a key that moves through the events does nothing in an empty pane.
const noEvents = "no events yet"

// table is the pane's keys as they stand: n, N and esc are its keys only while a search is kept
// (n starts a new task otherwise, and esc is nobody's). all lists every key, for the help.
// The footer's words come from the entries' order: the matches first while a search is kept,
// then search, filter, item and expand.
func (p *Pane) table(all bool) bind.Table[keyStep] {
	k := &p.env.Keys
	s := &p.search
	var t bind.Table[keyStep]
	if all || s.query != "" {
		t = append(t,
			bind.Binding[keyStep]{Key: bind.Pair(k.NextMatch, k.PrevMatch, "n/N"), Short: "next/prev match",
				Run: func(msg tea.KeyMsg) keyStep {
					if key.Matches(msg, k.PrevMatch) {
						p.nextMatch(-1)
					} else {
						p.nextMatch(1)
					}
					return keyStep{}
				},
				WhyNot: func() string {
					if s.seeking {
						return "already looking for an older match · esc stops"
					}
					return ""
				}},
			bind.Binding[keyStep]{Key: k.ClearSearch, Run: func(tea.KeyMsg) keyStep {
				if s.seeking {
					// Stop looking further back; the window and the search stay.
					s.stopSeek()
				} else {
					s.clear()
				}
				return keyStep{}
			}},
		)
	}
	return append(t,
		bind.Binding[keyStep]{Key: k.Search, Short: "search", Run: func(tea.KeyMsg) keyStep { p.startSearch(); return keyStep{} }},
		bind.Binding[keyStep]{Key: k.Filter, Short: "filter", Run: func(tea.KeyMsg) keyStep { p.cycleFilter(); return keyStep{} }},
		bind.Binding[keyStep]{Key: k.PrevItem, Run: func(tea.KeyMsg) keyStep { return p.selectItem(-1) }},
		bind.Binding[keyStep]{Key: k.NextItem, Short: "item", Run: func(tea.KeyMsg) keyStep { return p.selectItem(1) }},
		bind.Binding[keyStep]{Key: k.Expand, Short: "expand", Run: func(tea.KeyMsg) keyStep { return p.expand() }},
		bind.Binding[keyStep]{Key: k.PageUp, Run: func(tea.KeyMsg) keyStep { p.pageUp(); return keyStep{} },
			WhyNot: func() string {
				if p.empty() {
					return noEvents
				}
				return ""
			}},
		bind.Binding[keyStep]{Key: k.PageDown, Run: func(tea.KeyMsg) keyStep { p.pageDown(); return keyStep{} }},
		bind.Binding[keyStep]{Key: k.Top, Run: func(tea.KeyMsg) keyStep { p.toTop(); return keyStep{} }},
		bind.Binding[keyStep]{Key: k.Bottom, Run: func(tea.KeyMsg) keyStep { p.toBottom(); return keyStep{} }},
	)
}

// Footer is the pane's keys that do something now, each with its word for the footer.
func (p *Pane) Footer() []key.Binding { return p.table(false).Footer() }

// Help is the pane's group in the full help: every key it takes, whatever the state.
func (p *Pane) Help() bind.Group { return bind.Group{Title: "Events", Bindings: p.table(true).Help()} }

// key handles a key: while a search is typed every key is text (but ctrl+c); otherwise the
// table says whose it is. A key the pane took may ask for a page of the journal.
func (p *Pane) key(msg tea.KeyMsg) (tea.Cmd, Result) {
	var status string
	if p.search.typing {
		if !p.typeKey(msg) {
			return nil, Result{Pass: true}
		}
	} else {
		step, why, found := p.table(false).Dispatch(msg)
		switch {
		case !found || step.pass:
			return nil, Result{Pass: true}
		case why != "":
			return nil, Result{Status: why, IsErr: true}
		}
		status = step.status
	}
	p.edges()
	cmd, res := p.pageCmd()
	if status != "" {
		res.Status, res.IsErr = status, true
	}
	return cmd, res
}

// pageUp scrolls a page towards the oldest event, pinning the window.
func (p *Pane) pageUp() {
	p.pin()
	i, off := p.top(p.bodyHeight())
	i, off = p.up(i, off, p.page())
	a := p.posOf(i, off)
	p.anchor = &a
}

// pageDown scrolls a page towards the newest event; at the end it follows the live tail again,
// or, in a pane detached from it, asks for the page after.
func (p *Pane) pageDown() {
	if p.anchor == nil {
		return
	}
	i, off := p.top(p.bodyHeight())
	i, off, ok := p.down(i, off, p.page())
	if !ok || p.linesFrom(i, off, p.h) <= p.h-1 {
		if p.detached {
			// The newest lines kept are not the live tail: stay, and page forward.
			p.want = 1
			return
		}
		p.anchor = nil
		return
	}
	a := p.posOf(i, off)
	p.anchor = &a
}

// page is how far a page key scrolls: the window less two lines of context.
func (p *Pane) page() int { return max(p.h-2, 1) }

// toTop goes to the oldest event kept, and reads the journal's first page when it holds older
// ones.
func (p *Pane) toTop() {
	if p.hasOlder() && !p.loading {
		// The oldest event is in the journal, not the window: read the first page.
		p.search.stopSeek()
		p.want = -2
	}
	if p.empty() {
		return
	}
	p.anchor = &pos{id: p.entries[p.head].id}
}

// toBottom follows the live tail again, clearing the selection; a pane detached from the tail
// asks for it to be read again.
func (p *Pane) toBottom() {
	p.search.stopSeek()
	p.anchor, p.sel = nil, 0
	if p.detached {
		p.want = 2
	}
}

// expand opens or folds the selected entry.
func (p *Pane) expand() keyStep {
	i := p.selected()
	if i < 0 {
		return keyStep{status: "nothing selected: [ and ] select a tool call, decision or reasoning"}
	}
	e := p.entries[i]
	if e.kind == kindThought {
		if p.isOpen(e) {
			e.fold = foldClosed
		} else {
			e.fold = foldOpen
		}
	} else {
		e.open = !e.open
	}
	p.wrapAll(e)
	p.trim()
	p.reveal(e)
	return keyStep{}
}
