package bind

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
)

// Only is b limited to some of its keys, its help naming just those: the dialog stack takes
// pgup and pgdn alone, not every key that pages the detail.
func Only(b key.Binding, keys ...string) key.Binding {
	return New(keys, strings.Join(keys, "/"), b.Help().Desc)
}
