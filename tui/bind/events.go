package bind

import "github.com/charmbracelet/bubbles/key"

// Pair is a and b as one binding, for keys the footer names with one word ("n/N next/prev
// match", "←/→ step"): the keys of either match it, helpKey shows them, and its help line is
// both of theirs.
func Pair(a, b key.Binding, helpKey string) key.Binding {
	keys := append(append([]string(nil), a.Keys()...), b.Keys()...)
	return New(keys, helpKey, a.Help().Desc+" / "+b.Help().Desc)
}
