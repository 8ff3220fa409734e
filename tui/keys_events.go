package tui

import "reasonixctl/tui/bind"

// eventKeys are the events pane's bindings, taken from the key map so help and footer agree.
func eventKeys(k bind.KeyMap) EventKeys {
	return EventKeys{PageUp: k.PageUp, PageDown: k.PageDown, Top: k.Top, Bottom: k.Bottom,
		PrevItem: k.PrevItem, NextItem: k.NextItem, Expand: k.Expand,
		Search: k.Search, NextMatch: k.NextMatch, PrevMatch: k.PrevMatch, Filter: k.Filter,
		ClearSearch: bind.New([]string{"esc"}, "esc", "clear the search")}
}
