package bind

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// Binding is one entry of a binding table: a key with its help, what it does, and why it does
// nothing right now. R is what running it gives the part that owns the table (a command for
// the root, a step for a tab).
type Binding[R any] struct {
	// Key is its keys and its line in the full help.
	Key key.Binding
	// Short is its word in the footer; empty keeps it out of the footer.
	Short string
	// Run does what the key does; it is called only when WhyNot has nothing to say.
	Run func(msg tea.KeyMsg) R
	// WhyNot says why the key does nothing now, in the words the person reads (core.WhyNot's
	// for a task action); nil or "" means it runs.
	WhyNot func() string
}

// Reason is why the key does nothing now, or "" when it runs.
func (b Binding[R]) Reason() string {
	if b.WhyNot == nil {
		return ""
	}
	return b.WhyNot()
}

// Table is the bindings of one part of the dashboard, in the order its help lists them; the
// first entry a key matches is the one it runs.
type Table[R any] []Binding[R]

// Dispatch runs the entry msg matches. found says an entry matched; why, when not empty, is
// why it did nothing.
func (t Table[R]) Dispatch(msg tea.KeyMsg) (out R, why string, found bool) {
	for _, b := range t {
		if !key.Matches(msg, b.Key) {
			continue
		}
		if why := b.Reason(); why != "" {
			return out, why, true
		}
		if b.Run != nil {
			out = b.Run(msg)
		}
		return out, "", true
	}
	return out, "", false
}

// Footer is the entries that have a footer word and would run now, each with that word.
func (t Table[R]) Footer() []key.Binding {
	var out []key.Binding
	for _, b := range t {
		if b.Short != "" && b.Reason() == "" {
			out = append(out, Hint(b.Key, b.Short))
		}
	}
	return out
}

// Help is every entry's key and help line, runnable now or not.
func (t Table[R]) Help() []key.Binding {
	out := make([]key.Binding, len(t))
	for i, b := range t {
		out[i] = b.Key
	}
	return out
}
