package events

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/tui/bind"
	"reasonixctl/tui/term"
)

// Journal is the part of the service a pane reads the journal through: Subscribe from a seq,
// ended once the pages it wants are read. It is called only inside commands.
type Journal interface {
	Subscribe(ctx context.Context, opts core.SubscribeOptions) (*core.Subscription, error)
}

// Env is what every events pane of the dashboard shares: how it draws, its keys, and where it
// reads the journal.
type Env struct {
	Theme term.Theme
	Keys  bind.KeyMap
	// Ctx ends every read of the journal when the dashboard ends; nil is context.Background.
	Ctx     context.Context
	Journal Journal
}

func (env *Env) ctx() context.Context {
	if env.Ctx == nil {
		return context.Background()
	}
	return env.Ctx
}

// Result is what the pane asks of the root after a message.
type Result struct {
	// Pass says the key is not the pane's: the dashboard's own keys have it.
	Pass bool
	// Reload asks for the newest window of the journal again (G in a pane detached from the
	// live stream): the root reads it with ReadTail, as it does for a task first shown.
	Reload bool
	// Status is a line for the header about the pane's task: why a key did nothing, or a read
	// of the journal that failed. IsErr shows it as an error.
	Status string
	IsErr  bool
}

// Update takes a key, or a page of the journal the pane asked for.
func (p *Pane) Update(msg tea.Msg) (*Pane, tea.Cmd, Result) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		cmd, res := p.key(msg)
		return p, cmd, res
	case PageMsg:
		return p, nil, p.paged(msg)
	case SearchPageMsg:
		cmd, res := p.searchPaged(msg)
		return p, cmd, res
	}
	return p, nil, Result{}
}

// View draws the pane in exactly h lines of w columns.
func (p *Pane) View(w, h int) string {
	p.setSize(w, h)
	return p.view()
}

// Empty says whether the pane shows nothing yet.
func (p *Pane) Empty() bool { return p.empty() }

// Following says whether the pane shows the live tail, not a place the reader scrolled to.
func (p *Pane) Following() bool { return p.following() }

// Filtered names the one kind of event the filter shows, or is "" when it shows them all.
func (p *Pane) Filtered() string {
	if p.filter == 0 {
		return ""
	}
	return p.filter.name()
}
