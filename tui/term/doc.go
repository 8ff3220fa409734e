// Package term is the dashboard's terminal text: the theme every part draws with, the text
// helpers that measure and fit cells, the help lines drawn from key bindings, and the frame
// guard, the last step of every frame, which turns whatever control reached it into its visible
// form. It imports nothing of the dashboard's parts, so every part can use it.
package term
